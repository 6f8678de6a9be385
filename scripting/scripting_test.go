package scripting

import (
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/basaltdb/basalt/reply"
	"github.com/basaltdb/basalt/resp"
	lua "github.com/yuin/gopher-lua"
)

// memCaller is a Caller over a map: GET, SET, INCR, PING, HGETALL-like
// replies for the conversions, and an error for anything else.
type memCaller struct{ data map[string]string }

func (m *memCaller) Known(args [][]byte) bool { return strings.EqualFold(string(args[0]), "get") }

func (m *memCaller) Call(args [][]byte, w reply.Sink) bool {
	switch strings.ToLower(string(args[0])) {
	case "get":
		v, ok := m.data[string(args[1])]
		if !ok {
			w.Null()
			return false
		}
		w.BulkString(v)
	case "set":
		m.data[string(args[1])] = string(args[2])
		w.OK()
		return true
	case "incr":
		n, err := strconv.ParseInt(m.data[string(args[1])], 10, 64)
		if err != nil && m.data[string(args[1])] != "" {
			w.Error("ERR value is not an integer or out of range")
			return false
		}
		m.data[string(args[1])] = strconv.FormatInt(n+1, 10)
		w.Int(n + 1)
		return true
	case "map":
		w.Map(1)
		w.BulkString("k")
		w.Double(1.5)
	case "set3":
		w.Set(1)
		w.BulkString("m")
	case "bool":
		w.Bool(true)
	default:
		w.Error("ERR Unknown Redis command called from script")
	}
	return false
}

// eval runs body with the engine and returns the reply as RESP, for a
// client of protocol proto.
func eval(t *testing.T, e *Engine, body string, proto int, keys ...string) string {
	t.Helper()
	sc, err := e.Cache(body, admin.Owner)
	if err != nil {
		return "-" + err.Error() + "\r\n"
	}
	w := resp.NewWriter()
	w.SetProtocol(proto)
	var k [][]byte
	for _, s := range keys {
		k = append(k, []byte(s))
	}
	e.Eval(sc, k, nil, Invocation{Caller: &memCaller{data: map[string]string{"s": "str", "n": "5"}}}, w)
	return string(w.Bytes())
}

// admin is the scope of the default namespace's admin.
var admin = Scope{Owner: "__namespace", All: true}

func newTestEngine(t *testing.T) *Engine {
	e := NewEngine(func() time.Duration { return 0 })
	t.Cleanup(e.Close)
	return e
}

