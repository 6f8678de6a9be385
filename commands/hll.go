package commands

import "github.com/basaltdb/basalt/types/hyperloglog"

// The HyperLogLog commands, on Kvrocks's segmented dense HyperLogLogs
// (types/hyperloglog), with Redis's registers and estimates.

func init() {
	register(
		&Command{Name: "pfadd", Arity: -2, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Handler: cmdPFAdd},
		&Command{Name: "pfcount", Arity: -2, Flags: ReadOnly, FirstKey: 1, LastKey: -1, Handler: cmdPFCount},
		&Command{Name: "pfmerge", Arity: -2, Flags: Write, FirstKey: 1, LastKey: -1, Handler: cmdPFMerge},
	)
	errorReplies = append(errorReplies,
		struct {
			err   error
			reply string
		}{hyperloglog.ErrNotHLL, "WRONGTYPE Key is not a valid HyperLogLog string value."},
	)
}

// PFADD key [element [element ...]]
func cmdPFAdd(c *Ctx) {
	changed, err := hyperloglog.Add(c.DB, c.Args[1], c.Args[2:])
	if c.ok(err) {
		c.intBool(changed)
	}
}

// PFCOUNT key [key ...]
func cmdPFCount(c *Ctx) {
	n, err := hyperloglog.Count(c.DB, c.Args[1:])
	if c.ok(err) {
		c.W.Int(n)
	}
}

// PFMERGE destkey [sourcekey [sourcekey ...]]
func cmdPFMerge(c *Ctx) {
	if err := hyperloglog.Merge(c.DB, c.Args[1], c.Args[2:]); c.ok(err) {
		c.W.OK()
	}
}
