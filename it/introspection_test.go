package it

import (
	"bufio"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// rawConn2 connects to a server in RESP2, for replies kept as sent.
func rawConn2(t *testing.T, p *proc) *kvdConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", p.Addr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &kvdConn{c: nc, r: bufio.NewReader(nc)}
}

// infoLines returns the key:value lines of INFO section as a map.
func infoLines(t *testing.T, c *kvdConn, section string) map[string]string {
	t.Helper()
	text, _ := cmdDo(t, c, "INFO", section).text()
	out := map[string]string{}
	for _, line := range strings.Split(text, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, "#") {
			out[k] = v
		}
	}
	return out
}

// TestInfoErrorStats runs the same calls on Basalt and redis-server 7.0
// and compares what INFO says of them: per command calls, rejected_calls
// (refused before running: arity, NOAUTH, a subscriber's command, inside
// MULTI) and failed_calls (the command replied an error: WRONGTYPE,
// EXECABORT, a nested MULTI), the error replies per code (errorstats) and
// total_error_replies. Redis counts subcommands apart (config|get);
// Basalt, as Kvrocks, per command: Redis's are added up per command.
func TestInfoErrorStats(t *testing.T) {
	b, r := startBasalt(t), startRedis(t)
	script := [][]string{
		{"GET"},
		{"SET", "k", "v"},
		{"LPUSH", "k", "x"},
		{"INCR", "k"},
		{"FOO", "bar"},
		{"MULTI"}, {"GET", "k"}, {"GET"}, {"EXEC"},
		{"MULTI"}, {"LPUSH", "k", "x"}, {"GET", "k"}, {"INCR", "k"}, {"EXEC"},
		{"EXEC"},
		{"DISCARD"},
		{"MULTI"}, {"EXEC", "x"}, {"EXEC"},
		{"MULTI"}, {"DISCARD", "x"}, {"EXEC"},
		{"MULTI"}, {"MULTI"}, {"DISCARD"},
		{"BLPOP", "nolist", "0.01"},
		{"AUTH", "x"},
		{"OBJECT", "FOO"},
		{"OBJECT", "ENCODING"},
		{"OBJECT", "ENCODING", "k"},
		{"CLIENT", "FOO"},
		{"CLIENT", "SETNAME", "a b"},
		{"EXPIRE", "k", "abc"},
		{"HSET", "h", "f"},
		{"ZADD", "z", "x", "y"},
		{"ZADD", "z", "1", "a"},
		{"ZINCRBY", "z", "1", "k"},
		{"PING"},
		{"ECHO"},
	}
	subscriber := [][]string{{"SUBSCRIBE", "ch"}, {"GET", "k"}, {"PING"}, {"UNSUBSCRIBE", "ch"}}
	for _, p := range []*proc{b, r} {
		c, s := rawConn2(t, p), rawConn2(t, p)
		cmdDo(t, c, "CONFIG", "RESETSTAT")
		for _, args := range script {
			cmdDo(t, c, args...)
		}
		for _, args := range subscriber {
			cmdDo(t, s, args...)
		}
	}
	// A client that has not authenticated is refused.
	for _, p := range []*proc{b, r} {
		c := rawConn2(t, p)
		cmdDo(t, c, "CONFIG", "SET", "requirepass", "pw")
		other := rawConn2(t, p)
		cmdDo(t, other, "GET", "k")
		cmdDo(t, other, "AUTH", "wrong")
		cmdDo(t, other, "AUTH", "pw")
		cmdDo(t, other, "CONFIG", "SET", "requirepass", "")
	}

	type counts struct{ calls, rejected, failed int64 }
	read := func(p *proc) (map[string]counts, map[string]string, string) {
		c := rawConn2(t, p)
		cmds := map[string]counts{}
		for k, v := range infoLines(t, c, "commandstats") {
			name, _, _ := strings.Cut(strings.TrimPrefix(k, "cmdstat_"), "|")
			if name == "info" || name == "config" {
				continue // INFO counts itself in Basalt; CONFIG RESETSTAT resets itself
			}
			f := map[string]int64{}
			for _, kv := range strings.Split(v, ",") {
				key, val, _ := strings.Cut(kv, "=")
				f[key], _ = strconv.ParseInt(val, 10, 64)
			}
			sum := cmds[name]
			sum.calls += f["calls"]
			sum.rejected += f["rejected_calls"]
			sum.failed += f["failed_calls"]
			cmds[name] = sum
		}
		errs := map[string]string{}
		for k, v := range infoLines(t, c, "errorstats") {
			errs[k] = v
		}
		return cmds, errs, infoLines(t, c, "stats")["total_error_replies"]
	}
	bc, be, bt := read(b)
	rc, re, rt := read(r)
	if fmt.Sprint(bc) != fmt.Sprint(rc) {
		var lines []string
		for name := range mergeKeys(bc, rc) {
			if bc[name] != rc[name] {
				lines = append(lines, fmt.Sprintf("%s: basalt %+v, redis %+v", name, bc[name], rc[name]))
			}
		}
		sort.Strings(lines)
		t.Errorf("commandstats differ:\n%s", strings.Join(lines, "\n"))
	}
	if fmt.Sprint(be) != fmt.Sprint(re) {
		t.Errorf("errorstats: basalt %v, redis %v", be, re)
	}
	if bt != rt || bt == "" || bt == "0" {
		t.Errorf("total_error_replies: basalt %q, redis %q", bt, rt)
	}

	// CONFIG RESETSTAT clears them; INFO alone shows Kvrocks's sections,
	// errorstats in INFO all.
	c := rawConn2(t, b)
	cmdDo(t, c, "CONFIG", "RESETSTAT")
	if e := infoLines(t, c, "errorstats"); len(e) != 0 {
		t.Errorf("errorstats after CONFIG RESETSTAT: %v", e)
	}
	if n := infoLines(t, c, "stats")["total_error_replies"]; n != "0" {
		t.Errorf("total_error_replies after CONFIG RESETSTAT: %s", n)
	}
	all, _ := cmdDo(t, c, "INFO").text()
	everything, _ := cmdDo(t, c, "INFO", "all").text()
	if strings.Contains(all, "# Errorstats") || !strings.Contains(all, "# Commandstats") || !strings.Contains(everything, "# Errorstats") {
		t.Errorf("INFO sections: INFO has errorstats %v, commandstats %v; INFO all has errorstats %v",
			strings.Contains(all, "# Errorstats"), strings.Contains(all, "# Commandstats"), strings.Contains(everything, "# Errorstats"))
	}
	// As Kvrocks, INFO counts itself.
	if v := infoLines(t, c, "commandstats")["cmdstat_info"]; !strings.HasPrefix(v, "calls=") || strings.HasPrefix(v, "calls=0,") {
		t.Errorf("cmdstat_info = %q", v)
	}
}

