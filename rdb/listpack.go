package rdb

import (
	"encoding/binary"
	"strconv"

	"github.com/basaltdb/basalt/num"
)

// A listpack (Redis 5+): 4 bytes of total size and 2 of element count
// (65535: too many to count), little-endian, the entries, and 0xff. An
// entry is its encoding and data followed by its own length, backwards
// ("backlen"), so that the list can be walked from either end.

const (
	lpHeaderSize  = 6
	lpEnd         = 0xff
	lpCountMax    = 65535 // the count field's "unknown" value
	lpEmptyLength = lpHeaderSize + 1
)

// listpack builds a listpack as Redis's lpAppend does.
type listpack struct {
	buf   []byte
	count int
}

func newListpack() *listpack {
	return &listpack{buf: make([]byte, lpHeaderSize, 64)}
}

// size is what the listpack will take once finished (lpBytes).
func (lp *listpack) size() int { return len(lp.buf) + 1 }

// add appends an element, as an integer when it reads as one (Redis's
// lpStringToInt64 is string2ll).
func (lp *listpack) add(elem []byte) {
	if v, ok := num.ParseInt(elem); ok {
		lp.addInt(v)
		return
	}
	start := len(lp.buf)
	lp.buf = appendLpStringHeader(lp.buf, len(elem))
	lp.buf = append(lp.buf, elem...)
	lp.buf = appendBacklen(lp.buf, uint64(len(lp.buf)-start))
	lp.count++
}

// addInt appends an integer (lpAppendInteger).
func (lp *listpack) addInt(v int64) {
	start := len(lp.buf)
	lp.buf = appendLpInt(lp.buf, v)
	lp.buf = appendBacklen(lp.buf, uint64(len(lp.buf)-start))
	lp.count++
}

// finish returns the listpack's bytes.
func (lp *listpack) finish() []byte {
	buf := append(lp.buf, lpEnd)
	binary.LittleEndian.PutUint32(buf, uint32(len(buf)))
	binary.LittleEndian.PutUint16(buf[4:], uint16(min(lp.count, lpCountMax)))
	return buf
}

// appendLpInt appends the smallest of Redis's integer encodings of v.
func appendLpInt(dst []byte, v int64) []byte {
	switch {
	case v >= 0 && v <= 127:
		return append(dst, byte(v))
	case v >= -4096 && v <= 4095:
		u := uint64(v) & (1<<13 - 1)
		return append(dst, 0xc0|byte(u>>8), byte(u))
	case v >= -1<<15 && v < 1<<15:
		return binary.LittleEndian.AppendUint16(append(dst, 0xf1), uint16(v))
	case v >= -1<<23 && v < 1<<23:
		return append(dst, 0xf2, byte(v), byte(v>>8), byte(v>>16))
	case v >= -1<<31 && v < 1<<31:
		return binary.LittleEndian.AppendUint32(append(dst, 0xf3), uint32(v))
	}
	return binary.LittleEndian.AppendUint64(append(dst, 0xf4), uint64(v))
}

// appendLpStringHeader appends the encoding of a string of n bytes.
func appendLpStringHeader(dst []byte, n int) []byte {
	switch {
	case n < 64:
		return append(dst, 0x80|byte(n))
	case n < 4096:
		return append(dst, 0xe0|byte(n>>8), byte(n))
	}
	return binary.LittleEndian.AppendUint32(append(dst, 0xf0), uint32(n))
}

// appendBacklen appends an entry's length, 7 bits a byte, most significant
// first, every byte but the first with its top bit set. The bounds are
// Redis's (lpEncodeBacklen), one below the powers of 128 past the first.
func appendBacklen(dst []byte, l uint64) []byte {
	switch {
	case l <= 127:
		return append(dst, byte(l))
	case l < 16383:
		return append(dst, byte(l>>7), byte(l&127)|128)
	case l < 2097151:
		return append(dst, byte(l>>14), byte(l>>7&127)|128, byte(l&127)|128)
	case l < 268435455:
		return append(dst, byte(l>>21), byte(l>>14&127)|128, byte(l>>7&127)|128, byte(l&127)|128)
	}
	return append(dst, byte(l>>28), byte(l>>21&127)|128, byte(l>>14&127)|128, byte(l>>7&127)|128, byte(l&127)|128)
}

// parseListpack validates a listpack as Redis's deep lpValidateIntegrity
// does and calls fn with each element: a string aliasing lp, or an integer
// as its decimal string. fn's error stops the walk.
func parseListpack(lp []byte, fn func(elem []byte) error) error {
	if len(lp) < lpEmptyLength || int(binary.LittleEndian.Uint32(lp)) != len(lp) || lp[len(lp)-1] != lpEnd {
		return errFormat
	}
	want := int(binary.LittleEndian.Uint16(lp[4:]))
	count := 0
	p := lpHeaderSize
	for p < len(lp)-1 {
		elem, n, ok := lpEntry(lp[p : len(lp)-1])
		if !ok {
			return errFormat
		}
		back := appendBacklen(make([]byte, 0, 5), uint64(n))
		if p+n+len(back) > len(lp)-1 || string(lp[p+n:p+n+len(back)]) != string(back) {
			return errFormat
		}
		if err := fn(elem); err != nil {
			return err
		}
		p += n + len(back)
		count++
	}
	if want != lpCountMax && want != count {
		return errFormat
	}
	return nil
}

// lpEntry decodes the entry at the start of b: its value and the length of
// its encoding and data (without the backlen).
func lpEntry(b []byte) (elem []byte, n int, ok bool) {
	c := b[0]
	str := func(hdr, size int) ([]byte, int, bool) {
		if size > len(b)-hdr {
			return nil, 0, false
		}
		return b[hdr : hdr+size], hdr + size, true
	}
	integer := func(v int64, n int) ([]byte, int, bool) {
		return strconv.AppendInt(nil, v, 10), n, true
	}
	switch {
	case c < 0x80:
		return integer(int64(c), 1)
	case c < 0xc0:
		return str(1, int(c&0x3f))
	case c < 0xe0:
		if len(b) < 2 {
			return nil, 0, false
		}
		v := int64(c&0x1f)<<8 | int64(b[1])
		if v >= 1<<12 {
			v -= 1 << 13
		}
		return integer(v, 2)
	case c < 0xf0:
		if len(b) < 2 {
			return nil, 0, false
		}
		return str(2, int(c&0x0f)<<8|int(b[1]))
	}
	switch c {
	case 0xf0:
		if len(b) < 5 {
			return nil, 0, false
		}
		size := binary.LittleEndian.Uint32(b[1:])
		if uint64(size) > uint64(len(b)) {
			return nil, 0, false
		}
		return str(5, int(size))
	case 0xf1:
		if len(b) < 3 {
			return nil, 0, false
		}
		return integer(int64(int16(binary.LittleEndian.Uint16(b[1:]))), 3)
	case 0xf2:
		if len(b) < 4 {
			return nil, 0, false
		}
		v := int32(uint32(b[1])|uint32(b[2])<<8|uint32(b[3])<<16) << 8 >> 8
		return integer(int64(v), 4)
	case 0xf3:
		if len(b) < 5 {
			return nil, 0, false
		}
		return integer(int64(int32(binary.LittleEndian.Uint32(b[1:]))), 5)
	case 0xf4:
		if len(b) < 9 {
			return nil, 0, false
		}
		return integer(int64(binary.LittleEndian.Uint64(b[1:])), 9)
	}
	return nil, 0, false
}
