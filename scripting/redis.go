package scripting

import (
	"crypto/sha1"
	"encoding/hex"
	"log/slog"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/basaltdb/basalt/reply"
)

// Caller runs the commands of one run of a script.
type Caller interface {
	// Call runs the command args and writes its reply to w, or the error
	// (with its code) that refused it: unknown command, wrong arity, a
	// command scripts may not call, a write in a read-only run, a key of
	// another slot. It reports whether the command may have written.
	// args and the slices in it belong to the caller after Call returns.
	Call(args [][]byte, w reply.Sink) (wrote bool)
	// Known reports whether args names a command (redis.acl_check_cmd).
	Known(args [][]byte) bool
}

// The contexts a redis table is made for: EVAL scripts, functions as
// they run, and library code as FUNCTION LOAD runs it.
type apiContext int

const (
	contextEval apiContext = iota
	contextFunction
	contextLoad
)

// Redis's version as scripts see it.
const (
	redisVersion    = "7.0.15"
	redisVersionNum = 0x0007000f
)

// Log levels of redis.log.
const (
	logDebug = iota
	logVerbose
	logNotice
	logWarning
)

// Replication flags of redis.set_repl.
const (
	replAOF   = 1
	replSlave = 2
)

// newRedis builds the redis table of context c.
func (s *state) newRedis(c apiContext) *lua.LTable {
	L := s.L
	t := L.NewTable()
	fn := func(name string, f lua.LGFunction) { t.RawSetString(name, L.NewFunction(f)) }
	fn("log", redisLog)
	for name, level := range map[string]int{"LOG_DEBUG": logDebug, "LOG_VERBOSE": logVerbose, "LOG_NOTICE": logNotice, "LOG_WARNING": logWarning} {
		t.RawSetString(name, lua.LNumber(level))
	}
	t.RawSetString("REDIS_VERSION", lua.LString(redisVersion))
	t.RawSetString("REDIS_VERSION_NUM", lua.LNumber(redisVersionNum))
	if c == contextLoad {
		fn("register_function", s.registerFunction)
		s.guardMissing(t)
		return t
	}
	fn("call", func(L *lua.LState) int { return s.call(L, true) })
	fn("pcall", func(L *lua.LState) int { return s.call(L, false) })
	fn("setresp", s.setResp)
	fn("sha1hex", sha1Hex)
	fn("error_reply", errorReply)
	fn("status_reply", statusReply)
	fn("set_repl", setRepl)
	fn("acl_check_cmd", s.aclCheckCmd)
	for name, flags := range map[string]int{"REPL_NONE": 0, "REPL_AOF": replAOF, "REPL_SLAVE": replSlave, "REPL_REPLICA": replSlave, "REPL_ALL": replAOF | replSlave} {
		t.RawSetString(name, lua.LNumber(flags))
	}
	if c == contextEval {
		// The debugger is not there: breakpoint says so, debug is silent.
		fn("breakpoint", func(L *lua.LState) int { L.Push(lua.LFalse); return 1 })
		fn("debug", func(L *lua.LState) int { return 0 })
		fn("replicate_commands", func(L *lua.LState) int { L.Push(lua.LTrue); return 1 })
	}
	return t
}

// raise raises Redis's error table for msg.
func raise(L *lua.LState, msg string) {
	L.Error(errorTable(L, msg), 0)
}

// call is redis.call (raising: errors are raised) and redis.pcall
// (errors are returned as error tables).
func (s *state) call(L *lua.LState, raising bool) int {
	fail := func(msg string) int {
		if raising {
			raise(L, msg)
		}
		L.Push(errorTable(L, msg))
		return 1
	}
	r := s.run
	n := L.GetTop()
	if n == 0 {
		return fail("Please specify at least one argument for this redis lib call")
	}
	args := s.args[:0]
	for i := 1; i <= n; i++ {
		b, ok := argBytes(L.Get(i))
		if !ok {
			clear(args)
			s.args = args[:0]
			return fail("Lua redis lib command arguments must be strings or integers")
		}
		args = append(args, b)
	}
	w := s.captures[r.resp-2]
	w.Reset()
	if r.caller.Call(args, w) {
		r.wrote.Store(true)
	}
	clear(args)
	s.args = args[:0]
	values := w.Values()
	// A RESP3 attribute describes the reply that follows it.
	for len(values) > 1 && values[0].Kind == reply.KindAttribute {
		values = values[1:]
	}
	if len(values) == 0 {
		L.Push(lua.LNil)
		return 1
	}
	v := toLua(L, &values[0], r.resp)
	if raising && values[0].Kind == reply.KindError {
		L.Error(v, 0)
	}
	L.Push(v)
	return 1
}

