package scripting

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// What Redis's Lua 5.1 has and gopher-lua does otherwise or not at all:
// the number-to-string conversion of tostring, string.format (C's printf
// through Lua 5.1's checks, lstrlib.c str_format, where gopher-lua uses
// Go's fmt), and the deprecated table.foreach, foreachi and setn.

// numberString is a number as Lua 5.1 writes it (LUA_NUMBER_FMT, "%.14g"
// of C): 1e+15, 0.33333333333333, inf, -nan.
func numberString(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f) && math.Signbit(f):
		return "-nan"
	case math.IsNaN(f):
		return "nan"
	}
	return strconv.FormatFloat(f, 'g', 14, 64)
}

// luaToString is Lua 5.1's tostring: numbers as numberString, the rest
// as gopher-lua's tostring (base) writes them.
func luaToString(base *lua.LFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		if L.GetTop() == 0 {
			argError(L, 1, "tostring", "value expected")
		}
		if n, ok := L.Get(1).(lua.LNumber); ok {
			L.Push(lua.LString(numberString(float64(n))))
			return 1
		}
		L.Push(base)
		L.Push(L.Get(1))
		L.Call(1, 1)
		return 1
	}
}

// formatFlags are the flags a conversion may have; Lua 5.1 refuses more
// than len(formatFlags) of them.
const formatFlags = "-+ #0"

// formatSpec is one conversion of a format: %[flags][width][.precision]verb.
type formatSpec struct {
	flags         string
	width, prec   int
	hasPrec       bool
	verb          byte // 0 when the format ends before it
	left, zeroPad bool
}

// scanFormat reads the conversion after a '%' at f[i:] as Lua 5.1's
// scanformat does: at most 5 flags, 2 digits of width, 2 of precision.
// It returns the index after the verb.
func scanFormat(L *lua.LState, f string, i int) (formatSpec, int) {
	var sp formatSpec
	start := i
	for i < len(f) && strings.IndexByte(formatFlags, f[i]) >= 0 {
		i++
	}
	if i-start > len(formatFlags) {
		L.RaiseError("invalid format (repeated flags)")
	}
	sp.flags = f[start:i]
	sp.left = strings.IndexByte(sp.flags, '-') >= 0
	sp.zeroPad = strings.IndexByte(sp.flags, '0') >= 0 && !sp.left
	digits := func() int {
		n := 0
		for k := 0; k < 2 && i < len(f) && isDigit(f[i]); k++ {
			n = n*10 + int(f[i]-'0')
			i++
		}
		return n
	}
	sp.width = digits()
	if i < len(f) && f[i] == '.' {
		i++
		sp.hasPrec = true
		sp.prec = digits()
	}
	if i < len(f) && isDigit(f[i]) {
		L.RaiseError("invalid format (width or precision too long)")
	}
	if i < len(f) {
		sp.verb = f[i]
		i++
	}
	return sp, i
}

// strFormat is string.format(format, ...) of Lua 5.1.
func strFormat(L *lua.LState) int {
	f := checkString(L, 1, "format")
	top := L.GetTop()
	var out []byte
	arg := 1
	for i := 0; i < len(f); {
		c := f[i]
		i++
		switch {
		case c != '%':
			out = append(out, c)
			continue
		case i < len(f) && f[i] == '%':
			out = append(out, '%')
			i++
			continue
		}
		arg++
		if arg > top {
			argError(L, arg, "format", "no value")
		}
		var sp formatSpec
		sp, i = scanFormat(L, f, i)
		out = sp.append(L, out, arg)
	}
	L.Push(lua.LString(out))
	return 1
}

// append formats argument arg by sp onto out.
func (sp formatSpec) append(L *lua.LState, out []byte, arg int) []byte {
	switch sp.verb {
	case 'c':
		b := byte(cInt32(float64(checkNumber(L, arg, "format"))))
		return appendCString(out, sp.pad(string([]byte{b})))
	case 'd', 'i':
		n := cInt64(float64(checkNumber(L, arg, "format")))
		return fmt.Appendf(out, sp.goVerb(sp.flags, 'd'), n)
	case 'o', 'u', 'x', 'X':
		n := cUint64(float64(checkNumber(L, arg, "format")))
		// The sign flags are for signed conversions; C's # of a zero
		// writes no 0x.
		flags := strings.NewReplacer("+", "", " ", "").Replace(sp.flags)
		if n == 0 {
			flags = strings.ReplaceAll(flags, "#", "")
		}
		verb := sp.verb
		switch {
		case verb == 'u':
			verb = 'd'
		case verb != 'o' && sp.zeroPad && !sp.hasPrec && strings.IndexByte(flags, '#') >= 0:
			// C counts the 0x in the width it pads with zeros, Go does
			// not.
			digits := formatSpec{width: max(sp.width-2, 0)}
			out = append(out, '0', verb)
			return fmt.Appendf(out, digits.goVerb("0", verb), n)
		}
		return fmt.Appendf(out, sp.goVerb(flags, verb), n)
	case 'e', 'E', 'f', 'g', 'G':
		return sp.appendFloat(out, float64(checkNumber(L, arg, "format")))
	case 'q':
		return appendQuoted(out, checkString(L, arg, "format"))
	case 's':
		s := checkString(L, arg, "format")
		if !sp.hasPrec && len(s) >= 100 {
			return append(out, s...)
		}
		if sp.hasPrec && len(s) > sp.prec {
			s = s[:sp.prec]
		}
		return appendCString(out, sp.pad(s))
	}
	// The verb as %c writes it: nothing for the end of the format.
	verb := ""
	if sp.verb != 0 {
		verb = string([]byte{sp.verb})
	}
	L.RaiseError("invalid option '%%%s' to 'format'", verb)
	return nil
}

