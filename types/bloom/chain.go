package bloom

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/basaltdb/basalt/metadata"
)

// ExtensionLen is the length of the chain extension that follows the
// common header of a Bloom filter's metadata value.
const ExtensionLen = 20

// Sub-filter sizes: a power of two from MinFilterLen to MaxFilterLen bytes.
const (
	MinFilterLen = 32
	MaxFilterLen = 128 << 20
)

// ErrCorrupt reports stored bytes that are not a Bloom filter Kvrocks or
// Basalt could have written.
var ErrCorrupt = errors.New("bloom: corrupt filter")

// Chain is the metadata extension of a Bloom filter key (FORMAT.md
// §4.10): u16 Filters | u16 Expansion | u32 BaseCapacity | dbl(ErrorRate)
// | u32 Bytes. The number of items inserted is the common header's size.
type Chain struct {
	// Filters is the number of sub-filters, under subkeys 0 ... Filters-1.
	Filters uint16
	// Expansion is the capacity factor from one sub-filter to the next;
	// 0 for a non-scaling filter, which never opens a second one.
	Expansion uint16
	// BaseCapacity is the number of items sub-filter 0 is sized for.
	BaseCapacity uint32
	// ErrorRate is the false positive rate every sub-filter is sized for.
	ErrorRate float64
	// Bytes is the sum of the sub-filters' lengths (BF.INFO's Size). It
	// is a u32 on disk and wraps there as in Kvrocks; nothing is sized
	// from it.
	Bytes uint32
}

// Options are a new chain's parameters: BF.RESERVE's and BF.INSERT's.
type Options struct {
	ErrorRate float64
	Capacity  uint32
	Expansion uint16 // 0: non-scaling
}

// Defaults are the options of a filter that BF.ADD, BF.MADD or BF.INSERT
// create without being told otherwise.
var Defaults = Options{ErrorRate: 0.01, Capacity: 100, Expansion: 2}

// New returns the chain of a new filter: one empty sub-filter sized for
// o, whose value is FilterLen(0) zero bytes.
func New(o Options) Chain {
	return Chain{
		Filters:      1,
		Expansion:    o.Expansion,
		BaseCapacity: o.Capacity,
		ErrorRate:    o.ErrorRate,
		Bytes:        OptimalBytes(o.Capacity, o.ErrorRate),
	}
}

// DecodeChain parses the extension that follows the common header (what
// metadata.Decode returns as rest). Bytes after the 20 of the extension
// are ignored, as Kvrocks ignores them.
func DecodeChain(ext []byte) (Chain, error) {
	if len(ext) < ExtensionLen {
		return Chain{}, fmt.Errorf("bloom: %w", metadata.ErrTooShort)
	}
	errorRate, _ := metadata.DecodeScore(ext[8:16]) // every 8 bytes are some double
	return Chain{
		Filters:      binary.BigEndian.Uint16(ext),
		Expansion:    binary.BigEndian.Uint16(ext[2:]),
		BaseCapacity: binary.BigEndian.Uint32(ext[4:]),
		ErrorRate:    errorRate,
		Bytes:        binary.BigEndian.Uint32(ext[16:]),
	}, nil
}

// AppendTo appends the encoded extension to dst.
func (c *Chain) AppendTo(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint16(dst, c.Filters)
	dst = binary.BigEndian.AppendUint16(dst, c.Expansion)
	dst = binary.BigEndian.AppendUint32(dst, c.BaseCapacity)
	dst = metadata.AppendScore(dst, c.ErrorRate)
	return binary.BigEndian.AppendUint32(dst, c.Bytes)
}

// Decode parses a whole metadata value of a Bloom filter key. The caller
// has checked liveness and type (a record of another type is
// ErrCorrupt here).
func Decode(value []byte) (metadata.Metadata, Chain, error) {
	m, rest, err := metadata.Decode(value)
	if err != nil {
		return m, Chain{}, fmt.Errorf("bloom: %w", err)
	}
	if m.Type != metadata.TypeBloom {
		return m, Chain{}, fmt.Errorf("%w: type %d", ErrCorrupt, m.Type)
	}
	c, err := DecodeChain(rest)
	return m, c, err
}

