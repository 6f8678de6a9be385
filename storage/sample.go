package storage

import (
	"fmt"
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

// SampleChunk is the most elements a draw hands over at a time: a draw of
// any count (SRANDMEMBER s -1099511627776) is produced chunk by chunk, in
// memory bounded by the chunk, and by the collection's size for distinct
// draws, never by the count asked for.
const SampleChunk = 1024

// errFewerElements reports a collection that held fewer elements than its
// metadata counts, found after a walk announced its total.
var errFewerElements = fmt.Errorf("%w: a collection holds fewer elements than its metadata counts", ErrCorrupt)

// sample draws elements of a view for HRANDFIELD, SRANDMEMBER, SPOP and
// ZRANDMEMBER: with distinct, min(count, size) different elements; without,
// count elements that may repeat. It hands them to fn in chunks (see
// sampleOut) until fn returns false. Small collections, and distinct draws
// of a large share of one, walk the elements and are exactly uniform; a few
// draws from a large collection cost one seek each instead (see
// seekSample). Each chunk is in random order; a distinct draw of more than
// one chunk hands its chunks over in key order. A distinct draw of the
// whole collection is not shuffled: as in Redis and Kvrocks, it hands the
// elements over in the collection's order.
func (v *view) sample(cf CF, count int64, distinct bool, fn func(total int64, chunk []Element) bool) error {
	size := int64(v.meta.Size)
	if size == 0 || count <= 0 {
		return nil
	}
	whole := distinct && count >= size
	if distinct {
		count = min(count, size)
	}
	out := &sampleOut{total: count, fn: fn, inOrder: whole}
	var err error
	switch {
	case !distinct:
		err = v.drawRepeats(cf, size, out)
	case size > exactSampleLimit && count <= size/4:
		err = v.seekSample(cf, count, true, out)
	default:
		err = v.selectSample(cf, size, out)
	}
	return out.finish(err)
}

// sampleList is sample collecting every element drawn; distinct draws
// only (SPOP), whose number is bounded by the collection's size.
func (v *view) sampleList(cf CF, count int64) ([]Element, error) {
	var out []Element
	err := v.sample(cf, count, true, func(_ int64, chunk []Element) bool {
		out = append(out, chunk...)
		return true
	})
	return out, err
}

// sampleOut hands drawn elements over in chunks of SampleChunk, each
// shuffled, announcing with each the total all chunks hold. When every
// draw fits in one chunk the total announced is the number handed over,
// so a collection that holds fewer elements than its metadata counts still
// gets a consistent reply; beyond one chunk that is errFewerElements.
type sampleOut struct {
	total   int64 // elements promised
	handed  int64 // elements handed over so far
	chunk   []Element
	fn      func(total int64, chunk []Element) bool
	stopped bool // fn returned false
	inOrder bool // the chunks are not shuffled
}

// done reports whether the producer may stop: fn wants no more, or every
// promised element is drawn.
func (o *sampleOut) done() bool {
	return o.stopped || o.handed+int64(len(o.chunk)) >= o.total
}

// add takes one drawn element; e may be added several times (an element
// drawn again).
func (o *sampleOut) add(e Element) {
	if o.done() {
		return
	}
	o.chunk = append(o.chunk, e)
	// A full chunk goes out now unless it may be the only one, whose total
	// finish announces exactly.
	if len(o.chunk) == SampleChunk && o.handed+SampleChunk < o.total {
		o.flush(o.total)
	}
}

func (o *sampleOut) flush(total int64) {
	if !o.inOrder {
		rand.Shuffle(len(o.chunk), func(i, j int) { o.chunk[i], o.chunk[j] = o.chunk[j], o.chunk[i] })
	}
	o.handed += int64(len(o.chunk))
	o.stopped = !o.fn(total, o.chunk)
	o.chunk = nil // fn may keep the chunk
}

// finish hands over the last chunk after the producer returned err.
func (o *sampleOut) finish(err error) error {
	if err != nil || o.stopped {
		return err
	}
	total := o.total
	if o.handed == 0 {
		total = int64(len(o.chunk))
	}
	if len(o.chunk) > 0 {
		o.flush(total)
	}
	if !o.stopped && o.handed < total {
		return errFewerElements
	}
	return nil
}

// copyElement copies an element out of an iterator.
func copyElement(sub, value []byte) Element {
	return Element{Sub: append([]byte(nil), sub...), Value: append([]byte(nil), value...)}
}

// drawRepeats draws out.total elements that may repeat, one chunk at a
// time; each chunk is drawn uniformly and independently.
func (v *view) drawRepeats(cf CF, size int64, out *sampleOut) error {
	for left := out.total; left > 0 && !out.done(); {
		k := min(left, SampleChunk)
		left -= k
		var err error
		if size > exactSampleLimit && k <= size/4 {
			err = v.seekSample(cf, k, false, out)
		} else {
			err = v.drawPositions(cf, size, k, out)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// drawPositions draws k uniform positions of [0, size), repeats allowed,
// and adds their elements walking the collection once. An element drawn
// several times is copied once.
func (v *view) drawPositions(cf CF, size, k int64, out *sampleOut) error {
	draws := make([]int64, k)
	for i := range draws {
		draws[i] = rand.Int64N(size)
	}
	slices.Sort(draws)
	next := 0
	var pos int64
	return v.eachAt(cf, nil, int(draws[k-1]+1), func(sub, value []byte) bool {
		if draws[next] == pos {
			e := copyElement(sub, value)
			for next < len(draws) && draws[next] == pos {
				out.add(e)
				next++
			}
		}
		pos++
		return next < len(draws) && !out.done()
	})
}

// selectSample adds out.total distinct elements, each subset equally
// likely, in one walk (Knuth's selection sampling: the element is taken
// with probability needed/remaining). Memory is one chunk.
func (v *view) selectSample(cf CF, size int64, out *sampleOut) error {
	need, left := out.total, size
	return v.eachAt(cf, nil, 0, func(sub, value []byte) bool {
		if left <= 0 {
			return false // more elements than the metadata counts
		}
		if rand.Int64N(left) < need {
			out.add(copyElement(sub, value))
			need--
		}
		left--
		return need > 0 && !out.done()
	})
}

// seekSample adds count elements found by seeking to random points between
// the first and last subkeys (after their common prefix), stepping over a
// random number (below randomKeyWalk) of elements, wrapping at the end;
// distinct draws step past repeats. Each draw costs one seek and a bounded
// walk, whatever the collection's size. Picks are spread over the key
// space rather than exactly uniform over the elements. Distinct draws
// remember what they took: their count is at most a quarter of the
// collection.
func (v *view) seekSample(cf CF, count int64, distinct bool, out *sampleOut) error {
	lower, upper := v.prefix()
	it := v.db.newIterator(cf, lower, upper, v.snap)
	defer it.close()
	v.seekEnd(it, lower, cf, false)
	if !it.Valid() {
		return it.Err()
	}
	first := append([]byte(nil), it.keyData()[len(lower):]...)
	v.seekEnd(it, lower, cf, true)
	last := append([]byte(nil), it.keyData()[len(lower):]...)
	seen := map[string]bool{}
	for picked := int64(0); picked < count && !out.done(); picked++ {
		it.Seek(append(lower[:len(lower):len(lower)], randomBetween(first, last)...))
		for steps, walked := rand.IntN(randomKeyWalk), 0; ; steps-- {
			if !it.Valid() {
				if err := it.Err(); err != nil {
					return err
				}
				v.seekEnd(it, lower, cf, false)
				if !it.Valid() {
					return it.Err()
				}
			}
			sub := it.keyData()[len(lower):]
			if steps <= 0 && (!distinct || !seen[string(sub)]) {
				if distinct {
					seen[string(sub)] = true
				}
				out.add(copyElement(sub, it.valueData()))
				break
			}
			// Past every element taken and the random steps without
			// finding a new one: the walk went round a collection that
			// holds fewer elements than its metadata counts.
			if walked++; walked > len(seen)+randomKeyWalk+1 {
				return nil
			}
			it.Next()
		}
	}
	return nil
}