func mergeKeys[V any](a, b map[string]V) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// TestHello checks HELLO's reply (Kvrocks's fields) and resp3-enabled:
// with it on, HELLO 3 switches to RESP3; with it off, HELLO 3 is answered
// in RESP2, as Kvrocks does, and go-redis's RESP3 clients still work.
func TestHello(t *testing.T) {
	on := startBasalt(t) // resp3-enabled is yes by default
	c := rawConn2(t, on)
	want3 := "map{\"server\": \"redis\", \"version\": \"4.0.0\", \"proto\": (integer) 3, \"mode\": \"standalone\", \"role\": \"master\", \"modules\": (nil)}"
	want2 := "[\"server\", \"redis\", \"version\", \"4.0.0\", \"proto\", (integer) 2, \"mode\", \"standalone\", \"role\", \"master\", \"modules\", (nil)]"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"HELLO"}, want2},
		{[]string{"HELLO", "3"}, want3},
		{[]string{"HELLO"}, want3}, // no version: the protocol stays
		{[]string{"GET", "nosuchkey"}, "(nil)"},
		{[]string{"HELLO", "2"}, want2},
		{[]string{"HELLO", "1"}, "(error) NOPROTO unsupported protocol version"},
		{[]string{"HELLO", "4"}, "(error) NOPROTO unsupported protocol version"},
		{[]string{"HELLO", "x"}, "(error) ERR Protocol version is not an integer or out of range"},
		{[]string{"HELLO", "2", "foo"}, "(error) ERR Syntax error in HELLO option 'foo'"},
	} {
		if got := cmdDo(t, c, tc.args...).render(); got != tc.want {
			t.Errorf("resp3-enabled yes: %v = %s, want %s", tc.args, got, tc.want)
		}
	}
	raw := dial(t, on)
	if got := raw.do("HELLO", "3"); !strings.HasPrefix(got, "%6\r\n") || !strings.HasSuffix(got, "$7\r\nmodules\r\n_\r\n") {
		t.Errorf("HELLO 3 = %q", got)
	}

	off := startBasalt(t, "--resp3-enabled", "no")
	raw = dial(t, off)
	if got := raw.do("HELLO", "3"); !strings.HasPrefix(got, "*12\r\n") || !strings.Contains(got, "$5\r\nproto\r\n:2\r\n") || !strings.HasSuffix(got, "$7\r\nmodules\r\n*-1\r\n") {
		t.Errorf("resp3-enabled no: HELLO 3 = %q", got)
	}
	if got := raw.do("GET", "nosuchkey"); got != "$-1\r\n" {
		t.Errorf("resp3-enabled no: after HELLO 3, GET = %q (not RESP2)", got)
	}
	// Turned on at run time, HELLO 3 switches.
	must(t, off.client(t, 2).ConfigSet(ctx, "resp3-enabled", "yes").Err())
	if got := raw.do("HELLO", "3"); !strings.HasPrefix(got, "%6\r\n") {
		t.Errorf("resp3-enabled set to yes: HELLO 3 = %q", got)
	}
	must(t, off.client(t, 2).ConfigSet(ctx, "resp3-enabled", "no").Err())
	// go-redis v9 sends HELLO 3 and takes the RESP2 answer.
	g := redis.NewClient(&redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Addr: off.Addr(), Protocol: 3, DisableIdentity: true})
	defer g.Close()
	must(t, g.HSet(ctx, "h", "f", "v").Err())
	if m, err := g.HGetAll(ctx, "h").Result(); err != nil || m["f"] != "v" {
		t.Errorf("go-redis RESP3 client, resp3-enabled no: HGETALL = %v, %v", m, err)
	}
	// Redis 7's NOAUTH and WRONGPASS.
	locked := startBasalt(t, "--requirepass", "pw")
	raw = dial(t, locked)
	if got := raw.do("HELLO", "2"); got != "-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time\r\n" {
		t.Errorf("HELLO unauthenticated = %q", got)
	}
	if got := raw.do("HELLO", "2", "AUTH", "default", "wrong"); got != "-WRONGPASS invalid username-password pair or user is disabled.\r\n" {
		t.Errorf("HELLO AUTH wrong = %q", got)
	}
	if got := raw.do("HELLO", "2", "AUTH", "default", "pw"); !strings.HasPrefix(got, "*12\r\n") {
		t.Errorf("HELLO AUTH = %q", got)
	}
}