func TestEval(t *testing.T) {
	e := newTestEngine(t)
	sha := func(body string) string { return sha1Of(body) }
	for _, tc := range []struct {
		body  string
		proto int
		want  string
	}{
		{"return 1", 2, ":1\r\n"},
		{"return 3.99", 2, ":3\r\n"},
		{"return -3.9", 2, ":-3\r\n"},
		{"return 'x'", 2, "$1\r\nx\r\n"},
		{"return true", 2, ":1\r\n"},
		{"return false", 2, "$-1\r\n"},
		{"return false", 3, "_\r\n"},
		{"return nil", 2, "$-1\r\n"},
		{"return {1,2,nil,4}", 2, "*2\r\n:1\r\n:2\r\n"},
		{"return {ok='fine'}", 2, "+fine\r\n"},
		{"return {ok='a\\r\\nb'}", 2, "+a  b\r\n"},
		{"return {err='My Error'}", 2, "-My Error\r\n"},
		{"return redis.error_reply('NoSpace')", 2, "-ERR NoSpace\r\n"},
		{"return redis.error_reply('MY_ERR custom')", 2, "-MY_ERR custom\r\n"},
		{"return redis.error_reply('')", 2, "-ERR \r\n"},
		{"return redis.status_reply('X')", 2, "+X\r\n"},
		{"return {double=1.5}", 2, "$3\r\n1.5\r\n"},
		{"return {double=1.5}", 3, ",1.5\r\n"},
		{"return {big_number='123'}", 3, "(123\r\n"},
		{"redis.setresp(3) return true", 3, "#t\r\n"},
		{"redis.setresp(3) return false", 2, ":0\r\n"},
		{"return redis.call('get','s')", 2, "$3\r\nstr\r\n"},
		{"return redis.call('get','nokey')", 2, "$-1\r\n"},
		{"return type(redis.call('get','nokey'))", 2, "$7\r\nboolean\r\n"},
		{"redis.setresp(3) return type(redis.call('get','nokey'))", 2, "$3\r\nnil\r\n"},
		{"return redis.call('set','a','b')", 2, "+OK\r\n"},
		{"return redis.call('incr','n')", 2, ":6\r\n"},
		{"return redis.call('map')", 2, "*2\r\n$1\r\nk\r\n$3\r\n1.5\r\n"},
		{"redis.setresp(3) return redis.call('map').map.k.double", 2, ":1\r\n"},
		{"redis.setresp(3) return redis.call('set3').set.m", 2, ":1\r\n"},
		{"redis.setresp(3) return redis.call('bool')", 3, "#t\r\n"},
		{"return redis.call('bool')", 3, ":1\r\n"},
		{"return redis.pcall('incr','s')", 2, "-ERR value is not an integer or out of range\r\n"},
		{"return redis.call('incr','s')", 2, "-ERR value is not an integer or out of range script: " + sha("return redis.call('incr','s')") + ", on @user_script:1.\r\n"},
		{"return redis.call('nosuch')", 2, "-ERR Unknown Redis command called from script script: " + sha("return redis.call('nosuch')") + ", on @user_script:1.\r\n"},
		{"return redis.call()", 2, "-ERR Please specify at least one argument for this redis lib call script: " + sha("return redis.call()") + ", on @user_script:1.\r\n"},
		{"return redis.call({})", 2, "-ERR Lua redis lib command arguments must be strings or integers script: " + sha("return redis.call({})") + ", on @user_script:1.\r\n"},
		{"a = 10", 2, "-ERR user_script:1: Attempt to modify a readonly table script: " + sha("a = 10") + ", on @user_script:1.\r\n"},
		{"return a", 2, "-ERR user_script:1: Script attempted to access nonexistent global variable 'a' script: " + sha("return a") + ", on @user_script:1.\r\n"},
		{"redis.call = 1", 2, "-ERR user_script:1: Attempt to modify a readonly table script: " + sha("redis.call = 1") + ", on @user_script:1.\r\n"},
		{"cjson.encode = 1", 2, "-ERR user_script:1: Attempt to modify a readonly table script: " + sha("cjson.encode = 1") + ", on @user_script:1.\r\n"},
		{"rawset(_G, 'a', 1)", 2, "-ERR Attempt to modify a readonly table script: " + sha("rawset(_G, 'a', 1)") + ", on @user_script:1.\r\n"},
		{"setmetatable(_G, {})", 2, "-ERR Attempt to modify a readonly table script: " + sha("setmetatable(_G, {})") + ", on @user_script:1.\r\n"},
		{"\nerror('x')", 2, "-ERR user_script:2: x script: " + sha("\nerror('x')") + ", on @user_script:2.\r\n"},
		{"return os.clock() >= 0", 2, ":1\r\n"},
		{"return print", 2, "-ERR user_script:1: Script attempted to access nonexistent global variable 'print' script: " + sha("return print") + ", on @user_script:1.\r\n"},
		{"return loadfile", 2, "-ERR user_script:1: Script attempted to access nonexistent global variable 'loadfile' script: " + sha("return loadfile") + ", on @user_script:1.\r\n"},
		{"local n=0 for k in pairs(redis) do n=n+1 end return n > 10", 2, ":1\r\n"},
		{"return rawget(_G, 'redis') ~= nil", 2, ":1\r\n"},
		{"return KEYS[1] .. #ARGV", 2, "$2\r\nk0\r\n"},
		{"return loadstring('return 7')()", 2, ":7\r\n"},
		{"return ('abc'):upper()", 2, "$3\r\nABC\r\n"},
		{"getmetatable('').__index.upper = 1", 2, "-ERR user_script:1: Attempt to modify a readonly table script: " + sha("getmetatable('').__index.upper = 1") + ", on @user_script:1.\r\n"},
		{"return redis.sha1hex('')", 2, "$40\r\nda39a3ee5e6b4b0d3255bfef95601890afd80709\r\n"},
		{"return redis.setresp(4)", 2, "-ERR RESP version must be 2 or 3. script: " + sha("return redis.setresp(4)") + ", on @user_script:1.\r\n"},
		{"#!lua flags=no-writes\nreturn 2", 2, ":2\r\n"},
		{"#!lua flags=bad\nreturn 2", 2, "-ERR Unexpected flag in script shebang: bad\r\n"},
		{"#!lua", 2, "-ERR Invalid script shebang\r\n"},
		{"#!python\nreturn 1", 2, "-ERR Unexpected engine in script shebang: #!python\r\n"},
		{"return redis.REDIS_VERSION", 2, "$6\r\n7.0.15\r\n"},
		{"return select('#', ...)", 2, ":0\r\n"},
		{"return type(arg)", 2, "-ERR user_script:1: Script attempted to access nonexistent global variable 'arg' script: " + sha("return type(arg)") + ", on @user_script:1.\r\n"},
		{"local function f(...) return arg.n end return f(1, 2)", 2, ":2\r\n"},
		{"local t = {} t[1] = t return #cjson.encode({1})", 2, ":3\r\n"},
	} {
		if got := eval(t, e, tc.body, tc.proto, "k"); got != tc.want {
			t.Errorf("%q (RESP%d):\n got %q\nwant %q", tc.body, tc.proto, got, tc.want)
		}
	}
}

