package metadata

import (
	"encoding/binary"
	"math"
)

// AppendScore appends the 8-byte order-preserving encoding of a double:
// negative numbers have every bit flipped, others only the sign bit, so that
// bytewise order equals numeric order (-inf < ... < -0 < +0 < ... < +inf).
func AppendScore(dst []byte, score float64) []byte {
	b := math.Float64bits(score)
	if b&(1<<63) != 0 {
		b = ^b
	} else {
		b |= 1 << 63
	}
	return binary.BigEndian.AppendUint64(dst, b)
}

// DecodeScore decodes the first 8 bytes of AppendScore's encoding. ok is
// false when fewer than 8 bytes are given.
func DecodeScore(enc []byte) (score float64, ok bool) {
	if len(enc) < 8 {
		return 0, false
	}
	b := binary.BigEndian.Uint64(enc)
	if b&(1<<63) == 0 {
		b = ^b
	} else {
		b &^= 1 << 63
	}
	return math.Float64frombits(b), true
}