// TestObjectAgainstRedis builds values on both sides of each encoding
// limit and compares OBJECT ENCODING, REFCOUNT and the errors of IDLETIME
// and FREQ with redis-server 7.0's, with the default limits and with
// limits set by CONFIG SET.
func TestObjectAgainstRedis(t *testing.T) {
	b, r := startBasalt(t), startRedis(t)
	bc, rc := rawConn2(t, b), rawConn2(t, r)
	both := func(args ...string) (string, string) {
		return cmdDo(t, rc, args...).render(), cmdDo(t, bc, args...).render()
	}
	same := func(args ...string) {
		t.Helper()
		if rv, bv := both(args...); rv != bv {
			t.Errorf("%v: redis %s, basalt %s", args, rv, bv)
		}
	}
	fill := func(cmd, key string, n int, elem func(i int) []string) {
		for i := 0; i < n; i += 100 {
			args := []string{cmd, key}
			for j := i; j < min(i+100, n); j++ {
				args = append(args, elem(j)...)
			}
			both(args...)
		}
	}
	long := strings.Repeat("x", 64)
	for _, limits := range [][]string{nil, {"hash-max-listpack-entries", "4", "zset-max-listpack-entries", "3", "set-max-intset-entries", "5",
		"hash-max-listpack-value", "8", "zset-max-listpack-value", "8"}} {
		if limits != nil {
			same(append([]string{"CONFIG", "SET"}, limits...)...)
		}
		same("FLUSHALL")
		for _, v := range []string{"12", "-5", "0", "9999", "10000", "007", "+1", "1.5", "12345678901234567890", "-9223372036854775808",
			strings.Repeat("a", 44), strings.Repeat("a", 45), ""} {
			same("SET", "s", v)
			same("OBJECT", "ENCODING", "s")
			same("OBJECT", "REFCOUNT", "s")
		}
		for _, n := range []int{1, 3, 4, 5, 128, 129, 512, 513} {
			key := strconv.Itoa(n)
			fill("HSET", "h"+key, n, func(i int) []string { return []string{"f" + strconv.Itoa(i), "v"} })
			fill("ZADD", "z"+key, n, func(i int) []string { return []string{strconv.Itoa(i), "m" + strconv.Itoa(i)} })
			fill("SADD", "si"+key, n, func(i int) []string { return []string{strconv.Itoa(i)} })
			fill("RPUSH", "l"+key, n, func(i int) []string { return []string{"e"} })
			for _, k := range []string{"h", "z", "si", "l"} {
				same("OBJECT", "ENCODING", k+key)
				same("OBJECT", "REFCOUNT", k+key)
			}
		}
		// Element lengths, and a set that is not all integers.
		same("HSET", "hv", "f", long)
		same("HSET", "hf", long+"y", "v")
		same("ZADD", "zm", "1", long)
		same("ZADD", "zl", "1", long+"y")
		same("SADD", "ss", "1", "a")
		same("SADD", "s0", "007")
		for _, k := range []string{"hv", "hf", "zm", "zl", "ss", "s0", "nosuchkey"} {
			same("OBJECT", "ENCODING", k)
		}
	}
	same("OBJECT", "FREQ", "s")
	same("OBJECT", "FREQ", "nosuchkey")
	same("OBJECT", "IDLETIME", "nosuchkey")
	same("OBJECT", "ENCODING")
	same("OBJECT", "FOO", "s")
	same("OBJECT", "HELP")
	if rv, bv := both("OBJECT", "IDLETIME", "s"); !strings.HasPrefix(rv, "(integer)") || !strings.HasPrefix(bv, "(integer)") {
		t.Errorf("OBJECT IDLETIME: redis %s, basalt %s", rv, bv)
	}
	same("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu")
	same("OBJECT", "IDLETIME", "s")
	if rv, bv := both("OBJECT", "FREQ", "s"); !strings.HasPrefix(rv, "(integer)") || bv != "(integer) 0" {
		t.Errorf("OBJECT FREQ with LFU: redis %s, basalt %s", rv, bv)
	}
}

