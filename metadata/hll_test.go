package metadata

import (
	"bytes"
	"testing"
)

// TestHLLVectors: PFADD on an absent key (FORMAT.md §10) and the segment
// each element lands in, with the register bytes Kvrocks wrote for it
// (read from its WAL) and the register redis-server reports (PFDEBUG
// GETREG: "a" sets register 12711 to 2).
func TestHLLVectors(t *testing.T) {
	std := Layout{}
	ns := DefaultNamespace
	meta := append((&Metadata{Type: TypeHyperLogLog, Version: v}).AppendTo(nil), HLLDense)
	if want := unhex(t, "8b 0000000000000000 305120c0f2000001 0000000000000000 00"); !bytes.Equal(meta, want) {
		t.Errorf("metadata %x, want %x", meta, want)
	}
	sub := std.AppendInternalKey(nil, ns, []byte("p"), v, AppendHLLSegment(nil, 12))
	if want := unhex(t, "0b5f5f6e616d657370616365 00000001 70 305120c0f2000001 3132"); !bytes.Equal(sub, want) {
		t.Errorf("segment 12 subkey %x, want %x", sub, want)
	}
	for _, tt := range []struct {
		elem     string
		register int
		rank     uint8
		seg      int
		byteAt   int
		value    byte
	}{
		{"a", 12711, 2, 12, 317, 0x08},
		{"b", 15780, 1, 15, 315, 0x01},
		{"c", 8436, 1, 8, 183, 0x01},
		{"hello", 9216, 1, 9, 0, 0x01},
		{"0123456789abcdef0", 16236, 1, 15, 657, 0x01}, // two 8-byte blocks and a tail
	} {
		reg, rank := HLLPosition([]byte(tt.elem))
		if reg != tt.register || rank != tt.rank {
			t.Errorf("HLLPosition(%q) = %d, %d; want %d, %d", tt.elem, reg, rank, tt.register, tt.rank)
			continue
		}
		seg := make([]byte, HLLSegmentBytes)
		SetHLLRegister(seg, reg%HLLSegmentRegisters, rank)
		want := make([]byte, HLLSegmentBytes)
		want[tt.byteAt] = tt.value
		if reg/HLLSegmentRegisters != tt.seg || !bytes.Equal(seg, want) {
			t.Errorf("%q: segment %d written %x, want segment %d with byte %d = %x", tt.elem, reg/HLLSegmentRegisters, seg, tt.seg, tt.byteAt, tt.value)
		}
	}
}

// TestHLLRegisters writes every register of a segment with values that
// straddle bytes and reads them back, neighbours untouched.
func TestHLLRegisters(t *testing.T) {
	seg := make([]byte, HLLSegmentBytes)
	for r := 0; r < HLLSegmentRegisters; r++ {
		SetHLLRegister(seg, r, uint8((r*7+3)%64))
	}
	for r := 0; r < HLLSegmentRegisters; r++ {
		if got := HLLRegister(seg, r); got != uint8((r*7+3)%64) {
			t.Fatalf("register %d = %d", r, got)
		}
	}
	SetHLLRegister(seg, 5, 63)
	SetHLLRegister(seg, 5, 0)
	if HLLRegister(seg, 4) != uint8((4*7+3)%64) || HLLRegister(seg, 6) != uint8((6*7+3)%64) || HLLRegister(seg, 5) != 0 {
		t.Fatal("a register write changed its neighbours")
	}
	// The last register sits in the last byte alone.
	last := make([]byte, HLLSegmentBytes)
	SetHLLRegister(last, HLLSegmentRegisters-1, 63)
	if last[HLLSegmentBytes-1] != 0xfc || HLLRegister(last, HLLSegmentRegisters-1) != 63 {
		t.Fatalf("last register: byte %x", last[HLLSegmentBytes-1])
	}
}

// TestMurmurHash64A: Redis's MurmurHash64A (compiled from its C source)
// of the prefixes of "0123456789abcdefg", covering every tail length and
// one and two 8-byte blocks, with the HyperLogLog seed.
func TestMurmurHash64A(t *testing.T) {
	want := []uint64{
		0xd8dfea6585bc9732, 0xc5064924982a33a9, 0x41f41cd92bc3e7fd, 0x835c985c13304b3a,
		0x270e11c0772a74b7, 0x0e6e0cb83e3eb7a3, 0x59960027c4c33775, 0x559c262a7f7060f4,
		0x4f529b651cb08252, 0x1ec0e7008dc11df3, 0xfc02e73798aa83fd, 0xd4c4ad5ba30cf4e7,
		0xf3c9a89477e1aae9, 0x9bbd5df10295e1b0, 0xb53b149c485fac1e, 0x3fe8c8f51a1e3d6d,
		0x9f8565428eaa573d, 0xf6c82f549aceb6e9,
	}
	for n, w := range want {
		if h := MurmurHash64A([]byte("0123456789abcdefg"[:n]), hllSeed); h != w {
			t.Errorf("MurmurHash64A of %d bytes = %016x, want %016x", n, h, w)
		}
	}
}

func TestParseHLLSegment(t *testing.T) {
	for seg := 0; seg < HLLSegments; seg++ {
		if got, ok := ParseHLLSegment(AppendHLLSegment(nil, seg)); !ok || got != seg {
			t.Errorf("segment %d round trip: %d %v", seg, got, ok)
		}
	}
	for _, bad := range []string{"", "16", "-1", "01", " 1", "1a", "x"} {
		if _, ok := ParseHLLSegment([]byte(bad)); ok {
			t.Errorf("ParseHLLSegment(%q) ok", bad)
		}
	}
}

// TestHLLPackUnpack: the word-wise codec agrees with the register-wise
// one.
func TestHLLPackUnpack(t *testing.T) {
	seg := make([]byte, HLLSegmentBytes)
	var regs [HLLSegmentRegisters]uint8
	for r := range regs {
		regs[r] = uint8((r*37 + r/7) % 64)
		SetHLLRegister(seg, r, regs[r])
	}
	packed := make([]byte, HLLSegmentBytes)
	HLLPack(&regs, packed)
	if !bytes.Equal(packed, seg) {
		t.Fatal("HLLPack differs from SetHLLRegister")
	}
	var back [HLLSegmentRegisters]uint8
	HLLUnpack(seg, &back)
	if back != regs {
		t.Fatal("HLLUnpack differs from HLLRegister")
	}
}

// TestHLLMerge: the word-wise merge is the register-wise maximum.
func TestHLLMerge(t *testing.T) {
	a, b := make([]byte, HLLSegmentBytes), make([]byte, HLLSegmentBytes)
	for r := 0; r < HLLSegmentRegisters; r++ {
		SetHLLRegister(a, r, uint8((r*37)%64))
		SetHLLRegister(b, r, uint8((r*11+5)%64))
	}
	var regs [HLLSegmentRegisters]uint8
	HLLMerge(a, &regs)
	var ua [HLLSegmentRegisters]uint8
	HLLUnpack(a, &ua)
	if regs != ua {
		t.Fatal("HLLMerge into zeros differs from HLLUnpack")
	}
	HLLMerge(b, &regs)
	for r := range regs {
		if want := max(HLLRegister(a, r), HLLRegister(b, r)); regs[r] != want {
			t.Fatalf("register %d: %d, want %d", r, regs[r], want)
		}
	}
}
