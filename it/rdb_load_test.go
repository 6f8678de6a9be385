package it

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisRDB fills a redis-server 7.0 with every type in each encoding it
// saves (int, embstr and raw strings, LZF-compressed ones, listpacks,
// intsets, hash tables, skip lists, quicklists of several nodes, plain
// and compressed nodes), keys with and without a TTL in databases 0, 1
// and 2, then SAVEs and returns the file and a client of the server.
func redisRDB(t *testing.T) (string, *proc) {
	t.Helper()
	r := startRedis(t, "--list-compress-depth", "1", "--enable-debug-command", "yes")
	c := r.longClient(t, 2)
	must(t, c.Do(ctx, "DEBUG", "QUICKLIST-PACKED-THRESHOLD", "1000").Err())
	pipe := c.Pipeline()
	pipe.Set(ctx, "s:small", "hello", 0)
	pipe.Set(ctx, "s:int", "12345", 0)
	pipe.Set(ctx, "s:negint", "-9223372036854775808", 0)
	pipe.Set(ctx, "s:empty", "", 0)
	pipe.Set(ctx, "s:binary", "\x00\xff\r\n\x01", 0)
	pipe.Set(ctx, "s:lzf", strings.Repeat("abcdefgh", 500), 0)
	pipe.Set(ctx, "s:big", randomBytes(3<<20), 0)
	pipe.SetBit(ctx, "s:bitmap", 100000, 1)
	pipe.PFAdd(ctx, "hll:sparse", "a", "b", "c")
	hll := make([]any, 5000)
	for i := range hll {
		hll[i] = i
	}
	pipe.PFAdd(ctx, "hll:dense", hll...)
	pipe.RPush(ctx, "l:small", "a", 1, -2, "b", 70000, 5000000000)
	pipe.RPush(ctx, "l:plain", strings.Repeat("p", 2000), "x", strings.Repeat("q", 3000))
	pipe.SAdd(ctx, "set:intset", 3, 1, -2, 1<<40)
	pipe.SAdd(ctx, "set:strings", "a", "b", "c")
	pipe.HSet(ctx, "h:small", "f", "v", "n", 12, "e", "")
	pipe.HSet(ctx, "h:longvalue", "f", strings.Repeat("v", 100))
	pipe.ZAdd(ctx, "z:small", redis.Z{Score: 1.5, Member: "a"}, redis.Z{Score: -2, Member: "b"}, redis.Z{Score: 1e300, Member: "c"})
	pipe.ZAdd(ctx, "z:inf", redis.Z{Score: -1 / zero(), Member: "lo"}, redis.Z{Score: 1 / zero(), Member: "hi"})
	pipe.Set(ctx, "ttl:s", "v", time.Hour)
	pipe.HSet(ctx, "ttl:h", "f", "v")
	pipe.PExpire(ctx, "ttl:h", 90*time.Minute)
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	// Big collections: hash tables, skip lists and quicklists of many
	// nodes, compressed but for the first and last.
	for i := 0; i < 60000; i += 2000 {
		pipe := c.Pipeline()
		fields := make([]any, 0, 4000)
		members := make([]redis.Z, 0, 2000)
		items := make([]any, 0, 2000)
		ints := make([]any, 0, 2000)
		for j := i; j < i+2000; j++ {
			fields = append(fields, "field:"+strconv.Itoa(j), strings.Repeat("v", j%70))
			members = append(members, redis.Z{Score: float64(j%1000) / 7, Member: "member:" + strconv.Itoa(j)})
			items = append(items, "item:"+strconv.Itoa(j)+strings.Repeat("i", j%30))
			ints = append(ints, j*3)
		}
		pipe.HSet(ctx, "h:big", fields...)
		pipe.ZAdd(ctx, "z:big", members...)
		pipe.RPush(ctx, "l:big", items...)
		pipe.SAdd(ctx, "set:big", items...)
		pipe.SAdd(ctx, "set:bigints", ints...)
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	fillStreams(t, c)
	must(t, c.FunctionLoad(ctx, libraryCode("mylib", "return args[1]")).Err())
	for db := 1; db <= 2; db++ {
		cdb := newClient(t, &redis.Options{Addr: r.Addr(), DB: db, Protocol: 2, MaxRetries: -1, ReadTimeout: longTimeout})
		for i := 0; i < 50; i++ {
			must(t, cdb.Set(ctx, fmt.Sprintf("db%d:%d", db, i), i, 0).Err())
		}
		must(t, cdb.RPush(ctx, fmt.Sprintf("db%d:list", db), "x", "y").Err())
	}
	// A key whose TTL ends before the save, kept in memory (no active
	// expiry, never read): the file holds it, a loader skips it.
	must(t, c.Do(ctx, "DEBUG", "SET-ACTIVE-EXPIRE", "0").Err())
	gone := time.Now().Add(100 * time.Millisecond)
	must(t, c.Set(ctx, "ttl:gone", "v", 0).Err())
	must(t, c.PExpireAt(ctx, "ttl:gone", gone).Err())
	waitFor(t, time.Minute, "ttl:gone's TTL ends", func() bool { return time.Now().After(gone.Add(10 * time.Millisecond)) })
	must(t, c.Save(ctx).Err())
	dir, err := c.ConfigGet(ctx, "dir").Result()
	must(t, err)
	return filepath.Join(dir["dir"], "dump.rdb"), r
}

func zero() float64 { return 0 }

// libraryCode is a function library of one function, myfunc, whose body
// is body.
func libraryCode(name, body string) string {
	return "#!lua name=" + name + "\nredis.register_function('myfunc', function(keys, args) " + body + " end)"
}

// fillStreams writes streams with deleted entries, entries of the
// master fields and of others, many listpack nodes, an emptied stream,
// and consumer groups with consumers and pending entries.
func fillStreams(t *testing.T, c *redis.Client) {
	t.Helper()
	pipe := c.Pipeline()
	for i := 1; i <= 3000; i++ {
		values := []any{"f", i, "g", strings.Repeat("x", i%50)}
		if i%7 == 0 {
			values = []any{"other", i}
		}
		pipe.XAdd(ctx, &redis.XAddArgs{Stream: "x:big", ID: fmt.Sprintf("%d-%d", 1000+i/3, i%3), Values: values})
	}
	pipe.XAdd(ctx, &redis.XAddArgs{Stream: "x:small", ID: "5-1", Values: []any{"a", "1"}})
	pipe.XAdd(ctx, &redis.XAddArgs{Stream: "x:small", ID: "5-2", Values: []any{"a", "2", "b", "3"}})
	pipe.XAdd(ctx, &redis.XAddArgs{Stream: "x:small", ID: "6-0", Values: []any{"a", "4"}})
	pipe.XDel(ctx, "x:small", "5-2")
	pipe.XAdd(ctx, &redis.XAddArgs{Stream: "x:empty", ID: "9-9", Values: []any{"k", "v"}})
	pipe.XTrimMaxLen(ctx, "x:empty", 0)
	pipe.XGroupCreate(ctx, "x:empty", "idle", "0")
	for i := 0; i < 500; i++ {
		pipe.XDel(ctx, "x:big", fmt.Sprintf("%d-%d", 1000+(i*5+3)/3, (i*5+3)%3))
	}
	pipe.XGroupCreate(ctx, "x:big", "g1", "0")
	pipe.XGroupCreate(ctx, "x:big", "g2", "$")
	pipe.XGroupCreate(ctx, "x:small", "g", "0")
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	for _, consumer := range []string{"alice", "bob"} {
		must(t, c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g1", Consumer: consumer, Streams: []string{"x:big", ">"}, Count: 40}).Err())
	}
	must(t, c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "carol", Streams: []string{"x:small", ">"}, Count: 1}).Err())
	must(t, c.XAck(ctx, "x:big", "g1", "1000-1", "1000-2").Err())
	must(t, c.XGroupCreateConsumer(ctx, "x:big", "g2", "dave").Err())
}