// TestRandomKey checks RANDOMKEY on the binary: nil on an empty database,
// never an expired key, every key drawn and none far more often than the
// others over keys spread unevenly over the key space.
func TestRandomKey(t *testing.T) {
	p := startBasalt(t)
	c := p.client(t, 2)
	if err := c.RandomKey(ctx).Err(); err != redis.Nil {
		t.Fatalf("RANDOMKEY on an empty database: %v", err)
	}
	const n = 300
	pipe := c.Pipeline()
	for i := 0; i < n; i++ {
		pipe.Set(ctx, "user:"+strconv.Itoa(i), "v", 0)
		if i%3 == 0 {
			pipe.Set(ctx, "user:"+strconv.Itoa(i)+":gone", "v", time.Millisecond)
		}
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	const draws = 20 * n
	pipe = c.Pipeline()
	cmds := make([]*redis.StringCmd, draws)
	for i := range cmds {
		cmds[i] = pipe.RandomKey(ctx)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, cmd := range cmds {
		k := cmd.Val()
		if strings.HasSuffix(k, ":gone") || !strings.HasPrefix(k, "user:") {
			t.Fatalf("RANDOMKEY = %q", k)
		}
		counts[k]++
	}
	lo, hi := draws, 0
	for i := 0; i < n; i++ {
		c := counts["user:"+strconv.Itoa(i)]
		lo, hi = min(lo, c), max(hi, c)
	}
	if lo < 3 || hi > 50 {
		t.Fatalf("draws per key from %d to %d, want about 20 each", lo, hi)
	}
	must(t, c.FlushAll(ctx).Err())
	must(t, c.Set(ctx, "gone", "v", time.Millisecond).Err())
	time.Sleep(10 * time.Millisecond)
	if err := c.RandomKey(ctx).Err(); err != redis.Nil {
		t.Fatalf("RANDOMKEY with only an expired key: %v", err)
	}
}

// TestErrorMetrics checks that /metrics exports the error counters under
// redis_exporter's names.
func TestErrorMetrics(t *testing.T) {
	port := freePort(t)
	p := startBasalt(t, "--metrics-port", strconv.Itoa(port))
	url := fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
	c := rawConn2(t, p)
	cmdDo(t, c, "SET", "k", "v")
	for i := 0; i < 3; i++ {
		cmdDo(t, c, "LPUSH", "k", "x")
	}
	cmdDo(t, c, "GET")
	m := scrape(t, url)
	for _, tc := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"kvrocks_errors_total", []string{"err", "WRONGTYPE"}, 3},
		{"kvrocks_errors_total", []string{"err", "ERR"}, 1},
		{"kvrocks_commands_failed_calls_total", []string{"cmd", "lpush"}, 3},
		{"kvrocks_commands_rejected_calls_total", []string{"cmd", "get"}, 1},
		{"kvrocks_commands_total", []string{"cmd", "lpush"}, 3},
		{"kvrocks_total_error_replies", nil, 4},
	} {
		if got := metricValue(m, tc.name, tc.labels...); got != tc.want {
			t.Errorf("%s%v = %v, want %v", tc.name, tc.labels, got, tc.want)
		}
	}
}

