package config

import (
	"errors"
	"testing"
)

// TestRedisKeys checks the Redis 7.0 keys against what redis-server 7.0.15
// answers: defaults, old names sharing the value, parsing, ranges and the
// texts of refusals (after Kvrocks's "failed to set new value: ").
func TestRedisKeys(t *testing.T) {
	c := New()
	for name, want := range map[string]string{
		"list-max-listpack-size": "-2", "list-max-ziplist-size": "-2", "list-compress-depth": "0",
		"hash-max-listpack-entries": "512", "hash-max-ziplist-entries": "512", "hash-max-listpack-value": "64",
		"hash-max-ziplist-value": "64", "set-max-intset-entries": "512", "zset-max-listpack-entries": "128",
		"zset-max-ziplist-entries": "128", "zset-max-listpack-value": "64", "zset-max-ziplist-value": "64",
		"stream-node-max-bytes": "4096", "stream-node-max-entries": "100", "hll-sparse-max-bytes": "3000",
		"maxmemory": "0", "maxmemory-policy": "noeviction", "maxmemory-samples": "5", "activedefrag": "no",
		"active-defrag-ignore-bytes": "104857600", "hz": "10", "dynamic-hz": "yes", "lazyfree-lazy-user-flush": "no",
		"sanitize-dump-payload": "no", "busy-reply-threshold": "5000", "lua-time-limit": "5000",
		"tracking-table-max-keys": "1000000", "latency-tracking": "yes", "maxmemory-eviction-tenacity": "10",
	} {
		if got := c.Get(name); len(got) != 1 || got[0] != [2]string{name, want} {
			t.Errorf("CONFIG GET %s = %v, want %s", name, got, want)
		}
	}
	tests := []struct{ key, value, err, get string }{
		{"hash-max-ziplist-entries", "-1", "argument must be between 0 and 9223372036854775807 inclusive", ""},
		{"hash-max-ziplist-entries", "x", "argument couldn't be parsed into an integer", ""},
		{"hash-max-ziplist-entries", "+5", "argument couldn't be parsed into an integer", ""},
		{"hash-max-ziplist-entries", "05", "argument couldn't be parsed into an integer", ""},
		{"hash-max-ziplist-entries", "0x10", "argument couldn't be parsed into an integer", ""},
		{"hash-max-ziplist-entries", "100", "", "100"},
		{"hash-max-listpack-value", "1kb", "", "1024"},
		{"hash-max-listpack-value", "-1", "argument must be a memory value", ""},
		{"hash-max-listpack-value", "+1", "argument must be a memory value", ""},
		{"list-max-listpack-size", "99999999999", "argument must be between -2147483648 and 2147483647 inclusive", ""},
		{"list-compress-depth", "-1", "argument must be between 0 and 2147483647 inclusive", ""},
		{"stream-node-max-entries", "-1", "argument must be between 0 and 9223372036854775807 inclusive", ""},
		{"hll-sparse-max-bytes", "1mb", "", "1048576"},
		{"hz", "1000", "", "500"},
		{"hz", "0", "", "1"},
		{"hz", "-1", "argument must be between 0 and 2147483647 inclusive", ""},
		{"maxmemory-policy", "foo", "argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction", ""},
		{"maxmemory-policy", "ALLKEYS-LRU", "", "allkeys-lru"},
		{"sanitize-dump-payload", "foo", "argument(s) must be one of the following: no, yes, clients", ""},
		{"activedefrag", "maybe", "argument must be 'yes' or 'no'", ""},
		{"activedefrag", "yes", "Active defragmentation cannot be enabled: it requires a Redis server compiled with a modified Jemalloc like the one shipped by default with the Redis source distribution", "no"},
		{"active-defrag-cycle-min", "0", "argument must be between 1 and 99 inclusive", ""},
		{"maxmemory", "1x", "argument must be a memory value", ""},
		{"maxmemory", "1gb", "", "1073741824"},
		{"busy-reply-threshold", "-1", "argument must be between 0 and 9223372036854775807 inclusive", ""},
		{"maxmemory-samples", "0", "argument must be between 1 and 2147483647 inclusive", ""},
		{"maxmemory-eviction-tenacity", "101", "argument must be between 0 and 100 inclusive", ""},
		{"dynamic-hz", "NO", "", "no"},
	}
	for _, tt := range tests {
		err := c.Set(tt.key, tt.value)
		var setErr *SetError
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("CONFIG SET %s %q: %v", tt.key, tt.value, err)
		case tt.err != "" && (!errors.As(err, &setErr) || setErr.Text != "failed to set new value: "+tt.err):
			t.Errorf("CONFIG SET %s %q = %v, want %q", tt.key, tt.value, err, tt.err)
		}
		if got := c.Get(tt.key); tt.get != "" && got[0][1] != tt.get {
			t.Errorf("after CONFIG SET %s %q: %v, want %s", tt.key, tt.value, got, tt.get)
		}
	}
	// An old name and the new one are one setting.
	if err := c.Set("zset-max-ziplist-entries", "7"); err != nil {
		t.Fatal(err)
	}
	if got := c.Get("zset-max-*-entries"); len(got) != 2 || got[0][1] != "7" || got[1][1] != "7" {
		t.Errorf("after setting the old name: %v", got)
	}
	if err := c.Set("lua-time-limit", "100"); err != nil || c.Get("busy-reply-threshold")[0][1] != "100" {
		t.Errorf("lua-time-limit: %v, busy-reply-threshold %v", err, c.Get("busy-reply-threshold"))
	}
	// Redis's names of Kvrocks's keys are the Kvrocks keys, with their
	// rules; Redis's own replication keys take Redis's.
	if err := c.Set("replica-read-only", "no"); err != nil || c.Get("slave-read-only")[0][1] != "no" {
		t.Errorf("replica-read-only: %v, slave-read-only %v", err, c.Get("slave-read-only"))
	}
	if err := c.Set("replicaof", "127.0.0.1 1"); !errors.Is(err, ErrReadOnly) {
		t.Errorf("CONFIG SET replicaof = %v, want read-only as slaveof", err)
	}
	var setErr *SetError
	if err := c.Set("repl-ping-slave-period", "0"); !errors.As(err, &setErr) || setErr.Text != "failed to set new value: argument must be between 1 and 2147483647 inclusive" {
		t.Errorf("repl-ping-slave-period 0: %v", err)
	}
	if err := c.Set("min-slaves-to-write", "3"); err != nil || c.Get("min-replicas-to-write")[0][1] != "3" {
		t.Errorf("min-slaves-to-write: %v", err)
	}
}