func TestLibraries(t *testing.T) {
	e := newTestEngine(t)
	for _, tc := range []struct{ body, want string }{
		{"return cjson.encode({1,2,{a=1}})", `[1,2,{"a":1}]`},
		{"return cjson.encode({[1]=1,[3]=2})", `[1,null,2]`},
		{"return cjson.encode({})", `{}`},
		{"return cjson.encode('a/b\"\\n')", `"a\/b\"\n"`},
		{"return cjson.encode(0.1)", `0.1`},
		{"return cjson.encode(1e20)", `1e+20`},
		{"return cjson.encode(cjson.decode('[1,\"x\",null,true]'))", `[1,"x",null,true]`},
		{"return tostring(cjson.decode('{\"a\":[1,2]}').a[2])", "2"},
		{"return cjson.decode('\"\\\\u00e9\"')", "\u00e9"},
		{"local ok, err = pcall(cjson.decode, '{') return err", "user_script:1: Expected object key string but found T_END at character 2"},
		{"local ok, err = pcall(cjson.encode, {[1]=1,[100]=2}) return err", "user_script:1: Cannot serialise table: excessively sparse array"},
		{"return bit.tohex(65535)", "0000ffff"},
		{"return bit.tohex(-1, -4)", "FFFF"},
		{"return bit.band(0xff, 0x0f) .. ' ' .. bit.bor(1, 2, 4) .. ' ' .. bit.bxor(3, 1)", "15 7 2"},
		{"return bit.lshift(1, 31) .. ' ' .. bit.rshift(-1, 28) .. ' ' .. bit.arshift(-256, 4)", "-2147483648 15 -16"},
		{"return bit.tobit(4294967297) .. ' ' .. bit.bnot(0) .. ' ' .. bit.rol(1, 33)", "1 -1 2"},
		{"return bit.tohex(bit.bswap(0x12345678))", "78563412"},
		{"return struct.pack('>I2', 258)", "\x01\x02"},
		{"return struct.pack('<i', -2)", "\xfe\xff\xff\xff"},
		{"return struct.pack('b c3 s', 1, 'abc', 'z')", "\x01abcz\x00"},
		{"local a, b, c, n = struct.unpack('>hc2s', struct.pack('>hc2s', -3, 'xy', 'end')) return a .. b .. c .. n", "-3xyend9"},
		{"return tostring(struct.size('!4bi'))", "8"},
		{"local x = struct.unpack('d', struct.pack('d', 1.25)) return tostring(x)", "1.25"},
		{"return cmsgpack.pack({1,2,3})", "\x93\x01\x02\x03"},
		{"return cmsgpack.pack('a', -1, 300, true)", "\xa1a\xff\xcd\x01\x2c\xc3"},
		{"return cmsgpack.pack(1.5)", "\xca\x3f\xc0\x00\x00"},
		{"return cmsgpack.pack(0.1)", "\xcb\x3f\xb9\x99\x99\x99\x99\x99\x9a"},
		{"local a, b = cmsgpack.unpack(cmsgpack.pack({x=1}, 'y')) return a.x .. b", "1y"},
		{"local off, v = cmsgpack.unpack_one(cmsgpack.pack(1, 2)) return off .. ' ' .. v", "1 1"},
		{"local ok, err = pcall(cmsgpack.unpack, '\\147\\1') return err", "user_script:1: Missing bytes in input."},
	} {
		got := eval(t, e, tc.body, 2)
		want := "$" + strconv.Itoa(len(tc.want)) + "\r\n" + tc.want + "\r\n"
		if got != want {
			t.Errorf("%q:\n got %q\nwant %q", tc.body, got, want)
		}
	}
}

