package tdigest

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// distributions are the property tests' inputs.
var distributions = []struct {
	name string
	draw func(r *rand.Rand) float64
}{
	{"uniform", func(r *rand.Rand) float64 { return r.Float64() * 1000 }},
	{"normal", func(r *rand.Rand) float64 { return 50 + 10*r.NormFloat64() }},
	{"exponential", func(r *rand.Rand) float64 { return r.ExpFloat64() / 2 }},
}

// probes are the quantiles checked, tails included.
var probes = []float64{0, 0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1}

// rankError is how far q is from the fraction of sorted that lies at or
// below x, allowing for ties: 0 when q is anywhere between the fraction
// strictly below x and the fraction at or below it.
func rankError(sorted []float64, x, q float64) float64 {
	n := float64(len(sorted))
	below := float64(sort.SearchFloat64s(sorted, x)) / n
	atOrBelow := float64(sort.Search(len(sorted), func(i int) bool { return sorted[i] > x })) / n
	return max(below-q, q-atOrBelow, 0)
}

// fill adds values to a new key of compression c through ADD, in batches
// of batch (the engine's way: buffer, merge past the capacity), and
// returns the key's store and metadata.
func fill(t *testing.T, c uint32, values []float64, batch int) (*memStore, Meta) {
	t.Helper()
	s, m := newMemStore(), NewMeta(c)
	for len(values) > 0 {
		n := min(batch, len(values))
		ch, err := Add(m, s, values[:n])
		if err != nil {
			t.Fatal(err)
		}
		s.apply(ch)
		m, values = ch.Meta, values[n:]
	}
	return s, m
}

// TestQuantileRankError: on 1M values of each distribution, added 100 at
// a time at compression 100, every probed quantile is within 1% rank
// error of the exact answer, and CDF of the exact quantile within 1% of
// the quantile.
func TestQuantileRankError(t *testing.T) {
	const n = 1_000_000
	for i, dist := range distributions {
		t.Run(dist.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(i), 43))
			values := make([]float64, n)
			for j := range values {
				values[j] = dist.draw(r)
			}
			s, m := fill(t, DefaultCompression, values, 100)
			slices.Sort(values)
			sk, _, err := Load(m, s)
			if err != nil {
				t.Fatal(err)
			}
			checkSketch(t, sk, values)
			if centroids := sk.Meta().MergedNodes; centroids > 2*DefaultCompression {
				t.Errorf("%d centroids at compression 100", centroids)
			}
		})
	}
}

// checkSketch holds sk's quantiles, CDF, ranks and extremes to sorted,
// the exact data.
func checkSketch(t *testing.T, sk *Sketch, sorted []float64) {
	t.Helper()
	const tolerance = 0.01
	n := float64(len(sorted))
	got, err := sk.Quantiles(probes)
	if err != nil {
		t.Fatal(err)
	}
	exact := make([]float64, len(probes))
	for i, q := range probes {
		exact[i] = sorted[min(int(q*n), len(sorted)-1)]
		if e := rankError(sorted, got[i], q); e > tolerance {
			t.Errorf("quantile %v = %v (exact %v): rank error %.4f", q, got[i], exact[i], e)
		}
	}
	cdf, err := sk.CDF(exact)
	if err != nil {
		t.Fatal(err)
	}
	ranks, err := sk.Ranks(exact, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range probes {
		if e := math.Abs(cdf[i] - q); e > tolerance {
			t.Errorf("cdf(%v) = %v, want about %v", exact[i], cdf[i], q)
		}
		if e := math.Abs(float64(ranks[i])/n - q); e > tolerance {
			t.Errorf("rank(%v) = %d, want about %v", exact[i], ranks[i], q*n)
		}
	}
	if sk.Min() != sorted[0] || sk.Max() != sorted[len(sorted)-1] {
		t.Errorf("min, max = %v, %v, want %v, %v", sk.Min(), sk.Max(), sorted[0], sorted[len(sorted)-1])
	}
	if m := sk.Meta(); m.MergedWeight != uint64(len(sorted)) || m.UnmergedNodes != 0 {
		t.Errorf("merged weight %d, unmerged %d", m.MergedWeight, m.UnmergedNodes)
	}
}

// TestMergeRankError: ten digests of 100k values each, of all three
// distributions mixed, merged: still within 1% rank error of the union.
func TestMergeRankError(t *testing.T) {
	const parts, each = 10, 100_000
	r := rand.New(rand.NewPCG(7, 43))
	var all []float64
	var sources []*Sketch
	for p := range parts {
		values := make([]float64, each)
		for j := range values {
			values[j] = distributions[p%len(distributions)].draw(r)
		}
		all = append(all, values...)
		s, m := fill(t, DefaultCompression, values, 1000)
		sk, _, err := Load(m, s)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, sk)
	}
	ch, err := Merge(nil, sources, MergeArgs{})
	if err != nil {
		t.Fatal(err)
	}
	dest := newMemStore()
	dest.apply(ch)
	sk, merge, err := Load(ch.Meta, dest)
	if err != nil || merge != nil {
		t.Fatalf("Load: %v, merge %v", err, merge)
	}
	slices.Sort(all)
	checkSketch(t, sk, all)
	if m := sk.Meta(); m.TotalObservations != parts*each || m.Compression != DefaultCompression {
		t.Errorf("merged meta %+v", m)
	}
}
