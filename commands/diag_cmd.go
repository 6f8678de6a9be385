package commands

import (
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync/atomic"
)

func init() {
	register(
		&Command{Name: "perflog", Arity: -2, Flags: KvrocksOnly, Handler: cmdPerflog},
		&Command{Name: "stats", Arity: 1, Flags: KvrocksOnly, Handler: cmdStats},
		&Command{Name: "disk", Arity: 3, Flags: ReadOnly | KvrocksOnly, FirstKey: 2, LastKey: 2, Handler: cmdDisk},
		&Command{Name: "memory", Arity: -2, Flags: ReadOnly | NoTouch, Keys: memoryKeys, Handler: cmdMemory},
	)
}

// PERFLOG GET [count | *] | LEN | RESET
//
// The RocksDB perf and I/O contexts of sampled commands, newest first, as
// Kvrocks's: id, Unix time, command, microseconds, perf context, I/O
// context. GET shows 10 by default, every one for * or a count <= 0.
func cmdPerflog(c *Ctx) {
	p := &c.Env.perflog
	switch {
	case c.is(1, "get"):
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
		entries := p.latest(n)
		c.W.Array(len(entries))
		for _, e := range entries {
			c.W.Array(6)
			c.W.Int(e.id)
			c.W.Int(e.at.Unix())
			c.W.BulkString(e.name)
			c.W.Int(e.duration.Microseconds())
			c.W.BulkString(e.perf)
			c.W.BulkString(e.iostats)
		}
	case c.is(1, "len"):
		c.W.Int(int64(p.len()))
	case c.is(1, "reset"):
		p.reset()
		c.W.OK()
	default:
		c.ErrorString("ERR PERFLOG subcommand must be one of RESET, LEN, GET")
	}
}

// STATS
//
// RocksDB's statistics as Kvrocks shows them: a JSON object of every
// ticker's count and every histogram's [P50, P95, P99, P100, COUNT, SUM].
func cmdStats(c *Ctx) {
	c.W.BulkString(c.Env.Storage.StatisticsJSON())
}