// streamGroups renders a stream's groups, their consumers and pending
// entries, without the times, which go on.
func streamGroups(t *testing.T, c *redis.Client, key string) string {
	t.Helper()
	idle := regexp.MustCompile(`(idle|inactive) -?[0-9]+`)
	var b strings.Builder
	groups, err := c.Do(ctx, "XINFO", "GROUPS", key).Slice()
	must(t, err)
	fmt.Fprintln(&b, groups)
	for _, g := range groups {
		name := fmt.Sprint(g.([]any)[1])
		consumers, err := c.Do(ctx, "XINFO", "CONSUMERS", key, name).Result()
		must(t, err)
		pending, err := c.Do(ctx, "XPENDING", key, name, "-", "+", "10000").Result()
		must(t, err)
		fmt.Fprintln(&b, idle.ReplaceAllString(fmt.Sprint(consumers), "$1 -"), len(fmt.Sprint(pending)))
		summary, err := c.Do(ctx, "XPENDING", key, name).Result()
		must(t, err)
		fmt.Fprintln(&b, summary)
	}
	info, err := c.Do(ctx, "XINFO", "STREAM", key).Slice()
	must(t, err)
	for i := 0; i+1 < len(info); i += 2 {
		if f := info[i]; f != "radix-tree-keys" && f != "radix-tree-nodes" {
			fmt.Fprintf(&b, "%v=%v ", f, info[i+1])
		}
	}
	return b.String()
}