// goVerb is the fmt verb of sp with flags for a number.
func (sp formatSpec) goVerb(flags string, verb byte) string {
	var b strings.Builder
	b.WriteByte('%')
	b.WriteString(flags)
	if sp.width > 0 {
		b.WriteString(strconv.Itoa(sp.width))
	}
	if sp.hasPrec {
		b.WriteByte('.')
		b.WriteString(strconv.Itoa(sp.prec))
	}
	b.WriteByte(verb)
	return b.String()
}

// appendFloat formats a float by sp as C's printf: %g's precision is 6
// unless given, infinities and NaN are inf and nan, space-padded.
func (sp formatSpec) appendFloat(out []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		s := numberString(f)
		if s[0] != '-' {
			switch {
			case strings.IndexByte(sp.flags, '+') >= 0:
				s = "+" + s
			case strings.IndexByte(sp.flags, ' ') >= 0:
				s = " " + s
			}
		}
		if sp.verb == 'E' || sp.verb == 'G' {
			s = strings.ToUpper(s)
		}
		return append(out, sp.pad(s)...)
	}
	if (sp.verb == 'g' || sp.verb == 'G') && !sp.hasPrec {
		sp.hasPrec, sp.prec = true, 6
	}
	return fmt.Appendf(out, sp.goVerb(sp.flags, sp.verb), f)
}

// pad pads s with spaces to sp's width, on the left unless '-'.
func (sp formatSpec) pad(s string) string {
	if len(s) >= sp.width {
		return s
	}
	fill := strings.Repeat(" ", sp.width-len(s))
	if sp.left {
		return s + fill
	}
	return fill + s
}

// appendCString appends s up to its first NUL: Lua 5.1 adds what
// sprintf wrote by its strlen.
func appendCString(out []byte, s string) []byte {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return append(out, s...)
}

// appendQuoted is %q: s between double quotes, readable back by Lua.
func appendQuoted(out []byte, s string) []byte {
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			out = append(out, '\\', c)
		case '\r':
			out = append(out, `\r`...)
		case 0:
			out = append(out, `\000`...)
		default:
			out = append(out, c)
		}
	}
	return append(out, '"')
}

// Conversions of a double as C's casts on x86-64 do them: a value out of
// range (or NaN) gives the "integer indefinite", the lowest integer.
func cInt64(f float64) int64 {
	if math.IsNaN(f) || f >= 1<<63 || f < -(1<<63) {
		return math.MinInt64
	}
	return int64(f)
}

func cInt32(f float64) int32 {
	if math.IsNaN(f) || f >= 1<<31 || f < -(1<<31) {
		return math.MinInt32
	}
	return int32(f)
}

// cUint64 is (unsigned long)f as gcc compiles it: values from 2^63 go
// through a subtraction of 2^63.
func cUint64(f float64) uint64 {
	if f >= 1<<63 {
		return uint64(cInt64(f-(1<<63))) ^ 1<<63
	}
	return uint64(cInt64(f))
}

// addTable51 adds to the table library the functions of Lua 5.1's that
// gopher-lua lacks.
func (s *state) addTable51(t *lua.LTable) {
	t.RawSetString("foreach", s.L.NewFunction(s.tableForeach))
	t.RawSetString("foreachi", s.L.NewFunction(s.tableForeachi))
	t.RawSetString("setn", s.L.NewFunction(func(L *lua.LState) int {
		checkTable(L, 1, "setn")
		L.RaiseError("'setn' is obsolete")
		return 0
	}))
}

// tableForeach is table.foreach(t, f): f(k, v) for each pair until f
// returns a value, which is returned.
func (s *state) tableForeach(L *lua.LState) int {
	t, _ := s.unprotect(checkTable(L, 1, "foreach"))
	f := checkFunction(L, 2, "foreach")
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		if r := callPair(L, f, k, v); r != lua.LNil {
			L.Push(r)
			return 1
		}
	}
	return 0
}

// tableForeachi is table.foreachi(t, f): f(i, t[i]) for i from 1 to #t
// until f returns a value, which is returned.
func (s *state) tableForeachi(L *lua.LState) int {
	t, _ := s.unprotect(checkTable(L, 1, "foreachi"))
	f := checkFunction(L, 2, "foreachi")
	n := t.Len()
	for i := 1; i <= n; i++ {
		if r := callPair(L, f, lua.LNumber(i), t.RawGetInt(i)); r != lua.LNil {
			L.Push(r)
			return 1
		}
	}
	return 0
}

func callPair(L *lua.LState, f *lua.LFunction, a, b lua.LValue) lua.LValue {
	L.Push(f)
	L.Push(a)
	L.Push(b)
	L.Call(2, 1)
	r := L.Get(-1)
	L.Pop(1)
	return r
}

func checkTable(L *lua.LState, i int, fname string) *lua.LTable {
	t, ok := L.Get(i).(*lua.LTable)
	if !ok {
		typeError(L, i, fname, "table")
	}
	return t
}

func checkFunction(L *lua.LState, i int, fname string) *lua.LFunction {
	f, ok := L.Get(i).(*lua.LFunction)
	if !ok {
		typeError(L, i, fname, "function")
	}
	return f
}
