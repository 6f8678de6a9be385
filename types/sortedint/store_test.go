package sortedint

import (
	"errors"
	"math"
	"slices"
	"testing"
)

func collect(t *testing.T, walk func(Store, func(uint64) bool) error, s Store) []uint64 {
	t.Helper()
	var out []uint64
	if err := walk(s, func(id uint64) bool { out = append(out, id); return true }); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWalkReadsOnlyWhatItReturns: a range reads the subkeys it returns,
// skips or passes the end on, never the rest of a large set.
func TestWalkReadsOnlyWhatItReturns(t *testing.T) {
	ids := make([]uint64, 100000)
	for i := range ids {
		ids[i] = uint64(i) * 3
	}
	s := newMemStore(ids...)
	cases := []struct {
		name  string
		walk  func(Store, func(uint64) bool) error
		want  []uint64
		reads int
	}{
		{"SIRANGE k 0 3", Range{Limit: 3}.Walk, []uint64{3, 6, 9}, 4},
		{"SIRANGE k 2 2 CURSOR 30", Range{Cursor: 30, Offset: 2, Limit: 2}.Walk, []uint64{39, 42}, 5},
		{"SIRANGE k 0 1 CURSOR 31", Range{Cursor: 31, Limit: 1}.Walk, []uint64{33}, 1},
		{"SIREVRANGE k 0 2", Range{Reverse: true, Limit: 2}.Walk, []uint64{299997, 299994}, 2},
		{"SIREVRANGE k 1 2 CURSOR 9", Range{Reverse: true, Cursor: 9, Offset: 1, Limit: 2}.Walk, []uint64{3, 0}, 4},
		{"SIRANGEBYVALUE k 10 20", ValueRange{Min: 10, Max: 20}.Walk, []uint64{12, 15, 18}, 4},
		{"SIRANGEBYVALUE k (12 (18", ValueRange{Min: 12, Max: 18, MinExclusive: true, MaxExclusive: true}.Walk, []uint64{15}, 3},
		{"SIRANGEBYVALUE k 0 +inf LIMIT 5 2", ValueRange{Max: math.MaxUint64, Offset: 5, Count: 2}.Walk, []uint64{15, 18}, 7},
		{"SIREVRANGEBYVALUE k 20 10", ValueRange{Reverse: true, Min: 10, Max: 20}.Walk, []uint64{18, 15, 12}, 4},
		{"SIREVRANGEBYVALUE k +inf -inf LIMIT 0 1", ValueRange{Reverse: true, Max: math.MaxUint64, Count: 1}.Walk, []uint64{299997}, 1},
		{"SIRANGEBYVALUE k 20 10", ValueRange{Min: 20, Max: 10}.Walk, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s.reads = 0
			if got := collect(t, c.walk, s); !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
			if s.reads != c.reads {
				t.Errorf("read %d subkeys, want %d", s.reads, c.reads)
			}
			if s.want != 0 && uint64(s.reads) > s.want {
				t.Errorf("read %d subkeys after a hint of %d", s.reads, s.want)
			}
		})
	}
}

// TestWalkStopsWhenEmitDoes: a client gone away stops the walk.
func TestWalkStopsWhenEmitDoes(t *testing.T) {
	s := newMemStore(1, 2, 3, 4, 5)
	for _, walk := range []func(Store, func(uint64) bool) error{Range{}.Walk, ValueRange{Max: math.MaxUint64}.Walk} {
		s.reads = 0
		var got []uint64
		err := walk(s, func(id uint64) bool { got = append(got, id); return len(got) < 2 })
		if err != nil || !slices.Equal(got, []uint64{1, 2}) || s.reads != 2 {
			t.Errorf("got %v, %v after %d reads; want [1 2] after 2", got, err, s.reads)
		}
	}
}

// TestWantHints: the engine is told how many subkeys a bounded walk takes.
func TestWantHints(t *testing.T) {
	cases := []struct {
		w    window
		want uint64
	}{
		{window{offset: 0, limit: 3}, 4},
		{window{offset: 10, limit: 5}, 16},
		{window{offset: 10, limit: 0}, 0},
		{window{offset: math.MaxUint64, limit: 3}, 0},
		{window{offset: 0, limit: math.MaxUint64}, 0},
	}
	for _, c := range cases {
		if got := c.w.want(); got != c.want {
			t.Errorf("%+v.want() = %d, want %d", c.w, got, c.want)
		}
	}
}

