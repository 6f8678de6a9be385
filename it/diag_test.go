package it

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestPerflog: PERFLOG as Kvrocks's, sampled by the profiling-sample-*
// settings.
func TestPerflog(t *testing.T) {
	p := startBasalt(t)
	c := p.longClient(t, 2)
	// Commands that read RocksDB (GET may be served by the metadata
	// cache, and a call that did nothing in RocksDB is not kept).
	must(t, c.RPush(ctx, "l", "a", "b").Err())
	must(t, c.HSet(ctx, "h", "f", "v").Err())
	// Off by default.
	must(t, c.LRange(ctx, "l", 0, -1).Err())
	if n := c.Do(ctx, "PERFLOG", "LEN").Val(); n != int64(0) {
		t.Fatalf("PERFLOG LEN with profiling off = %v", n)
	}
	for _, kv := range [][2]string{{"profiling-sample-ratio", "100"}, {"profiling-sample-record-threshold-ms", "0"}, {"profiling-sample-commands", "lrange,hgetall"}} {
		must(t, c.ConfigSet(ctx, kv[0], kv[1]).Err())
	}
	must(t, c.LRange(ctx, "l", 0, -1).Err())
	must(t, c.HGetAll(ctx, "h").Err())
	must(t, c.HSet(ctx, "h", "g", "w").Err()) // not sampled
	entries, err := c.Do(ctx, "PERFLOG", "GET").Slice()
	must(t, err)
	if len(entries) != 2 {
		t.Fatalf("PERFLOG GET = %v", entries)
	}
	for i, want := range []string{"hgetall", "lrange"} {
		e := entries[i].([]any)
		if len(e) != 6 || e[2] != want || e[4].(string) == "" || !strings.Contains(e[4].(string), "=") {
			t.Fatalf("entry %d = %q, want a %s with its perf context", i, e, want)
		}
		if at := e[1].(int64); at > time.Now().Unix() || at < time.Now().Unix()-600 {
			t.Fatalf("entry %d at %d", i, at)
		}
	}
	if first, second := entries[0].([]any)[0].(int64), entries[1].([]any)[0].(int64); first != second+1 {
		t.Fatalf("ids %d, %d: newest first, one apart", first, second)
	}
	if got, err := c.Do(ctx, "PERFLOG", "GET", "1").Slice(); err != nil || len(got) != 1 {
		t.Fatalf("PERFLOG GET 1 = %v %v", got, err)
	}
	for _, n := range []string{"0", "-1", "*", "9223372036854775807"} {
		if got, err := c.Do(ctx, "PERFLOG", "GET", n).Slice(); err != nil || len(got) != 2 {
			t.Fatalf("PERFLOG GET %s = %v %v", n, got, err)
		}
	}
	// profiling-sample-record-max-len bounds it; "*" samples every command.
	must(t, c.ConfigSet(ctx, "profiling-sample-commands", "*").Err())
	must(t, c.ConfigSet(ctx, "profiling-sample-record-max-len", "3").Err())
	for i := 0; i < 5; i++ {
		must(t, c.HGetAll(ctx, "h").Err())
	}
	if n := c.Do(ctx, "PERFLOG", "LEN").Val(); n != int64(3) {
		t.Fatalf("PERFLOG LEN past max-len 3 = %v", n)
	}
	// Only calls at least threshold-ms slow are kept.
	must(t, c.Do(ctx, "PERFLOG", "RESET").Err())
	must(t, c.ConfigSet(ctx, "profiling-sample-record-threshold-ms", "100000").Err())
	must(t, c.HGetAll(ctx, "h").Err())
	if n := c.Do(ctx, "PERFLOG", "LEN").Val(); n != int64(0) {
		t.Fatalf("PERFLOG LEN after RESET and fast calls = %v", n)
	}
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"PERFLOG"}, "ERR wrong number of arguments"},
		{[]any{"PERFLOG", "FOO"}, "ERR PERFLOG subcommand must be one of RESET, LEN, GET"},
		{[]any{"PERFLOG", "GET", "x"}, "ERR not started as an integer"},
		{[]any{"PERFLOG", "GET", "1.5"}, "ERR encounter non-integer characters"},
		{[]any{"PERFLOG", "GET", "9223372036854775808"}, "ERR Numerical result out of range"},
		{[]any{"CONFIG", "SET", "profiling-sample-ratio", "101"}, "ERR CONFIG SET 'profiling-sample-ratio' error: failed to set new value: out of numeric range"},
		{[]any{"CONFIG", "SET", "profiling-sample-commands", "hgetall,nosuch"}, "ERR CONFIG SET 'profiling-sample-commands' error: nosuch is not Kvrocks supported command"},
	} {
		if err := c.Do(ctx, tc.args...).Err(); err == nil || err.Error() != tc.want {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestStatsCommand: STATS is RocksDB's statistics as Kvrocks's JSON.
func TestStatsCommand(t *testing.T) {
	p := startBasalt(t)
	c := p.longClient(t, 2)
	must(t, c.Set(ctx, "k", "v", 0).Err())
	text, err := c.Do(ctx, "STATS").Text()
	must(t, err)
	var stats map[string]any
	if err := json.Unmarshal([]byte(text), &stats); err != nil {
		t.Fatalf("STATS is not JSON: %v\n%.300s", err, text)
	}
	if n, ok := stats["rocksdb.number.keys.written"].(float64); !ok || n < 1 {
		t.Fatalf("rocksdb.number.keys.written = %v", stats["rocksdb.number.keys.written"])
	}
	hist, ok := stats["rocksdb.db.write.micros"].([]any)
	if !ok || len(hist) != 6 || hist[4].(float64) < 1 {
		t.Fatalf("rocksdb.db.write.micros = %v: [P50, P95, P99, P100, COUNT, SUM]", stats["rocksdb.db.write.micros"])
	}
	if err := c.Do(ctx, "STATS", "x").Err(); err == nil || err.Error() != "ERR wrong number of arguments" {
		t.Fatalf("STATS x: %v", err)
	}
}

// TestDiskUsage: DISK USAGE as Kvrocks's: RocksDB's estimate of the
// key's bytes, nil for a missing key.
func TestDiskUsage(t *testing.T) {
	p := startBasalt(t)
	c := p.longClient(t, 2)
	big := strings.Repeat("0123456789", 100000)
	must(t, c.Set(ctx, "big", big, 0).Err())
	fields := make([]any, 0, 4000)
	for i := 0; i < 2000; i++ {
		fields = append(fields, "field:"+strconv.Itoa(i), strings.Repeat("v", 500))
	}
	must(t, c.HSet(ctx, "bigh", fields...).Err())
	must(t, c.Set(ctx, "small", "v", 0).Err())
	must(t, c.Do(ctx, "COMPACT").Err())
	for key, least := range map[string]int64{"big": int64(len(big)) / 2, "bigh": 500000} {
		n, err := c.Do(ctx, "DISK", "USAGE", key).Int64()
		if err != nil || n < least || n > 4*least {
			t.Errorf("DISK USAGE %s = %d %v, want about %d", key, n, err, 2*least)
		}
	}
	if err := c.Do(ctx, "DISK", "usage", "missing").Err(); err != redis.Nil {
		t.Errorf("DISK USAGE missing: %v, want nil", err)
	}
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"DISK", "USAGE"}, "ERR wrong number of arguments"},
		{[]any{"DISK", "USAGE", "a", "b"}, "ERR wrong number of arguments"},
		{[]any{"DISK", "SIZE", "a"}, "ERR Unknown operation"},
	} {
		if err := c.Do(ctx, tc.args...).Err(); err == nil || err.Error() != tc.want {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}

// bothServers runs a test against Basalt and redis-server 7.0 (DEBUG
// enabled), comparing what f returns.
func bothServers(t *testing.T, f func(c *redis.Client) []string) {
	t.Helper()
	r := startRedis(t, "--enable-debug-command", "yes")
	p := startBasalt(t)
	want := f(r.longClient(t, 2))
	got := f(p.longClient(t, 2))
	if len(got) != len(want) {
		t.Fatalf("basalt %d lines, redis-server %d:\n%q\n%q", len(got), len(want), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d:\nbasalt       %q\nredis-server %q", i, got[i], want[i])
		}
	}
}

// reply renders a reply, or its error, as a line.
func reply(cmd *redis.Cmd) string {
	v, err := cmd.Result()
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprint(v)
}

// TestMemoryCommand: MEMORY's subcommands, replies and errors as Redis
// 7.0's (the figures are Basalt's own).
func TestMemoryCommand(t *testing.T) {
	bothServers(t, func(c *redis.Client) []string {
		must(t, c.RPush(ctx, "l", "a", "b", "c").Err())
		var out []string
		for _, args := range [][]any{
			{"MEMORY", "USAGE", "missing"},
			{"MEMORY", "USAGE", "l", "SAMPLES"},
			{"MEMORY", "USAGE", "l", "SAMPLES", "x"},
			{"MEMORY", "USAGE", "l", "SAMPLES", "-1"},
			{"MEMORY", "USAGE", "l", "FOO", "1"},
			{"MEMORY", "USAGE"},
			{"MEMORY", "STATS", "x"},
			{"MEMORY", "FOO"},
			{"MEMORY", "HELP"},
			{"MEMORY", "PURGE"},
		} {
			out = append(out, reply(c.Do(ctx, args...)))
		}
		for _, args := range [][]any{{"MEMORY", "USAGE", "l"}, {"MEMORY", "USAGE", "l", "SAMPLES", "0"}} {
			n, err := c.Do(ctx, args...).Int64()
			out = append(out, fmt.Sprintf("%v is a size: %v", args, err == nil && n > 0))
		}
		stats, err := c.Do(ctx, "MEMORY", "STATS").Slice()
		must(t, err)
		var names []string
		for i := 0; i < len(stats); i += 2 {
			names = append(names, stats[i].(string))
		}
		out = append(out, strings.Join(names, " "))
		return out
	})
}

// TestLatencyMonitor: LATENCY as Redis 7.0's, on a command made slow by
// DEBUG SLEEP; the figures (times, milliseconds) are masked.
func TestLatencyMonitor(t *testing.T) {
	digits := regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)
	bothServers(t, func(c *redis.Client) []string {
		var out []string
		add := func(args ...any) {
			out = append(out, digits.ReplaceAllString(reply(c.Do(ctx, args...)), "N"))
		}
		add("LATENCY", "DOCTOR")
		add("LATENCY", "LATEST")
		add("LATENCY", "GRAPH", "command")
		// Redis's slow log default: Kvrocks's (200 ms) earns DOCTOR's advice
		// to lower it under the threshold.
		must(t, c.ConfigSet(ctx, "slowlog-log-slower-than", "10000").Err())
		must(t, c.ConfigSet(ctx, "latency-monitor-threshold", "20").Err())
		must(t, c.Do(ctx, "DEBUG", "SLEEP", "0.05").Err())
		must(t, c.Set(ctx, "k", "v", 0).Err())
		add("LATENCY", "LATEST")
		add("LATENCY", "HISTORY", "command")
		add("LATENCY", "HISTORY", "nosuch")
		add("LATENCY", "DOCTOR")
		add("LATENCY", "GRAPH", "command")
		add("LATENCY", "HELP")
		hist, err := c.Do(ctx, "LATENCY", "HISTOGRAM", "set", "nosuch").Result()
		must(t, err)
		out = append(out, digits.ReplaceAllString(fmt.Sprint(hist), "N"))
		add("LATENCY", "RESET", "command", "nosuch")
		add("LATENCY", "RESET")
		add("LATENCY", "LATEST")
		add("LATENCY")
		add("LATENCY", "LATEST", "x")
		add("LATENCY", "HISTORY")
		add("LATENCY", "FOO")
		add("CONFIG", "GET", "latency-monitor-threshold")
		return out
	})
}