// Encode appends the metadata value of a Bloom filter key: m's common
// header (m.Type must be metadata.TypeBloom) followed by c.
func Encode(dst []byte, m *metadata.Metadata, c *Chain) []byte {
	dst = m.AppendTo(dst)
	return c.AppendTo(dst)
}

// AppendSubkey appends the subkey of sub-filter i: u16 big-endian.
func AppendSubkey(dst []byte, i uint16) []byte { return binary.BigEndian.AppendUint16(dst, i) }

// ParseSubkey returns the sub-filter a subkey names.
func ParseSubkey(sub []byte) (i uint16, ok bool) {
	if len(sub) != 2 {
		return 0, false
	}
	return binary.BigEndian.Uint16(sub), true
}

// Scaling reports whether the chain opens a new sub-filter when full.
func (c *Chain) Scaling() bool { return c.Expansion != 0 }

// Capacity is the number of items the chain holds before it is full
// (BF.INFO's Capacity): the base capacity for a non-scaling chain,
// base*n for expansion 1, base*(1-e^n)/(1-e) for expansion e, computed
// in doubles and converted to a u32 as Kvrocks does.
func (c *Chain) Capacity() uint32 {
	switch c.Expansion {
	case 0:
		return c.BaseCapacity
	case 1:
		return c.BaseCapacity * uint32(c.Filters) // u32 arithmetic, wraps as in Kvrocks
	}
	e := float64(c.Expansion)
	return toUint32(float64(c.BaseCapacity) * (1 - power(c.Expansion, c.Filters)) / (1 - e))
}

// FilterLen is the length in bytes of sub-filter i when the chain opens
// it: sized for base*expansion^i items (a double product, converted to a
// u32) at the chain's error rate.
func (c *Chain) FilterLen(i uint16) uint32 {
	capacity := c.BaseCapacity
	if i > 0 {
		capacity = toUint32(float64(c.BaseCapacity) * power(c.Expansion, i))
	}
	return OptimalBytes(capacity, c.ErrorRate)
}

// OptimalBytes is the length of a block-split filter for capacity items
// at error rate p: m = -8*capacity / ln(1 - p^(1/8)) bits, truncated,
// at least 256, rounded up to a power of two, at most 2^30; in bytes.
// An m that is negative, NaN or above 2^30 (p outside (0, 1), or so small
// that 1-p^(1/8) rounds to 1) gives the bounds Kvrocks gives.
func OptimalBytes(capacity uint32, p float64) uint32 {
	const minBits, maxBits = MinFilterLen * 8, MaxFilterLen * 8
	m := -8.0 * float64(capacity) / math.Log(1-math.Pow(p, 1.0/8))
	var n uint32
	switch {
	case m < 0 || m > maxBits:
		n = maxBits
	default:
		n = toUint32(m) // NaN becomes 0, as on Kvrocks's x86-64 build
	}
	if n < minBits {
		n = minBits
	}
	if n&(n-1) != 0 {
		n = 1 << bits.Len32(n)
	}
	return min(n, maxBits) / 8
}

// power returns e^n as a double, correctly rounded as glibc's pow rounds
// an integral power: exact while it fits in 64 bits, and far above every
// u32 when it does not (where only that matters).
func power(e, n uint16) float64 {
	switch {
	case n == 0:
		return 1
	case e <= 1:
		return float64(e) // 0^n and 1^n
	}
	r := uint64(1)
	for range n {
		hi, lo := bits.Mul64(r, uint64(e))
		if hi != 0 {
			return math.Pow(float64(e), float64(n))
		}
		r = lo
	}
	return float64(r)
}

// toUint32 converts a double to a u32 as Kvrocks's x86-64 build does
// (a conversion through a signed 64-bit integer, keeping the low 32
// bits): NaN and values beyond ±2^63 become 0. In range it truncates.
func toUint32(f float64) uint32 {
	if math.IsNaN(f) || f >= 1<<63 || f < -(1<<63) {
		return 0
	}
	return uint32(int64(f))
}