// TestRedisKeysRewrite: an old name in the file keeps its name, and the
// new name is not added beside it.
func TestRedisKeysRewrite(t *testing.T) {
	path := writeFile(t, "hash-max-ziplist-entries 100\n")
	c, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Set("hash-max-listpack-entries", "200"); err != nil {
		t.Fatal(err)
	}
	if err := c.Rewrite(); err != nil {
		t.Fatal(err)
	}
	if got := string(must(readFile(path))); got != "hash-max-ziplist-entries 200\n" {
		t.Fatalf("rewritten:\n%s", got)
	}
}

// TestMaxMemoryClientsPercent: a maxmemory-clients percentage is of
// maxmemory, no limit while maxmemory is 0.
func TestMaxMemoryClientsPercent(t *testing.T) {
	c := New()
	if err := c.Set("maxmemory-clients", "10%"); err != nil {
		t.Fatal(err)
	}
	if got := c.ClientLimits.MaxMemoryClients.Get(); got != 0 {
		t.Fatalf("10%% of maxmemory 0 = %d", got)
	}
	if err := c.Set("maxmemory", "1000mb"); err != nil {
		t.Fatal(err)
	}
	if got := c.ClientLimits.MaxMemoryClients.Get(); got != 100<<20 {
		t.Fatalf("10%% of 1000mb = %d", got)
	}
}

