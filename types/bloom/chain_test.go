package bloom

import (
	"bufio"
	"encoding/hex"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/basaltdb/basalt/metadata"
)

// TestEncode is FORMAT.md §10's vector: BF.RESERVE bf 0.01 100 with the
// version V, then one BF.ADD.
func TestEncode(t *testing.T) {
	const want = "89" + "0000000000000000" + "305120c0f2000001" + "0000000000000001" +
		"0001" + "0002" + "00000064" + "bf847ae147ae147b" + "00000080"
	m := metadata.New(metadata.TypeBloom, 0x305120c0f2000001)
	m.Size = 1
	c := New(Options{ErrorRate: 0.01, Capacity: 100, Expansion: 2})
	got := Encode(nil, &m, &c)
	if hex.EncodeToString(got) != want {
		t.Fatalf("Encode\n got %x\nwant %s", got, want)
	}
	m2, c2, err := Decode(got)
	if err != nil || m2 != m || c2 != c {
		t.Fatalf("Decode = %+v %+v %v", m2, c2, err)
	}
}

func TestDecodeErrors(t *testing.T) {
	good, _ := hex.DecodeString("890000000000000000305120c0f2000001000000000000000100010002" + "00000064bf847ae147ae147b00000080")
	for n := 0; n < len(good); n++ {
		if _, _, err := Decode(good[:n]); err == nil {
			t.Errorf("Decode of %d of %d bytes: no error", n, len(good))
		}
	}
	hash := append([]byte{0x82}, good[1:]...) // a hash's header
	if _, _, err := Decode(hash); err == nil {
		t.Error("Decode of another type: no error")
	}
	// A legacy header (32-bit expire and size) carries the same extension.
	legacy, _ := hex.DecodeString("0900000000305120c0f200000100000001" + "00010002" + "00000064bf847ae147ae147b00000080")
	m, c, err := Decode(legacy)
	if err != nil || !m.Legacy || m.Size != 1 || c.Capacity() != 100 || c.Bytes != 128 {
		t.Fatalf("legacy: %+v %+v %v", m, c, err)
	}
}

func TestSubkey(t *testing.T) {
	if got := AppendSubkey(nil, 0x0102); string(got) != "\x01\x02" {
		t.Fatalf("AppendSubkey = %x", got)
	}
	if i, ok := ParseSubkey([]byte{1, 2}); !ok || i != 0x0102 {
		t.Fatalf("ParseSubkey = %d %v", i, ok)
	}
	if _, ok := ParseSubkey([]byte{1}); ok {
		t.Fatal("ParseSubkey of 1 byte")
	}
}

// TestOptimalBytesKvrocks compares sizing with what the real Kvrocks
// answered for each error rate and capacity.
func TestOptimalBytesKvrocks(t *testing.T) {
	f, err := os.Open("testdata/kvrocks_sizes.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Fields(line)
		p, err1 := strconv.ParseFloat(fields[0], 64)
		c, err2 := strconv.ParseUint(fields[1], 10, 32)
		want, err3 := strconv.ParseUint(fields[2], 10, 32)
		if len(fields) != 3 || err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("bad line %q", line)
		}
		if got := OptimalBytes(uint32(c), p); got != uint32(want) {
			t.Errorf("OptimalBytes(%d, %s) = %d, Kvrocks %d", c, fields[0], got, want)
		}
		n++
	}
	if n < 300 {
		t.Fatalf("only %d sizes", n)
	}
}

func TestOptimalBytesBounds(t *testing.T) {
	for _, c := range []struct {
		capacity uint32
		p        float64
		want     uint32
	}{
		{100, 0.01, 128},
		{100, 0.0001, 512},
		{1000, 0.02, 2048},
		{30, 0.0001, 128},
		{60, 0.0001, 256},
		{math.MaxUint32, 0.01, MaxFilterLen}, // above 2^30 bits
		{100, 1e-300, MaxFilterLen},          // 1-p^(1/8) rounds to 1: m is -inf
		{100, 0.9999999999999999, MinFilterLen},
		{10, math.NaN(), MinFilterLen}, // as Kvrocks sized the NaN it accepted
		{1, 0.5, MinFilterLen},
	} {
		if got := OptimalBytes(c.capacity, c.p); got != c.want {
			t.Errorf("OptimalBytes(%d, %v) = %d, want %d", c.capacity, c.p, got, c.want)
		}
	}
}