func TestFunctions(t *testing.T) {
	e := newTestEngine(t)
	lib, err := e.Prepare("#!lua name=mylib\nredis.register_function('f1', function(keys, args) return keys[1] .. args[1] end)\nredis.register_function{function_name='f2', callback=function() return redis.call('get', 's') end, flags={'no-writes'}, description='d'}", PolicyLoad, admin)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Install([]*Library{lib}, PolicyLoad, admin, func(Change) error { return nil }); err != nil {
		t.Fatal(err)
	}
	f2 := e.Function("F2")
	if f2 == nil || !f2.ReadOnly() || f2.Description != "d" {
		t.Fatalf("f2 = %+v", f2)
	}
	w := resp.NewWriter()
	e.FCall(e.Function("f1"), [][]byte{[]byte("a")}, [][]byte{[]byte("b")}, Invocation{Caller: &memCaller{}}, w)
	e.FCall(f2, nil, nil, Invocation{Caller: &memCaller{data: map[string]string{"s": "v"}}}, w)
	if got := string(w.Bytes()); got != "$2\r\nab\r\n$1\r\nv\r\n" {
		t.Fatalf("fcall replies %q", got)
	}
	if err := e.Install([]*Library{lib}, PolicyLoad, admin, func(Change) error { return nil }); err == nil || err.Error() != "ERR Library 'mylib' already exists" {
		t.Fatalf("second load: %v", err)
	}
	for code, want := range map[string]string{
		"return 1":                                   "ERR Missing library metadata",
		"#!lua name=x\nreturn 1":                     "ERR No functions registered",
		"#!lua name=x\nlocal a = math":               "ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'math'",
		"#!lua name=x\nredis.call('ping')":           "ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'call'",
		"#!lua name=x\nredis.register_function('f')": "ERR Error registering functions: ERR calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).",
		"#!lua name=x\nwhile true do end":            "ERR Error registering functions: ERR FUNCTION LOAD timeout",
		"#!lua name=x-y\n":                           "ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long",
		"#!js name=x\n":                              "ERR Engine 'js' not found",
	} {
		if _, err := e.Prepare(code, PolicyLoad, admin); err == nil || err.Error() != want {
			t.Errorf("load %q: %v, want %s", code, err, want)
		}
	}
	// A runtime error names the function and its chunk.
	lib2, err := e.Prepare("#!lua name=l2\nredis.register_function('bad', function() return redis.call('nosuch') end)", PolicyLoad, admin)
	if err != nil {
		t.Fatal(err)
	}
	e.Install([]*Library{lib2}, PolicyLoad, admin, func(Change) error { return nil })
	w.Reset()
	e.FCall(e.Function("bad"), nil, nil, Invocation{Caller: &memCaller{}}, w)
	if got := string(w.Bytes()); got != "-ERR Unknown Redis command called from script script: bad, on @user_function:2.\r\n" {
		t.Fatalf("bad: %q", got)
	}
}

