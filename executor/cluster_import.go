package executor

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/basaltdb/basalt/cluster"
)

// The import marker: a file in the data directory naming the slots an
// import is writing, from CLUSTER IMPORT ... 0 until the import succeeds
// or its data is dropped. A node killed during an import finds it when it
// starts again and drops the keys the import had written: they are only
// a part of the slots, which the source still owns and serves. (Kvrocks
// keeps them, unserved but counted by DBSIZE and listed by KEYS, until
// another import of the same slots.)
const importMarkerFile = "importing-slots"

func (e *Env) importMarker() string { return filepath.Join(e.Config.Dir.Get(), importMarkerFile) }

// MarkImport writes the marker of an import of r, on disk before the
// first imported key.
func (e *Env) MarkImport(r cluster.Range) error {
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

// UnmarkImport removes the marker: the import ended.
func (e *Env) UnmarkImport() error {
	if err := os.Remove(e.importMarker()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("import marker: %w", err)
	}
	return nil
}

// DropImport deletes what a failed import of r wrote, then its marker.
func (e *Env) DropImport(r cluster.Range) error {
	if err := e.Storage.DeleteSlots(SlotRange(r)); err != nil {
		return err
	}
	return e.UnmarkImport()
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
		return e.UnmarkImport()
	}
	if e.Cluster != nil {
		if _, self := e.Cluster.Snapshot(); self != nil && self.Role == cluster.Slave {
			return e.UnmarkImport()
		}
	}
	slog.Warn("dropping the keys of an import that did not finish", "slots", ranges[0].String())
	return e.DropImport(ranges[0])
}