func TestCapacity(t *testing.T) {
	for _, c := range []struct {
		chain Chain
		want  uint32
	}{
		{Chain{Filters: 1, Expansion: 0, BaseCapacity: 100}, 100},
		{Chain{Filters: 4, Expansion: 1, BaseCapacity: 2}, 8},
		{Chain{Filters: 2, Expansion: 2, BaseCapacity: 30}, 90},
		{Chain{Filters: 2, Expansion: 3, BaseCapacity: 3}, 12},
		{Chain{Filters: 3, Expansion: 2, BaseCapacity: 1}, 7},
		{Chain{Filters: 2, Expansion: 300, BaseCapacity: 1}, 301},
	} {
		if got := c.chain.Capacity(); got != c.want {
			t.Errorf("%+v: Capacity() = %d, want %d", c.chain, got, c.want)
		}
	}
}

// TestKvrocksOverflow holds what the real Kvrocks answered for chains
// past 2^32 items (metadata written by hand into its data directory, then
// BF.INFO, BF.ADD, BF.INFO): a capacity past 2^32 converts to a u32 as
// its x86-64 build converts a double, keeping the low 32 bits of the
// int64, and is 0 past 2^63; with expansion 1 the u32 product wraps.
func TestKvrocksOverflow(t *testing.T) {
	for _, c := range []struct {
		chain                 Chain
		capacity              uint32
		opened, capacityAfter uint32
	}{
		{Chain{Filters: 3, Expansion: 65535, BaseCapacity: 2, ErrorRate: 0.5}, 4294836226, 262144, 262144},
		{Chain{Filters: 5, Expansion: 65535, BaseCapacity: 2, ErrorRate: 0.5}, 0, 32, 0},
		{Chain{Filters: 2, Expansion: 1, BaseCapacity: math.MaxUint32, ErrorRate: 0.5}, 4294967294, MaxFilterLen, 4294967293},
	} {
		if got := c.chain.Capacity(); got != c.capacity {
			t.Errorf("%+v: Capacity() = %d, Kvrocks %d", c.chain, got, c.capacity)
		}
		if got := c.chain.FilterLen(c.chain.Filters); got != c.opened {
			t.Errorf("%+v: FilterLen(%d) = %d, Kvrocks %d", c.chain, c.chain.Filters, got, c.opened)
		}
		c.chain.Filters++
		if got := c.chain.Capacity(); got != c.capacityAfter {
			t.Errorf("%+v: Capacity() = %d, Kvrocks %d", c.chain, got, c.capacityAfter)
		}
	}
}

func TestFilterLen(t *testing.T) {
	c := Chain{Filters: 1, Expansion: 2, BaseCapacity: 30, ErrorRate: 0.0001}
	for i, want := range []uint32{128, 256, 512, 1024} {
		if got := c.FilterLen(uint16(i)); got != want {
			t.Errorf("FilterLen(%d) = %d, want %d", i, got, want)
		}
	}
	// base*expansion^i past 2^63 converts to 0: the smallest filter.
	huge := Chain{Expansion: 65535, BaseCapacity: 1 << 31, ErrorRate: 0.01}
	if got := huge.FilterLen(3); got != MinFilterLen {
		t.Errorf("FilterLen past 2^63 = %d", got)
	}
}

func TestPower(t *testing.T) {
	for _, c := range []struct {
		e, n uint16
		want float64
	}{
		{0, 0, 1}, {0, 3, 0}, {1, 65535, 1}, {2, 10, 1024}, {65535, 3, 281462092005375},
		{3, 40, 12157665459056928801}, // exact in 64 bits, rounded once to a double
	} {
		if got := power(c.e, c.n); got != c.want {
			t.Errorf("power(%d, %d) = %v, want %v", c.e, c.n, got, c.want)
		}
	}
	if got := power(65535, 65535); !math.IsInf(got, 1) {
		t.Errorf("power(65535, 65535) = %v", got)
	}
}
