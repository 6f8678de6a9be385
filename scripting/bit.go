package scripting

import (
	"fmt"
	"math"
	"math/bits"

	lua "github.com/yuin/gopher-lua"
)

// The bit library (LuaBitOp 1.0, as Redis loads it): operations on 32-bit
// integers, results as signed numbers.

func newBit(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	set := func(name string, fn lua.LGFunction) { t.RawSetString(name, L.NewFunction(fn)) }
	set("tobit", func(L *lua.LState) int { return pushBits(L, bitArg(L, 1, "tobit")) })
	set("bnot", func(L *lua.LState) int { return pushBits(L, ^bitArg(L, 1, "bnot")) })
	set("bswap", func(L *lua.LState) int { return pushBits(L, bits.ReverseBytes32(bitArg(L, 1, "bswap"))) })
	set("band", bitFold("band", func(a, b uint32) uint32 { return a & b }))
	set("bor", bitFold("bor", func(a, b uint32) uint32 { return a | b }))
	set("bxor", bitFold("bxor", func(a, b uint32) uint32 { return a ^ b }))
	set("lshift", bitShift("lshift", func(b uint32, n uint) uint32 { return b << n }))
	set("rshift", bitShift("rshift", func(b uint32, n uint) uint32 { return b >> n }))
	set("arshift", bitShift("arshift", func(b uint32, n uint) uint32 { return uint32(int32(b) >> n) }))
	set("rol", bitShift("rol", func(b uint32, n uint) uint32 { return bits.RotateLeft32(b, int(n)) }))
	set("ror", bitShift("ror", func(b uint32, n uint) uint32 { return bits.RotateLeft32(b, -int(n)) }))
	set("tohex", bitToHex)
	return t
}

// bitArg converts argument i to 32 bits as LuaBitOp does: the number
// rounded to an integer (half to even), modulo 2^32.
func bitArg(L *lua.LState, i int, fname string) uint32 {
	n := checkNumber(L, i, fname)
	return uint32(int64(math.RoundToEven(float64(n))))
}

func pushBits(L *lua.LState, b uint32) int {
	L.Push(lua.LNumber(int32(b)))
	return 1
}

func bitFold(fname string, op func(a, b uint32) uint32) lua.LGFunction {
	return func(L *lua.LState) int {
		b := bitArg(L, 1, fname)
		for i := 2; i <= L.GetTop(); i++ {
			b = op(b, bitArg(L, i, fname))
		}
		return pushBits(L, b)
	}
}

func bitShift(fname string, op func(b uint32, n uint) uint32) lua.LGFunction {
	return func(L *lua.LState) int {
		b := bitArg(L, 1, fname)
		n := uint(bitArg(L, 2, fname) & 31)
		return pushBits(L, op(b, n))
	}
}

// bitToHex is bit.tohex(x [,n]): n hex digits (8 by default, at most 8),
// upper case when n is negative.
func bitToHex(L *lua.LState) int {
	b := bitArg(L, 1, "tohex")
	n := int32(8)
	if L.GetTop() >= 2 {
		n = int32(bitArg(L, 2, "tohex"))
	}
	digits := "0123456789abcdef"
	if n < 0 {
		n, digits = -n, "0123456789ABCDEF"
	}
	n = min(n, 8)
	buf := make([]byte, n)
	for i := n - 1; i >= 0; i-- {
		buf[i] = digits[b&15]
		b >>= 4
	}
	L.Push(lua.LString(buf))
	return 1
}

// checkNumber is luaL_checknumber with Lua's wording of the error.
func checkNumber(L *lua.LState, i int, fname string) lua.LNumber {
	switch v := L.Get(i).(type) {
	case lua.LNumber:
		return v
	case lua.LString:
		if f, err := parseLuaNumber(string(v)); err == nil {
			return lua.LNumber(f)
		}
	}
	typeError(L, i, fname, "number")
	return 0
}

// checkString is luaL_checklstring: strings, and numbers as Lua 5.1
// writes them.
func checkString(L *lua.LState, i int, fname string) string {
	switch v := L.Get(i).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return numberString(float64(v))
	}
	typeError(L, i, fname, "string")
	return ""
}

func typeError(L *lua.LState, i int, fname, want string) {
	got := "no value"
	if i <= L.GetTop() {
		got = L.Get(i).Type().String()
	}
	argError(L, i, fname, fmt.Sprintf("%s expected, got %s", want, got))
}

// argError raises Lua's "bad argument" error.
func argError(L *lua.LState, i int, fname, msg string) {
	L.RaiseError("bad argument #%d to '%s' (%s)", i, fname, msg)
}
