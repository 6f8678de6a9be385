package rdb

import (
	"encoding/binary"
	"strconv"
)

// A ziplist (Redis before 7.0): 4 bytes of total size, 4 of the offset of
// the last entry and 2 of element count (65535: too many to count), all
// little-endian, the entries, and 0xff. An entry starts with the length of
// the one before it (1 byte below 254, else 254 and 4 bytes), then its
// encoding and data. Only read: Redis 7.0 writes listpacks.

const (
	zlHeaderSize = 10
	zlEnd        = 0xff
	zlCountMax   = 65535
)

// parseZiplist validates a ziplist as Redis's deep
// ziplistValidateIntegrity does and calls fn with each element: a string
// aliasing zl, or an integer as its decimal string.
func parseZiplist(zl []byte, fn func(elem []byte) error) error {
	if len(zl) < zlHeaderSize+1 || int(binary.LittleEndian.Uint32(zl)) != len(zl) || zl[len(zl)-1] != zlEnd {
		return errFormat
	}
	tail := int(binary.LittleEndian.Uint32(zl[4:]))
	want := int(binary.LittleEndian.Uint16(zl[8:]))
	count, prev, last := 0, 0, zlHeaderSize
	p := zlHeaderSize
	for p < len(zl)-1 {
		body := zl[p : len(zl)-1]
		prevLen, hdr := int(body[0]), 1
		if body[0] == 254 {
			if len(body) < 5 {
				return errFormat
			}
			prevLen, hdr = int(binary.LittleEndian.Uint32(body[1:])), 5
		}
		if prevLen != prev {
			return errFormat
		}
		elem, n, ok := zlEntry(body[hdr:])
		if !ok {
			return errFormat
		}
		if err := fn(elem); err != nil {
			return err
		}
		last, prev = p, hdr+n
		p += hdr + n
		count++
	}
	if tail != last || (want != zlCountMax && want != count) {
		return errFormat
	}
	return nil
}

// zlEntry decodes an entry's encoding and data at the start of b: its
// value and length.
func zlEntry(b []byte) (elem []byte, n int, ok bool) {
	if len(b) == 0 {
		return nil, 0, false
	}
	c := b[0]
	str := func(hdr int, size uint64) ([]byte, int, bool) {
		if size > uint64(len(b)-hdr) {
			return nil, 0, false
		}
		return b[hdr : hdr+int(size)], hdr + int(size), true
	}
	integer := func(size int, read func([]byte) int64) ([]byte, int, bool) {
		if len(b) < 1+size {
			return nil, 0, false
		}
		return strconv.AppendInt(nil, read(b[1:]), 10), 1 + size, true
	}
	switch {
	case c>>6 == 0:
		return str(1, uint64(c&0x3f))
	case c>>6 == 1:
		if len(b) < 2 {
			return nil, 0, false
		}
		return str(2, uint64(c&0x3f)<<8|uint64(b[1]))
	case c>>6 == 2:
		if len(b) < 5 {
			return nil, 0, false
		}
		return str(5, uint64(binary.BigEndian.Uint32(b[1:])))
	case c >= 0xf1 && c <= 0xfd:
		return strconv.AppendInt(nil, int64(c&0x0f)-1, 10), 1, true
	}
	switch c {
	case 0xc0:
		return integer(2, func(p []byte) int64 { return int64(int16(binary.LittleEndian.Uint16(p))) })
	case 0xd0:
		return integer(4, func(p []byte) int64 { return int64(int32(binary.LittleEndian.Uint32(p))) })
	case 0xe0:
		return integer(8, func(p []byte) int64 { return int64(binary.LittleEndian.Uint64(p)) })
	case 0xf0:
		return integer(3, func(p []byte) int64 {
			return int64(int32(uint32(p[0])|uint32(p[1])<<8|uint32(p[2])<<16) << 8 >> 8)
		})
	case 0xfe:
		return integer(1, func(p []byte) int64 { return int64(int8(p[0])) })
	}
	return nil, 0, false
}
