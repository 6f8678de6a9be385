package commands

import (
	"errors"
	"strconv"
	"time"

	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/storage"
)

func init() {
	executor.Register(
		&executor.Command{Name: "time", Arity: 1, Flags: executor.Fast | executor.Loading, Handler: cmdTime},
		&executor.Command{Name: "dbsize", Arity: -1, Flags: executor.ReadOnly, Handler: cmdDBSize},
		&executor.Command{Name: "flushdb", Arity: -1, Flags: executor.Write | executor.Exclusive | executor.NoDBSizeCheck, Handler: cmdFlushDB},
		&executor.Command{Name: "flushall", Arity: -1, Flags: executor.Write | executor.Admin | executor.Exclusive | executor.NoDBSizeCheck, Handler: cmdFlushAll},
		&executor.Command{Name: "shutdown", Arity: -1, Flags: executor.Admin | executor.NoMulti, Handler: cmdShutdown},
		&executor.Command{Name: "slowlog", Arity: -2, Flags: executor.Admin, Subcommands: slowlogSubcommands, Handler: cmdSlowlog},
		&executor.Command{Name: "info", Arity: -1, Flags: executor.Loading | executor.StaleOK, Handler: cmdInfo},
		&executor.Command{Name: "compact", Arity: 1, Flags: executor.Admin | executor.KvrocksOnly, Handler: cmdCompact,
			Meta: &executor.Meta{
				Doc: doc("summary", "Compacts the whole database (a manual RocksDB compaction)",
					"group", "server", "complexity", "O(N) where N is the size of the database"),
			}},
		&executor.Command{Name: "applybatch", Arity: -2, Flags: executor.Write | executor.Admin | executor.KvrocksOnly, Handler: cmdApplyBatch,
			Meta: &executor.Meta{
				Doc: doc("summary", "Applies a raw RocksDB write batch in Kvrocks's key encoding, as a replica applies the master's",
					"group", "server", "complexity", "O(N) where N is the number of records in the batch",
					"arguments", docArgs(docString("batch"), optional(docToken("lowpri", "LOWPRI")))),
			}},
	)
}

// APPLYBATCH batch [LOWPRI]
//
// Applies a raw RocksDB write batch, as a node migrating slots with
// migrate-type raw-key-value sends them; replies with the batch's size.
// A batch that is malformed or that RocksDB would refuse is answered with
// an error naming the record and what is wrong, and changes nothing. The
// clients waiting on the keys it changed learn of them from its records
// (written.go), not as a write of no key.
func cmdApplyBatch(c *executor.Ctx) {
	switch {
	case len(c.Args) > 3:
		c.ErrorString("ERR wrong number of arguments")
		return
	case len(c.Args) == 3 && !c.Is(2, "lowpri"):
		c.ErrorString("ERR only support LOWPRI option")
		return
	}
	var b *executor.AppliedBatch
	if _, err := c.Env.Storage.ApplyBatch(c.Args[1], func(records []storage.WALRecord) { b = c.Env.BatchApplying(records) }); err != nil {
		if errors.Is(err, storage.ErrBatchTooSmall) {
			c.ErrorString("ERR Corruption: malformed WriteBatch (too small)") // RocksDB's words, as Kvrocks replies them
			return
		}
		// Neither is worth a log line per batch: a bad batch is the
		// sender's, and storage logs the write that stopped RocksDB.
		if errors.Is(err, storage.ErrBadBatch) || errors.Is(err, storage.ErrWritesStopped) {
			c.ErrorString("ERR " + err.Error())
			return
		}
		c.Error(err)
		return
	}
	c.ChangesNoKey()
	c.Inv.Writer = c.Session
	c.Env.BatchApplied(b, c.Session, &c.Inv)
	c.W.Int(int64(len(c.Args[1])))
}

// TIME
func cmdTime(c *executor.Ctx) {
	now := time.Now()
	c.W.Array(2)
	c.W.BulkString(strconv.FormatInt(now.Unix(), 10))
	c.W.BulkString(strconv.FormatInt(int64(now.Nanosecond()/1000), 10))
}

// DBSIZE [SCAN]
//
// The count is exact: expired keys are not counted. DBSIZE SCAN, Kvrocks's
// request, starts a background walk that refreshes INFO keyspace.
func cmdDBSize(c *executor.Ctx) {
	switch {
	case len(c.Args) == 1:
		st, err := c.DB.Stats()
		if c.OK(err) {
			c.W.Int(st.Keys)
		}
	case len(c.Args) == 2 && c.Is(1, "scan"):
		c.Env.ScanKeyspace(c.DB.Namespace())
		c.W.OK()
	default:
		c.ErrorString("ERR DBSIZE subcommand only supports scan")
	}
}

