package config

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
)

// Redis 7.0's keys that tune its in-memory encodings or its memory
// management (KVROCKS-CONFIG.md §6). Basalt keeps every type on RocksDB, so
// they change nothing on disk; they are accepted, checked and reported as
// Redis 7.0 does (its defaults, ranges, old names and error texts) so that
// Redis clients' test suites, which set them first, run. Kvrocks has none
// of them.

// RedisKeys holds the Redis keys something reads.
type RedisKeys struct {
	// MaxMemory is maxmemory, in bytes (0: no limit). Basalt evicts
	// nothing; maxmemory-clients percentages are of it.
	MaxMemory RedisInt
	// BusyReplyThreshold is busy-reply-threshold (lua-time-limit), in
	// milliseconds: past it a running script makes other clients get
	// BUSY (0: never).
	BusyReplyThreshold RedisInt
	// NotifyKeyspaceEvents is notify-keyspace-events; TrackingTableMaxKeys
	// tracking-table-max-keys (0: no bound).
	NotifyKeyspaceEvents NotifyEvents
	TrackingTableMaxKeys RedisInt
	// LatencyMonitorThreshold is latency-monitor-threshold, in
	// milliseconds: commands at least that slow are LATENCY events (0:
	// none). LatencyTracking is latency-tracking: LATENCY HISTOGRAM.
	LatencyMonitorThreshold RedisInt
	LatencyTracking         Bool
	// ClusterSlotStatsEnabled is cluster-slot-stats-enabled (Redis 8.2):
	// CLUSTER SLOT-STATS counts CPU time and network bytes per slot.
	ClusterSlotStatsEnabled Bool
	// StreamNodeMaxEntries is stream-node-max-entries: the entries of
	// the nodes an approximate stream trim removes whole.
	StreamNodeMaxEntries RedisInt
}

const longMax = math.MaxInt64

