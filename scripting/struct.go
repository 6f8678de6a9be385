package scripting

import (
	"encoding/binary"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The struct library (Roberto Ierusalimschy's, as Redis loads it):
// struct.pack(fmt, ...), struct.unpack(fmt, data [, pos]) and
// struct.size(fmt) convert between Lua values and C structures. The
// sizes are those of Redis's x86-64 build: short 2, int 4, long and
// size_t 8, little-endian by default, no alignment unless '!' asks.

const (
	structMaxIntSize = 32
	structMaxAlign   = 8
	structIntSize    = 4
)

type structHeader struct {
	little bool
	align  int
}

func newStruct(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(structPack))
	t.RawSetString("unpack", L.NewFunction(structUnpack))
	t.RawSetString("size", L.NewFunction(structSize))
	return t
}

// structFormat reads a format string one option at a time.
type structFormat struct {
	L     *lua.LState
	fname string
	fmt   string
	i     int
	h     structHeader
}

func newStructFormat(L *lua.LState, fname string) *structFormat {
	return &structFormat{L: L, fname: fname, fmt: checkString(L, 1, fname), h: structHeader{little: true, align: 1}}
}

func (f *structFormat) more() bool { return f.i < len(f.fmt) }

// number reads the optional number after an option, or returns def.
func (f *structFormat) number(def int) int {
	if f.i >= len(f.fmt) || !isDigit(f.fmt[f.i]) {
		return def
	}
	a := 0
	for f.i < len(f.fmt) && isDigit(f.fmt[f.i]) {
		d := int(f.fmt[f.i] - '0')
		if a > (math.MaxInt32-d)/10 {
			f.L.RaiseError("integral size overflow")
		}
		a = a*10 + d
		f.i++
	}
	return a
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// next returns the next option and its size (0 for options without
// one).
func (f *structFormat) next() (byte, int) {
	opt := f.fmt[f.i]
	f.i++
	switch opt {
	case 'b', 'B':
		return opt, 1
	case 'h', 'H':
		return opt, 2
	case 'l', 'L', 'T', 'd':
		return opt, 8
	case 'f':
		return opt, 4
	case 'x':
		return opt, 1
	case 'c':
		return opt, f.number(1)
	case 'i', 'I':
		size := f.number(structIntSize)
		if size > structMaxIntSize {
			f.L.RaiseError("integral size %d is larger than limit of %d", size, structMaxIntSize)
		}
		return opt, size
	}
	return opt, 0
}

// padding is how many bytes align an option of size at offset n.
func (f *structFormat) padding(n, opt, size int) int {
	if size == 0 || opt == 'c' {
		return 0
	}
	size = min(size, f.h.align)
	return (size - (n & (size - 1))) & (size - 1)
}

// control applies an option that is not data: endianness, alignment,
// spaces.
func (f *structFormat) control(opt byte) {
	switch opt {
	case ' ':
	case '>':
		f.h.little = false
	case '<':
		f.h.little = true
	case '!':
		a := f.number(structMaxAlign)
		if a == 0 || a&(a-1) != 0 {
			f.L.RaiseError("alignment %d is not a power of 2", a)
		}
		f.h.align = a
	default:
		argError(f.L, 1, f.fname, "invalid format option '"+string(opt)+"'")
	}
}

func isIntOption(opt byte) bool { return strings.IndexByte("bBhHlLTiI", opt) >= 0 }

// putInteger appends n as size bytes in the header's order.
func putInteger(dst []byte, n float64, size int, little bool) []byte {
	var v uint64
	if n < 0 {
		v = uint64(int64(n))
	} else {
		v = uint64(n)
	}
	buf := make([]byte, size)
	for i := range size {
		j := size - 1 - i
		if little {
			j = i
		}
		buf[j] = byte(v)
		v >>= 8
	}
	return append(dst, buf...)
}

func structPack(L *lua.LState) int {
	f := newStructFormat(L, "pack")
	var out []byte
	arg := 2
	for f.more() {
		opt, size := f.next()
		pad := f.padding(len(out), int(opt), size)
		out = append(out, make([]byte, pad)...)
		switch {
		case isIntOption(opt):
			out = putInteger(out, float64(checkNumber(L, arg, "pack")), size, f.h.little)
			arg++
		case opt == 'x':
			out = append(out, 0)
		case opt == 'f':
			out = appendOrdered(out, binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(checkNumber(L, arg, "pack")))), f.h.little)
			arg++
		case opt == 'd':
			out = appendOrdered(out, binary.LittleEndian.AppendUint64(nil, math.Float64bits(float64(checkNumber(L, arg, "pack")))), f.h.little)
			arg++
		case opt == 'c' || opt == 's':
			s := checkString(L, arg, "pack")
			arg++
			if size == 0 {
				size = len(s)
			}
			if len(s) < size {
				argError(L, arg, "pack", "string too short")
			}
			if int64(len(out)+size) > memoryLimit {
				L.RaiseError(errNoMemory)
			}
			out = append(out, s[:size]...)
			if opt == 's' {
				out = append(out, 0)
			}
		default:
			f.control(opt)
		}
	}
	L.Push(lua.LString(out))
	return 1
}