// A script that allocates without end is stopped and the engine keeps
// working.
func TestMemoryLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates the memory limit")
	}
	defer func(was int64) { memoryLimit = was }(memoryLimit)
	memoryLimit = 64 << 20
	e := newTestEngine(t)
	got := eval(t, e, "local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 1024) .. i end", 2)
	if !strings.HasPrefix(got, "-"+errOutOfMemory) {
		t.Fatalf("unbounded script: %q", got)
	}
	if got := eval(t, e, "return 1", 2); got != ":1\r\n" {
		t.Fatalf("after: %q", got)
	}
	if got := eval(t, e, "return string.rep('x', 2^40)", 2); !strings.Contains(got, "not enough memory") {
		t.Fatalf("string.rep: %q", got)
	}
}

// Kill stops a read-only script once it is busy.
func TestKill(t *testing.T) {
	e := NewEngine(func() time.Duration { return 50 * time.Millisecond })
	t.Cleanup(e.Close)
	if got := e.Kill(false); got != "NOTBUSY No scripts in execution right now." {
		t.Fatal(got)
	}
	done := make(chan string)
	go func() { done <- eval(t, e, "while true do end", 2) }()
	for e.Busy() == "" {
		<-e.Changed()
	}
	if got := e.Kill(true); got != errBusyScript {
		t.Fatalf("FUNCTION KILL of a script: %q", got)
	}
	if got := e.Kill(false); got != "" {
		t.Fatalf("kill: %q", got)
	}
	// The kill returns once the run ended: what comes next is not BUSY.
	if e.Running() || e.Busy() != "" {
		t.Fatalf("after the kill: running %v, busy %q", e.Running(), e.Busy())
	}
	if got := <-done; !strings.HasPrefix(got, "-"+errKilled+" script: ") {
		t.Fatalf("killed script replied %q", got)
	}
}

// funcCaller is a Caller that runs a function for each command.
type funcCaller func(args [][]byte, w reply.Sink)

func (f funcCaller) Call(args [][]byte, w reply.Sink) bool { f(args, w); return false }
func (f funcCaller) Known([][]byte) bool                   { return true }

// A run's busy state ends with it: the watchdog looking at a run as it
// ends does not make the next one busy from its start.
func TestBusyEndsWithItsRun(t *testing.T) {
	var threshold atomic.Int64
	threshold.Store(int64(time.Nanosecond))
	e := NewEngine(func() time.Duration { return time.Duration(threshold.Load()) })
	t.Cleanup(e.Close)
	sc, err := e.Cache("return redis.call('probe')", "")
	if err != nil {
		t.Fatal(err)
	}
	var seen *run
	var busy string
	probe := funcCaller(func(_ [][]byte, w reply.Sink) {
		seen, busy = e.current.Load(), e.Busy()
		w.OK()
	})
	e.Eval(sc, nil, nil, Invocation{Caller: probe}, resp.NewWriter())
	// The watchdog's look at the first run, as that run ends.
	e.checkBusy(seen)
	threshold.Store(int64(time.Hour))
	e.Eval(sc, nil, nil, Invocation{Caller: probe}, resp.NewWriter())
	if busy != "" {
		t.Fatalf("a run that just began is busy: %q", busy)
	}
}

