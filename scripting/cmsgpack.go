package scripting

import (
	"encoding/binary"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// The cmsgpack library (lua-cmsgpack, as Redis loads it): pack(...)
// encodes its arguments one after the other as MessagePack, unpack(s)
// decodes every value of s, unpack_one(s [,offset]) and unpack_limit(s,
// limit [,offset]) decode some and return the offset to go on from (-1
// at the end).

// msgpackMaxNesting is how deep pack goes into nested tables before it
// writes nil instead (tables that contain themselves).
const msgpackMaxNesting = 16

func newCMsgpack(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("_NAME", lua.LString("cmsgpack"))
	t.RawSetString("_VERSION", lua.LString("lua-cmsgpack 0.4.0"))
	t.RawSetString("_COPYRIGHT", lua.LString("Copyright (C) 2012, Salvatore Sanfilippo"))
	t.RawSetString("_DESCRIPTION", lua.LString("MessagePack C implementation for Lua"))
	t.RawSetString("pack", L.NewFunction(msgpackPack))
	t.RawSetString("unpack", L.NewFunction(func(L *lua.LState) int { return msgpackUnpack(L, 0, 0, true) }))
	t.RawSetString("unpack_one", L.NewFunction(func(L *lua.LState) int {
		offset := optInt(L, 2, "unpack_one")
		return msgpackUnpack(L, 1, offset, false)
	}))
	t.RawSetString("unpack_limit", L.NewFunction(func(L *lua.LState) int {
		limit := int(checkNumber(L, 2, "unpack_limit"))
		offset := optInt(L, 3, "unpack_limit")
		return msgpackUnpack(L, limit, offset, limit == 0 && offset == 0)
	}))
	return t
}

func optInt(L *lua.LState, i int, fname string) int {
	if L.Get(i) == lua.LNil {
		return 0
	}
	return int(checkNumber(L, i, fname))
}

func msgpackPack(L *lua.LState) int {
	n := L.GetTop()
	if n == 0 {
		argError(L, 0, "pack", "MessagePack pack needs input.")
	}
	var out []byte
	for i := 1; i <= n; i++ {
		out = msgpackEncode(L, out, L.Get(i), 0)
	}
	L.Push(lua.LString(out))
	return 1
}

func msgpackEncode(L *lua.LState, b []byte, v lua.LValue, level int) []byte {
	if int64(len(b)) > memoryLimit {
		L.RaiseError(errNoMemory)
	}
	switch v := v.(type) {
	case lua.LBool:
		if v {
			return append(b, 0xc3)
		}
		return append(b, 0xc2)
	case lua.LNumber:
		f := float64(v)
		if f == math.Trunc(f) && f >= math.MinInt64 && f < math.MaxInt64 {
			return msgpackInt(b, int64(f))
		}
		if float64(float32(f)) == f {
			b = append(b, 0xca)
			return binary.BigEndian.AppendUint32(b, math.Float32bits(float32(f)))
		}
		b = append(b, 0xcb)
		return binary.BigEndian.AppendUint64(b, math.Float64bits(f))
	case lua.LString:
		b = msgpackHeader(b, len(v), 0xa0, 32, 0xd9, 0xda, 0xdb)
		return append(b, v...)
	case *lua.LTable:
		if level == msgpackMaxNesting {
			return append(b, 0xc0)
		}
		if n, ok := msgpackArrayLen(v); ok {
			b = msgpackHeader(b, n, 0x90, 16, 0, 0xdc, 0xdd)
			for i := 1; i <= n; i++ {
				b = msgpackEncode(L, b, v.RawGetInt(i), level+1)
			}
			return b
		}
		n := 0
		v.ForEach(func(lua.LValue, lua.LValue) { n++ })
		b = msgpackHeader(b, n, 0x80, 16, 0, 0xde, 0xdf)
		v.ForEach(func(k, val lua.LValue) {
			b = msgpackEncode(L, b, k, level+1)
			b = msgpackEncode(L, b, val, level+1)
		})
		return b
	}
	return append(b, 0xc0)
}

// msgpackArrayLen reports whether t's keys are exactly 1..n.
func msgpackArrayLen(t *lua.LTable) (int, bool) {
	count, maxKey, ok := 0, 0, true
	t.ForEach(func(k, _ lua.LValue) {
		n, isNum := k.(lua.LNumber)
		if !isNum || float64(n) != math.Trunc(float64(n)) || n <= 0 || n > math.MaxInt32 {
			ok = false
			return
		}
		count++
		maxKey = max(maxKey, int(n))
	})
	return count, ok && count == maxKey
}

// msgpackHeader writes a length header: fix (with fixLimit), then 8-bit
// (code8, 0 when the type has none), 16-bit and 32-bit forms.
func msgpackHeader(b []byte, n int, fix byte, fixLimit int, code8, code16, code32 byte) []byte {
	switch {
	case n < fixLimit:
		return append(b, fix|byte(n))
	case n <= 0xff && code8 != 0:
		return append(b, code8, byte(n))
	case n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(b, code16), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, code32), uint32(n))
}