// flushMode checks FLUSHDB/FLUSHALL's optional ASYNC or SYNC.
func flushMode(c *executor.Ctx) bool {
	if len(c.Args) == 1 || (len(c.Args) == 2 && (c.Is(1, "async") || c.Is(1, "sync"))) {
		return true
	}
	c.ErrorString(executor.ErrSyntax)
	return false
}

// FLUSHDB [ASYNC | SYNC]
func cmdFlushDB(c *executor.Ctx) {
	if !flushMode(c) {
		return
	}
	c.Env.StopMigration()
	if c.OK(c.DB.Flush()) {
		c.Flushed(false)
		c.W.OK()
	}
}

// FLUSHALL [ASYNC | SYNC]
func cmdFlushAll(c *executor.Ctx) {
	if !flushMode(c) {
		return
	}
	c.Env.StopMigration()
	if c.OK(c.Env.Storage.FlushAll()) {
		c.Flushed(true)
		c.W.OK()
	}
}

// COMPACT
//
// Compacts every column family through the compaction filters, which drop
// what deleted, overwritten and expired keys left behind, and replies once
// done.
func cmdCompact(c *executor.Ctx) {
	if c.OK(c.Env.Storage.Compact()) {
		c.W.OK()
	}
}

// SHUTDOWN [NOSAVE | SAVE] [NOW] [FORCE] [ABORT]
//
// Every acknowledged write is already in RocksDB's WAL, so SAVE and NOSAVE
// make no difference, except while a script is busy: SHUTDOWN NOSAVE
// then stops it, SHUTDOWN alone gets BUSY. On success there is no reply:
// the server closes.
func cmdShutdown(c *executor.Ctx) {
	nosave := false
	for i := 1; i < len(c.Args); i++ {
		switch {
		case c.Is(i, "nosave"):
			nosave = true
		case c.Is(i, "save"), c.Is(i, "now"), c.Is(i, "force"):
		case c.Is(i, "abort"):
			c.ErrorString("ERR No shutdown in progress.")
			return
		default:
			c.ErrorString(executor.ErrSyntax)
			return
		}
	}
	// A busy script may only be stopped with the data as it is.
	if busy := c.Env.Scripts.Busy(); busy != "" {
		if !nosave {
			c.ErrorString(busy)
			return
		}
		c.Env.Scripts.Abort()
	}
	c.Session.CloseAfterReply = true
	if c.Env.Shutdown != nil {
		go c.Env.Shutdown()
	}
}

// SLOWLOG GET [count] | LEN | RESET | HELP
func cmdSlowlog(c *executor.Ctx) {
	executor.DispatchSub(c)
}

var slowlogSubcommands = map[string]*executor.Subcommand{
	"get": {Arity: -2, Handler: func(c *executor.Ctx) {
		n := int64(10)
		if len(c.Args) == 3 {
			var ok bool
			if n, ok = num.ParseInt(c.Args[2]); !ok || n < -1 {
				c.ErrorString("ERR count should be greater than or equal to -1")
				return
			}
		} else if len(c.Args) > 3 {
			c.ErrorString("ERR wrong number of arguments for 'slowlog|get' command")
			return
		}
		entries := c.Env.Sessions.Slowlog.Newest(int(n))
		c.W.Array(len(entries))
		for _, e := range entries {
			c.W.Array(6)
			c.W.Int(e.ID)
			c.W.Int(e.At.Unix())
			c.W.Int(e.Duration.Microseconds())
			c.W.BulkStrings(e.Args)
			c.W.BulkString(e.Addr)
			c.W.BulkString(e.Name)
		}
	}},
	"len":   {Arity: 2, Handler: func(c *executor.Ctx) { c.W.Int(int64(c.Env.Sessions.Slowlog.Len())) }},
	"reset": {Arity: 2, Handler: func(c *executor.Ctx) { c.Env.Sessions.Slowlog.Reset(); c.W.OK() }},
	"help": executor.Help(
		"SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"GET [<count>]", "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
		"LEN", "    Return the length of the slowlog.",
		"RESET", "    Reset the slowlog.",
		"HELP", "    Print this help.",
	),
}
