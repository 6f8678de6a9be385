package scripting

import (
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// How a raised error reaches the client (Redis 7.0, eval.c and
// script_lua.c): a handler run where the error was raised turns it into
// an error table ({err="ERR <message>"} unless it is one already) and
// notes the source and line of the Lua code that raised it; the reply is
// then "<err> script: <name>, on <source>:<line>.".

// Texts of errors that end a run from outside the script.
const (
	errKilled      = "ERR Script killed by user with SCRIPT KILL..."
	errNoMemory    = "not enough memory"
	errOutOfMemory = "ERR Script used more memory than a script may use (" + memoryLimitText + "): not enough memory"
	errShutdown    = "ERR Script killed by SHUTDOWN NOSAVE"
)

// locateError is the error handler of runs: it receives the error object
// on top of the frames that raised it.
func (s *state) locateError(L *lua.LState) int {
	obj := L.Get(1)
	t, ok := obj.(*lua.LTable)
	if !ok || s.run.stopped() {
		t = L.CreateTable(0, 3)
		t.RawSetString("err", lua.LString(s.run.stopText("ERR "+lua.LVAsString(L.ToStringMeta(obj)))))
	}
	// Level 0 is this handler, 1 what raised: a builtin such as error or
	// redis.call is skipped for the Lua code that called it.
	for level := 1; level <= 2; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil {
			break
		}
		if dbg.What == "G" && level == 1 {
			continue
		}
		if dbg.CurrentLine >= 0 {
			t.RawSetString("source", lua.LString(sourceName(dbg.Source)))
			t.RawSetString("line", lua.LNumber(dbg.CurrentLine))
		}
		break
	}
	L.Push(t)
	return 1
}

// sourceName is the chunk name Lua reports for a source: the scripts'
// chunks are named like Redis's, "@user_script" and "@user_function".
func sourceName(source string) string {
	switch source {
	case scriptChunk, functionChunk:
		return "@" + source
	}
	return source
}

// errorText renders what a run raised as the reply's error text; name is
// the script's sha or the function's name.
func errorText(obj lua.LValue, name string) string {
	t, ok := obj.(*lua.LTable)
	if !ok {
		return "ERR Error running script (call to " + name + "): " + lua.LVAsString(obj)
	}
	msg, ok := t.RawGetString("err").(lua.LString)
	if !ok {
		return "ERR Error running script (call to " + name + "): @user_script: error object is not a string"
	}
	source, hasSource := t.RawGetString("source").(lua.LString)
	line, hasLine := t.RawGetString("line").(lua.LNumber)
	if !hasSource || !hasLine {
		return string(msg)
	}
	var b strings.Builder
	b.WriteString(string(msg))
	b.WriteString(" script: ")
	b.WriteString(name)
	b.WriteString(", on ")
	b.WriteString(string(source))
	b.WriteByte(':')
	b.WriteString(strconv.Itoa(int(line)))
	b.WriteByte('.')
	return b.String()
}

// parseLuaNumber converts a string as Lua does (decimal, or hexadecimal
// with 0x), surrounded by spaces or not.
func parseLuaNumber(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		n, err := strconv.ParseUint(h, 16, 64)
		return float64(n), err
	}
	return strconv.ParseFloat(s, 64)
}
