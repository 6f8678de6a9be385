package tdigest

import (
	"math"
	"slices"
	"testing"
)

// TestMergeByHand: KVROCKS-TYPES.md §5.3's merge worked by hand on 1..17
// at compression 1 (δ 10, so total·Q(K(w/total)+1) bounds each
// centroid): the limits run 1.62, 4.78, 9.10, ... and the values pack
// into (1,1) (3,3) (7,5) (11.5,4) (15,3) (17,1). Equal values pack the
// same way, and old centroids go before new values only when strictly
// smaller.
func TestMergeByHand(t *testing.T) {
	var values []float64
	for v := 17.0; v >= 1; v-- {
		values = append(values, v)
	}
	d := mergeValues(digest{min: math.MaxFloat64, max: -math.MaxFloat64}, 1, values)
	want := []Centroid{{1, 1}, {3, 3}, {7, 5}, {11.5, 4}, {15, 3}, {17, 1}}
	if !slices.Equal(d.centroids, want) || d.weight != 17 || d.min != 1 || d.max != 17 {
		t.Errorf("1..17: %+v", d)
	}
	fives := mergeValues(digest{min: math.MaxFloat64, max: -math.MaxFloat64}, 1, slices.Repeat([]float64{5}, 17))
	var weights []float64
	for _, c := range fives.centroids {
		weights = append(weights, c.Weight)
	}
	if !slices.Equal(weights, []float64{1, 3, 5, 4, 3, 1}) {
		t.Errorf("17 fives: weights %v", weights)
	}
	// The digest above and one more 17: the old (17,1) is not strictly
	// below 17, so the new value goes first; both close the digest.
	more := mergeValues(d, 1, []float64{17})
	if n := len(more.centroids); n < 2 || more.weight != 18 || more.centroids[n-1].Mean != 17 {
		t.Errorf("one more 17: %+v", more)
	}
	// Compression below 10 is 10; an empty merge changes nothing.
	if got := mergeValues(d, 1, nil); !slices.Equal(got.centroids, d.centroids) {
		t.Errorf("merging nothing changed the digest")
	}
	if a, b := mergeValues(digest{}, 1, slices.Clone(values)), mergeValues(digest{}, 10, slices.Clone(values)); !slices.Equal(a.centroids, b.centroids) {
		t.Errorf("compression 1 and 10 differ: %v %v", a.centroids, b.centroids)
	}
}

// digestOf is the digest of centroids with the given min and max.
func digestOf(min, max float64, cs ...Centroid) *digest {
	d := &digest{centroids: cs, min: min, max: max}
	for _, c := range cs {
		d.weight += c.Weight
	}
	return d
}