// appendOrdered appends little-endian bytes b in the wanted order.
func appendOrdered(dst, b []byte, little bool) []byte {
	if !little {
		for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
			b[i], b[j] = b[j], b[i]
		}
	}
	return append(dst, b...)
}

func getInteger(b []byte, little, signed bool) float64 {
	var v uint64
	for i := range b {
		j := i
		if little {
			j = len(b) - 1 - i
		}
		v = v<<8 | uint64(b[j])
	}
	if !signed {
		return float64(v)
	}
	mask := ^uint64(0) << (uint(len(b))*8 - 1)
	if len(b) < 8 && v&mask != 0 {
		v |= mask
	}
	return float64(int64(v))
}

func structUnpack(L *lua.LState) int {
	f := newStructFormat(L, "unpack")
	data := checkString(L, 2, "unpack")
	pos := 1
	if L.GetTop() >= 3 && L.Get(3) != lua.LNil {
		pos = int(checkNumber(L, 3, "unpack"))
	}
	if pos <= 0 {
		argError(L, 3, "unpack", "offset must be 1 or greater")
	}
	pos--
	n := 0
	short := func(size int) {
		if size > len(data) || pos > len(data)-size {
			argError(L, 2, "unpack", "data string too short")
		}
	}
	for f.more() {
		opt, size := f.next()
		pos += f.padding(pos, int(opt), size)
		short(size)
		switch {
		case isIntOption(opt):
			L.Push(lua.LNumber(getInteger([]byte(data[pos:pos+size]), f.h.little, opt >= 'a')))
			n++
		case opt == 'x':
		case opt == 'f':
			b := appendOrdered(nil, []byte(data[pos:pos+4]), f.h.little)
			L.Push(lua.LNumber(math.Float32frombits(binary.LittleEndian.Uint32(b))))
			n++
		case opt == 'd':
			b := appendOrdered(nil, []byte(data[pos:pos+8]), f.h.little)
			L.Push(lua.LNumber(math.Float64frombits(binary.LittleEndian.Uint64(b))))
			n++
		case opt == 'c':
			if size == 0 {
				prev, ok := L.Get(-1).(lua.LNumber)
				if n == 0 || !ok {
					L.RaiseError("format 'c0' needs a previous size")
				}
				size = int(prev)
				L.Pop(1)
				n--
				short(size)
			}
			L.Push(lua.LString(data[pos : pos+size]))
			n++
		case opt == 's':
			end := strings.IndexByte(data[pos:], 0)
			if end < 0 {
				L.RaiseError("unfinished string in data")
			}
			L.Push(lua.LString(data[pos : pos+end]))
			size = end + 1
			n++
		default:
			f.control(opt)
		}
		pos += size
	}
	L.Push(lua.LNumber(pos + 1))
	return n + 1
}

func structSize(L *lua.LState) int {
	f := newStructFormat(L, "size")
	pos := 0
	for f.more() {
		opt, size := f.next()
		pos += f.padding(pos, int(opt), size)
		switch {
		case opt == 's':
			argError(L, 1, "size", "option 's' has no fixed size")
		case opt == 'c' && size == 0:
			argError(L, 1, "size", "option 'c0' has no fixed size")
		case size == 0:
			f.control(opt)
		}
		pos += size
	}
	L.Push(lua.LNumber(pos))
	return 1
}