// The Lua states are pooled: runs after the first make none.
func TestStatesReused(t *testing.T) {
	e := newTestEngine(t)
	eval(t, e, "return 1", 2)
	first := e.mu.idle[0]
	for range 10 {
		eval(t, e, "return redis.call('get', 's')", 2)
		fn, _ := e.Prepare("#!lua name=l\nredis.register_function('f', function() return 1 end)", PolicyReplace, admin)
		_ = fn
	}
	if len(e.mu.idle) != 1 || e.mu.idle[0] != first {
		t.Fatalf("idle states %v, want the first one only", e.mu.idle)
	}
}

// BenchmarkEvalGetSet is EVALSHA of a script doing one GET and one SET.
func BenchmarkEvalGetSet(b *testing.B) {
	e := NewEngine(func() time.Duration { return 0 })
	b.Cleanup(e.Close)
	sc, err := e.Cache("local v = redis.call('get', KEYS[1]) redis.call('set', KEYS[1], ARGV[1]) return v", admin.Owner)
	if err != nil {
		b.Fatal(err)
	}
	caller := &memCaller{data: map[string]string{}}
	keys, args := [][]byte{[]byte("k")}, [][]byte{[]byte("v")}
	w := reply.NewCapture(2)
	b.ReportAllocs()
	for b.Loop() {
		w.Reset()
		e.Eval(sc, keys, args, Invocation{Caller: caller}, w)
	}
}

// A script's chunk is compiled without the `arg` table gopher-lua would
// build on every call (a table with a hash part, 2.7 KB per EVALSHA).
func TestChunkBuildsNoArgTable(t *testing.T) {
	e := newTestEngine(t)
	sc, err := e.Cache("return 1", admin.Owner)
	if err != nil {
		t.Fatal(err)
	}
	if sc.proto.IsVarArg&lua.VarArgNeedsArg != 0 || sc.proto.IsVarArg&lua.VarArgIsVarArg == 0 {
		t.Fatalf("chunk IsVarArg %b, want vararg without arg", sc.proto.IsVarArg)
	}
	caller := &memCaller{data: map[string]string{}}
	w := reply.NewCapture(2)
	allocs := testing.AllocsPerRun(200, func() {
		w.Reset()
		e.Eval(sc, nil, nil, Invocation{Caller: caller}, w)
	})
	// 7: the run, its context and channel, and the KEYS and ARGV
	// tables. The arg table added its own allocations on top.
	if allocs > 10 {
		t.Fatalf("%v allocations per EVAL of return 1", allocs)
	}
}

