package commands

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/namespace"
	"github.com/basaltdb/basalt/resp"
	"github.com/basaltdb/basalt/session"
	"github.com/basaltdb/basalt/storage"
	"github.com/basaltdb/basalt/types/tdigest"
)

// FuzzCommandArgs runs one command of the table per input, with arguments
// the fuzzer builds, against a real storage seeded with a few keys of
// every type. It fails when a handler panics (Dispatch recovers and logs
// "command panicked"), logs any other error, writes a reply that is not
// well-formed RESP, builds a reply in memory instead of streaming it, or
// does not return.
//
// An input is (mode, name, args). mode's bits: fuzzRESP3 makes the client
// speak RESP3, fuzzTenant puts it in a namespace without admin rights (the
// keys are seeded there), fuzzInMulti runs the command inside MULTI/EXEC.
// name picks the command (a name in the table, or any other string hashed
// onto one); args are split at NUL bytes, and an argument that is 0x01
// followed by one byte b stands for fuzzTokens[b]: huge and negative
// numbers, option words, the seeded keys.
func FuzzCommandArgs(f *testing.F) {
	h := newFuzzHarness(f)
	h.listen(f)
	f.Add(uint8(0), "SRANDMEMBER", []byte("s\x00-1099511627776"))
	f.Add(uint8(fuzzRESP3|fuzzInMulti), "ZRANGE", []byte("z\x00\x01\x05\x00\x01\x03\x00BYSCORE\x00LIMIT\x00\x01\x03\x00\x01\x04"))
	f.Add(uint8(fuzzRESP3), "GEOSEARCH", []byte("z\x00FROMMEMBER\x00d\x00BYBOX\x00\x01\x0e\x00\x01\x04\x00km\x00COUNT\x00\x01\x01\x00ANY"))
	f.Add(uint8(0), "GEORADIUS", []byte("z\x00180\x00-85.05112878\x00inf\x00m\x00WITHCOORD\x00STOREDIST\x00dst"))
	f.Add(uint8(0), "SORT", []byte("l\x00BY\x00w_*\x00GET\x00#\x00GET\x00h*->f\x00ALPHA\x00DESC\x00LIMIT\x00\x01\x01\x00\x01\x03\x00STORE\x00dst"))
	f.Add(uint8(fuzzInMulti), "CLIENT", []byte("REPLY\x00SKIP"))
	f.Add(uint8(fuzzRESP3), "DEBUG", []byte("PROTOCOL\x00attrib"))
	f.Add(uint8(fuzzRESP3), "DEBUG", []byte("PROTOCOL\x00push"))
	f.Add(uint8(fuzzRESP3), "DEBUG", []byte("PROTOCOL\x00bignum"))
	token := func(s string) string { return "\x01" + string(byte(slices.Index(fuzzTokens, s))) }
	listPayload := fuzzTokens[slices.Index(fuzzTokens, "FREQ")+2]
	f.Add(uint8(0), "RESTORE", []byte("dst\x00"+token("1099511627776")+"\x00"+token(listPayload)+"\x00REPLACE\x00IDLETIME\x00"+token("0")))
	f.Add(uint8(fuzzInMulti), "DUMP", []byte(token("z")))
	f.Add(uint8(0), "XADD", []byte("x\x00MAXLEN\x00~\x00\x01\x01\x00LIMIT\x00\x01\x03\x00*\x00f\x00v"))
	f.Add(uint8(fuzzRESP3), "XREAD", []byte("COUNT\x00\x01\x01\x00BLOCK\x00\x01\x00\x00STREAMS\x00x\x00missing\x00$\x00+"))
	f.Add(uint8(fuzzRESP3), "XINFO", []byte("STREAM\x00x\x00FULL\x00COUNT\x00\x01\x02"))
	f.Add(uint8(0), "XGROUP", []byte("CREATE\x00x\x00g2\x00$\x00MKSTREAM\x00ENTRIESREAD\x00"+token("9223372036854775807")))
	f.Add(uint8(fuzzRESP3), "XREADGROUP", []byte("GROUP\x00g\x00c\x00COUNT\x00"+token("-1")+"\x00NOACK\x00STREAMS\x00x\x00x\x00>\x000"))
	f.Add(uint8(fuzzInMulti), "XREADGROUP", []byte("GROUP\x00g\x00c\x00BLOCK\x00"+token("0")+"\x00STREAMS\x00x\x00>"))
	f.Add(uint8(0), "XCLAIM", []byte("x\x00g\x00d\x00"+token("-9223372036854775808")+"\x001-1\x002-1\x00IDLE\x00"+token("-9223372036854775808")+"\x00RETRYCOUNT\x00"+token("18446744073709551615")+"\x00FORCE\x00LASTID\x00"+token("18446744073709551615-18446744073709551615")))
	f.Add(uint8(fuzzRESP3), "XAUTOCLAIM", []byte("x\x00g\x00d\x00"+token("0")+"\x00-\x00COUNT\x00"+token("4611686018427387903")+"\x00JUSTID"))
	f.Add(uint8(fuzzRESP3), "EVAL", []byte(token("return {1, {ok='x'}, {err='y'}, {double=1.5}, {map={a=1}}, {set={b=true}}}")+"\x00"+token("0")))
	f.Add(uint8(fuzzTenant), "EVAL", []byte(token("return redis.call(unpack(ARGV))")+"\x00"+token("0")+"\x00ZRANGE\x00z\x00"+token("0")+"\x00"+token("-1")+"\x00WITHSCORES"))
	f.Add(uint8(fuzzInMulti|fuzzRESP3), "EVAL_RO", []byte(token("redis.setresp(3) return redis.call('hgetall', KEYS[1])")+"\x00"+token("1")+"\x00h"))
	f.Add(uint8(0), "FUNCTION", []byte("LOAD\x00REPLACE\x00"+token("#!lua name=lib\nredis.register_function('fn', function(k, a) return redis.call('lrange', k[1], 0, -1) end)")))
	f.Add(uint8(0), "FCALL", []byte("fn\x00"+token("1")+"\x00l"))
	f.Add(uint8(0), "SCRIPT", []byte("LOAD\x00"+token("return {cmsgpack.unpack(ARGV[1])}")))
	f.Add(uint8(fuzzRESP3), "XPENDING", []byte("x\x00g\x00IDLE\x00"+token("-1")+"\x00-\x00+\x00"+token("9223372036854775807")+"\x00c"))
	f.Add(uint8(0), "RDB", []byte("LOAD\x00"+token("/nonexistent/dump.rdb")+"\x00NX\x00DB\x00"+token("18446744073709551615")))
	f.Add(uint8(fuzzInMulti), "BGSAVE", []byte(token("SCHEDULE")))
	f.Add(uint8(fuzzRESP3), "MEMORY", []byte("USAGE\x00"+token("h")+"\x00SAMPLES\x00"+token("-9223372036854775808")))
	f.Add(uint8(0), "LATENCY", []byte("GRAPH\x00"+token("command")))
	f.Add(uint8(fuzzInMulti), "DEBUG", []byte("RELOAD\x00NOSAVE"))
	f.Add(uint8(fuzzTenant), "PERFLOG", []byte("GET\x00"+token("*")))
	f.Add(uint8(fuzzRESP3), "CLIENT", []byte(token("TRACKING")+"\x00"+token("ON")+"\x00"+token("BCAST")+"\x00"+token("PREFIX")+"\x00s\x00"+token("PREFIX")+"\x00\x00"+token("NOLOOP")))
	f.Add(uint8(fuzzTenant), "CLIENT", []byte(token("TRACKING")+"\x00"+token("ON")+"\x00"+token("REDIRECT")+"\x00"+token("-9223372036854775808")+"\x00"+token("OPTIN")+"\x00"+token("OPTOUT")))
	f.Add(uint8(fuzzInMulti|fuzzRESP3), "CLIENT", []byte(token("CACHING")+"\x00"+token("YES")))
	f.Add(uint8(0), "CLIENT", []byte(token("TRACKINGINFO")))
	f.Add(uint8(0), "CLIENT", []byte(token("KILL")+"\x00"+token("MAXAGE")+"\x00"+token("9223372036854775807")+"\x00"+token("SKIPME")+"\x00"+token("NO")+"\x00"+token("LADDR")+"\x00x"))
	f.Add(uint8(0), "DEBUG", []byte(token("SET-ACTIVE-EXPIRE")+"\x00"+token("0")))
	f.Add(uint8(fuzzTenant), "SET", []byte("str\x00v\x00"+token("PXAT")+"\x00"+token("1")))
	f.Add(uint8(fuzzRESP3), "JSON.GET", []byte(token("j")+"\x00INDENT\x00"+token("\t")+"\x00"+token("$..*")+"\x00"+token(".")))
	f.Add(uint8(fuzzInMulti), "JSON.ARRINSERT", []byte(token("j")+"\x00"+token("$.a[*]")+"\x00"+token("-9223372036854775808")+"\x00"+token("[[[[1]]]]")))
	f.Add(uint8(fuzzTenant), "JSON.MSET", []byte(token("j")+"\x00"+token("$")+"\x00"+token(`"x"`)+"\x00"+token("jcbor")+"\x00"+token("$")+"\x00"+token("1e400")))
	f.Add(uint8(fuzzRESP3), "JSON.DEBUG", []byte(token("MEMORY")+"\x00"+token("jtext")+"\x00"+token("$..*")))
	f.Add(uint8(0), "JSON.STRAPPEND", []byte(token("j")+"\x00"+token(`"x"`)))
	f.Add(uint8(0), "JSON.MGET", []byte(token("j")+"\x00"+token("jformat")+"\x00"+token("s")+"\x00"+token("a.c[0]")))
	f.Add(uint8(fuzzRESP3), "SET", []byte("str\x00v\x00"+token("IFDNE")+"\x00"+token("9555e8555c62dcfd")+"\x00GET\x00"+token("KEEPTTL")))
	f.Add(uint8(0), "DELEX", []byte("str\x00"+token("IFDEQ")+"\x00"+token("9555e8555c62dcfd")))
	f.Add(uint8(fuzzInMulti), "MSETEX", []byte(token("2")+"\x00a\x00"+token("1")+"\x00b\x00"+token("2")+"\x00"+token("NX")+"\x00"+token("PX")+"\x00"+token("9223372036854775807")))
	f.Add(uint8(fuzzRESP3), "XACKDEL", []byte("x\x00g\x00"+token("ACKED")+"\x00"+token("IDS")+"\x00"+token("2")+"\x001-1\x00"+token("18446744073709551615-18446744073709551615")))
	f.Add(uint8(0), "XDELEX", []byte("x\x00"+token("DELREF")+"\x00"+token("IDS")+"\x00"+token("4611686018427387904")+"\x001-1"))
	f.Add(uint8(fuzzRESP3), "XREADGROUP", []byte("GROUP\x00g\x00c\x00"+token("CLAIM")+"\x00"+token("0")+"\x00COUNT\x00"+token("1")+"\x00STREAMS\x00x\x00>"))
	f.Add(uint8(0), "XTRIM", []byte("x\x00"+token("ACKED")+"\x00"+token("MAXLEN")+"\x00~\x00"+token("0")+"\x00"+token("LIMIT")+"\x00"+token("9223372036854775807")))
	f.Add(uint8(fuzzInMulti), "XADD", []byte("x\x00"+token("NOMKSTREAM")+"\x00"+token("DELREF")+"\x00"+token("MINID")+"\x00"+token("18446744073709551615-18446744073709551615")+"\x00*\x00f\x00v"))
	f.Add(uint8(0), "BITOP", []byte(token("DIFF1")+"\x00dst\x00str\x00n\x00missing"))
	f.Add(uint8(fuzzRESP3), "TDIGEST.QUANTILE", []byte(token("td")+"\x00"+token("0")+"\x00"+token("0.5")+"\x00"+token("1")))
	f.Add(uint8(fuzzInMulti), "TDIGEST.MERGE", []byte(token("td")+"\x00"+token("1")+"\x00"+token("td")+"\x00"+token("COMPRESSION")+"\x00"+token("1")+"\x00"+token("OVERRIDE")))
	f.Add(uint8(fuzzTenant), "TDIGEST.BYREVRANK", []byte(token("tdbuf")+"\x00"+token("9223372036854775807")))
	f.Add(uint8(0), "TDIGEST.ADD", []byte(token("tdshort")+"\x00"+token("1e-300")))
	f.Fuzz(func(t *testing.T, mode uint8, name string, args []byte) {
		h.run(t, mode, name, fuzzArgs(args))
	})
}

