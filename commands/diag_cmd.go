package commands

import (
	"runtime/debug"
	"strings"

	"github.com/basaltdb/basalt/executor"
)

func init() {
	executor.Register(
		&executor.Command{Name: "perflog", Arity: -2, Flags: executor.KvrocksOnly, Handler: cmdPerflog,
			Meta: &executor.Meta{
				Doc: doc("summary", "Returns the RocksDB perf contexts of sampled commands (PERFLOG GET [count] | LEN | RESET)",
					"group", "server", "complexity", "O(N) where N is the number of entries returned",
					"arguments", docArgs(docString("subcommand"), optional(docString("count")))),
			}},
		&executor.Command{Name: "stats", Arity: 1, Flags: executor.KvrocksOnly, Handler: cmdStats,
			Meta: &executor.Meta{
				Doc: doc("summary", "Returns RocksDB's statistics as JSON: tickers and histograms",
					"group", "server", "complexity", "O(1)"),
			}},
		&executor.Command{Name: "disk", Arity: 3, Flags: executor.ReadOnly | executor.KvrocksOnly, FirstKey: 2, LastKey: 2, Handler: cmdDisk,
			Meta: &executor.Meta{
				KeySpecs: []executor.KeySpec{{Flags: []string{"RO", "access"}, BeginSearch: "index", Index: 2, FindKeys: "range", LastKey: 0, KeyStep: 1}},
				Doc: doc("summary", "Returns RocksDB's estimate of the bytes a key takes on disk and in memtables (DISK USAGE key)",
					"group", "server", "complexity", "O(1)",
					"arguments", docArgs(docToken("usage", "USAGE"), docKey("key", 0))),
			}},
		&executor.Command{Name: "memory", Arity: -2, Flags: executor.ReadOnly | executor.NoTouch, Keys: memoryKeys, Subcommands: memorySubcommands, Handler: cmdMemory},
	)
}

// PERFLOG GET [count | *] | LEN | RESET
//
// The RocksDB perf and I/O contexts of sampled commands, newest first, as
// Kvrocks's: id, Unix time, command, microseconds, perf context, I/O
// context. GET shows 10 by default, every one for * or a count <= 0.
func cmdPerflog(c *executor.Ctx) {
	p := &c.Env.Perflog
	switch {
	case c.Is(1, "get"):
		n := int64(10)
		if len(c.Args) >= 3 {
			if string(c.Args[2]) == "*" {
				n = 0
			} else {
				var msg string
				if n, msg = kvrocksInt(string(c.Args[2]), -1<<63, 1<<63-1); msg != "" {
					c.ErrorString("ERR " + msg)
					return
				}
			}
		}
		entries := p.Latest(n)
		c.W.Array(len(entries))
		for _, e := range entries {
			c.W.Array(6)
			c.W.Int(e.ID)
			c.W.Int(e.At.Unix())
			c.W.BulkString(e.Name)
			c.W.Int(e.Duration.Microseconds())
			c.W.BulkString(e.Perf)
			c.W.BulkString(e.IOStats)
		}
	case c.Is(1, "len"):
		c.W.Int(int64(p.Len()))
	case c.Is(1, "reset"):
		p.Reset()
		c.W.OK()
	default:
		c.ErrorString("ERR PERFLOG subcommand must be one of RESET, LEN, GET")
	}
}

// STATS
//
// RocksDB's statistics as Kvrocks shows them: a JSON object of every
// ticker's count and every histogram's [P50, P95, P99, P100, COUNT, SUM].
func cmdStats(c *executor.Ctx) {
	c.W.BulkString(c.Env.Storage.StatisticsJSON())
}

// DISK USAGE key
//
// RocksDB's estimate of the bytes key takes in its memtables and SST
// files, as Kvrocks's; nil when key does not exist.
func cmdDisk(c *executor.Ctx) {
	if !c.Is(1, "usage") {
		c.ErrorString("ERR Unknown operation")
		return
	}
	c.IntOrNull(c.DB.DiskUsage(c.Args[2]))
}

// memoryKeys is MEMORY USAGE's key.
func memoryKeys(args [][]byte) [][]byte {
	if len(args) >= 3 && strings.EqualFold(string(args[1]), "usage") {
		return args[2:3]
	}
	return nil
}

// MEMORY USAGE key [SAMPLES count] | STATS | DOCTOR | MALLOC-STATS |
// PURGE | HELP
func cmdMemory(c *executor.Ctx) {
	executor.DispatchSub(c)
}

var memorySubcommands = map[string]*executor.Subcommand{
	"usage":        {Arity: -3, Handler: memoryUsage},
	"stats":        {Arity: 2, Handler: memoryStats},
	"doctor":       {Arity: 2, Handler: memoryDoctor},
	"malloc-stats": {Arity: 2, Handler: func(c *executor.Ctx) { c.W.Verbatim("Stats not supported for the current allocator") }},
	"purge":        {Arity: 2, Handler: func(c *executor.Ctx) { debug.FreeOSMemory(); c.W.OK() }},
	"help": executor.Help(
		"MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"DOCTOR",
		"    Return memory problems reports.",
		"MALLOC-STATS",
		"    Return internal statistics report from the memory allocator.",
		"PURGE",
		"    Attempt to purge dirty pages for reclamation by the allocator.",
		"STATS",
		"    Return information about the memory usage of the server.",
		"USAGE <key> [SAMPLES <count>]",
		"    Return memory in bytes used by <key> and its value. Nested values are",
		"    sampled up to <count> times (default: 5, 0 means sample all).",
		"HELP",
		"    Prints this help.",
	),
}

