package commands

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/basaltdb/basalt/cluster"
)

// clusterImport runs CLUSTER IMPORT slot|a-b 0|1|2, which a migrating node
// sends: 0 starts an import over this connection (the range is emptied
// first), 1 ends it, 2 fails it and drops what was imported. As in
// Kvrocks, of several ranges only the first counts.
func clusterImport(c *Ctx, cl *cluster.Cluster) {
	ranges, ok := parseSlotRanges(c, c.Args[2])
	if !ok {
		return
	}
	r := ranges[0]
	state, err := cluster.ParseInt(string(c.Args[3]), 0, 2)
	if err != nil {
		c.ErrorString("ERR Invalid import state")
		return
	}
	e := c.Env
	switch state {
	case 0:
		// The checks come first: the range is emptied only for an import
		// this node takes.
		if err = cl.Import(r, cluster.StateStart, c.Session.ID); err == nil {
			if err = e.markImport(r); err == nil {
				err = e.Storage.DeleteSlots(slotRange(r))
			}
			if err != nil {
				// Taken but not begun: failed, so that another may start.
				cl.ImportBroken(c.Session.ID)
			}
		}
		c.Session.Importing = err == nil
	case 1:
		if err = cl.Import(r, cluster.StateSuccess, c.Session.ID); err == nil {
			err = e.unmarkImport()
		}
		c.Session.Importing = false
	case 2:
		if err = cl.Import(r, cluster.StateError, c.Session.ID); err == nil {
			err = e.dropImport(r)
		}
		c.Session.Importing = false
	}
	c.clusterOK(err)
}

// The import marker: a file in the data directory naming the slots an
// import is writing, from CLUSTER IMPORT ... 0 until the import succeeds
// or its data is dropped. A node killed during an import finds it when it
// starts again and drops the keys the import had written: they are only
// a part of the slots, which the source still owns and serves. (Kvrocks
// keeps them, unserved but counted by DBSIZE and listed by KEYS, until
// another import of the same slots.)
const importMarkerFile = "importing-slots"

func (e *Env) importMarker() string { return filepath.Join(e.Config.Dir.Get(), importMarkerFile) }

// markImport writes the marker of an import of r, on disk before the
// first imported key.
func (e *Env) markImport(r cluster.Range) error {
	f, err := os.Create(e.importMarker())
	if err != nil {
		return fmt.Errorf("import marker: %w", err)
	}
	_, err = f.WriteString(r.String() + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("import marker: %w", err)
	}
	return nil
}

// unmarkImport removes the marker: the import ended.
func (e *Env) unmarkImport() error {
	if err := os.Remove(e.importMarker()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("import marker: %w", err)
	}
	return nil
}

// dropImport deletes what a failed import of r wrote, then its marker.
func (e *Env) dropImport(r cluster.Range) error {
	if err := e.Storage.DeleteSlots(slotRange(r)); err != nil {
		return err
	}
	return e.unmarkImport()
}

// DropUnfinishedImport deletes, at start, the keys of an import the node
// was running when it stopped, which the marker names. A slave keeps its
// data, which follows its master's, and only forgets the marker; a
// marker that does not name slots is removed and logged.
func (e *Env) DropUnfinishedImport() error {
	text, err := os.ReadFile(e.importMarker())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("import marker: %w", err)
	}
	ranges, err := cluster.ParseSlotRanges(strings.TrimSpace(string(text)))
	if err != nil || len(ranges) != 1 {
		slog.Warn("an import marker that names no slot range: removed", "file", e.importMarker(), "content", string(text))
		return e.unmarkImport()
	}
	if e.Cluster != nil {
		if _, self := e.Cluster.Snapshot(); self != nil && self.Role == cluster.Slave {
			return e.unmarkImport()
		}
	}
	slog.Warn("dropping the keys of an import that did not finish", "slots", ranges[0].String())
	return e.dropImport(ranges[0])
}
