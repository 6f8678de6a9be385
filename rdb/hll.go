package rdb

import "slices"

// Redis keeps a HyperLogLog in a string: a 16-byte header ("HYLL", the
// encoding, 3 unused bytes, the cached cardinality, little-endian, whose
// top bit set means stale) and 16384 six-bit registers, either dense
// (packed least significant bit first, 12288 bytes) or sparse (runs of
// zeros and of equal small values).

const (
	hllRegisters  = 16384
	hllDenseBytes = hllRegisters * 6 / 8
	hllHeaderSize = 16
	hllDense      = 0
	hllSparse     = 1
)

var hllMagic = []byte("HYLL")

// HLLString returns Redis's dense HyperLogLog string of registers, which
// are packed as in that string (12288 bytes), with the cached cardinality
// marked stale so that Redis computes it.
func HLLString(registers []byte) []byte {
	out := make([]byte, hllHeaderSize, hllHeaderSize+len(registers))
	copy(out, hllMagic)
	out[4] = hllDense
	out[15] = 0x80
	return append(out, registers...)
}

// ParseHLL reads a string that Redis would take as a HyperLogLog, dense
// or sparse, and returns its registers packed as dense (12288 bytes); ok
// is false for any other string, including a sparse one whose runs do not
// cover the registers exactly.
func ParseHLL(s []byte) (registers []byte, ok bool) {
	if len(s) < hllHeaderSize || string(s[:4]) != string(hllMagic) {
		return nil, false
	}
	switch s[4] {
	case hllDense:
		if len(s) != hllHeaderSize+hllDenseBytes {
			return nil, false
		}
		return slices.Clone(s[hllHeaderSize:]), true
	case hllSparse:
		return sparseToDense(s[hllHeaderSize:])
	}
	return nil, false
}

// sparseToDense expands the sparse opcodes: 00xxxxxx, xxxxxx+1 zeros;
// 01xxxxxx yyyyyyyy, 14 bits + 1 zeros; 1vvvvvxx, xx+1 registers of value
// vvvvv+1.
func sparseToDense(ops []byte) ([]byte, bool) {
	dense := make([]byte, hllDenseBytes)
	idx := 0
	for i := 0; i < len(ops); i++ {
		op := ops[i]
		switch {
		case op&0xc0 == 0:
			idx += int(op&0x3f) + 1
		case op&0xc0 == 0x40:
			if i+1 >= len(ops) {
				return nil, false
			}
			idx += int(op&0x3f)<<8 | int(ops[i+1]) + 1
			i++
		default:
			run, val := int(op&0x3)+1, (op>>2&0x1f)+1
			if idx+run > hllRegisters {
				return nil, false
			}
			for ; run > 0; run-- {
				setRegister(dense, idx, val)
				idx++
			}
		}
		if idx > hllRegisters {
			return nil, false
		}
	}
	return dense, idx == hllRegisters
}

// setRegister stores a six-bit register into dense registers.
func setRegister(dense []byte, i int, val byte) {
	bit := i * 6
	b, shift := bit/8, uint(bit%8)
	w := uint16(dense[b])
	if b+1 < len(dense) {
		w |= uint16(dense[b+1]) << 8
	}
	w = w&^(0x3f<<shift) | uint16(val)<<shift
	dense[b] = byte(w)
	if b+1 < len(dense) {
		dense[b+1] = byte(w >> 8)
	}
}