// Namespaces reach only their own libraries and scripts; the admin
// reaches all of them.
func TestScopes(t *testing.T) {
	e := newTestEngine(t)
	t1, t2 := Scope{Owner: "t1"}, Scope{Owner: "t2"}
	persist := func(Change) error { return nil }
	load := func(scope Scope, policy Policy, code string) error {
		lib, err := e.Prepare(code, policy, scope)
		if err != nil {
			return err
		}
		return e.Install([]*Library{lib}, policy, scope, persist)
	}
	errText := func(err error) string {
		if err == nil {
			return "OK"
		}
		return err.Error()
	}
	names := func(scope Scope) string {
		var out []string
		for _, lib := range e.Libraries(scope) {
			out = append(out, lib.Owner+":"+lib.Name)
		}
		return strings.Join(out, ",")
	}
	for _, step := range []struct {
		scope  Scope
		policy Policy
		code   string
		want   string
	}{
		{t1, PolicyLoad, "#!lua name=a\nredis.register_function('fa', function() return 1 end)", "OK"},
		{t2, PolicyLoad, "#!lua name=b\nredis.register_function('fb', function() return 1 end)", "OK"},
		{t2, PolicyLoad, "#!lua name=a\nredis.register_function('fx', function() return 1 end)", "ERR Library 'a' already exists in another namespace"},
		{t2, PolicyReplace, "#!lua name=a\nredis.register_function('fx', function() return 1 end)", "ERR Library 'a' already exists in another namespace"},
		{t2, PolicyAppend, "#!lua name=a\nredis.register_function('fx', function() return 1 end)", "ERR Library 'a' already exists in another namespace"},
		{t2, PolicyReplace, "#!lua name=c\nredis.register_function('fa', function() return 1 end)", "ERR Function fa already exists in another namespace"},
		{t2, PolicyReplace, "#!lua name=b\nredis.register_function('fb2', function() return 2 end)", "OK"},
		// The admin replacing a namespace's library leaves it that
		// namespace's.
		{admin, PolicyReplace, "#!lua name=a\nredis.register_function('fa', function() return 3 end)", "OK"},
		{admin, PolicyLoad, "#!lua name=d\nredis.register_function('fd', function() return 4 end)", "OK"},
	} {
		if got := errText(load(step.scope, step.policy, step.code)); got != step.want {
			t.Fatalf("%s loads %q: %s, want %s", step.scope.Owner, step.code, got, step.want)
		}
	}
	for scope, want := range map[Scope]string{t1: "t1:a", t2: "t2:b", admin: "t1:a,t2:b,__namespace:d"} {
		if got := names(scope); got != want {
			t.Errorf("%+v sees %s, want %s", scope, got, want)
		}
	}
	if err := e.Delete("a", t2, persist); err != ErrNoLibrary {
		t.Errorf("t2 deletes t1's library: %v", err)
	}
	if err := e.Flush(t2, persist); err != nil || names(admin) != "t1:a,__namespace:d" {
		t.Errorf("t2's flush: %v, left %s", err, names(admin))
	}
	if libs, funcs := e.Counts(t1); libs != 1 || funcs != 1 {
		t.Errorf("t1 counts %d libraries, %d functions", libs, funcs)
	}
	if err := e.Flush(admin, persist); err != nil || names(admin) != "" {
		t.Errorf("the admin's flush: %v, left %s", err, names(admin))
	}

	// Scripts: each namespace sees those it cached; a namespace's
	// forgetting leaves the others' claims.
	sc, err := e.Cache("return 1", "t1")
	if err != nil {
		t.Fatal(err)
	}
	e.Cache("return 1", "t2")
	e.Cache("return 2", "t2")
	sc2, _ := e.Cache("return 2", "t2")
	for _, c := range []struct {
		sha   string
		scope Scope
		want  bool
	}{
		{sc.SHA, t1, true}, {sc.SHA, t2, true}, {sc2.SHA, t1, false}, {strings.ToUpper(sc2.SHA), t2, true}, {sc2.SHA, admin, true},
	} {
		if got := e.Script(c.sha, c.scope) != nil; got != c.want {
			t.Errorf("%s sees %s: %v", c.scope.Owner, c.sha, got)
		}
	}
	e.ForgetScripts(t2)
	if e.Script(sc.SHA, t1) == nil || e.Script(sc.SHA, t2) != nil || e.Script(sc2.SHA, admin) != nil {
		t.Errorf("after t2 forgot its scripts: t1 %v, t2 %v, admin sees the other %v", e.Script(sc.SHA, t1), e.Script(sc.SHA, t2), e.Script(sc2.SHA, admin))
	}
	// A copy of a stored script, cached for no namespace, goes with any
	// namespace's forgetting.
	stored, _ := e.Cache("return 3", "")
	if e.Script(stored.SHA, admin) == nil || e.Script(stored.SHA, t1) != nil {
		t.Error("a copy of a stored script is not the admin's only")
	}
	e.ForgetScripts(t2)
	if e.Script(stored.SHA, admin) != nil {
		t.Error("a copy of a stored script outlived a namespace's forgetting")
	}
	e.ForgetScript(sc.SHA, admin)
	if e.Script(sc.SHA, t1) != nil {
		t.Error("a script the admin forgot is still there")
	}
}
