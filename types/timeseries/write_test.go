package timeseries

import (
	"errors"
	"math"
	"testing"
)

// series is a stored series for write tests.
type series struct {
	mem  *memChunks
	meta Meta
	size uint64
}

func newSeries(chunkSize uint64) *series {
	m := NewMeta()
	m.ChunkSize = chunkSize
	return &series{mem: newMemChunks(), meta: m}
}

// cmd runs one command's writes and stores them.
func (s *series) cmd(t testing.TB, op func(w *Series)) {
	t.Helper()
	w := OpenSeries([]byte("k"), s.meta, s.size, nil, s.mem)
	op(w)
	s.mem.apply(t, w.Changes(), nil)
	s.meta, s.size = w.Meta, w.Size
	if s.size != uint64(len(s.mem.vals)) {
		t.Fatalf("size %d with %d chunks", s.size, len(s.mem.vals))
	}
}

func (s *series) add(t testing.TB, smp Sample, p Policy) (AddResult, error) {
	var res AddResult
	var err error
	s.cmd(t, func(w *Series) { res, err = w.Add(smp, p) })
	return res, err
}

func TestDuplicatePolicies(t *testing.T) {
	cases := []struct {
		policy Policy
		want   float64
		err    error
	}{
		{PolicyBlock, 10, ErrBlocked},
		{PolicyFirst, 10, nil},
		{PolicyLast, 3, nil},
		{PolicyMin, 3, nil},
		{PolicyMax, 10, nil},
		{PolicySum, 13, nil},
	}
	for _, c := range cases {
		s := newSeries(1024)
		s.add(t, Sample{5, 10}, PolicyNone)
		if _, err := s.add(t, Sample{5, 3}, c.policy); !errors.Is(err, c.err) {
			t.Errorf("%v: %v", c.policy, err)
		}
		if got := s.mem.all(t); len(got) != 1 || got[0].V != c.want {
			t.Errorf("%v: %v, want %v", c.policy, got, c.want)
		}
		// The series's own policy applies when ON_DUPLICATE is not given.
		s2 := newSeries(1024)
		s2.meta.Duplicate = c.policy
		s2.add(t, Sample{5, 10}, PolicyNone)
		if _, err := s2.add(t, Sample{5, 3}, PolicyNone); !errors.Is(err, c.err) || s2.mem.all(t)[0].V != c.want {
			t.Errorf("series policy %v: %v %v", c.policy, err, s2.mem.all(t))
		}
	}
}

func TestRetentionOnWrite(t *testing.T) {
	s := newSeries(1024)
	s.meta.Retention = 100
	s.add(t, Sample{1000, 1}, PolicyNone)
	if _, err := s.add(t, Sample{899, 1}, PolicyNone); !errors.Is(err, ErrTooOld) {
		t.Fatal(err)
	}
	if _, err := s.add(t, Sample{900, 1}, PolicyNone); err != nil {
		t.Fatal("newest − ts = retention is still kept:", err)
	}
	// Within one command, the newest moves as samples are applied.
	s.cmd(t, func(w *Series) {
		if _, err := w.Add(Sample{2000, 1}, PolicyNone); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Add(Sample{1500, 1}, PolicyNone); !errors.Is(err, ErrTooOld) {
			t.Fatal(err)
		}
	})
	// Reads clip to the window although the old samples are stored.
	q := Query{From: 0, To: math.MaxInt64}
	var got []Sample
	q.Run(Source{Chunks: s.mem, Meta: &s.meta}, func(x Sample) bool { got = append(got, x); return true })
	if len(got) != 1 || got[0].TS != 2000 {
		t.Fatal(got)
	}
}

func TestIgnore(t *testing.T) {
	s := newSeries(1024)
	s.meta.IgnoreTime, s.meta.IgnoreValue = 10, 1
	s.meta.Duplicate = PolicyLast
	s.add(t, Sample{100, 5}, PolicyNone)
	cases := []struct {
		smp     Sample
		policy  Policy
		ignored bool
	}{
		{Sample{105, 5.5}, PolicyNone, true},
		{Sample{110, 6}, PolicyNone, true}, // both bounds inclusive
		{Sample{111, 5}, PolicyNone, false},
		{Sample{112, 7}, PolicyNone, false},  // newest is 111 now: value too far
		{Sample{113, 7}, PolicyMax, false},   // not LAST
		{Sample{100, 7}, PolicyLast, false},  // older than the newest
		{Sample{114, 7.5}, PolicyLast, true}, // ON_DUPLICATE LAST
	}
	for _, c := range cases {
		res, err := s.add(t, c.smp, c.policy)
		if err != nil || res.Ignored != c.ignored {
			t.Fatalf("%v: %+v %v", c.smp, res, err)
		}
		if c.ignored && res.TS == c.smp.TS {
			t.Fatalf("%v: an ignored sample replies the newest timestamp", c.smp)
		}
	}
}