func msgpackInt(b []byte, n int64) []byte {
	switch {
	case n >= 0 && n < 128:
		return append(b, byte(n))
	case n >= 0 && n <= 0xff:
		return append(b, 0xcc, byte(n))
	case n >= 0 && n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(n))
	case n >= 0 && n <= 0xffffffff:
		return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(n))
	case n >= 0:
		return binary.BigEndian.AppendUint64(append(b, 0xcf), uint64(n))
	case n >= -32:
		return append(b, byte(int8(n)))
	case n >= -128:
		return append(b, 0xd0, byte(int8(n)))
	case n >= -32768:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(int16(n)))
	case n >= -2147483648:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(int32(n)))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
}

// msgpackCursor decodes from a buffer; err is set once it ran out of
// bytes or met a type it does not know.
type msgpackCursor struct {
	b   []byte
	err string
}

const (
	errMsgpackEOF    = "Missing bytes in input."
	errMsgpackFormat = "Bad data format in input."
	// msgpackMaxDepth bounds the nesting unpack follows.
	msgpackMaxDepth = 1000
)

func msgpackUnpack(L *lua.LState, limit, offset int, all bool) int {
	s := checkString(L, 1, "unpack")
	if offset < 0 || limit < 0 {
		L.RaiseError("Invalid request to unpack with offset of %d and limit of %d.", offset, len(s))
	}
	if offset > len(s) {
		L.RaiseError("Start offset %d greater than input length %d.", offset, len(s))
	}
	if all {
		limit = math.MaxInt
	}
	L.SetTop(0)
	c := &msgpackCursor{b: []byte(s[offset:])}
	n := 0
	for ; len(c.b) > 0 && n < limit; n++ {
		v := c.decode(L, 0)
		if c.err != "" {
			L.RaiseError("%s", c.err)
		}
		L.Push(v)
	}
	if all {
		return n
	}
	next := lua.LNumber(len(s) - len(c.b))
	if len(c.b) == 0 {
		next = -1
	}
	L.Insert(next, 1)
	return n + 1
}

// take returns the next n bytes.
func (c *msgpackCursor) take(n int) []byte {
	if c.err != "" || n > len(c.b) {
		c.err = errMsgpackEOF
		return nil
	}
	out := c.b[:n]
	c.b = c.b[n:]
	return out
}

func (c *msgpackCursor) uint(size int) uint64 {
	b := c.take(size)
	var v uint64
	for _, x := range b {
		v = v<<8 | uint64(x)
	}
	return v
}

func (c *msgpackCursor) decode(L *lua.LState, depth int) lua.LValue {
	if depth > msgpackMaxDepth {
		c.err = errMsgpackFormat
		return lua.LNil
	}
	head := c.take(1)
	if head == nil {
		return lua.LNil
	}
	t := head[0]
	switch {
	case t < 0x80:
		return lua.LNumber(t)
	case t >= 0xe0:
		return lua.LNumber(int8(t))
	case t&0xe0 == 0xa0:
		return lua.LString(c.take(int(t & 0x1f)))
	case t&0xf0 == 0x90:
		return c.array(L, int(t&0x0f), depth)
	case t&0xf0 == 0x80:
		return c.table(L, int(t&0x0f), depth)
	}
	switch t {
	case 0xc0:
		return lua.LNil
	case 0xc2:
		return lua.LFalse
	case 0xc3:
		return lua.LTrue
	case 0xca:
		return lua.LNumber(math.Float32frombits(uint32(c.uint(4))))
	case 0xcb:
		return lua.LNumber(math.Float64frombits(c.uint(8)))
	case 0xcc, 0xcd, 0xce, 0xcf:
		return lua.LNumber(c.uint(1 << (t - 0xcc)))
	case 0xd0:
		return lua.LNumber(int8(c.uint(1)))
	case 0xd1:
		return lua.LNumber(int16(c.uint(2)))
	case 0xd2:
		return lua.LNumber(int32(c.uint(4)))
	case 0xd3:
		return lua.LNumber(int64(c.uint(8)))
	case 0xd9, 0xc4:
		return lua.LString(c.take(int(c.uint(1))))
	case 0xda, 0xc5:
		return lua.LString(c.take(int(c.uint(2))))
	case 0xdb, 0xc6:
		return lua.LString(c.take(int(c.uint(4))))
	case 0xdc:
		return c.array(L, int(c.uint(2)), depth)
	case 0xdd:
		return c.array(L, int(c.uint(4)), depth)
	case 0xde:
		return c.table(L, int(c.uint(2)), depth)
	case 0xdf:
		return c.table(L, int(c.uint(4)), depth)
	}
	c.err = errMsgpackFormat
	return lua.LNil
}

// array decodes n elements; a length the input cannot hold sizes
// nothing.
func (c *msgpackCursor) array(L *lua.LState, n, depth int) lua.LValue {
	t := L.CreateTable(min(n, len(c.b)), 0)
	for i := 1; i <= n && c.err == ""; i++ {
		t.RawSetInt(i, c.decode(L, depth+1))
	}
	return t
}

func (c *msgpackCursor) table(L *lua.LState, n, depth int) lua.LValue {
	t := L.CreateTable(0, min(n, len(c.b)/2))
	for i := 0; i < n && c.err == ""; i++ {
		k := c.decode(L, depth+1)
		v := c.decode(L, depth+1)
		if c.err == "" && k != lua.LNil {
			t.RawSet(k, v)
		}
	}
	return t
}