// withoutHLL drops the HyperLogLogs of a dump: Basalt keeps them dense,
// so GET reads other bytes, and TYPE names them; PFCOUNT compares them.
func withoutHLL(d map[string]keyDump) map[string]keyDump {
	for k := range d {
		if strings.HasPrefix(k, "hll:") {
			delete(d, k)
		}
	}
	return d
}

// TestRDBLoad: Basalt loads what redis-server 7.0 saved, and a dump of
// every key, TTL and element matches redis-server's, database by
// database; NX leaves existing keys alone; keys that expired since the
// save are skipped.
func TestRDBLoad(t *testing.T) {
	t.Parallel()
	file, r := redisRDB(t)
	rc := r.longClient(t, 2)
	want := withoutHLL(dumpNamespace(t, rc))

	p := startBasalt(t)
	c := p.longClient(t, 2)
	must(t, c.Set(ctx, "s:small", "basalt's", 0).Err())
	must(t, c.Set(ctx, "mine", "stays", 0).Err())
	must(t, c.FunctionLoad(ctx, libraryCode("mylib", "return 'basalts'")).Err())
	if got := p.cli(t, "RDB", "LOAD", file, "NX"); got != "OK" {
		t.Fatalf("RDB LOAD NX = %q\n%s", got, p.Output)
	}
	if got := c.Get(ctx, "s:small").Val(); got != "basalt's" {
		t.Fatalf("RDB LOAD NX replaced s:small: %q", got)
	}
	if got := c.FCall(ctx, "myfunc", nil, "file's").Val(); got != "basalts" {
		t.Fatalf("RDB LOAD NX replaced the library mylib: FCALL = %q", got)
	}
	if got := p.cli(t, "RDB", "LOAD", file); got != "OK" {
		t.Fatalf("RDB LOAD = %q", got)
	}
	for _, k := range []string{"hll:sparse", "hll:dense"} {
		if g, w := c.PFCount(ctx, k).Val(), rc.PFCount(ctx, k).Val(); g != w {
			t.Errorf("PFCOUNT %s = %d, redis-server %d", k, g, w)
		}
	}
	// Basalt's TYPE of a HyperLogLog is its own; PFCOUNT compared them.
	must(t, c.Del(ctx, "hll:sparse", "hll:dense").Err())
	if got := c.FCall(ctx, "myfunc", nil, "file's").Val(); got != "file's" {
		t.Fatalf("RDB LOAD did not load the library mylib: FCALL = %q", got)
	}
	got := dumpNamespace(t, c)
	if got["mine"].value[0] != "stays" {
		t.Fatal("RDB LOAD dropped a key the file does not have")
	}
	delete(got, "mine")
	compareKeys(t, "RDB LOAD of database 0", want, got)
	for _, k := range []string{"x:big", "x:small", "x:empty"} {
		if g, w := streamGroups(t, c, k), streamGroups(t, rc, k); g != w {
			t.Errorf("stream %s's groups and figures:\nbasalt       %s\nredis-server %s", k, g, w)
		}
	}
	if !strings.Contains(p.Output.String(), `"keys loaded"=`) || !strings.Contains(p.Output.String(), `"keys expired"=1`) {
		t.Errorf("the log does not count the keys loaded and expired:\n%s", p.Output)
	}

	// Database 2 into another namespace of a server of its own.
	q := startBasalt(t)
	if got := q.cli(t, "RDB", "LOAD", file, "DB", "2"); got != "OK" {
		t.Fatalf("RDB LOAD DB 2 = %q", got)
	}
	r2 := newClient(t, &redis.Options{Addr: r.Addr(), DB: 2, Protocol: 2, MaxRetries: -1, ReadTimeout: longTimeout})
	compareKeys(t, "RDB LOAD of database 2", dumpNamespace(t, r2), dumpNamespace(t, q.longClient(t, 2)))
}

