package scripting

import (
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/reply"
)

// Conversions between replies and Lua values, as Redis 7.0 makes them
// (script_lua.c): a command's reply becomes the value redis.call returns,
// and a script's return value becomes the reply to EVAL.

// maxReplyDepth is how deeply nested a returned table may be before the
// nested part is replaced by an error, as Redis does when its C stack
// runs out (a table that contains itself).
const maxReplyDepth = 1000

const errStackLimit = "reached lua stack limit"

// toLua converts a reply, shaped for protocol proto (the script's
// redis.setresp), to the Lua value redis.call returns.
func toLua(L *lua.LState, v *reply.Value, proto int) lua.LValue {
	switch v.Kind {
	case reply.KindSimple:
		return singleField(L, "ok", lua.LString(v.Str))
	case reply.KindError:
		t := errorTable(L, "-"+v.Str)
		t.RawSetString("ignore_error_stats_update", lua.LTrue)
		return t
	case reply.KindInt:
		return lua.LNumber(v.Int)
	case reply.KindBulk:
		return lua.LString(v.Str)
	case reply.KindNull, reply.KindNullArray:
		if proto == 3 {
			return lua.LNil
		}
		return lua.LFalse
	case reply.KindBool:
		if proto == 3 {
			return lua.LBool(v.Int != 0)
		}
		return lua.LNumber(v.Int)
	case reply.KindDouble, reply.KindHumanDouble, reply.KindShortDouble:
		if proto == 3 {
			return singleField(L, "double", lua.LNumber(v.Float))
		}
		var buf [64]byte
		switch v.Kind {
		case reply.KindDouble:
			return lua.LString(num.AppendDouble(buf[:0], v.Float))
		case reply.KindShortDouble:
			return lua.LString(num.AppendShortDouble(buf[:0], v.Float))
		}
		return lua.LString(num.AppendHumanDouble(buf[:0], v.Float))
	case reply.KindBigNum:
		if proto == 3 {
			return singleField(L, "big_number", lua.LString(v.Str))
		}
		return lua.LString(v.Str)
	case reply.KindVerbatim:
		if proto == 3 {
			inner := L.CreateTable(0, 2)
			inner.RawSetString("string", lua.LString(v.Str))
			inner.RawSetString("format", lua.LString("txt"))
			return singleField(L, "verbatim_string", inner)
		}
		return lua.LString(v.Str)
	case reply.KindMap, reply.KindAttribute:
		if proto == 3 {
			m := L.CreateTable(0, len(v.Elems)/2)
			for i := 0; i+1 < len(v.Elems); i += 2 {
				m.RawSet(toLua(L, &v.Elems[i], proto), toLua(L, &v.Elems[i+1], proto))
			}
			return singleField(L, "map", m)
		}
	case reply.KindSet:
		if proto == 3 {
			set := L.CreateTable(0, len(v.Elems))
			for i := range v.Elems {
				set.RawSet(toLua(L, &v.Elems[i], proto), lua.LTrue)
			}
			return singleField(L, "set", set)
		}
	}
	// Arrays, pushes, and maps and sets in RESP2.
	t := L.CreateTable(len(v.Elems), 0)
	for i := range v.Elems {
		t.RawSetInt(i+1, toLua(L, &v.Elems[i], proto))
	}
	return t
}

func singleField(L *lua.LState, name string, v lua.LValue) *lua.LTable {
	t := L.CreateTable(0, 1)
	t.RawSetString(name, v)
	return t
}

// errorTable is Redis's error table for msg (luaPushErrorBuff): a
// message "-CODE text" keeps its code, any other gets ERR, and line
// breaks at its ends are trimmed.
func errorTable(L *lua.LState, msg string) *lua.LTable {
	return singleField(L, "err", lua.LString(normalizeError(msg)))
}

func normalizeError(msg string) string {
	code := "ERR"
	if rest, ok := strings.CutPrefix(msg, "-"); ok {
		if c, text, found := strings.Cut(rest, " "); found {
			code, msg = c, text
		} else {
			msg = rest
		}
	}
	return code + " " + strings.Trim(msg, "\r\n")
}

// writeResult writes a script's return value v to w. proto is the
// script's protocol (redis.setresp): it decides what booleans become.
func writeResult(w reply.Sink, v lua.LValue, proto, depth int) {
	switch v := v.(type) {
	case lua.LString:
		w.BulkString(string(v))
	case lua.LBool:
		switch {
		case proto == 3:
			w.Bool(bool(v))
		case bool(v):
			w.Int(1)
		default:
			w.Null()
		}
	case lua.LNumber:
		w.Int(int64(v))
	case *lua.LTable:
		if depth >= maxReplyDepth {
			w.Error("ERR " + errStackLimit)
			return
		}
		writeTable(w, v, proto, depth+1)
	default:
		w.Null()
	}
}

// writeTable writes a table by the first of its fields that says what it
// is (err, ok, double, big_number, verbatim_string, map, set), or as the
// array of its elements 1, 2, ... up to the first nil.
func writeTable(w reply.Sink, t *lua.LTable, proto, depth int) {
	if s, ok := t.RawGetString("err").(lua.LString); ok {
		w.Error(string(s))
		return
	}
	if s, ok := t.RawGetString("ok").(lua.LString); ok {
		w.Simple(oneLine(string(s)))
		return
	}
	if n, ok := t.RawGetString("double").(lua.LNumber); ok {
		w.Double(float64(n))
		return
	}
	if s, ok := t.RawGetString("big_number").(lua.LString); ok {
		w.BigNum(oneLine(string(s)))
		return
	}
	if vt, ok := t.RawGetString("verbatim_string").(*lua.LTable); ok {
		_, hasFormat := vt.RawGetString("format").(lua.LString)
		if s, ok := vt.RawGetString("string").(lua.LString); ok && hasFormat {
			w.Verbatim(string(s))
			return
		}
	}
	if m, ok := t.RawGetString("map").(*lua.LTable); ok {
		d := w.DeferMap()
		n := 0
		m.ForEach(func(k, v lua.LValue) {
			writeResult(w, k, proto, depth)
			writeResult(w, v, proto, depth)
			n++
		})
		w.Finish(d, n)
		return
	}
	if set, ok := t.RawGetString("set").(*lua.LTable); ok {
		d := w.DeferSet()
		n := 0
		set.ForEach(func(k, _ lua.LValue) {
			writeResult(w, k, proto, depth)
			n++
		})
		w.Finish(d, n)
		return
	}
	n := 0
	for t.RawGetInt(n+1) != lua.LNil {
		n++
	}
	w.Array(n)
	for i := 1; i <= n; i++ {
		writeResult(w, t.RawGetInt(i), proto, depth)
	}
}

// oneLine replaces line breaks, which a status reply cannot hold, with
// spaces.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' {
			return ' '
		}
		return r
	}, s)
}

// argBytes converts an argument of redis.call: strings as they are,
// numbers as "%.17g" (Lua's own conversion would lose precision).
func argBytes(v lua.LValue) ([]byte, bool) {
	switch v := v.(type) {
	case lua.LString:
		return []byte(v), true
	case lua.LNumber:
		return num.AppendDouble(nil, float64(v)), true
	}
	return nil, false
}