// TestDebugObject: DEBUG OBJECT's line as Redis 7.0's, but for the
// address and the access times.
func TestDebugObject(t *testing.T) {
	volatile := regexp.MustCompile(`Value at:0x[0-9a-f]+|lru:[0-9]+|lru_seconds_idle:[0-9]+`)
	bothServers(t, func(c *redis.Client) []string {
		must(t, c.Set(ctx, "s", "v", 0).Err())
		must(t, c.Set(ctx, "n", "123", 0).Err())
		must(t, c.Set(ctx, "big", "12345678901", 0).Err())
		must(t, c.RPush(ctx, "l", "a", "b", "c", 123).Err())
		must(t, c.HSet(ctx, "h", "f", "v").Err())
		must(t, c.SAdd(ctx, "i", 1, 2).Err())
		must(t, c.SAdd(ctx, "t", "x").Err())
		must(t, c.ZAdd(ctx, "z", redis.Z{Score: 1, Member: "a"}).Err())
		var out []string
		for _, k := range []string{"s", "n", "big", "l", "h", "i", "t", "z", "missing"} {
			out = append(out, volatile.ReplaceAllString(reply(c.Do(ctx, "DEBUG", "OBJECT", k)), "-"))
		}
		out = append(out, reply(c.Do(ctx, "DEBUG", "OBJECT")), reply(c.Do(ctx, "DEBUG", "RELOAD", "FOO")))
		return out
	})
}

