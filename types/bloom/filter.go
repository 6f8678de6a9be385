package bloom

import (
	"encoding/binary"
	"fmt"

	"github.com/cespare/xxhash/v2"
)

// BlockLen is the length of a block: eight 32-bit words, one bit of each
// set per item.
const BlockLen = 32

// salt multiplies an item's key into one bit of each word of its block.
var salt = [8]uint32{
	0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d,
	0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31,
}

// Hash is an item's 64-bit hash: XXH64 with seed 0.
func Hash(item []byte) uint64 { return xxhash.Sum64(item) }

// CheckFilter reports a stored sub-filter value too short to hold a block
// or too long for the u32 length Kvrocks sizes filters with. Any length in
// between works (its trailing bytes past the last whole block unused).
func CheckFilter(f []byte) error {
	if len(f) < BlockLen || uint64(len(f)) > 1<<32-1 {
		return fmt.Errorf("%w: sub-filter of %d bytes", ErrCorrupt, len(f))
	}
	return nil
}

// BlockOffset is the byte offset, in a sub-filter of filterLen bytes
// (CheckFilter holds), of the block that an item of hash h falls in: the
// high 32 bits of h scaled to the number of blocks.
func BlockOffset(h uint64, filterLen int) int {
	blocks := uint64(filterLen / BlockLen)
	block := ((h >> 32) * blocks) >> 32
	return int(block) * BlockLen
}

// blockHas reports whether all eight bits of h are set in block (BlockLen
// bytes of little-endian words).
func blockHas(block []byte, h uint64) bool {
	key := uint32(h)
	for i, s := range salt {
		w := binary.LittleEndian.Uint32(block[4*i:])
		if w&(1<<((key*s)>>27)) == 0 {
			return false
		}
	}
	return true
}

// blockSet sets the eight bits of h in block.
func blockSet(block []byte, h uint64) {
	key := uint32(h)
	for i, s := range salt {
		w := binary.LittleEndian.Uint32(block[4*i:])
		binary.LittleEndian.PutUint32(block[4*i:], w|1<<((key*s)>>27))
	}
}

// Contains reports whether an item of hash h may be in sub-filter f
// (CheckFilter holds): all eight of its bits are set. It reads one block.
func Contains(f []byte, h uint64) bool {
	off := BlockOffset(h, len(f))
	return blockHas(f[off:off+BlockLen], h)
}

// Set sets the bits of h in sub-filter f (CheckFilter holds).
func Set(f []byte, h uint64) {
	off := BlockOffset(h, len(f))
	blockSet(f[off:off+BlockLen], h)
}
