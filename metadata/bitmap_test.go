package metadata

import (
	"bytes"
	"testing"
)

// TestBitmapVectors: SETBIT b 10 1 on an absent key (FORMAT.md §10), and
// segment subkeys as Kvrocks names them.
func TestBitmapVectors(t *testing.T) {
	std := Layout{}
	ns := DefaultNamespace
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"metadata", (&Metadata{Type: TypeBitmap, Version: v, Size: 2}).AppendTo(nil), "86 0000000000000000 305120c0f2000001 0000000000000002"},
		{"segment 0 subkey", std.AppendInternalKey(nil, ns, []byte("b"), v, AppendBitmapSegment(nil, 0)), "0b5f5f6e616d657370616365 00000001 62 305120c0f2000001 30"},
		{"segment 0 value, bit 10 (LSB first)", []byte{0, 1 << (10 % 8)}, "0004"},
		{"segment 1 subkey", AppendBitmapSegment(nil, 1), "31303234"},                     // "1024"
		{"segment 524287 subkey", AppendBitmapSegment(nil, 524287), "353336383639383838"}, // bit 2^32-1
		{"cluster segment 12 subkey (slot(\"b\") = 3300)", Layout{Cluster: true}.AppendInternalKey(nil, ns, []byte("b"), v, AppendBitmapSegment(nil, 12)), "0b5f5f6e616d657370616365 0ce4 00000001 62 305120c0f2000001 3132323838"},
	}
	for _, tt := range tests {
		if want := unhex(t, tt.want); !bytes.Equal(tt.got, want) {
			t.Errorf("%s: got %x, want %x", tt.name, tt.got, want)
		}
	}
}

func TestParseBitmapSegment(t *testing.T) {
	for _, tt := range []struct {
		sub string
		seg uint64
		ok  bool
	}{
		{"0", 0, true}, {"1024", 1, true}, {"12288", 12, true}, {"536869888", 524287, true},
		{"", 0, false}, {"00", 0, false}, {"01024", 0, false}, {"1000", 0, false}, {"-1024", 0, false},
		{"+1024", 0, false}, {"1024 ", 0, false}, {"abc", 0, false}, {"18446744073709551616", 0, false},
	} {
		seg, ok := ParseBitmapSegment([]byte(tt.sub))
		if seg != tt.seg || ok != tt.ok {
			t.Errorf("ParseBitmapSegment(%q) = %d %v, want %d %v", tt.sub, seg, ok, tt.seg, tt.ok)
		}
		if ok {
			if back := AppendBitmapSegment(nil, seg); string(back) != tt.sub {
				t.Errorf("AppendBitmapSegment(%d) = %q", seg, back)
			}
		}
	}
}

// TestBitmapSegmentLen: the growth Kvrocks applies (observed with its
// SETBIT: a first write at byte 452 of a segment makes it 453 bytes).
func TestBitmapSegmentLen(t *testing.T) {
	for _, tt := range []struct{ cur, j, want int }{
		{0, 0, 1}, {0, 452, 453}, {1, 1, 2}, {2, 2, 4}, {4, 4, 8}, {4, 9, 10},
		{600, 700, 1024}, {512, 512, 1024}, {1000, 1023, 1024}, {3, 1023, 1024},
	} {
		if got := BitmapSegmentLen(tt.cur, tt.j); got != tt.want {
			t.Errorf("BitmapSegmentLen(%d, %d) = %d, want %d", tt.cur, tt.j, got, tt.want)
		}
	}
	if ReverseBits(0x01) != 0x80 || ReverseBits(0x04) != 0x20 || ReverseBits(0xf0) != 0x0f {
		t.Error("ReverseBits")
	}
}