// TestObjectIdleTime follows Redis's "TTL, TYPE and EXISTS do not alter the
// last access time of a key" and "TOUCH alters the last access time of a
// key" on both servers: a key left alone grows idle, commands that only
// inspect it leave it so, the others make it used again, and RESTORE
// IDLETIME sets it.
func TestObjectIdleTime(t *testing.T) {
	t.Parallel()
	b, r := startBasalt(t), startRedis(t)
	for _, p := range []*proc{r, b} {
		c := p.client(t, 2)
		idle := func(key string) int64 {
			t.Helper()
			n, err := c.ObjectIdleTime(ctx, key).Result()
			must(t, err)
			return int64(n / time.Second)
		}
		idleAtLeast := func(key string, want int64) {
			t.Helper()
			deadline := time.Now().Add(time.Minute)
			for idle(key) < want {
				if time.Now().After(deadline) {
					t.Fatalf("%s: %s never idle for %d s", p.cmd.Path, key, want)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
		for _, key := range []string{"foo", "bar"} {
			must(t, c.Set(ctx, key, "v", time.Hour).Err())
		}
		if n := idle("foo"); n > 1 {
			t.Errorf("%s: a key just set is idle for %d s", p.cmd.Path, n)
		}
		idleAtLeast("foo", 2)
		idleAtLeast("bar", 2)
		for _, args := range [][]any{{"TTL", "foo"}, {"PTTL", "foo"}, {"TYPE", "foo"}, {"EXISTS", "foo", "bar"},
			{"EXPIRETIME", "foo"}, {"PEXPIRETIME", "foo"}, {"OBJECT", "ENCODING", "foo"}, {"MEMORY", "USAGE", "foo"}} {
			must(t, c.Do(ctx, args...).Err())
		}
		if n := idle("foo"); n < 2 {
			t.Errorf("%s: inspecting foo made it used (idle %d s)", p.cmd.Path, n)
		}
		must(t, c.Touch(ctx, "foo").Err())
		must(t, c.Get(ctx, "bar").Err())
		for _, key := range []string{"foo", "bar"} {
			if n := idle(key); n >= 2 {
				t.Errorf("%s: %s still idle for %d s after it was used", p.cmd.Path, key, n)
			}
		}
		payload, err := c.Dump(ctx, "foo").Result()
		must(t, err)
		must(t, c.Do(ctx, "RESTORE", "old", "0", payload, "IDLETIME", "1000").Err())
		if n := idle("old"); n < 1000 || n > 1010 {
			t.Errorf("%s: RESTORE IDLETIME 1000 gave idle %d s", p.cmd.Path, n)
		}
	}
}
