package metadata

import (
	"math/bits"
	"strconv"
)

// Bitmaps (type 6, FORMAT.md §4.6) keep their bits in segments of 1024
// bytes. A segment's subkey is the ASCII decimal of the byte offset it
// starts at ("0", "1024", "2048", ...), so RocksDB orders segments
// lexicographically, not numerically. Inside a segment, bit n of the
// bitmap is bit n%8 of byte n/8 counted from the least significant bit:
// the reverse of a Redis string, whose bit n is bit 7-n%8.

// Bitmap segment geometry.
const (
	BitmapSegmentBytes = 1024
	BitmapSegmentBits  = 8 * BitmapSegmentBytes
)

// AppendBitmapSegment appends the subkey of segment seg (the segment
// holding bytes [seg*1024, seg*1024+1024)).
func AppendBitmapSegment(dst []byte, seg uint64) []byte {
	return strconv.AppendUint(dst, seg*BitmapSegmentBytes, 10)
}

// ParseBitmapSegment returns the segment a subkey names; ok is false when
// sub is not the canonical decimal of a multiple of 1024.
func ParseBitmapSegment(sub []byte) (seg uint64, ok bool) {
	if len(sub) == 0 || len(sub) > 20 || (sub[0] == '0' && len(sub) > 1) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(sub), 10, 64)
	if err != nil || n%BitmapSegmentBytes != 0 {
		return 0, false
	}
	return n / BitmapSegmentBytes, true
}

// BitmapSegmentLen is the length Kvrocks gives a segment of length cur
// when a write needs its byte j (cur <= j): j+1 when that is more than
// twice cur, else twice cur, at most a whole segment. The new bytes are 0.
func BitmapSegmentLen(cur, j int) int {
	if j+1 > 2*cur {
		return j + 1
	}
	return min(2*cur, BitmapSegmentBytes)
}

// ReverseBits converts a byte between the bitmap's bit order and a Redis
// string's: bit i becomes bit 7-i.
func ReverseBits(b byte) byte { return bits.Reverse8(b) }
