package config

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
)

// Redis 7.0's persistence, server and replication keys that tools and test
// suites set (Redis's own suite sets save, appendonly and the
// shutdown-on-* keys first). Basalt persists through RocksDB's WAL, which
// makes every acknowledged write survive kill -9 whatever they say, and has
// no RDB snapshots, AOF, eviction or ACL: they are accepted, checked and
// reported as Redis 7.0 does (defaults, ranges, error texts) and change
// nothing. The keys Redis refuses to change at run time (its immutable and
// protected ones) are read-only here too.

func (c *Config) addRedisServerKeys() {
	num := func(min, max int64) *RedisInt { return &RedisInt{min: min, max: max} }
	mem := func(min, max int64) *RedisInt { return &RedisInt{min: min, max: max, memory: true} }
	flag := func() *Bool { return &Bool{} }
	enum := func(values ...string) *Enum { return &Enum{allowed: values, redis: true} }
	add := func(name string, v value, def, help string) { c.add(name, v, def, redis, help) }
	fixed := func(name string, v value, def, help string) { c.add(name, v, def, redis|ro, help) }

	// Persistence.
	add("save", &saveParams{}, "3600 1 300 100 60 10000", "Redis: RDB snapshot points, pairs of seconds and changes (Basalt's RocksDB WAL keeps every write; BGSAVE and bgsave-cron make backups)")
	add("appendonly", flag(), "no", "Redis: keep an append-only file (Basalt's RocksDB WAL keeps every write)")
	add("appendfsync", enum("everysec", "always", "no"), "everysec", "Redis: when the append-only file is fsynced (Basalt: rocksdb.write_options.sync)")
	fixed("appendfilename", &Text{}, "appendonly.aof", "Redis: name of the append-only file")
	fixed("appenddirname", &Text{}, "appendonlydir", "Redis: directory of the append-only files")
	for _, k := range []struct{ name, def string }{
		{"no-appendfsync-on-rewrite", "no"}, {"aof-load-truncated", "yes"}, {"aof-use-rdb-preamble", "yes"},
		{"aof-timestamp-enabled", "no"}, {"aof-rewrite-incremental-fsync", "yes"}, {"rdb-save-incremental-fsync", "yes"},
		{"rdbcompression", "yes"}, {"stop-writes-on-bgsave-error", "yes"}, {"rdb-del-sync-files", "no"},
	} {
		add(k.name, flag(), k.def, "Redis: RDB and append-only file setting")
	}
	add("auto-aof-rewrite-percentage", num(0, intMax), "100", "Redis: growth that triggers an append-only file rewrite, percent")
	add("auto-aof-rewrite-min-size", mem(0, longMax), "67108864", "Redis: smallest append-only file rewritten, bytes")
	fixed("rdbchecksum", flag(), "yes", "Redis: checksum RDB files")
	fixed("dbfilename", &Text{}, "dump.rdb", "Redis: name of the RDB file")

	// Expiry and eviction.
	add("lfu-log-factor", num(0, intMax), "10", "Redis: LFU counter logarithm factor")
	add("lfu-decay-time", num(0, intMax), "1", "Redis: minutes after which LFU counters decay")
	add("active-expire-effort", num(1, 10), "1", "Redis: effort of the expiry cycle")
	add("activerehashing", flag(), "yes", "Redis: rehash the main dictionary actively")

	// Server.
	add("loglevel", enum("debug", "verbose", "notice", "warning"), "notice", "Redis: log verbosity (Basalt: log-level)")
	add("protected-mode", flag(), "yes", "Redis: refuse outside clients without a password when bound to every address")
	add("tcp-keepalive", num(0, intMax), "300", "Redis: seconds between TCP keepalive probes")
	add("shutdown-timeout", num(0, intMax), "10", "Redis: seconds SHUTDOWN waits for replicas")
	add("shutdown-on-sigint", &shutdownFlags{}, "default", "Redis: what SIGINT's shutdown does (save, nosave, now, force)")
	add("shutdown-on-sigterm", &shutdownFlags{}, "default", "Redis: what SIGTERM's shutdown does (save, nosave, now, force)")
	add("acllog-max-len", num(0, longMax), "128", "Redis: entries of ACL LOG")
	add("propagation-error-behavior", enum("ignore", "panic", "panic-on-replicas"), "ignore", "Redis: what a replica does when a replicated command fails")

	// Replication (Basalt replicates from the WAL, as Kvrocks does).
	add("repl-backlog-size", mem(1, longMax), "1048576", "Redis: replication backlog, bytes (Basalt's is the WAL: rocksdb.wal_ttl_seconds)")
	add("repl-backlog-ttl", num(0, longMax), "3600", "Redis: seconds the backlog outlives the last replica")
	add("repl-timeout", num(1, intMax), "60", "Redis: replication timeout, seconds")
	add("repl-diskless-sync", flag(), "yes", "Redis: full syncs stream the RDB without a file")
	add("repl-diskless-sync-delay", num(0, intMax), "5", "Redis: seconds a diskless full sync waits for more replicas")
	add("repl-diskless-sync-max-replicas", num(0, intMax), "0", "Redis: replicas a diskless full sync starts with at once")
	add("repl-diskless-load", enum("disabled", "on-empty-db", "swapdb"), "disabled", "Redis: how a replica loads a full sync")
	add("repl-disable-tcp-nodelay", flag(), "no", "Redis: delay replication stream packets")
	add("replica-ignore-disk-write-errors", flag(), "no", "Redis: a replica goes on after a failed disk write")
}

