package metadata

import (
	"encoding/binary"
	"math/bits"
	"strconv"
)

// HyperLogLogs (type 11, FORMAT.md §4.9) are Redis's dense HyperLogLog
// split into 16 segments of 1024 six-bit registers (768 bytes each), under
// the subkeys "0" ... "15"; an absent segment has every register 0. The
// metadata record carries one extension byte after the common header, the
// encoding, always HLLDense; size stays 0. Elements are hashed, and
// registers packed, exactly as Redis does, so the registers, and the
// estimate made from them, equal Redis's for the same elements.

// HyperLogLog geometry.
const (
	HLLRegisters        = 1 << hllP // 16384
	HLLSegments         = 16
	HLLSegmentRegisters = HLLRegisters / HLLSegments // 1024
	HLLSegmentBytes     = HLLSegmentRegisters * hllBits / 8
	// HLLMaxRank is the largest register value: 1 + the 50 hash bits
	// above the index.
	HLLMaxRank = hllQ + 1
	// HLLDense is the only encoding Kvrocks writes and reads.
	HLLDense = 0

	hllP    = 14
	hllQ    = 64 - hllP
	hllBits = 6
	hllMask = 1<<hllBits - 1
	// hllSeed is the MurmurHash64A seed of Redis's hllPatLen.
	hllSeed = 0xadc83b19
)

// AppendHLLSegment appends the subkey of segment seg (0..15).
func AppendHLLSegment(dst []byte, seg int) []byte { return strconv.AppendInt(dst, int64(seg), 10) }

// ParseHLLSegment returns the segment a subkey names; ok is false for
// anything but "0" ... "15".
func ParseHLLSegment(sub []byte) (seg int, ok bool) {
	n, err := strconv.Atoi(string(sub))
	if err != nil || n < 0 || n >= HLLSegments || strconv.Itoa(n) != string(sub) {
		return 0, false
	}
	return n, true
}

// MurmurHash64A is Austin Appleby's 64-bit hash as Redis ships it: 8-byte
// blocks read little-endian.
func MurmurHash64A(key []byte, seed uint64) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	h := seed ^ uint64(len(key))*m
	for len(key) >= 8 {
		k := binary.LittleEndian.Uint64(key)
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
		key = key[8:]
	}
	if len(key) > 0 {
		for i := len(key) - 1; i >= 0; i-- {
			h ^= uint64(key[i]) << (8 * i)
		}
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}

// HLLPosition returns the register an element falls in and the value it
// proposes for it (Redis's hllPatLen): the low 14 bits of the hash select
// the register; the rank is 1 + the number of trailing zeros of the
// remaining 50 bits (51 when they are all 0).
func HLLPosition(elem []byte) (register int, rank uint8) {
	h := MurmurHash64A(elem, hllSeed)
	register = int(h & (HLLRegisters - 1))
	h >>= hllP
	h |= 1 << hllQ
	return register, uint8(bits.TrailingZeros64(h) + 1)
}

// HLLRegister reads register r (0..1023) of a 768-byte segment.
func HLLRegister(seg []byte, r int) uint8 {
	byteAt, shift := r*hllBits/8, uint(r*hllBits%8)
	v := uint(seg[byteAt]) >> shift
	if shift > 8-hllBits {
		v |= uint(seg[byteAt+1]) << (8 - shift)
	}
	return uint8(v & hllMask)
}

// SetHLLRegister writes value v (0..63) to register r of a 768-byte
// segment.
func SetHLLRegister(seg []byte, r int, v uint8) {
	byteAt, shift := r*hllBits/8, uint(r*hllBits%8)
	seg[byteAt] &^= byte(hllMask << shift)
	seg[byteAt] |= byte(uint(v) << shift)
	if shift > 8-hllBits {
		seg[byteAt+1] &^= byte(hllMask >> (8 - shift))
		seg[byteAt+1] |= byte(uint(v) >> (8 - shift))
	}
}

// HLLUnpack decodes the 1024 registers of a 768-byte segment into regs:
// four registers in every three bytes.
func HLLUnpack(seg []byte, regs *[HLLSegmentRegisters]uint8) {
	_ = seg[HLLSegmentBytes-1]
	for i, j := 0, 0; i < HLLSegmentBytes; i, j = i+3, j+4 {
		b0, b1, b2 := seg[i], seg[i+1], seg[i+2]
		regs[j] = b0 & hllMask
		regs[j+1] = (b0>>6 | b1<<2) & hllMask
		regs[j+2] = (b1>>4 | b2<<4) & hllMask
		regs[j+3] = b2 >> 2
	}
}

// HLLPack encodes 1024 registers (each at most 63) into a 768-byte
// segment.
func HLLPack(regs *[HLLSegmentRegisters]uint8, seg []byte) {
	_ = seg[HLLSegmentBytes-1]
	for i, j := 0, 0; i < HLLSegmentBytes; i, j = i+3, j+4 {
		r0, r1, r2, r3 := regs[j], regs[j+1], regs[j+2], regs[j+3]
		seg[i] = r0 | r1<<6
		seg[i+1] = r1>>2 | r2<<4
		seg[i+2] = r2>>4 | r3<<2
	}
}

// HLLMerge raises each register of regs to the segment's value of it where
// that is higher (the union of two HyperLogLogs); regs starting at zero
// receive the segment's registers. Eight registers at a time: six bytes
// spread to one register a byte, then a byte-wise maximum.
func HLLMerge(seg []byte, regs *[HLLSegmentRegisters]uint8) {
	_ = seg[HLLSegmentBytes-1]
	const high = 0x8080808080808080
	for i, j := 0, 0; i < HLLSegmentBytes; i, j = i+6, j+8 {
		var w uint64
		if i+8 <= HLLSegmentBytes {
			w = binary.LittleEndian.Uint64(seg[i:]) & (1<<48 - 1)
		} else {
			var tail [8]byte
			copy(tail[:], seg[i:])
			w = binary.LittleEndian.Uint64(tail[:])
		}
		x := w&0xffffff | (w&0xffffff000000)<<8
		x = x&0x00000fff00000fff | (x&0x00fff00000fff000)<<4
		x = x&0x003f003f003f003f | (x&0x0fc00fc00fc00fc0)<<2
		a := binary.LittleEndian.Uint64(regs[j:])
		ge := ((a | high) - x) & high // 0x80 in the bytes where a >= x
		m := (ge >> 7) * 0xff
		binary.LittleEndian.PutUint64(regs[j:], a&m|x&^m)
	}
}
