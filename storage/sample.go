package storage

import (
	"math/rand/v2"
	"slices"
)

// Element is a copied (sub, value) pair of a collection.
type Element struct {
	Sub, Value []byte
}

// sample draws elements of a view for HRANDFIELD, SRANDMEMBER, SPOP and
// ZRANDMEMBER: with distinct, min(count, size) different elements; without,
// count elements that may repeat. It walks the elements once and keeps only
// the drawn ones, so memory is O(count), not O(size). The result is in
// random order.
func (v *view) sample(cf CF, count int64, distinct bool) ([]Element, error) {
	size := int64(v.meta.Size)
	if size == 0 || count <= 0 {
		return nil, nil
	}
	var draws []int64 // positions, ascending, repeated when drawn twice
	if distinct {
		if count >= size {
			return v.all(cf)
		}
		draws = floydSample(size, count)
	} else {
		draws = make([]int64, count)
		for i := range draws {
			draws[i] = rand.Int64N(size)
		}
		slices.Sort(draws)
	}
	out := make([]Element, 0, len(draws))
	var pos int64
	next := 0
	err := v.eachAt(cf, nil, func(sub, value []byte) bool {
		for next < len(draws) && draws[next] == pos {
			out = append(out, Element{Sub: append([]byte(nil), sub...), Value: append([]byte(nil), value...)})
			next++
		}
		pos++
		return next < len(draws)
	})
	rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out, err
}

// all copies every element of the view, in random order.
func (v *view) all(cf CF) ([]Element, error) {
	out := make([]Element, 0, v.meta.Size)
	err := v.eachAt(cf, nil, func(sub, value []byte) bool {
		out = append(out, Element{Sub: append([]byte(nil), sub...), Value: append([]byte(nil), value...)})
		return true
	})
	rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out, err
}

// floydSample returns k distinct positions of [0, n) in ascending order
// (Robert Floyd's algorithm: O(k) time and memory).
func floydSample(n, k int64) []int64 {
	chosen := make(map[int64]bool, k)
	for j := n - k; j < n; j++ {
		t := rand.Int64N(j + 1)
		if chosen[t] {
			t = j
		}
		chosen[t] = true
	}
	out := make([]int64, 0, k)
	for p := range chosen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}
