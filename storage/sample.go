package storage

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Element is a copied (sub, value) pair of a collection.
type Element struct {
	Sub, Value []byte
}

// exactSampleLimit is the largest collection sampled exactly uniformly by
// walking it; larger ones are sampled by random seeks.
const exactSampleLimit = 1024

// sample draws elements of a view for HRANDFIELD, SRANDMEMBER, SPOP and
// ZRANDMEMBER: with distinct, min(count, size) different elements; without,
// count elements that may repeat. Memory is O(count), never O(size). Small
// collections, and draws of a large share of one, walk the elements once
// and are exactly uniform; a few draws from a large collection cost one
// seek each instead (see seekSample). The result is in random order.
func (v *view) sample(cf CF, count int64, distinct bool) ([]Element, error) {
	size := int64(v.meta.Size)
	if size == 0 || count <= 0 {
		return nil, nil
	}
	if size > exactSampleLimit && count <= size/4 {
		return v.seekSample(cf, count, distinct)
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
	want := 0
	if len(draws) > 0 {
		want = int(min(draws[len(draws)-1]+1, math.MaxInt32))
	}
	err := v.eachAt(cf, nil, want, func(sub, value []byte) bool {
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
	err := v.eachAt(cf, nil, int(min(v.meta.Size, math.MaxInt32)), func(sub, value []byte) bool {
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

// seekSample draws count elements by seeking to random points between the
// first and last subkeys (after their common prefix), stepping over a random
// number (below randomKeyWalk) of elements, wrapping at the end; distinct
// draws step past repeats. Each draw costs one seek and a bounded walk,
// whatever the collection's size. Picks are spread over the key space
// rather than exactly uniform over the elements.
func (v *view) seekSample(cf CF, count int64, distinct bool) ([]Element, error) {
	lower, upper := v.prefix()
	it := v.db.newIterator(cf, lower, upper, v.snap)
	defer it.close()
	v.seekEnd(it, lower, cf, false)
	if !it.Valid() {
		return nil, it.Err()
	}
	first := append([]byte(nil), it.keyData()[len(lower):]...)
	v.seekEnd(it, lower, cf, true)
	last := append([]byte(nil), it.keyData()[len(lower):]...)
	seen := map[string]bool{}
	out := make([]Element, 0, count)
	for int64(len(out)) < count {
		it.Seek(append(lower[:len(lower):len(lower)], randomBetween(first, last)...))
		for steps := rand.IntN(randomKeyWalk); ; steps-- {
			if !it.Valid() {
				if err := it.Err(); err != nil {
					return nil, err
				}
				v.seekEnd(it, lower, cf, false)
			}
			sub := it.keyData()[len(lower):]
			if steps <= 0 && (!distinct || !seen[string(sub)]) {
				seen[string(sub)] = true
				out = append(out, Element{Sub: append([]byte(nil), sub...), Value: append([]byte(nil), it.valueData()...)})
				break
			}
			it.Next()
		}
	}
	return out, nil
}