// DISK USAGE key
//
// RocksDB's estimate of the bytes key takes in its memtables and SST
// files, as Kvrocks's; nil when key does not exist.
func cmdDisk(c *Ctx) {
	if !c.is(1, "usage") {
		c.ErrorString("ERR Unknown operation")
		return
	}
	c.intOrNull(c.DB.DiskUsage(c.Args[2]))
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
func cmdMemory(c *Ctx) {
	dispatchSub(c, memorySubcommands)
}

var memorySubcommands = map[string]subcommand{
	"usage":        {-3, memoryUsage},
	"stats":        {2, memoryStats},
	"doctor":       {2, memoryDoctor},
	"malloc-stats": {2, func(c *Ctx) { c.W.Verbatim("Stats not supported for the current allocator") }},
	"purge":        {2, func(c *Ctx) { debug.FreeOSMemory(); c.W.OK() }},
	"help": help(
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
func memoryUsage(c *Ctx) {
	samples := int64(5)
	for i := 3; i < len(c.Args); i++ {
		if !c.is(i, "samples") || i+1 == len(c.Args) {
			c.ErrorString(errSyntax)
			return
		}
		var ok bool
		if samples, ok = c.Int(i + 1); !ok {
			return
		}
		if samples < 0 {
			c.ErrorString(errSyntax)
			return
		}
		i++
	}
	c.intOrNull(c.DB.MemoryUsage(c.Args[2], samples))
}

// memoryPeak is the most total.allocated MEMORY STATS has seen.
var memoryPeak atomic.Int64

// memoryFigures are the server's memory as MEMORY STATS and DOCTOR read
// it: what the Go heap and RocksDB's memtables and block cache hold
// (allocated), what the Go runtime holds from the system (active), and
// the process's resident set.
type memoryFigures struct {
	allocated, active, rss, startup, peak int64
}

func (e *Env) memoryFigures() memoryFigures {
	f := memoryFigures{rss: processRSS(), startup: e.startupMemory}
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/total:bytes"}}
	metrics.Read(samples)
	heap, total := int64(samples[0].Value.Uint64()), int64(samples[1].Value.Uint64())
	var rocks int64
	for _, st := range e.Storage.MemoryStats() {
		if st.Name == "used_memory_memtables" || st.Name == "used_memory_block_cache" {
			rocks += int64(st.Value)
		}
	}
	f.allocated, f.active = heap+rocks, total+rocks
	for {
		peak := memoryPeak.Load()
		if f.allocated <= peak || memoryPeak.CompareAndSwap(peak, f.allocated) {
			f.peak = max(peak, f.allocated)
			break
		}
	}
	return f
}

// MEMORY STATS: Redis 7.0's fields, from Basalt's figures: the Go heap
// and RocksDB's memtables and block cache are what is allocated; the
// buffers Redis counts apart (replication backlog, AOF, Lua) are 0
// here (the WAL is the backlog, on disk). The keys are counted as INFO
// keyspace counts them.
func memoryStats(c *Ctx) {
	e := c.Env
	f := e.memoryFigures()
	st, _, err := e.keyspaceOf(c.DB.Namespace())
	if !c.ok(err) {
		return
	}
	overhead := f.startup
	dataset := max(f.allocated-overhead, 0)
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
	ints("peak.allocated", f.peak, "total.allocated", f.allocated, "startup.allocated", f.startup,
		"replication.backlog", int64(0), "clients.slaves", int64(0), "clients.normal", int64(0),
		"cluster.links", int64(0), "aof.buffer", int64(0), "lua.caches", int64(0), "functions.caches", int64(0))
	if st.Keys > 0 {
		w.BulkString("db.0")
		w.Map(3)
		ints("overhead.hashtable.main", int64(0), "overhead.hashtable.expires", int64(0), "overhead.hashtable.slot-to-keys", int64(0))
	}
	ints("overhead.total", overhead, "keys.count", st.Keys, "keys.bytes-per-key", perKey, "dataset.bytes", dataset)
	w.BulkString("dataset.percentage")
	w.Double(100 * ratio(dataset, f.allocated-f.startup))
	w.BulkString("peak.percentage")
	w.Double(100 * ratio(f.allocated, f.peak))
	ints("allocator.allocated", f.allocated, "allocator.active", f.active, "allocator.resident", f.rss)
	w.BulkString("allocator-fragmentation.ratio")
	w.Double(ratio(f.active, f.allocated))
	ints("allocator-fragmentation.bytes", f.active-f.allocated)
	w.BulkString("allocator-rss.ratio")
	w.Double(ratio(f.rss, f.active))
	ints("allocator-rss.bytes", f.rss-f.active)
	w.BulkString("rss-overhead.ratio")
	w.Double(ratio(f.rss, f.rss))
	ints("rss-overhead.bytes", int64(0))
	w.BulkString("fragmentation")
	w.Double(ratio(f.rss, f.allocated))
	ints("fragmentation.bytes", f.rss-f.allocated)
}

// MEMORY DOCTOR: Redis's report, on Basalt's figures.
func memoryDoctor(c *Ctx) {
	f := c.Env.memoryFigures()
	switch {
	case f.allocated < 5<<20:
		c.W.Verbatim("Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these conditions. Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be back to our programming as soon as I finished rebooting.")
	case f.peak > f.allocated*3/2:
		c.W.Verbatim("Sam, I detected a few issues in this Redis instance memory implants:\n\n" +
			" * Peak memory: In the past this instance used more than 150% the memory that is currently using. The allocator is normally not able to release memory after a peak, so you can expect to see a big fragmentation ratio, however this is actually harmless and is only due to the memory peak, and if the Redis instance Resident Set Size (RSS) is currently bigger than expected, the memory will be used as soon as you fill the Redis instance with more data. If the memory peak was only occasional and you want to try to reclaim memory, please try the MEMORY PURGE command, otherwise the only other option is to shutdown and restart the instance.\n\n" +
			"I'm here to keep you safe, Sam. I want to help you.\n")
	default:
		c.W.Verbatim("Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.")
	}
}
