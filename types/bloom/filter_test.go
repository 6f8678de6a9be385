package bloom

import (
	"encoding/hex"
	"strings"
	"testing"
)

func TestHash(t *testing.T) {
	for _, c := range []struct {
		item string
		want uint64
	}{
		{"", 0xef46db3751d8e999},
		{"a", 0xd24ec4f1a98c6e5b},
		{"abc", 0x44bc2cf5ad770999},
	} {
		if got := Hash([]byte(c.item)); got != c.want {
			t.Errorf("Hash(%q) = %x, want %x", c.item, got, c.want)
		}
	}
}

// TestAddressing is KVROCKS-TYPES.md §2.7's vector: "a" in a 128-byte
// filter sets one bit in each word of block 3, words little-endian.
func TestAddressing(t *testing.T) {
	h := Hash([]byte("a"))
	if off := BlockOffset(h, 128); off != 3*BlockLen {
		t.Fatalf("block offset %d, want %d", off, 3*BlockLen)
	}
	f := make([]byte, 128)
	if Contains(f, h) {
		t.Fatal("an empty filter contains a")
	}
	Set(f, h)
	want := strings.Repeat("00", 96) + "00000400" + "00000200" + "02000000" + "00100000" + "00000200" + "00000001" + "00000008" + "00000080"
	if got := hex.EncodeToString(f); got != want {
		t.Fatalf("bits\n got %s\nwant %s", got, want)
	}
	if !Contains(f, h) {
		t.Fatal("a is not in the filter it was set in")
	}
	if Contains(f, Hash([]byte("b"))) {
		t.Fatal("b is in a filter holding only a")
	}
}

func TestBlockOffsetBounds(t *testing.T) {
	for _, n := range []int{32, 33, 64, 96, 1000, MaxFilterLen} {
		for _, h := range []uint64{0, 1 << 32, 0xffffffff_ffffffff, 0x80000000_00000000} {
			if off := BlockOffset(h, n); off < 0 || off+BlockLen > n || off%BlockLen != 0 {
				t.Errorf("BlockOffset(%x, %d) = %d", h, n, off)
			}
		}
	}
}

func TestCheckFilter(t *testing.T) {
	for n, ok := range map[int]bool{0: false, 31: false, 32: true, 33: true, 128: true} {
		if err := CheckFilter(make([]byte, n)); (err == nil) != ok {
			t.Errorf("CheckFilter(%d bytes) = %v", n, err)
		}
	}
}