func (c *Config) addRedisKeys() {
	num := func(min, max int64) *RedisInt { return &RedisInt{min: min, max: max} }
	mem := func(min, max int64) *RedisInt { return &RedisInt{min: min, max: max, memory: true} }
	flag := func() *Bool { return &Bool{} }
	add := func(name string, v value, def, help string) { c.add(name, v, def, redis, help) }

	// Encodings.
	add("list-max-listpack-size", num(intMin, intMax), "-2", "Redis: entries (positive) or bytes (-1..-5: 4 KB..64 KB) per list node")
	c.alias("list-max-ziplist-size", "list-max-listpack-size")
	add("list-compress-depth", num(0, intMax), "0", "Redis: list nodes at each end left uncompressed")
	add("hash-max-listpack-entries", num(0, longMax), "512", "Redis: largest hash kept as a listpack, fields")
	c.alias("hash-max-ziplist-entries", "hash-max-listpack-entries")
	add("hash-max-listpack-value", mem(0, longMax), "64", "Redis: largest hash value kept in a listpack, bytes")
	c.alias("hash-max-ziplist-value", "hash-max-listpack-value")
	add("set-max-intset-entries", num(0, longMax), "512", "Redis: largest set of integers kept as an intset")
	add("zset-max-listpack-entries", num(0, longMax), "128", "Redis: largest sorted set kept as a listpack, members")
	c.alias("zset-max-ziplist-entries", "zset-max-listpack-entries")
	add("zset-max-listpack-value", mem(0, longMax), "64", "Redis: largest sorted set member kept in a listpack, bytes")
	c.alias("zset-max-ziplist-value", "zset-max-listpack-value")
	add("stream-node-max-bytes", mem(0, longMax), "4096", "Redis: bytes per stream node")
	add("stream-node-max-entries", &c.Redis.StreamNodeMaxEntries, "100", "Redis: entries per stream node, which approximate trims (~) remove whole")
	c.Redis.StreamNodeMaxEntries.min, c.Redis.StreamNodeMaxEntries.max = 0, longMax
	add("hll-sparse-max-bytes", mem(0, longMax), "3000", "Redis: largest sparse HyperLogLog, bytes")

	// Memory management and background work.
	add("maxmemory", &c.Redis.MaxMemory, "0", "Redis: memory limit, bytes; Basalt evicts nothing (maxmemory-clients percentages are of it)")
	c.Redis.MaxMemory.min, c.Redis.MaxMemory.max, c.Redis.MaxMemory.memory = 0, longMax, true
	add("maxmemory-policy", &Enum{allowed: []string{"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl", "allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction"}, redis: true}, "noeviction", "Redis: what to evict at maxmemory")
	add("maxmemory-samples", num(1, intMax), "5", "Redis: keys sampled per eviction")
	add("maxmemory-eviction-tenacity", num(0, 100), "10", "Redis: effort spent evicting")
	add("activedefrag", &activeDefrag{}, "no", "Redis: active defragmentation, which needs Redis's jemalloc (yes is refused)")
	add("active-defrag-cycle-min", num(1, 99), "1", "Redis: least CPU percent of defragmentation")
	add("active-defrag-cycle-max", num(1, 99), "25", "Redis: most CPU percent of defragmentation")
	add("active-defrag-threshold-lower", num(0, 1000), "10", "Redis: fragmentation percent that starts defragmentation")
	add("active-defrag-threshold-upper", num(0, 1000), "100", "Redis: fragmentation percent of the most effort")
	add("active-defrag-ignore-bytes", mem(1, longMax), "104857600", "Redis: fragmentation bytes below which nothing is done")
	add("active-defrag-max-scan-fields", num(1, longMax), "1000", "Redis: fields above which a key is defragmented in the background")
	for _, name := range []string{"lazyfree-lazy-eviction", "lazyfree-lazy-expire", "lazyfree-lazy-server-del", "lazyfree-lazy-user-del", "lazyfree-lazy-user-flush"} {
		add(name, flag(), "no", "Redis: free memory in a background thread")
	}
	add("hz", &RedisInt{min: 0, max: intMax, clampMin: 1, clampMax: 500}, "10", "Redis: background task frequency (stored within 1..500)")
	add("dynamic-hz", flag(), "yes", "Redis: scale hz with the number of clients")
	add("latency-tracking", &c.Redis.LatencyTracking, "yes", "Redis: per-command latency histograms (LATENCY HISTOGRAM)")
	add("cluster-slot-stats-enabled", &c.Redis.ClusterSlotStatsEnabled, "no", "Redis 8.2: CLUSTER SLOT-STATS counts cpu-usec and network bytes per slot (cluster mode)")
	add("latency-monitor-threshold", &c.Redis.LatencyMonitorThreshold, "0", "Redis: milliseconds from which a command is a LATENCY event (0: none)")
	c.Redis.LatencyMonitorThreshold.min, c.Redis.LatencyMonitorThreshold.max = 0, longMax
	add("tracking-table-max-keys", &c.Redis.TrackingTableMaxKeys, "1000000", "Redis: keys the client-tracking table holds (0: no bound)")
	c.Redis.TrackingTableMaxKeys.min, c.Redis.TrackingTableMaxKeys.max = 0, longMax
	add("notify-keyspace-events", &c.Redis.NotifyKeyspaceEvents, "", "Redis: keyspace event classes published (K, E, g, $, l, s, h, z, x, e, t, m, d, n, A)")
	add("sanitize-dump-payload", &Enum{allowed: []string{"no", "yes", "clients"}, redis: true}, "no", "Redis: check RESTORE payloads deeply")
	add("busy-reply-threshold", &c.Redis.BusyReplyThreshold, "5000", "Redis: milliseconds a script runs before other clients get BUSY (0: never)")
	c.Redis.BusyReplyThreshold.min, c.Redis.BusyReplyThreshold.max = 0, longMax
	c.alias("lua-time-limit", "busy-reply-threshold")

	c.addRedisServerKeys()

	// Replication. Redis 7's names of Kvrocks's keys (which are Redis's
	// old names) are other names of them; the rest are Redis's own, with
	// their old names.
	for _, names := range [][2]string{
		{"replicaof", "slaveof"}, {"replica-read-only", "slave-read-only"}, {"replica-serve-stale-data", "slave-serve-stale-data"},
		{"replica-priority", "slave-priority"}, {"slave-announce-ip", "replica-announce-ip"}, {"slave-announce-port", "replica-announce-port"},
	} {
		c.alias(names[0], names[1])
	}
	for _, k := range []struct {
		name, old, def string
		v              value
	}{
		{"replica-lazy-flush", "slave-lazy-flush", "no", flag()},
		{"replica-ignore-maxmemory", "slave-ignore-maxmemory", "yes", flag()},
		{"cluster-replica-no-failover", "cluster-slave-no-failover", "no", flag()},
		{"cluster-replica-validity-factor", "cluster-slave-validity-factor", "10", num(0, intMax)},
		{"repl-ping-replica-period", "repl-ping-slave-period", "10", num(1, intMax)},
		{"min-replicas-to-write", "min-slaves-to-write", "0", num(0, intMax)},
		{"min-replicas-max-lag", "min-slaves-max-lag", "10", num(0, intMax)},
	} {
		add(k.name, k.v, k.def, "Redis: replication setting (Basalt replicates as Kvrocks does, without it)")
		c.alias(k.old, k.name)
	}
}