// TestCorruptSubkeys: bytes on disk that are no id give an error, not a
// panic nor a wrong id.
func TestCorruptSubkeys(t *testing.T) {
	s := newMemStore(1, 2)
	s.put([]byte{0, 0, 0, 0, 0, 0, 0, 1, 9}) // 9 bytes, sorts between 1 and 2
	for _, walk := range []func(Store, func(uint64) bool) error{
		Range{}.Walk, Range{Reverse: true}.Walk,
		ValueRange{Max: math.MaxUint64}.Walk, ValueRange{Reverse: true, Max: math.MaxUint64}.Walk,
	} {
		var got []uint64
		err := walk(s, func(id uint64) bool { got = append(got, id); return true })
		if !errors.Is(err, ErrCorrupt) || len(got) != 1 {
			t.Errorf("got %v, %v; want one id then ErrCorrupt", got, err)
		}
	}
}

func TestStoreErrors(t *testing.T) {
	s := newMemStore(1)
	s.fail = errStore
	if err := (Range{}).Walk(s, func(uint64) bool { return true }); !errors.Is(err, errStore) {
		t.Errorf("Range.Walk: %v", err)
	}
	if err := (ValueRange{}).Walk(s, func(uint64) bool { return true }); !errors.Is(err, errStore) {
		t.Errorf("ValueRange.Walk: %v", err)
	}
	if _, err := planAdd(s, 1, []uint64{2}); !errors.Is(err, errStore) {
		t.Errorf("Add: %v", err)
	}
	if _, err := planRemove(s, 1, []uint64{1}); !errors.Is(err, errStore) {
		t.Errorf("Remove: %v", err)
	}
	if _, err := exists(s, []uint64{1}); !errors.Is(err, errStore) {
		t.Errorf("Exists: %v", err)
	}
}

// shortStore answers Contains for fewer subkeys than asked.
type shortStore struct{ memStore }

func (shortStore) Contains(subs [][]byte) ([]bool, error) { return nil, nil }

func TestContainsMiscounted(t *testing.T) {
	if _, err := planAdd(&shortStore{}, 0, []uint64{1}); err == nil {
		t.Error("Add took a Contains answer of the wrong length")
	}
}

// TestSizes: sizes Kvrocks corrupted are read as they are and never wrap
// around further.
func TestSizes(t *testing.T) {
	cases := []struct {
		name      string
		add       bool
		size      uint64
		held, ids []uint64
		changed   []uint64
		after     uint64
	}{
		{"SIADD k 1 1 2", true, 0, nil, []uint64{1, 1, 2}, []uint64{1, 2}, 2},
		{"SIADD k 2 1 on {1}", true, 1, []uint64{1}, []uint64{2, 1}, []uint64{2}, 2},
		{"SIADD on a size Kvrocks wrapped", true, math.MaxUint64 - 1, nil, []uint64{1, 2, 3}, []uint64{1, 2, 3}, math.MaxUint64},
		{"SIREM k 1 1", false, 2, []uint64{1, 2}, []uint64{1, 1}, []uint64{1}, 1},
		{"SIREM k 1 2 on a size Kvrocks lowered", false, 1, []uint64{1, 2}, []uint64{1, 2}, []uint64{1, 2}, 0},
		{"SIREM k 3 on an inflated size", false, 5, []uint64{3}, []uint64{3}, []uint64{3}, 4},
		{"SIREM k 9", false, 1, []uint64{3}, []uint64{9}, nil, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newMemStore(c.held...)
			change := planRemove
			if c.add {
				change = planAdd
			}
			ch, err := change(s, c.size, c.ids)
			if err != nil || !slices.Equal(ch.IDs, c.changed) || ch.Size != c.after {
				t.Errorf("got %+v, %v; want ids %v, size %d", ch, err, c.changed, c.after)
			}
		})
	}
}