func TestIncr(t *testing.T) {
	s := newSeries(1024)
	var got Sample
	var err error
	s.cmd(t, func(w *Series) { got, err = w.Incr(10, 5) })
	if err != nil || got != (Sample{10, 5}) {
		t.Fatal(got, err)
	}
	s.cmd(t, func(w *Series) { got, err = w.Incr(10, -2) })
	if err != nil || got != (Sample{10, 3}) || len(s.mem.all(t)) != 1 {
		t.Fatal(got, err, s.mem.all(t))
	}
	s.cmd(t, func(w *Series) { _, err = w.Incr(9, 1) })
	if !errors.Is(err, ErrIncrOlder) {
		t.Fatal(err)
	}
}

// chunkLens is the number of samples of each stored chunk, in order.
func chunkLens(t *testing.T, m *memChunks) []int {
	var out []int
	for _, id := range m.ids() {
		ch, err := ParseChunk(m.vals[id])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ch.Len())
	}
	return out
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestChunkSplitting is rule 4: the latest chunk is cut into pieces of
// exactly chunk_size samples; a sealed chunk only past 2 × chunk_size,
// into count/chunk_size nearly equal pieces; a chunk whose first sample
// changes is re-keyed.
func TestChunkSplitting(t *testing.T) {
	s := newSeries(3)
	s.cmd(t, func(w *Series) {
		for ts := int64(10); ts <= 80; ts += 10 {
			w.Add(Sample{ts, 1}, PolicyNone)
		}
	})
	if got := chunkLens(t, s.mem); !equalInts(got, []int{3, 3, 2}) {
		t.Fatalf("in order: %v", got)
	}
	// Back-fill the sealed first chunk [10,20,30] up to 6: no split.
	s.cmd(t, func(w *Series) {
		for _, ts := range []int64{11, 12, 13} {
			w.Add(Sample{ts, 1}, PolicyNone)
		}
	})
	if got := chunkLens(t, s.mem); !equalInts(got, []int{6, 3, 2}) {
		t.Fatalf("back-filled to 2 × size: %v", got)
	}
	s.cmd(t, func(w *Series) { w.Add(Sample{14, 1}, PolicyNone) })
	if got := chunkLens(t, s.mem); !equalInts(got, []int{3, 4, 3, 2}) {
		t.Fatalf("back-filled past 2 × size: %v", got)
	}
	// A sample older than every chunk re-keys the first chunk.
	s.cmd(t, func(w *Series) { w.Add(Sample{1, 1}, PolicyNone) })
	if ids := s.mem.ids(); ids[0] != 1 {
		t.Fatalf("ids %v", ids)
	}
	// TS.DEL of a chunk's first samples re-keys it; of all, removes it.
	var n int64
	s.cmd(t, func(w *Series) { n, _ = w.Delete(1, 11) })
	if ids := s.mem.ids(); n != 3 || ids[0] != 12 {
		t.Fatalf("deleted %d, ids %v", n, ids)
	}
	s.cmd(t, func(w *Series) { n, _ = w.Delete(0, 1000) })
	if n != 10 || len(s.mem.vals) != 0 || s.size != 0 {
		t.Fatalf("deleted %d, left %v", n, s.mem.ids())
	}
}

// TestDeleteRefusedBeyondRetention: a series with rules and a retention
// refuses TS.DEL before newest − retention.
func TestDeleteRefusedBeyondRetention(t *testing.T) {
	s := newSeries(1024)
	s.meta.Retention = 100
	s.add(t, Sample{1000, 1}, PolicyNone)
	rules := []Rule{NewRule([]byte("d"), AggSum, 70, 0)}
	w := OpenSeries([]byte("k"), s.meta, s.size, rules, s.mem)
	if _, err := w.Delete(899, 2000); !errors.Is(err, ErrDelRetention) {
		t.Fatal(err)
	}
	if _, err := w.Delete(901, 2000); !errors.Is(err, ErrDelRetention) {
		t.Fatal("the first bucket (890) starts before the boundary:", err)
	}
	if n, err := w.Delete(980, 2000); err != nil || n != 1 {
		t.Fatal(n, err)
	}
}
