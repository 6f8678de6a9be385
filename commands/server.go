package commands

import (
	"errors"
	"strconv"
	"time"

	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/storage"
)

func init() {
	register(
		&Command{Name: "time", Arity: 1, Flags: Fast | Loading, Handler: cmdTime},
		&Command{Name: "dbsize", Arity: -1, Flags: ReadOnly, Handler: cmdDBSize},
		&Command{Name: "flushdb", Arity: -1, Flags: Write | Exclusive, Handler: cmdFlushDB},
		&Command{Name: "flushall", Arity: -1, Flags: Write | Admin | Exclusive, Handler: cmdFlushAll},
		&Command{Name: "shutdown", Arity: -1, Flags: Admin | NoMulti, Handler: cmdShutdown},
		&Command{Name: "slowlog", Arity: -2, Flags: Admin, Handler: cmdSlowlog},
		&Command{Name: "info", Arity: -1, Flags: Loading, Handler: cmdInfo},
		&Command{Name: "compact", Arity: 1, Flags: Admin | KvrocksOnly, Handler: cmdCompact},
		&Command{Name: "applybatch", Arity: -2, Flags: Write | Admin | KvrocksOnly, Handler: cmdApplyBatch},
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
func cmdApplyBatch(c *Ctx) {
	switch {
	case len(c.Args) > 3:
		c.ErrorString("ERR wrong number of arguments")
		return
	case len(c.Args) == 3 && !c.is(2, "lowpri"):
		c.ErrorString("ERR only support LOWPRI option")
		return
	}
	var b *appliedBatch
	if _, err := c.Env.Storage.ApplyBatch(c.Args[1], func(records []storage.WALRecord) { b = c.Env.batchApplying(records) }); err != nil {
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
	c.changesNoKey()
	c.inv.Writer = c.Session
	c.Env.batchApplied(b, c.Session, &c.inv)
	c.W.Int(int64(len(c.Args[1])))
}

// TIME
func cmdTime(c *Ctx) {
	now := time.Now()
	c.W.Array(2)
	c.W.BulkString(strconv.FormatInt(now.Unix(), 10))
	c.W.BulkString(strconv.FormatInt(int64(now.Nanosecond()/1000), 10))
}

// DBSIZE [SCAN]
//
// The count is exact: expired keys are not counted. DBSIZE SCAN, Kvrocks's
// request, starts a background walk that refreshes INFO keyspace.
func cmdDBSize(c *Ctx) {
	switch {
	case len(c.Args) == 1:
		st, err := c.DB.Stats()
		if c.ok(err) {
			c.W.Int(st.Keys)
		}
	case len(c.Args) == 2 && c.is(1, "scan"):
		c.Env.scanKeyspace(c.DB.Namespace())
		c.W.OK()
	default:
		c.ErrorString("ERR DBSIZE subcommand only supports scan")
	}
}

// flushMode checks FLUSHDB/FLUSHALL's optional ASYNC or SYNC.
func flushMode(c *Ctx) bool {
	if len(c.Args) == 1 || (len(c.Args) == 2 && (c.is(1, "async") || c.is(1, "sync"))) {
		return true
	}
	c.ErrorString(errSyntax)
	return false
}

// FLUSHDB [ASYNC | SYNC]
func cmdFlushDB(c *Ctx) {
	if !flushMode(c) {
		return
	}
	c.Env.stopMigration()
	if c.ok(c.DB.Flush()) {
		c.flushed(false)
		c.W.OK()
	}
}

// FLUSHALL [ASYNC | SYNC]
func cmdFlushAll(c *Ctx) {
	if !flushMode(c) {
		return
	}
	c.Env.stopMigration()
	if c.ok(c.Env.Storage.FlushAll()) {
		c.flushed(true)
		c.W.OK()
	}
}

// COMPACT
//
// Compacts every column family through the compaction filters, which drop
// what deleted, overwritten and expired keys left behind, and replies once
// done.
func cmdCompact(c *Ctx) {
	if c.ok(c.Env.Storage.Compact()) {
		c.W.OK()
	}
}

// SHUTDOWN [NOSAVE | SAVE] [NOW] [FORCE] [ABORT]
//
// Every acknowledged write is already in RocksDB's WAL, so SAVE and NOSAVE
// make no difference, except while a script is busy: SHUTDOWN NOSAVE
// then stops it, SHUTDOWN alone gets BUSY. On success there is no reply:
// the server closes.
func cmdShutdown(c *Ctx) {
	nosave := false
	for i := 1; i < len(c.Args); i++ {
		switch {
		case c.is(i, "nosave"):
			nosave = true
		case c.is(i, "save"), c.is(i, "now"), c.is(i, "force"):
		case c.is(i, "abort"):
			c.ErrorString("ERR No shutdown in progress.")
			return
		default:
			c.ErrorString(errSyntax)
			return
		}
	}
	// A busy script may only be stopped with the data as it is.
	if busy := c.Env.scripts.Busy(); busy != "" {
		if !nosave {
			c.ErrorString(busy)
			return
		}
		c.Env.scripts.Abort()
	}
	c.Session.CloseAfterReply = true
	if c.Env.Shutdown != nil {
		go c.Env.Shutdown()
	}
}

// SLOWLOG GET [count] | LEN | RESET | HELP
func cmdSlowlog(c *Ctx) {
	dispatchSub(c, slowlogSubcommands)
}

var slowlogSubcommands = map[string]subcommand{
	"get": {-2, func(c *Ctx) {
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
	"len":   {2, func(c *Ctx) { c.W.Int(int64(c.Env.Sessions.Slowlog.Len())) }},
	"reset": {2, func(c *Ctx) { c.Env.Sessions.Slowlog.Reset(); c.W.OK() }},
	"help": help(
		"SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"GET [<count>]", "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
		"LEN", "    Return the length of the slowlog.",
		"RESET", "    Reset the slowlog.",
		"HELP", "    Print this help.",
	),
}