// MEMORY USAGE key [SAMPLES count]: the bytes of the key's records,
// sampling count elements of a collection (default 5, 0: all); nil when
// key does not exist.
func memoryUsage(c *executor.Ctx) {
	samples := int64(5)
	for i := 3; i < len(c.Args); i++ {
		if !c.Is(i, "samples") || i+1 == len(c.Args) {
			c.ErrorString(executor.ErrSyntax)
			return
		}
		var ok bool
		if samples, ok = c.Int(i + 1); !ok {
			return
		}
		if samples < 0 {
			c.ErrorString(executor.ErrSyntax)
			return
		}
		i++
	}
	c.IntOrNull(c.DB.MemoryUsage(c.Args[2], samples))
}

// MEMORY STATS: Redis 7.0's fields, from Basalt's figures: the Go heap
// and RocksDB's memtables and block cache are what is allocated; the
// buffers Redis counts apart (replication backlog, AOF, Lua) are 0
// here (the WAL is the backlog, on disk). The keys are counted as INFO
// keyspace counts them.
func memoryStats(c *executor.Ctx) {
	e := c.Env
	f := e.MemoryFigures()
	st, _, err := e.KeyspaceOf(c.DB.Namespace())
	if !c.OK(err) {
		return
	}
	overhead := f.Startup
	dataset := max(f.Allocated-overhead, 0)
	ratio := func(a, b int64) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) / float64(b)
	}
	perKey := int64(0)
	if st.Keys > 0 {
		perKey = dataset / st.Keys
	}
	w := c.W
	if st.Keys > 0 {
		w.Map(28)
	} else {
		w.Map(27) // no db.0, as Redis for an empty database
	}
	ints := func(pairs ...any) {
		for i := 0; i < len(pairs); i += 2 {
			w.BulkString(pairs[i].(string))
			w.Int(pairs[i+1].(int64))
		}
	}
	ints("peak.allocated", f.Peak, "total.allocated", f.Allocated, "startup.allocated", f.Startup,
		"replication.backlog", int64(0), "clients.slaves", int64(0), "clients.normal", int64(0),
		"cluster.links", int64(0), "aof.buffer", int64(0), "lua.caches", int64(0), "functions.caches", int64(0))
	if st.Keys > 0 {
		w.BulkString("db.0")
		w.Map(3)
		ints("overhead.hashtable.main", int64(0), "overhead.hashtable.expires", int64(0), "overhead.hashtable.slot-to-keys", int64(0))
	}
	ints("overhead.total", overhead, "keys.count", st.Keys, "keys.bytes-per-key", perKey, "dataset.bytes", dataset)
	w.BulkString("dataset.percentage")
	w.Double(100 * ratio(dataset, f.Allocated-f.Startup))
	w.BulkString("peak.percentage")
	w.Double(100 * ratio(f.Allocated, f.Peak))
	ints("allocator.allocated", f.Allocated, "allocator.active", f.Active, "allocator.resident", f.RSS)
	w.BulkString("allocator-fragmentation.ratio")
	w.Double(ratio(f.Active, f.Allocated))
	ints("allocator-fragmentation.bytes", f.Active-f.Allocated)
	w.BulkString("allocator-rss.ratio")
	w.Double(ratio(f.RSS, f.Active))
	ints("allocator-rss.bytes", f.RSS-f.Active)
	w.BulkString("rss-overhead.ratio")
	w.Double(ratio(f.RSS, f.RSS))
	ints("rss-overhead.bytes", int64(0))
	w.BulkString("fragmentation")
	w.Double(ratio(f.RSS, f.Allocated))
	ints("fragmentation.bytes", f.RSS-f.Allocated)
}

// MEMORY DOCTOR: Redis's report, on Basalt's figures.
func memoryDoctor(c *executor.Ctx) {
	f := c.Env.MemoryFigures()
	switch {
	case f.Allocated < 5<<20:
		c.W.Verbatim("Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these conditions. Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be back to our programming as soon as I finished rebooting.")
	case f.Peak > f.Allocated*3/2:
		c.W.Verbatim("Sam, I detected a few issues in this Redis instance memory implants:\n\n" +
			" * Peak memory: In the past this instance used more than 150% the memory that is currently using. The allocator is normally not able to release memory after a peak, so you can expect to see a big fragmentation ratio, however this is actually harmless and is only due to the memory peak, and if the Redis instance Resident Set Size (RSS) is currently bigger than expected, the memory will be used as soon as you fill the Redis instance with more data. If the memory peak was only occasional and you want to try to reclaim memory, please try the MEMORY PURGE command, otherwise the only other option is to shutdown and restart the instance.\n\n" +
			"I'm here to keep you safe, Sam. I want to help you.\n")
	default:
		c.W.Verbatim("Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.")
	}
}
