package timeseries

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// buildSeries stores samples (any order, later ones replacing earlier
// ones at the same timestamp) through Series.Add in a series of the
// given chunk size and retention.
func buildSeries(t testing.TB, samples []Sample, chunkSize uint64, retention int64) (*memChunks, *Meta) {
	t.Helper()
	mem := newMemChunks()
	meta := NewMeta()
	meta.ChunkSize, meta.Retention = chunkSize, retention
	size := uint64(0)
	for len(samples) > 0 {
		n := min(len(samples), 1+rand.IntN(20)) // several commands
		s := OpenSeries([]byte("k"), meta, size, nil, mem)
		for _, smp := range samples[:n] {
			if _, err := s.Add(smp, PolicyLast); err != nil && !errors.Is(err, ErrTooOld) {
				t.Fatal(err)
			}
		}
		mem.apply(t, s.Changes(), nil)
		meta, size = s.Meta, s.Size
		if size != uint64(len(mem.vals)) {
			t.Fatalf("size %d, %d chunks stored", size, len(mem.vals))
		}
		samples = samples[n:]
	}
	return mem, &meta
}

// bruteRange is the query's answer computed the slow and obvious way
// over every sample of the series (sorted).
func bruteRange(all []Sample, m *Meta, q *Query) []Sample {
	if len(all) == 0 {
		return nil
	}
	floor := retained(m.Retention, all[len(all)-1].TS)
	from := max(q.From, floor)
	pass := func(s Sample) bool {
		if q.FilterTS != nil && !slices.Contains(q.FilterTS, s.TS) {
			return false
		}
		return !q.FilterValue || (s.V >= q.MinValue && s.V <= q.MaxValue)
	}
	var in []Sample
	var before, after *Sample
	for _, s := range all {
		switch {
		case s.TS < floor:
		case s.TS < from:
			s := s
			before = &s
		case s.TS <= q.To:
			if pass(s) {
				in = append(in, s)
			}
		case after == nil:
			s := s
			after = &s
		}
	}
	if before != nil && !pass(*before) {
		before = nil
	}
	if after != nil && !pass(*after) {
		after = nil
	}
	var out []Sample
	if q.Agg == AggNone {
		out = in
	} else {
		out = bruteBuckets(in, q, before, after)
	}
	if q.Reverse {
		out = slices.Clone(out)
		slices.Reverse(out)
	}
	if q.Count > 0 && uint64(len(out)) > q.Count {
		out = out[:q.Count]
	}
	return out
}

func bruteBuckets(in []Sample, q *Query, before, after *Sample) []Sample {
	type bucket struct {
		start   int64
		samples []Sample
	}
	var buckets []bucket
	for _, s := range in {
		b := max(0, s.TS-floorMod(s.TS-q.Align, q.Bucket))
		if len(buckets) == 0 || buckets[len(buckets)-1].start != b {
			buckets = append(buckets, bucket{start: b})
		}
		buckets[len(buckets)-1].samples = append(buckets[len(buckets)-1].samples, s)
	}
	end := func(start int64) int64 {
		if start == 0 {
			return q.Bucket - floorMod(-q.Align, q.Bucket)
		}
		return start + q.Bucket
	}
	var out []Sample
	for i, b := range buckets {
		if i > 0 && q.Empty {
			prev := buckets[i-1]
			older := prev.samples[len(prev.samples)-1]
			for g := end(prev.start); g < b.start; g += q.Bucket {
				v := math.NaN()
				switch q.Agg {
				case AggSum, AggCount:
					v = 0
				case AggLast:
					v = older.V
				case AggTWA:
					newer := b.samples[0]
					at := func(ts int64) float64 {
						return older.V + (newer.V-older.V)*float64(ts-older.TS)/float64(newer.TS-older.TS)
					}
					v = (at(g) + at(g+q.Bucket)) / 2
				}
				out = append(out, Sample{TS: q.reportedTS(g), V: v})
			}
		}
		prev, next := before, after
		if i > 0 {
			p := buckets[i-1].samples
			prev = &p[len(p)-1]
		}
		if i+1 < len(buckets) {
			next = &buckets[i+1].samples[0]
		}
		out = append(out, Sample{TS: q.reportedTS(b.start), V: bruteValue(q.Agg, b.samples, b.start, end(b.start), prev, next)})
	}
	return out
}

func floorMod(a, d int64) int64 {
	m := a % d
	if m < 0 {
		m += d
	}
	return m
}