// saveParams is Redis's save: pairs of seconds (at least 1) and changes (at
// least 0), given as one space-separated text, "" for none. Each word is
// read as C's strtoll reads it; changes are kept in a C int, as Redis
// keeps them.
type saveParams struct{ Text }

var errInvalidSave = errors.New("Invalid save parameters")

func (s *saveParams) set(v string) error {
	var out []string
	if v != "" {
		words := strings.Split(v, " ")
		if len(words)%2 != 0 {
			return errInvalidSave
		}
		for i, w := range words {
			n, rest := strtoll(w)
			seconds := i%2 == 0
			if rest != "" || (seconds && n < 1) || (!seconds && n < 0) {
				return errInvalidSave
			}
			if !seconds {
				n = int64(int32(n))
			}
			out = append(out, strconv.FormatInt(n, 10))
		}
	}
	return s.Text.set(strings.Join(out, " "))
}

// strtoll reads s as C's strtoll does in base 10: white space, a sign and
// the digits after it, saturating at the int64 limits. rest is what it did
// not read; all of s when there are no digits.
func strtoll(s string) (n int64, rest string) {
	i := 0
	for i < len(s) && strings.IndexByte(" \t\n\v\f\r", s[i]) >= 0 {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	const limit = math.MaxInt64 + 1 // the magnitude of the smallest int64
	var u uint64
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		u = min(u, limit/10+1)*10 + uint64(s[i]-'0')
		u = min(u, limit)
	}
	if i == start {
		return 0, s
	}
	switch {
	case neg:
		n = -int64(u-1) - 1
	case u > math.MaxInt64:
		n = math.MaxInt64
	default:
		n = int64(u)
	}
	return n, s[i:]
}

// shutdownFlags is Redis's shutdown-on-sigint and shutdown-on-sigterm:
// "default", or any of save, nosave, now and force, shown in that order.
type shutdownFlags struct{ v atomic.Uint32 }

var shutdownFlagNames = []string{"save", "nosave", "now", "force"}

func (f *shutdownFlags) String() string {
	var names []string
	for i, name := range shutdownFlagNames {
		if f.v.Load()&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "default"
	}
	return strings.Join(names, " ")
}

func (f *shutdownFlags) set(v string) error {
	var bits uint32
	words := strings.Fields(v)
	if len(words) == 0 {
		return errShutdownFlag
	}
	for _, w := range words {
		i := -1
		for j, name := range shutdownFlagNames {
			if strings.EqualFold(w, name) {
				i = j
			}
		}
		switch {
		case i >= 0:
			bits |= 1 << i
		case !strings.EqualFold(w, "default"):
			return errShutdownFlag
		}
	}
	if bits&3 == 3 {
		return errors.New("shutdown options SAVE and NOSAVE can't be used simultaneously")
	}
	f.v.Store(bits)
	return nil
}

var errShutdownFlag = errors.New("argument(s) must be one of the following: default, save, nosave, now, force")
