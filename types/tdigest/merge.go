package tdigest

import (
	"cmp"
	"math"
	"slices"
)

// The merging t-digest as Kvrocks implements it (KVROCKS-TYPES.md §5.3),
// itself a port of Apache Arrow's: centroids and new values are walked in
// ascending mean order and packed greedily into centroids whose
// cumulative weight may grow by one unit of the scale function
//
//	K(q) = δ/(2π) · asin(2q − 1),  Q(k) = (sin(2πk/δ) + 1) / 2,
//
// with δ = max(compression, 10): a centroid starting at cumulative
// weight w may hold up to total·Q(K(w/total) + 1), so centroids are small
// near both tails and large in the middle.

// minDelta is the smallest δ Kvrocks's (and Arrow's) digest uses.
const minDelta = 10

// merger packs a weight-ordered stream of centroids into a digest.
type merger struct {
	normal float64 // δ/(2π)
	total  float64 // the weight of everything that will be added
	sofar  float64 // weight added so far
	limit  float64 // cumulative weight the last centroid may grow to
	out    []Centroid
}

func newMerger(compression uint32, total float64, out []Centroid) *merger {
	delta := float64(max(compression, minDelta))
	return &merger{normal: delta / (2 * math.Pi), total: total, limit: -1, out: out[:0]}
}

func (m *merger) k(q float64) float64 { return m.normal * math.Asin(2*q-1) }
func (m *merger) q(k float64) float64 { return (math.Sin(k/m.normal) + 1) / 2 }

// add takes the next centroid in ascending mean order: it joins the last
// centroid while the cumulative weight stays within the limit, else it
// starts a new one and moves the limit one unit of K on (to the total
// once that would not raise it). Weights from corrupt records (negative,
// NaN) may give odd centroids but never index out of range.
func (m *merger) add(c Centroid) {
	sofar := m.sofar + c.Weight
	if len(m.out) > 0 && sofar <= m.limit {
		last := &m.out[len(m.out)-1]
		last.Weight += c.Weight
		last.Mean += (c.Mean - last.Mean) * c.Weight / last.Weight
	} else {
		next := m.total * m.q(m.k(m.sofar/m.total)+1)
		if next <= m.limit {
			m.limit = m.total
		} else {
			m.limit = next
		}
		m.out = append(m.out, c)
	}
	m.sofar = sofar
}

// digest is a t-digest in memory: its centroids in ascending mean order,
// their total weight, and the extremes of the values merged.
type digest struct {
	centroids []Centroid
	weight    float64
	min, max  float64
}

// mergeValues merges values (buffered and new, which it sorts) into d as
// Kvrocks merges a buffer: the old centroids and the values are walked
// together, a centroid first only when its mean is strictly smaller.
func mergeValues(d digest, compression uint32, values []float64) digest {
	if len(values) == 0 {
		return d
	}
	slices.Sort(values)
	out := digest{weight: d.weight + float64(len(values)), min: d.min, max: d.max}
	if values[0] < out.min {
		out.min = values[0]
	}
	if values[len(values)-1] > out.max {
		out.max = values[len(values)-1]
	}
	m := newMerger(compression, out.weight, make([]Centroid, 0, len(d.centroids)+min(len(values), 2*int(max(compression, minDelta)))))
	cs := d.centroids
	for len(cs) > 0 && len(values) > 0 {
		if cs[0].Mean < values[0] {
			m.add(cs[0])
			cs = cs[1:]
		} else {
			m.add(Centroid{Mean: values[0], Weight: 1})
			values = values[1:]
		}
	}
	for _, c := range cs {
		m.add(c)
	}
	for _, v := range values {
		m.add(Centroid{Mean: v, Weight: 1})
	}
	out.centroids = m.out
	return out
}

// mergeDigests merges whole digests into one of the given compression
// (TDIGEST.MERGE): all their centroids in ascending mean order, equal
// means in the order of ds, packed afresh.
func mergeDigests(ds []digest, compression uint32) digest {
	out := digest{min: math.MaxFloat64, max: -math.MaxFloat64}
	var all []Centroid
	for _, d := range ds {
		out.weight += d.weight
		if d.min < out.min {
			out.min = d.min
		}
		if d.max > out.max {
			out.max = d.max
		}
		all = append(all, d.centroids...)
	}
	slices.SortStableFunc(all, func(a, b Centroid) int { return cmp.Compare(a.Mean, b.Mean) })
	m := newMerger(compression, out.weight, make([]Centroid, 0, min(len(all), 2*int(max(compression, minDelta)))))
	for _, c := range all {
		m.add(c)
	}
	out.centroids = m.out
	return out
}