// setResp is redis.setresp(2|3): the protocol of the replies redis.call
// returns, and of the booleans the script returns.
func (s *state) setResp(L *lua.LState) int {
	if L.GetTop() != 1 {
		raise(L, "redis.setresp() requires one argument.")
	}
	resp := int(L.ToNumber(1))
	if resp != 2 && resp != 3 {
		raise(L, "RESP version must be 2 or 3.")
	}
	s.run.resp = resp
	return 0
}

// aclCheckCmd is redis.acl_check_cmd: Basalt has no ACL users, so every
// command the caller knows is allowed.
func (s *state) aclCheckCmd(L *lua.LState) int {
	n := L.GetTop()
	if n == 0 {
		raise(L, "Please specify at least one argument for this redis lib call")
	}
	args := make([][]byte, n)
	for i := range args {
		b, ok := argBytes(L.Get(i + 1))
		if !ok {
			raise(L, "Lua redis lib command arguments must be strings or integers")
		}
		args[i] = b
	}
	if !s.run.caller.Known(args) {
		raise(L, "Invalid command passed to redis.acl_check_cmd()")
	}
	L.Push(lua.LTrue)
	return 1
}

func redisLog(L *lua.LState) int {
	n := L.GetTop()
	if n < 2 {
		raise(L, "redis.log() requires two arguments or more.")
	}
	if _, ok := L.Get(1).(lua.LNumber); !ok {
		if s, isStr := L.Get(1).(lua.LString); !isStr || !isNumeric(string(s)) {
			raise(L, "First argument must be a number (log level).")
		}
	}
	level := int(L.ToNumber(1))
	if level < logDebug || level > logWarning {
		raise(L, "Invalid debug level.")
	}
	var parts []string
	for i := 2; i <= n; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString, lua.LNumber:
			parts = append(parts, v.String())
		}
	}
	msg := "[Lua] " + strings.Join(parts, " ")
	switch level {
	case logDebug:
		slog.Debug(msg)
	case logWarning:
		slog.Warn(msg)
	default:
		slog.Info(msg)
	}
	return 0
}

func isNumeric(s string) bool {
	_, err := parseLuaNumber(s)
	return err == nil
}

func sha1Hex(L *lua.LState) int {
	if L.GetTop() != 1 {
		raise(L, "wrong number of arguments")
	}
	L.Push(lua.LString(sha1Of(L.ToString(1))))
	return 1
}

// sha1Of is the lowercase hex SHA1 of s: a script's name.
func sha1Of(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// errorReply is redis.error_reply(msg): the error table, with ERR when
// msg has no code.
func errorReply(L *lua.LState) int {
	s, ok := L.Get(1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errorTable(L, "wrong number or type of arguments"))
		return 1
	}
	msg := string(s)
	if !strings.HasPrefix(msg, "-") {
		msg = "-" + msg
	}
	L.Push(errorTable(L, msg))
	return 1
}

func statusReply(L *lua.LState) int {
	s, ok := L.Get(1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errorTable(L, "wrong number or type of arguments"))
		return 1
	}
	L.Push(singleField(L, "ok", s))
	return 1
}

// setRepl is redis.set_repl. Basalt replicates a script's writes through
// the WAL, as Kvrocks: the flags are checked and have no effect.
func setRepl(L *lua.LState) int {
	if L.GetTop() != 1 {
		raise(L, "redis.set_repl() requires two arguments.")
	}
	flags := int(L.ToNumber(1))
	if flags&^(replAOF|replSlave) != 0 {
		raise(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.")
	}
	return 0
}