// TestRedisServerKeys checks Redis 7.0's persistence, server and
// replication keys against what redis-server 7.0.15 answers.
func TestRedisServerKeys(t *testing.T) {
	c := New()
	for name, want := range map[string]string{
		"save": "3600 1 300 100 60 10000", "appendonly": "no", "appendfsync": "everysec", "appendfilename": "appendonly.aof",
		"appenddirname": "appendonlydir", "auto-aof-rewrite-min-size": "67108864", "stop-writes-on-bgsave-error": "yes",
		"loglevel": "notice", "shutdown-on-sigterm": "default", "repl-backlog-size": "1048576", "active-expire-effort": "1",
		"rdbchecksum": "yes", "dbfilename": "dump.rdb", "protected-mode": "yes", "repl-diskless-load": "disabled",
	} {
		if got := c.Get(name); len(got) != 1 || got[0] != [2]string{name, want} {
			t.Errorf("CONFIG GET %s = %v, want %s", name, got, want)
		}
	}
	const badSave = "Invalid save parameters"
	tests := []struct{ key, value, err, get string }{
		{"save", "", "", ""},
		{"save", "3600 1 300 100", "", "3600 1 300 100"},
		{"save", "010 +01", "", "10 1"},
		{"save", "\t5 1", "", "5 1"},
		{"save", "10 ", "", "10 0"},
		{"save", "1 2147483648", "", "1 -2147483648"},
		{"save", "99999999999999999999 99999999999999999999", "", "9223372036854775807 -1"},
		{"save", "10", badSave, ""},
		{"save", "10 1 20", badSave, ""},
		{"save", "10  1", badSave, ""},
		{"save", " 10 1", badSave, ""},
		{"save", "  ", badSave, ""},
		{"save", "a b", badSave, ""},
		{"save", "0 1", badSave, ""},
		{"save", "1 -1", badSave, ""},
		{"save", "1 -", badSave, ""},
		{"save", "5x 1", badSave, ""},
		{"save", "10 \t", badSave, ""},
		{"appendonly", "maybe", "argument must be 'yes' or 'no'", ""},
		{"appendonly", "YES", "", "yes"},
		{"appendfsync", "foo", "argument(s) must be one of the following: everysec, always, no", ""},
		{"appendfsync", "ALWAYS", "", "always"},
		{"loglevel", "nothing", "argument(s) must be one of the following: debug, verbose, notice, warning", ""},
		{"loglevel", "WARNING", "", "warning"},
		{"auto-aof-rewrite-percentage", "-1", "argument must be between 0 and 2147483647 inclusive", ""},
		{"auto-aof-rewrite-min-size", "-1", "argument must be a memory value", ""},
		{"auto-aof-rewrite-min-size", "1gb", "", "1073741824"},
		{"active-expire-effort", "11", "argument must be between 1 and 10 inclusive", ""},
		{"repl-backlog-size", "0", "argument must be between 1 and 9223372036854775807 inclusive", ""},
		{"repl-timeout", "0", "argument must be between 1 and 2147483647 inclusive", ""},
		{"repl-diskless-load", "foo", "argument(s) must be one of the following: disabled, on-empty-db, swapdb", ""},
		{"propagation-error-behavior", "foo", "argument(s) must be one of the following: ignore, panic, panic-on-replicas", ""},
		{"shutdown-on-sigint", "default save", "", "save"},
		{"shutdown-on-sigint", "force NOW", "", "now force"},
		{"shutdown-on-sigint", "now now", "", "now"},
		{"shutdown-on-sigint", "nosave save", "shutdown options SAVE and NOSAVE can't be used simultaneously", ""},
		{"shutdown-on-sigint", "", "argument(s) must be one of the following: default, save, nosave, now, force", ""},
		{"shutdown-on-sigint", "foo", "argument(s) must be one of the following: default, save, nosave, now, force", ""},
		{"shutdown-on-sigint", "default", "", "default"},
	}
	for _, tt := range tests {
		err := c.Set(tt.key, tt.value)
		var setErr *SetError
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("CONFIG SET %s %q: %v", tt.key, tt.value, err)
		case tt.err != "" && (!errors.As(err, &setErr) || setErr.Text != "failed to set new value: "+tt.err):
			t.Errorf("CONFIG SET %s %q = %v, want %q", tt.key, tt.value, err, tt.err)
		}
		if got := c.Get(tt.key); tt.err == "" && got[0][1] != tt.get {
			t.Errorf("after CONFIG SET %s %q: %v, want %q", tt.key, tt.value, got, tt.get)
		}
	}
	// What Redis refuses to change at run time.
	for _, key := range []string{"appendfilename", "appenddirname", "rdbchecksum", "dbfilename"} {
		if err := c.Set(key, "x"); !errors.Is(err, ErrReadOnly) {
			t.Errorf("CONFIG SET %s = %v, want read-only", key, err)
		}
	}
}