// The bits of an input's mode.
const (
	fuzzRESP3 = 1 << iota
	fuzzTenant
	fuzzInMulti
)

// fuzzNamespace is the namespace of fuzzTenant inputs.
const fuzzNamespace = "tenant"

// fuzzTokens are argument values worth trying anywhere.
var fuzzTokens = []string{
	"0", "1", "-1",
	"9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
	"4611686018427387903", "4611686018427387904", "-4611686018427387903", "-4611686018427387904",
	"1099511627776", "-1099511627776", "2147483648", "-2147483649", "18446744073709551615",
	"536870911", "536870912", "1e400", "-1e400", "inf", "-inf", "+inf", "nan", "1.5", "(1", "[a", "(a", "-", "+", "",
	"s", "h", "z", "l", "str", "n", "big", "missing", "dst",
	"WITHSCORES", "WITHSCORE", "WITHVALUES", "LIMIT", "COUNT", "MATCH", "TYPE", "RANK", "MAXLEN",
	"BYSCORE", "BYLEX", "REV", "NX", "XX", "GT", "LT", "CH", "INCR", "EX", "PX", "EXAT", "PXAT",
	"KEEPTTL", "GET", "PERSIST", "LEFT", "RIGHT", "BEFORE", "AFTER", "MIN", "MAX", "WEIGHTS",
	"AGGREGATE", "SUM", "IDX", "LEN", "MINMATCHLEN", "WITHMATCHLEN", "REPLACE", "DB", "NOVALUES",
	"PAUSE", "UNPAUSE", "KILL", "LIST", "INFO", "SETNAME", "ID", "ALL", "WRITE", "*", "a*", "\x00\xff",
	// The GEO commands' words and limits (appended: the indexes above
	// are in the corpus).
	"ANY", "ASC", "DESC", "STORE", "STOREDIST", "FROMMEMBER", "FROMLONLAT", "BYRADIUS", "BYBOX",
	"WITHDIST", "WITHCOORD", "WITHHASH", "m", "km", "mi", "180", "-180", "85.05112878", "-85.05112878", "20000",
	// SORT's, CLIENT REPLY's and DEBUG's.
	"BY", "ALPHA", "nosort", "#", "w_*", "h*->f", "REPLY", "ON", "OFF", "SKIP", "PROTOCOL", "attrib", "push", "bignum",
	// RESTORE's words and payloads redis-server 7.0 dumped (a string, a
	// list, a sorted set), whose NUL bytes no argument can carry.
	"ABSTTL", "IDLETIME", "FREQ", "\x00\x05hello\n\x00cr\xdfve4 \n",
	"\x12\x01\x02\x10\x10\x00\x00\x00\x03\x00\x81a\x02\x81b\x02\x81c\x02\xff\n\x00\xc8\x18\xb9\x0c\x953R\x9e",
	"\x11\x14\x14\x00\x00\x00\x04\x00\x81a\x02\x831.5\x04\x81b\x02\x02\x01\xff\n\x00\xfa\x02\xb4%\xaf\x18\x87c",
	// The stream commands' keys, IDs and words.
	"x", "1-1", "2-*", "(1-1", "(18446744073709551615-18446744073709551615", "18446744073709551615-18446744073709551615",
	"$", "~", "=", "MINID", "NOMKSTREAM", "STREAMS", "BLOCK", "ENTRIESADDED", "MAXDELETEDID", "STREAM", "GROUPS", "CONSUMERS", "FULL",
	// The consumer group commands' names and words.
	"g", "c", ">", "GROUP", "NOACK", "CREATE", "SETID", "DESTROY", "CREATECONSUMER", "DELCONSUMER", "MKSTREAM", "ENTRIESREAD",
	"IDLE", "TIME", "RETRYCOUNT", "FORCE", "JUSTID", "LASTID",
	// Backups' and RDB LOAD's (a path: nothing there, a directory).
	"SCHEDULE", "LOAD", "/nonexistent/dump.rdb", "/",
	// Scripts and functions: bodies, a library, SCRIPT's and FUNCTION's
	// words.
	"return redis.call('get', KEYS[1])", "return {1, {ok='x'}, {err='y'}, {double=1.5}, {map={a=1}}, {set={b=true}}}",
	"redis.setresp(3) return redis.call('hgetall', KEYS[1])", "return cjson.encode(cjson.decode(ARGV[1]))",
	"return {cmsgpack.unpack(ARGV[1])}", "return {struct.unpack(ARGV[1], ARGV[2])}", "return redis.call(unpack(ARGV))",
	"#!lua flags=no-writes\nreturn redis.call('set', 'k', 'v')", "#!lua name=lib\nredis.register_function('fn', function(k, a) return redis.call('lrange', k[1], 0, -1) end)",
	"fn", "EXISTS", "FLUSH", "DUMP", "RESTORE", "APPEND", "STATS", "LIBRARYNAME", "WITHCODE", "SYNC", "ASYNC",
	// Diagnostics'.
	"USAGE", "SAMPLES", "RESET", "HISTORY", "GRAPH", "HISTOGRAM", "command", "OBJECT", "RELOAD",
	// Client-side caching's and CLIENT KILL's words.
	"TRACKING", "CACHING", "GETREDIR", "TRACKINGINFO", "REDIRECT", "PREFIX", "BCAST", "OPTIN", "OPTOUT",
	"NOLOOP", "YES", "NO", "MAXAGE", "SKIPME", "LADDR", "ADDR", "USER", "NO-EVICT", "SET-ACTIVE-EXPIRE",
	// The JSON commands' keys (a document, stored values that do not
	// decode), paths, values and words.
	"j", "jcbor", "jtext", "jformat", "jempty", ".", "$..*", "$.a[*]", "$.a[-1:0:-1]", "$..[?(@ > 1 || @ == 'x')]", "a.c[0]",
	`{"a":[1,{"b":null}],"c":"s"}`, `"x"`, "[[[[1]]]]", "1e400", "MEMORY", "INDENT", "NEWLINE", "SPACE", "\t",
	// Redis 8.2-8.4's conditions, digests, entry deletions, CLAIM and
	// BITOP operations.
	"IFEQ", "IFNE", "IFDEQ", "IFDNE", "9555e8555c62dcfd", "IDS", "KEEPREF", "DELREF", "ACKED", "CLAIM",
	"DIFF", "DIFF1", "ANDOR", "ONE",
	// The t-digest commands' keys (one with centroids and a buffer,
	// stored ones that do not decode), fractions and words.
	"td", "tdshort", "tdbuf", "0.5", "0.999", "1e-300", "COMPRESSION", "OVERRIDE",
}