// redisFileOnlyKeys are deprecated keys Redis 7.0 reads from a file and
// ignores; they are unknown to CONFIG.
var redisFileOnlyKeys = map[string]bool{
	"list-max-ziplist-entries": true, "list-max-ziplist-value": true, "lua-replicate-commands": true,
}

// RedisInt is an integer setting as Redis 7.0 parses one: digits with an
// optional minus and no leading zero (string2ll), or, for a memory
// setting, digits with an optional unit b, k, kb, m, mb, g or gb.
type RedisInt struct {
	v        atomic.Int64
	min, max int64
	memory   bool
	// clampMin..clampMax, when set, is the range a value is stored in
	// after it passed min..max (Redis's hz).
	clampMin, clampMax int64
}

// Get returns the value.
func (r *RedisInt) Get() int64 { return r.v.Load() }

// String returns the value in decimal (bytes for a memory setting).
func (r *RedisInt) String() string { return strconv.FormatInt(r.v.Load(), 10) }

func (r *RedisInt) set(s string) error {
	var n int64
	if r.memory {
		var ok bool
		if n, ok = parseMemory(s); !ok {
			return errors.New("argument must be a memory value")
		}
	} else {
		var ok bool
		if n, ok = string2ll(s); !ok {
			return errors.New("argument couldn't be parsed into an integer")
		}
	}
	if n < r.min || n > r.max {
		return errors.New("argument must be between " + strconv.FormatInt(r.min, 10) + " and " + strconv.FormatInt(r.max, 10) + " inclusive")
	}
	if r.clampMax > 0 {
		n = max(r.clampMin, min(n, r.clampMax))
	}
	r.v.Store(n)
	return nil
}

// string2ll is Redis's strict integer parser.
func string2ll(s string) (int64, bool) {
	if s == "0" {
		return 0, true
	}
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || digits[0] < '1' || digits[0] > '9' {
		return 0, false
	}
	for i := 1; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// activeDefrag is Redis's activedefrag: yes needs Redis's own jemalloc,
// which Basalt, like a Redis built without it, does not have.
type activeDefrag struct{ Bool }

func (a *activeDefrag) set(s string) error {
	if strings.EqualFold(s, "yes") {
		return errors.New("Active defragmentation cannot be enabled: it requires a Redis server compiled with a modified Jemalloc like the one shipped by default with the Redis source distribution")
	}
	return a.Bool.set(s)
}