func bruteValue(agg Aggregator, s []Sample, start, end int64, prev, next *Sample) float64 {
	n := float64(len(s))
	sum, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
	for _, x := range s {
		sum += x.V
		lo, hi = math.Min(lo, x.V), math.Max(hi, x.V)
	}
	mean := sum / n
	ss := 0.0
	for _, x := range s {
		ss += (x.V - mean) * (x.V - mean)
	}
	switch agg {
	case AggSum:
		return sum
	case AggCount:
		return n
	case AggMin:
		return lo
	case AggMax:
		return hi
	case AggRange:
		return hi - lo
	case AggAvg:
		return mean
	case AggFirst:
		return s[0].V
	case AggLast:
		return s[len(s)-1].V
	case AggVarP, AggVarS, AggStdP, AggStdS:
		if len(s) < 2 {
			return 0
		}
		v := ss / n
		if agg == AggVarS || agg == AggStdS {
			v = ss / (n - 1)
		}
		if agg == AggStdP || agg == AggStdS {
			return math.Sqrt(v)
		}
		return v
	}
	// TWA: integrate the piecewise-linear line over the covered span.
	pts := slices.Clone(s)
	lo2, hi2 := s[0].TS, s[len(s)-1].TS
	if prev != nil {
		lerp := prev.V + (s[0].V-prev.V)*float64(start-prev.TS)/float64(s[0].TS-prev.TS)
		pts = append([]Sample{{start, lerp}}, pts...)
		lo2 = start
	}
	if next != nil {
		last := s[len(s)-1]
		lerp := last.V + (next.V-last.V)*float64(end-last.TS)/float64(next.TS-last.TS)
		pts = append(pts, Sample{end, lerp})
		hi2 = end
	}
	if lo2 == hi2 {
		return s[0].V
	}
	area := 0.0
	for i := 1; i < len(pts); i++ {
		area += (pts[i].V + pts[i-1].V) / 2 * float64(pts[i].TS-pts[i-1].TS)
	}
	return area / float64(hi2-lo2)
}

func sameValue(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func randomQuery(r *rand.Rand, all []Sample) Query {
	q := Query{From: 0, To: math.MaxInt64, Reverse: r.IntN(2) == 0}
	if r.IntN(3) > 0 {
		q.From = r.Int64N(2200)
	}
	if r.IntN(3) > 0 {
		q.To = r.Int64N(2200)
	}
	if r.IntN(4) == 0 {
		q.Count = uint64(1 + r.IntN(10))
	}
	if r.IntN(5) == 0 {
		q.FilterValue, q.MinValue, q.MaxValue = true, float64(r.IntN(50)-25), float64(r.IntN(50))
	}
	if r.IntN(6) == 0 && len(all) > 0 {
		for range 1 + r.IntN(20) {
			q.FilterTS = append(q.FilterTS, all[r.IntN(len(all))].TS)
		}
		slices.Sort(q.FilterTS)
		q.FilterTS = slices.Compact(q.FilterTS)
	}
	if r.IntN(5) > 0 {
		aggs := []Aggregator{AggSum, AggMin, AggMax, AggCount, AggFirst, AggLast, AggAvg, AggRange, AggStdP, AggStdS, AggVarP, AggVarS, AggTWA}
		q.Agg = aggs[r.IntN(len(aggs))]
		q.Bucket = 1 + r.Int64N(300)
		if r.IntN(4) == 0 {
			q.Bucket = 1 + r.Int64N(5)
		}
		switch r.IntN(4) {
		case 0:
			q.Align = r.Int64N(3000)
		case 1:
			q.Align = q.From
		}
		q.BucketTS = BucketTimestamp(r.IntN(3))
		q.Empty = r.IntN(2) == 0
	}
	return q
}

func randomSamples(r *rand.Rand, n int, span int64) []Sample {
	out := make([]Sample, n)
	for i := range out {
		out[i] = Sample{TS: r.Int64N(span), V: float64(r.IntN(100) - 30)}
		if r.IntN(4) == 0 {
			out[i].V += r.Float64()
		}
	}
	return out
}

// TestRangeMatchesBruteForce runs random queries (every aggregator,
// alignments, bucket timestamps, EMPTY, filters, COUNT, both directions)
// over random series stored in small chunks, and compares them with the
// obvious computation over all samples.
func TestRangeMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		samples := randomSamples(r, r.IntN(200), 2000)
		retention := int64(0)
		if round%4 == 0 {
			retention = 1 + r.Int64N(1500)
		}
		mem, meta := buildSeries(t, samples, uint64(1+r.IntN(8)), retention)
		all := mem.all(t)
		for range 30 {
			q := randomQuery(r, all)
			var got []Sample
			if err := q.Run(Source{Chunks: mem, Meta: meta}, func(s Sample) bool {
				got = append(got, s)
				return true
			}); err != nil {
				t.Fatal(err)
			}
			want := bruteRange(all, meta, &q)
			if !sameSamples(got, want) {
				t.Fatalf("round %d query %+v over %v:\n got %v\nwant %v", round, q, all, got, want)
			}
		}
	}
}

func sameSamples(a, b []Sample) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].TS != b[i].TS || !sameValue(a[i].V, b[i].V) {
			return false
		}
	}
	return true
}