// fuzzMaxArgs bounds the arguments of one input.
const fuzzMaxArgs = 64

// fuzzArgs splits the fuzzer's bytes into arguments (see FuzzCommandArgs).
func fuzzArgs(data []byte) [][]byte {
	if len(data) == 0 {
		return nil
	}
	parts := bytes.Split(data, []byte{0})
	if len(parts) > fuzzMaxArgs {
		parts = parts[:fuzzMaxArgs]
	}
	for i, p := range parts {
		if len(p) == 2 && p[0] == 1 {
			parts[i] = []byte(fuzzTokens[int(p[1])%len(fuzzTokens)])
		}
	}
	return parts
}

// Limits of one input: the reply is spilled every fuzzSpillAt bytes, the
// spill fails (the client is "gone") past fuzzReplyLimit bytes, and the
// command must return within fuzzTimeout.
const (
	fuzzSpillAt    = 64 << 10
	fuzzReplyLimit = 1 << 20
	fuzzTimeout    = 30 * time.Second
)

// fuzzHarness is a server's state without the network: a real storage,
// an Env, and clients built as server.accept builds them.
type fuzzHarness struct {
	env   *executor.Env
	setup *testClient
	logs  *logCatcher
	cmds  []*executor.Command
}

func newFuzzHarness(tb testing.TB) *fuzzHarness {
	// A 1 MB proto-max-bulk-len (its minimum) keeps SETRANGE and APPEND
	// at most that big, and the LCS table with them.
	cfg, err := config.Load("", [][2]string{
		{"dir", tb.TempDir()},
		{"rocksdb.block_cache_size", "8"},
		{"rocksdb.write_buffer_size", "4"},
		{"proto-max-bulk-len", "1048576"},
	})
	if err != nil {
		tb.Fatal(err)
	}
	st, err := storage.Open(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	ns, err := namespace.Open(cfg, st)
	if err != nil {
		st.Close()
		tb.Fatal(err)
	}
	h := &fuzzHarness{env: executor.NewEnv(st, cfg, ns, session.NewRegistry(cfg, resp.Render)), logs: &logCatcher{}}
	h.env.Shutdown = func() {} // SHUTDOWN replies nothing and stops nothing here
	previous := slog.Default()
	slog.SetDefault(slog.New(h.logs))
	tb.Cleanup(func() {
		slog.SetDefault(previous)
		h.env.Close()
		st.Close()
	})
	h.setup = h.client()
	h.cmds = executor.SortedCommands()
	return h
}

// listen turns every keyspace event on and connects a client of each
// namespace that subscribes to every keyspace channel and tracks every
// key in BCAST mode, and one that tracks the keys it reads, so that every
// input runs the notification and invalidation paths. Their unread
// messages are bounded by the pubsub output limit, past which they are
// closed.
func (h *fuzzHarness) listen(tb testing.TB) {
	if err := h.env.Config.Set("notify-keyspace-events", "KEAmn"); err != nil {
		tb.Fatal(err)
	}
	for _, ns := range []string{metadata.DefaultNamespace, fuzzNamespace} {
		l := h.client()
		l.Session.Namespace = ns
		for _, cmd := range [][]string{{"psubscribe", "__key*"}, {"client", "tracking", "on", "bcast"}} {
			h.env.Dispatch(l.Ctx, args(cmd...))
		}
		reader := h.client()
		reader.Session.Namespace = ns
		reader.setProtocol(3)
		for _, cmd := range [][]string{{"client", "tracking", "on"}, {"mget", "s", "h", "z", "l", "str", "n", "x", "big", "dst"}} {
			h.env.Dispatch(reader.Ctx, args(cmd...))
		}
	}
}

// seed empties the database and writes the keys the tokens name; "big",
// a set of 1100 members (large enough to be sampled by seeks), only when
// an argument names it, since writing it costs more than most commands.
func (h *fuzzHarness) seed(t *testing.T, big bool) {
	t.Helper()
	if err := h.reset(big, metadata.DefaultNamespace); err != nil {
		t.Fatal(err)
	}
}

// reset is seed, into namespace ns, returning what went wrong.
func (h *fuzzHarness) reset(big bool, ns string) error {
	h.setup.Session.Namespace = ns
	cmds := [][]string{
		{"client", "unpause"},
		{"flushall"},
		{"sadd", "s", "a", "b", "c"},
		{"hset", "h", "f", "v", "g", "w", "n", "10"},
		{"zadd", "z", "1", "a", "2", "b", "2", "c", "-inf", "d", "inf", "e"},
		{"rpush", "l", "a", "b", "c", "a", "b"},
		{"set", "str", "hello world"},
		{"set", "n", "10"},
		{"xadd", "x", "1-1", "f", "v"},
		{"xadd", "x", "2-1", "f", "v", "g", "w"},
		{"xgroup", "create", "x", "g", "0"},
		{"xreadgroup", "group", "g", "c", "count", "1", "streams", "x", ">"},
		{"json.set", "j", "$", `{"a":[1,"x",{"b":null,"c":[true,2.5]}],"n":1,"s":"str"}`},
		// A t-digest with centroids (17 values pass the buffer's 16) and
		// a buffered value.
		{"tdigest.create", "td", "COMPRESSION", "1"},
		{"tdigest.add", "td", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17", "-2.5"},
		{"tdigest.add", "td", "0.5"},
	}
	if big {
		members := []string{"sadd", "big"}
		for i := 0; i < 1100; i++ {
			members = append(members, "member:"+strconv.Itoa(i))
		}
		cmds = append(cmds, members)
	}
	for _, cmd := range cmds {
		h.env.Dispatch(h.setup.Ctx, args(cmd...))
		reply := h.setup.W.Bytes()
		if len(reply) > 0 && reply[0] == '-' {
			return fmt.Errorf("seeding %v: %q", cmd, reply)
		}
		h.setup.W.Reset()
	}
	return h.seedCorrupt(ns)
}

// corruptJSON are stored JSON values that do not decode, by key: CBOR
// cut short, JSON text cut short, an unknown format, no format byte.
var corruptJSON = map[string][]byte{
	"jcbor": {1, 0xa1, 0x61, 'a', 0x9f}, "jtext": []byte("\x00{\"a\":["), "jformat": {7, '1'}, "jempty": {},
}

// corruptTDigest are stored t-digests that do not decode, by extension:
// one cut short, and one counting 5 buffered values whose buffer record
// (seedCorrupt writes one of 7 bytes for each) holds no whole value.
var corruptTDigest = map[string][]byte{
	"tdshort": tdigest.NewMeta(100).AppendExt(nil)[:40],
	"tdbuf": func() []byte {
		m := tdigest.NewMeta(100)
		m.UnmergedNodes, m.TotalWeight, m.TotalObservations = 5, 5, 5
		return m.AppendExt(nil)
	}(),
}

// seedCorrupt writes the corruptJSON and corruptTDigest keys into
// namespace ns as a broken disk would: a metadata header of the type
// before the bytes.
func (h *fuzzHarness) seedCorrupt(ns string) error {
	var keys [][]byte
	for _, m := range []map[string][]byte{corruptJSON, corruptTDigest} {
		for k := range m {
			keys = append(keys, []byte(k))
		}
	}
	var err error
	uerr := h.env.Storage.Update(&storage.Write{NS: ns, Keys: keys}, func(db storage.DB) {
		b := db.NewBatch(nil)
		for _, k := range keys {
			t, value := metadata.TypeJSON, corruptJSON[string(k)]
			if ext, ok := corruptTDigest[string(k)]; ok {
				t, value = metadata.TypeTDigest, ext
			}
			o := db.NewObject(k, t)
			b.Put(storage.CFMetadata, o.NSKey(), append(o.Meta().AppendTo(nil), value...))
			if t == metadata.TypeTDigest {
				b.Put(storage.CFDefault, o.Subkey(tdigest.BufferSubkey), []byte("1234567"))
			}
		}
		err = b.Commit()
	})
	return errors.Join(uerr, err)
}

// fuzzSkip says why a call is not run, or "".
func fuzzSkip(cmd *executor.Command, a [][]byte) string {
	if cmd.Name == "config" && len(a) > 1 && !strings.EqualFold(string(a[1]), "get") && !strings.EqualFold(string(a[1]), "help") {
		return "CONFIG SET, REWRITE and RESETSTAT change the server for every later input " +
			"(a requirepass locks them all out); CONFIG GET and HELP are run"
	}
	if cmd.Name == "debug" && len(a) > 1 && (strings.EqualFold(string(a[1]), "sleep") || strings.EqualFold(string(a[1]), "dbsize-limit")) {
		return "DEBUG SLEEP sleeps as long as it is asked (up to a day), and DEBUG DBSIZE-LIMIT " +
			"refuses every later input's writes; DEBUG's other subcommands are run"
	}
	return ""
}

// blocksForEver lists the commands that wait (for ever with a
// timeout of 0): they are run inside MULTI, where they do not block but
// parse their arguments and answer as if timed out.
var blocksForEver = map[string]bool{
	"blpop": true, "brpop": true, "blmove": true, "brpoplpush": true, "blmpop": true,
	"bzpopmin": true, "bzpopmax": true, "bzmpop": true, "xread": true, "xreadgroup": true,
	// WAIT waits for replicas that the harness has none of.
	"wait": true,
}

// pick returns the command name designates.
func (h *fuzzHarness) pick(name string) *executor.Command {
	if cmd := executor.Lookup([]byte(name)); cmd != nil {
		return cmd
	}
	sum := fnv.New32a()
	sum.Write([]byte(name))
	return h.cmds[int(sum.Sum32()%uint32(len(h.cmds)))]
}

func (h *fuzzHarness) run(t *testing.T, mode uint8, name string, rest [][]byte) {
	cmd := h.pick(name)
	call := append([][]byte{[]byte(cmd.Name)}, rest...)
	if why := fuzzSkip(cmd, call); why != "" {
		t.Skip(why)
	}
	big := false
	for _, a := range rest {
		big = big || string(a) == "big"
	}
	cl := h.client()
	defer h.env.Disconnected(cl.Session)
	if mode&fuzzRESP3 != 0 {
		cl.setProtocol(3)
	}
	ns := metadata.DefaultNamespace
	if mode&fuzzTenant != 0 {
		// As AUTH with the namespace's token leaves it.
		ns, cl.Session.Namespace, cl.Session.Admin = fuzzNamespace, fuzzNamespace, false
	}
	var sent []byte
	spilled, failed := 0, false
	cl.W.SetSpill(fuzzSpillAt, func(send bool) error {
		if spilled+cl.W.Len() > fuzzReplyLimit {
			failed = true
			return errors.New("over the reply limit")
		}
		if !send {
			return nil
		}
		spilled += cl.W.Len()
		sent = append(sent, cl.W.Bytes()...)
		cl.W.Reset()
		return nil
	})
	calls := [][][]byte{call}
	if blocksForEver[cmd.Name] || mode&fuzzInMulti != 0 {
		calls = [][][]byte{args("multi"), call, args("exec")}
	}
	// The whole input, seeding included, must end in time.
	var seeding error
	done := make(chan struct{})
	go func() {
		defer close(done)
		if seeding = h.reset(big, ns); seeding != nil {
			return
		}
		h.logs.take()
		for _, c := range calls {
			h.env.Dispatch(cl.Ctx, c)
		}
	}()
	// A script may loop for ever, as in Redis: it is stopped, as
	// SHUTDOWN NOSAVE would.
	stopScript := time.AfterFunc(fuzzTimeout/3, h.env.Scripts.Abort)
	defer stopScript.Stop()
	select {
	case <-done:
	case <-time.After(fuzzTimeout):
		t.Fatalf("%q did not return in %v", call, fuzzTimeout)
	}
	if seeding != nil {
		t.Fatal(seeding)
	}
	if logged := h.logs.take(); len(logged) > 0 {
		t.Fatalf("%q logged:\n%s", call, strings.Join(logged, "\n"))
	}
	if n := cl.W.Len(); n > fuzzReplyLimit {
		t.Fatalf("%q holds a reply of %d bytes in memory", call, n)
	}
	if failed {
		return // the reply was cut at the limit, as for a client gone
	}
	// A client that subscribed or monitors has its output in its push
	// stream (replies queued there, confirmations pushed), in order.
	out := sent
	for _, pushed := range cl.Session.TakePushes(nil) {
		out = append(out, pushed...)
	}
	out = append(out, cl.W.Bytes()...)
	replies := 0
	for len(out) > 0 {
		n := respValueLen(out, 0)
		if n <= 0 {
			t.Fatalf("%q wrote a malformed reply at %q", call, executor.Abbreviate(out))
		}
		out = out[n:]
		replies++
	}
	// CLIENT REPLY OFF and SKIP silence replies on purpose, and a command
	// that takes the connection over (_fetch_file, PSYNC) answers on it
	// itself, without RESP.
	silenced := cl.Session.Replies.Suppressed() || cl.Session.TakeOver != nil
	if replies < len(calls) && cmd.Name != "shutdown" && !cl.conn.closed.Load() && !silenced {
		t.Fatalf("%q: %d replies to %d commands", call, replies, len(calls))
	}
}

// respValueLen returns the length of the RESP2 or RESP3 value at the
// start of b, or -1 when b does not start with a complete, well-formed
// one.
func respValueLen(b []byte, depth int) int {
	if len(b) == 0 || depth > 64 {
		return -1
	}
	eol := bytes.Index(b, []byte("\r\n"))
	if eol < 1 {
		return -1
	}
	line := b[1:eol]
	if bytes.IndexByte(line, '\r') >= 0 || bytes.IndexByte(line, '\n') >= 0 {
		return -1
	}
	head := eol + 2
	switch b[0] {
	case '+', '-', ',', '(':
		return head
	case '_':
		if len(line) != 0 {
			return -1
		}
		return head
	case '#':
		if string(line) != "t" && string(line) != "f" {
			return -1
		}
		return head
	case ':':
		if _, err := strconv.ParseInt(string(line), 10, 64); err != nil {
			return -1
		}
		return head
	case '$', '=', '!':
		n, err := strconv.ParseInt(string(line), 10, 64)
		switch {
		case err != nil || n < -1 || (n == -1 && b[0] != '$'):
			return -1
		case n == -1:
			return head
		case int64(len(b)-head) < n+2 || string(b[head+int(n):head+int(n)+2]) != "\r\n":
			return -1
		}
		return head + int(n) + 2
	case '*', '~', '>', '%', '|':
		n, err := strconv.ParseInt(string(line), 10, 64)
		if err != nil || n < -1 || (n == -1 && b[0] != '*') || n > int64(len(b)) {
			return -1
		}
		if b[0] == '%' || b[0] == '|' {
			n *= 2
		}
		at := head
		for i := int64(0); i < n; i++ {
			m := respValueLen(b[at:], depth+1)
			if m < 0 {
				return -1
			}
			at += m
		}
		if b[0] == '|' { // attributes precede the value they describe
			m := respValueLen(b[at:], depth+1)
			if m < 0 {
				return -1
			}
			at += m
		}
		return at
	}
	return -1
}

// logCatcher keeps the error-level log records: a command that panics or
// meets an unexpected error logs one.
type logCatcher struct {
	mu     sync.Mutex
	errors []string
}

func (l *logCatcher) Enabled(_ context.Context, level slog.Level) bool {
	return level >= slog.LevelError
}

func (l *logCatcher) Handle(_ context.Context, r slog.Record) error {
	var s strings.Builder
	s.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&s, " %s=%v", a.Key, a.Value)
		return true
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errors = append(l.errors, s.String())
	return nil
}

func (l *logCatcher) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logCatcher) WithGroup(string) slog.Handler      { return l }

// take returns the records kept since the last call.
func (l *logCatcher) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.errors
	l.errors = nil
	return out
}