// TestQuantileByHand: Kvrocks's quantile (§5.3) at each of its branches.
func TestQuantileByHand(t *testing.T) {
	d := digestOf(1, 17, Centroid{1, 1}, Centroid{3, 3}, Centroid{7, 5}, Centroid{11.5, 4}, Centroid{15, 3}, Centroid{17, 1})
	cases := []struct{ q, want float64 }{
		{0, 1},        // index ≤ 1: min
		{1.0 / 17, 1}, // index 1
		{1, 17},       // index ≥ total − 1: max
		{16.0 / 17, 17},
		{0.5, 9},      // index 8.5: 2 past (7,5)'s middle, towards (11.5,4) over 4.5
		{6.5 / 17, 7}, // index 6.5: (7,5)'s middle
		{2.5 / 17, 3}, // (3,3)'s middle
		{1.5 / 17, 2}, // index 1.5: 1 before (3,3)'s middle, from (1,1) over 2
	}
	for _, c := range cases {
		if got := d.quantile(c.q); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
	// Beyond the outer middles of centroids heavier than 1: towards the
	// extremes.
	wide := digestOf(0, 10, Centroid{2, 4}, Centroid{8, 4})
	for _, c := range []struct{ q, want float64 }{{1.5 / 8, 1.5}, {6.5 / 8, 8.5}} {
		if got := wide.quantile(c.q); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("wide quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
	if got := (&digest{}).quantile(0.5); !math.IsNaN(got) {
		t.Errorf("empty quantile = %v", got)
	}
}

// TestCDFByHand: RedisBloom's cdf at each branch.
func TestCDFByHand(t *testing.T) {
	d := digestOf(0, 10, Centroid{2, 4}, Centroid{5, 1}, Centroid{8, 4})
	cases := []struct{ x, want float64 }{
		{-1, 0}, {11, 1},
		{0, 0.5 / 9},         // at min
		{1, (1 + 0.5*1) / 9}, // left tail: 1 + (x−min)/width·(w/2 − 1)
		{10, 1 - 0.5/9},      // at max
		{9, 1 - (1+0.5*1)/9}, // right tail
		{2, 2.0 / 9},         // at a centroid: half its weight
		{5, 4.5 / 9},         // at the singleton
		{3.5, 3.0 / 9},       // (2,4)'s middle (2) + half of the 2 units between the middles, the singleton's half left out
	}
	for _, c := range cases {
		if got := d.cdf(c.x); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("cdf(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	one := digestOf(3, 3, Centroid{3, 5})
	if got := one.cdf(3); got != 0.5 {
		t.Errorf("one centroid: cdf = %v", got)
	}
	singles := digestOf(1, 4, Centroid{1, 1}, Centroid{2, 1}, Centroid{3, 1}, Centroid{4, 1})
	if got := singles.cdf(2.5); got != 0.5 {
		t.Errorf("between singletons: %v", got)
	}
}

// TestRanksAndTrimmedMean: RANK rounds half down, REVRANK as §8 says,
// BYRANK walks the centroids, TRIMMED_MEAN takes parts of centroids.
func TestRanksAndTrimmedMean(t *testing.T) {
	if roundHalfDown(2.5) != 2 || roundHalfDown(2.51) != 3 || roundHalfDown(-2.5) != -2 || roundHalfDown(-2.6) != -3 {
		t.Error("roundHalfDown")
	}
	d := digestOf(1, 17, Centroid{1, 1}, Centroid{3, 3}, Centroid{7, 5}, Centroid{11.5, 4}, Centroid{15, 3}, Centroid{17, 1})
	var got []float64
	for r := int64(0); r <= 17; r++ {
		got = append(got, d.byRank(r, false))
	}
	want := []float64{1, 3, 3, 3, 7, 7, 7, 7, 7, 11.5, 11.5, 11.5, 11.5, 15, 15, 15, 17, math.Inf(1)}
	if !slices.Equal(got, want) {
		t.Errorf("byRank: %v", got)
	}
	got = got[:0]
	for r := int64(0); r <= 17; r++ {
		got = append(got, d.byRank(r, true))
	}
	slices.Reverse(want[:17])
	want[17] = math.Inf(-1)
	if !slices.Equal(got, want) {
		t.Errorf("byRevRank: %v", got)
	}
	// Cut at 0.25 and 0.75 of 17: from weight 4 (floor) to 13 (ceil),
	// which are (7,5) and (11.5,4) whole.
	if got := d.trimmedMean(0.25, 0.75); math.Abs(got-(7*5+11.5*4)/9) > 1e-12 {
		t.Errorf("trimmed mean = %v", got)
	}
	if got := d.trimmedMean(0, 1); math.Abs(got-9) > 1e-12 {
		t.Errorf("untrimmed mean = %v", got)
	}
}

// TestReadsOnlyWhatItMust: MIN and MAX with an empty buffer read no
// record; ADD with room reads only the buffer (not even that when it
// is empty); INFO reads nothing; a query on a buffered digest reads both
// once.
func TestReadsOnlyWhatItMust(t *testing.T) {
	s := newMemStore()
	m := NewMeta(100)
	ch, err := Add(m, s, []float64{1, 2})
	if err != nil || s.bufferReads != 0 || s.centroidWalks != 0 {
		t.Fatalf("first ADD: %v, %d buffer reads, %d walks", err, s.bufferReads, s.centroidWalks)
	}
	s.apply(ch)
	if ch, err = Add(ch.Meta, s, []float64{3}); err != nil || s.bufferReads != 1 || s.centroidWalks != 0 {
		t.Fatalf("second ADD: %v, %d buffer reads, %d walks", err, s.bufferReads, s.centroidWalks)
	}
	s.apply(ch)
	sk, merge, err := Load(ch.Meta, s)
	if err != nil || merge == nil || s.bufferReads != 2 || s.centroidWalks != 1 {
		t.Fatalf("Load: %v, merge %v, %d buffer reads, %d walks", err, merge, s.bufferReads, s.centroidWalks)
	}
	if qs, err := sk.Quantiles([]float64{0.5}); err != nil || qs[0] != 2 || s.centroidWalks != 1 {
		t.Fatalf("quantile after the merge: %v %v, %d walks", qs, err, s.centroidWalks)
	}
	s.apply(*merge)
	sk, merge, err = Load(merge.Meta, s)
	if err != nil || merge != nil || sk.Min() != 1 || sk.Max() != 3 || s.bufferReads != 2 || s.centroidWalks != 1 {
		t.Fatalf("MIN/MAX: %v, merge %v, %d buffer reads, %d walks", err, merge, s.bufferReads, s.centroidWalks)
	}
	if _, err := sk.CDF([]float64{1}); err != nil || s.centroidWalks != 2 {
		t.Fatalf("CDF: %v, %d walks", err, s.centroidWalks)
	}
}
