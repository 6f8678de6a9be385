package commands

import (
	"github.com/basaltdb/basalt/cluster"
	"github.com/basaltdb/basalt/executor"
)

// CLUSTER IMPORT slot|a-b 0|1|2
//
// A migrating node sends it: 0 starts an import over this connection (the range is emptied
// first), 1 ends it, 2 fails it and drops what was imported. As in
// Kvrocks, of several ranges only the first counts.
func clusterImport(c *executor.Ctx) {
	if len(c.Args) != 4 {
		c.ErrorString("ERR wrong number of arguments")
		return
	}
	cl := c.Env.Cluster
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
			if err = e.MarkImport(r); err == nil {
				err = e.Storage.DeleteSlots(executor.SlotRange(r))
			}
			if err != nil {
				// Taken but not begun: failed, so that another may start.
				cl.ImportBroken(c.Session.ID)
			}
		}
		c.Session.Importing = err == nil
	case 1:
		if err = cl.Import(r, cluster.StateSuccess, c.Session.ID); err == nil {
			err = e.UnmarkImport()
		}
		c.Session.Importing = false
	case 2:
		if err = cl.Import(r, cluster.StateError, c.Session.ID); err == nil {
			err = e.DropImport(r)
		}
		c.Session.Importing = false
	}
	clusterOK(c, err)
}