// compareKeys compares the keys of one database with compareDumps.
func compareKeys(t *testing.T, what string, want, got map[string]keyDump) {
	t.Helper()
	compareDumps(t, what, dump{ns: map[string]map[string]keyDump{"db": want}}, dump{ns: map[string]map[string]keyDump{"db": got}})
}

// TestRDBLoadBadInput: RDB LOAD's syntax errors and bad files, each
// answered with an error that says what is wrong, and nothing written.
func TestRDBLoadBadInput(t *testing.T) {
	file, _ := redisRDB(t)
	good, err := os.ReadFile(file)
	must(t, err)
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		path := filepath.Join(dir, name)
		must(t, os.WriteFile(path, b, 0o644))
		return path
	}
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 0x40
	v13 := append([]byte("REDIS0013"), good[9:]...)
	p := startBasalt(t)
	c := p.longClient(t, 2)
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"RDB"}, "ERR wrong number of arguments"},
		{[]any{"RDB", "LOAD"}, "ERR wrong number of arguments"},
		{[]any{"RDB", "SAVE", file}, "ERR unknown subcommand"},
		{[]any{"RDB", "LOAD", file, "XX"}, "ERR syntax error"},
		{[]any{"RDB", "LOAD", file, "DB"}, "ERR no more item to parse"},
		{[]any{"RDB", "LOAD", file, "DB", "x"}, "ERR not started as an integer"},
		{[]any{"RDB", "LOAD", file, "DB", "1.5"}, "ERR encounter non-integer characters"},
		{[]any{"RDB", "LOAD", file, "DB", "-1"}, "ERR out of range of integer type"},
		{[]any{"RDB", "LOAD", file, "DB", "4294967296"}, "ERR out of range of integer type"},
		{[]any{"RDB", "LOAD", "/nonexistent/dump.rdb"}, "ERR failed to open rdb file: '/nonexistent/dump.rdb': No such file or directory"},
		{[]any{"RDB", "LOAD", dir}, "ERR failed to open rdb file: '" + dir + "': not a regular file"},
		{[]any{"RDB", "LOAD", write("empty.rdb", nil)}, "ERR Wrong signature trying to load DB from file"},
		{[]any{"RDB", "LOAD", write("text.rdb", []byte("root:x:0:0:root:/root:/bin/sh\n"))}, "ERR Wrong signature trying to load DB from file"},
		{[]any{"RDB", "LOAD", write("v13.rdb", v13)}, "ERR Can't handle RDB format version 13"},
		{[]any{"RDB", "LOAD", write("flipped.rdb", flipped)}, "ERR wrong RDB checksum: ..."},
		{[]any{"RDB", "LOAD", write("cut.rdb", good[:len(good)/3])}, "ERR wrong RDB checksum: ..."},
	} {
		err := c.Do(ctx, tc.args...).Err()
		prefix, partial := strings.CutSuffix(tc.want, "...")
		if err == nil || (!partial && err.Error() != tc.want) || !strings.HasPrefix(err.Error(), prefix) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
	if n := c.DBSize(ctx).Val(); n != 0 {
		t.Fatalf("the bad files wrote %d keys", n)
	}
	// A file cut short whose last 8 bytes are zeros, which reads as
	// "written without a checksum": refused where it ends, with the keys
	// before it loaded, as Kvrocks does.
	cut := append(append([]byte(nil), good[:len(good)/2]...), make([]byte, 8)...)
	err = c.Do(ctx, "RDB", "LOAD", write("cut-nosum.rdb", cut)).Err()
	if err == nil || !strings.Contains(err.Error(), "at byte") {
		t.Fatalf("a cut file without checksum: %v", err)
	}
	if n := c.DBSize(ctx).Val(); n == 0 {
		t.Fatal("the keys before the cut were not loaded")
	}
	tenant := startBasalt(t, "--requirepass", adminPass, "--repl-namespace-enabled", "yes")
	admin := interopClient(t, tenant, adminPass, longTimeout)
	must(t, admin.Do(ctx, "NAMESPACE", "ADD", "ns1", "token1").Err())
	if err := interopClient(t, tenant, "token1", longTimeout).Do(ctx, "RDB", "LOAD", file).Err(); err == nil || err.Error() != "ERR admin permission required to perform the command" {
		t.Fatalf("RDB LOAD by a tenant: %v", err)
	}
}