// TestDebugReload: DEBUG RELOAD closes and reopens RocksDB while clients
// stay connected and keep writing; every acknowledged write is there
// after. A replica's link holding the WAL makes it refuse.
func TestDebugReload(t *testing.T) {
	p := startBasalt(t)
	c := p.longClient(t, 2)
	writeBackupData(t, c, "k:", 500)
	before := dumpNamespace(t, c)
	var acked atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var loadErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		w := p.longClient(t, 2)
		for i := int64(0); ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := w.Set(ctx, "w:"+strconv.FormatInt(i, 10), i, 0).Err(); err != nil {
				loadErr = err
				return
			}
			acked.Store(i + 1)
		}
	}()
	waitFor(t, time.Minute, "writes before the reload", func() bool { return acked.Load() > 100 })
	for i := 0; i < 3; i++ {
		if got := p.cli(t, "DEBUG", "RELOAD"); got != "OK" {
			t.Fatalf("DEBUG RELOAD = %q", got)
		}
	}
	mark := acked.Load()
	waitFor(t, time.Minute, "writes after the reloads", func() bool { return acked.Load() > mark+100 })
	close(stop)
	wg.Wait()
	if loadErr != nil {
		t.Fatalf("a writer failed across DEBUG RELOAD: %v", loadErr)
	}
	n := acked.Load()
	for i := int64(0); i < n; i += 37 {
		if v, err := c.Get(ctx, "w:"+strconv.FormatInt(i, 10)).Int64(); err != nil || v != i {
			t.Fatalf("acknowledged write w:%d reads %d %v", i, v, err)
		}
	}
	after := dumpNamespace(t, c)
	for k, want := range before {
		if fmt.Sprint(after[k]) != fmt.Sprint(want) {
			t.Fatalf("%s changed across DEBUG RELOAD", k)
		}
	}
	if !strings.Contains(p.Output.String(), "database reopened") {
		t.Errorf("the log does not show the reopen")
	}

	replica := startBasalt(t)
	rc := replica.longClient(t, 2)
	slaveOf(t, rc, p)
	waitCaughtUp(t, c, rc)
	if err := c.Do(ctx, "DEBUG", "RELOAD").Err(); err == nil || !strings.Contains(err.Error(), "in use by replication") {
		t.Fatalf("DEBUG RELOAD with a replica attached: %v", err)
	}
	if err := rc.Do(ctx, "DEBUG", "RELOAD").Err(); err == nil || !strings.Contains(err.Error(), "is a replica") {
		t.Fatalf("DEBUG RELOAD on a replica: %v", err)
	}
	must(t, c.Set(ctx, "after", "v", 0).Err())
	waitCaughtUp(t, c, rc)
}
