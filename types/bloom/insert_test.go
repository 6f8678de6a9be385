package bloom

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
)

// filters is a Reader over sub-filters in memory that counts its reads.
type filters struct {
	f     [][]byte
	reads []uint16
}

func (fs *filters) Filter(i uint16) ([]byte, error) {
	fs.reads = append(fs.reads, i)
	if int(i) >= len(fs.f) || fs.f[i] == nil {
		return nil, fmt.Errorf("sub-filter %d: not found", i)
	}
	return fs.f[i], nil
}

// apply writes an insertion's writes into fs, as a handler writes them.
func (fs *filters) apply(in Insertion) {
	for _, w := range in.Writes {
		for int(w.Index) >= len(fs.f) {
			fs.f = append(fs.f, nil)
		}
		fs.f[w.Index] = w.NewValue(fs.f[w.Index])
	}
}

func hashes(items ...string) []uint64 {
	hs := make([]uint64, len(items))
	for i, it := range items {
		hs[i] = Hash([]byte(it))
	}
	return hs
}

func TestInsertAndExists(t *testing.T) {
	c := New(Options{ErrorRate: 0.01, Capacity: 2, Expansion: 2})
	fs := &filters{f: [][]byte{make([]byte, c.FilterLen(0))}}
	in, err := Insert(c, 0, hashes("a", "b", "a", "c"), fs)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Result{Added, Added, Present, Added}; !slices.Equal(in.Results, want) {
		t.Fatalf("results %v, want %v", in.Results, want)
	}
	if in.Size != 3 || in.Chain.Filters != 2 || in.Chain.Bytes != 64 {
		t.Fatalf("size %d chain %+v", in.Size, in.Chain)
	}
	// Sub-filter 0 changed by blocks, sub-filter 1 opened whole.
	if len(in.Writes) != 2 || in.Writes[0].Index != 0 || in.Writes[0].Value != nil || len(in.Writes[0].Blocks) == 0 ||
		in.Writes[1].Index != 1 || len(in.Writes[1].Value) != 32 {
		t.Fatalf("writes %+v", in.Writes)
	}
	fs.apply(in)
	fs.reads = nil
	found, err := Exists(in.Chain, hashes("c", "a", "zzz"), fs)
	if err != nil || !slices.Equal(found, []bool{true, true, false}) {
		t.Fatalf("Exists = %v %v", found, err)
	}
	if !slices.Equal(fs.reads, []uint16{1, 0}) {
		t.Fatalf("Exists read %v, want each sub-filter once, newest first", fs.reads)
	}
	// Only present items: nothing to write, and the newest sub-filter
	// answered alone.
	fs.reads = nil
	again, err := Insert(in.Chain, in.Size, hashes("c"), fs)
	if err != nil || len(again.Writes) != 0 || again.Results[0] != Present || again.Size != 3 {
		t.Fatalf("insert of a present item: %+v %v", again, err)
	}
	if !slices.Equal(fs.reads, []uint16{1}) {
		t.Fatalf("Insert read %v", fs.reads)
	}
}

func TestInsertNonScalingFull(t *testing.T) {
	c := New(Options{ErrorRate: 0.01, Capacity: 1})
	fs := &filters{f: [][]byte{make([]byte, c.FilterLen(0))}}
	in, err := Insert(c, 0, hashes("a", "b", "a"), fs)
	if err != nil || !slices.Equal(in.Results, []Result{Added, Full, Present}) || in.Size != 1 || in.Chain.Filters != 1 {
		t.Fatalf("%+v %v", in, err)
	}
}

// TestInsertExhausted: Kvrocks opens a 65536th sub-filter, its u16 count
// wraps to 0, and the next BF.ADD crashes the server (seen on 5fccd57 with
// a chain written into its data directory by hand). Basalt refuses the
// item.
func TestInsertExhausted(t *testing.T) {
	c := Chain{Filters: math.MaxUint16, Expansion: 1, BaseCapacity: 1, ErrorRate: 0.5, Bytes: 32 * math.MaxUint16}
	fs := &filters{f: make([][]byte, math.MaxUint16)}
	for i := range fs.f {
		fs.f[i] = make([]byte, 32)
	}
	in, err := Insert(c, math.MaxUint16, hashes("x"), fs)
	if err != nil || in.Results[0] != Exhausted || len(in.Writes) != 0 || in.Chain != c {
		t.Fatalf("%+v %v", in, err)
	}
}

func TestInsertTooLarge(t *testing.T) {
	// Every item opens a 128 MiB sub-filter: the fifth passes the bound.
	c := Chain{Filters: 1, Expansion: 1, BaseCapacity: 1, ErrorRate: 1e-300, Bytes: 32}
	fs := &filters{f: [][]byte{make([]byte, 32)}}
	_, err := Insert(c, 1, hashes("a", "b", "c", "d", "e"), fs)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err %v", err)
	}
}

func TestInsertCorrupt(t *testing.T) {
	c := New(Defaults)
	for name, fs := range map[string]*filters{
		"absent":    {},
		"too short": {f: [][]byte{make([]byte, 31)}},
	} {
		if _, err := Insert(c, 0, hashes("a"), fs); err == nil {
			t.Errorf("%s: Insert: no error", name)
		}
		if _, err := Exists(c, hashes("a"), fs); err == nil {
			t.Errorf("%s: Exists: no error", name)
		}
	}
	if _, err := Insert(Chain{}, 0, hashes("a"), &filters{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("no sub-filter: %v", err)
	}
	// Kvrocks's chain after the wrap above: no sub-filter, nothing found.
	if found, err := Exists(Chain{}, hashes("a"), &filters{}); err != nil || found[0] {
		t.Errorf("Exists with no sub-filter: %v %v", found, err)
	}
}

// TestInsertBlocksEqualWhole: the blocks of a write rebuild the value
// that setting the bits in a whole copy gives.
func TestInsertBlocksEqualWhole(t *testing.T) {
	c := New(Options{ErrorRate: 0.001, Capacity: 1000, Expansion: 2})
	stored := make([]byte, c.FilterLen(0))
	var items []string
	for i := range 300 {
		items = append(items, fmt.Sprint("item", i))
	}
	fs := &filters{f: [][]byte{stored}}
	in, err := Insert(c, 0, hashes(items...), fs)
	if err != nil || len(in.Writes) != 1 {
		t.Fatalf("%+v %v", in.Writes, err)
	}
	whole := slices.Clone(stored)
	for _, h := range hashes(items...) {
		Set(whole, h)
	}
	if got := in.Writes[0].NewValue(stored); !slices.Equal(got, whole) {
		t.Fatal("blocks differ from bits set in the whole value")
	}
	if !slices.IsSortedFunc(in.Writes[0].Blocks, func(a, b Block) int { return a.Offset - b.Offset }) {
		t.Fatal("blocks out of order")
	}
	if !slices.Equal(stored, make([]byte, len(stored))) {
		t.Fatal("Insert wrote into the stored value")
	}
}
