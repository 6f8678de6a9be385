package commands

import (
	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/types/hyperloglog"
)

// The HyperLogLog commands, on Kvrocks's segmented dense HyperLogLogs
// (types/hyperloglog), with Redis's registers and estimates.

func init() {
	executor.Register(
		&executor.Command{Name: "pfadd", Arity: -2, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdPFAdd,
			Events: &executor.KeyEvents{Class: config.NotifyString, Event: "pfadd", Shape: executor.OnEach}},
		&executor.Command{Name: "pfcount", Arity: -2, Flags: executor.ReadOnly, FirstKey: 1, LastKey: -1, Handler: cmdPFCount},
		&executor.Command{Name: "pfmerge", Arity: -2, Flags: executor.Write, FirstKey: 1, LastKey: -1, Handler: cmdPFMerge,
			Events: &executor.KeyEvents{Class: config.NotifyString, Event: "pfadd", Shape: executor.OnStore, Dest: executor.DestFirstKey, Reads: always}},
	)
	executor.AddErrorReply(hyperloglog.ErrNotHLL, "WRONGTYPE Key is not a valid HyperLogLog string value.")
}

// PFADD key [element [element ...]]
func cmdPFAdd(c *executor.Ctx) {
	changed, err := hyperloglog.Add(c.DB, c.Args[1], c.Args[2:])
	if c.OK(err) {
		c.IntBool(changed)
	}
}

// PFCOUNT key [key ...]
func cmdPFCount(c *executor.Ctx) {
	n, err := hyperloglog.Count(c.DB, c.Args[1:])
	if c.OK(err) {
		c.W.Int(n)
	}
}

// PFMERGE destkey [sourcekey [sourcekey ...]]
func cmdPFMerge(c *executor.Ctx) {
	if err := hyperloglog.Merge(c.DB, c.Args[1], c.Args[2:]); c.OK(err) {
		c.W.OK()
	}
}
