package rdb

import (
	"encoding/binary"
	"math"
	"strconv"
)

// An intset: 4 bytes of element width (2, 4 or 8), 4 of count, then the
// integers in ascending order, all little-endian. The width is the
// smallest that holds every element.

const intsetHeaderSize = 8

// appendIntset appends the intset of vs, which are sorted and distinct.
func appendIntset(dst []byte, vs []int64) []byte {
	width := 2
	for _, v := range vs {
		switch {
		case v < math.MinInt32 || v > math.MaxInt32:
			width = 8
		case (v < math.MinInt16 || v > math.MaxInt16) && width < 4:
			width = 4
		}
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(width))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(vs)))
	for _, v := range vs {
		switch width {
		case 2:
			dst = binary.LittleEndian.AppendUint16(dst, uint16(v))
		case 4:
			dst = binary.LittleEndian.AppendUint32(dst, uint32(v))
		default:
			dst = binary.LittleEndian.AppendUint64(dst, uint64(v))
		}
	}
	return dst
}

// parseIntset validates an intset as Redis's deep intsetValidateIntegrity
// does (a known width, a size that fits the count, ascending distinct
// elements) and returns its elements as decimal strings.
func parseIntset(is []byte) ([][]byte, error) {
	if len(is) < intsetHeaderSize {
		return nil, errFormat
	}
	width := uint64(binary.LittleEndian.Uint32(is))
	count := uint64(binary.LittleEndian.Uint32(is[4:]))
	if (width != 2 && width != 4 && width != 8) || count*width != uint64(len(is)-intsetHeaderSize) {
		return nil, errFormat
	}
	out := make([][]byte, 0, count)
	var prev int64
	for i := range int(count) {
		p := is[intsetHeaderSize+i*int(width):]
		var v int64
		switch width {
		case 2:
			v = int64(int16(binary.LittleEndian.Uint16(p)))
		case 4:
			v = int64(int32(binary.LittleEndian.Uint32(p)))
		default:
			v = int64(binary.LittleEndian.Uint64(p))
		}
		if i > 0 && v <= prev {
			return nil, errFormat
		}
		prev = v
		out = append(out, strconv.AppendInt(nil, v, 10))
	}
	return out, nil
}
