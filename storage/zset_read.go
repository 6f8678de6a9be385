package storage

import (
	"math"

	"github.com/basaltdb/basalt/metadata"
)

// ZReader reads one sorted set as of one snapshot (see ZRead). The GEO
// searches use it: a member's score, then a few score ranges, each read
// with a bounded iterator, all from the same state of the set.
type ZReader struct{ v *view }

// Exists reports whether the sorted set exists.
func (r ZReader) Exists() bool { return r.v != nil }

// Score returns a member's score; found is false when the member or the
// set is absent. member may be modified after the call.
func (r ZReader) Score(member []byte) (score float64, found bool, err error) {
	if r.v == nil {
		return 0, false, nil
	}
	raw, found, err := r.v.db.s.getAt(r.v.snap, CFDefault, r.v.subkey(member))
	if err != nil || !found {
		return 0, false, err
	}
	return decodeScore(raw), true, nil
}

// ScoreRange is the scores min <= s < max.
type ScoreRange struct{ Min, Max float64 }

// Scan calls fn, range after range and in score order within each, for
// the members whose score s is in the range, until fn returns false. One
// iterator reads them all, seeked to each range's start and stopped at
// its end, never reading the rest of the set. fn's member is valid only
// during the call.
func (r ZReader) Scan(ranges []ScoreRange, fn func(member []byte, score float64) bool) error {
	if r.v == nil {
		return nil
	}
	lowest, highest := math.Inf(1), math.Inf(-1)
	for _, sr := range ranges {
		if sr.Min < sr.Max {
			lowest, highest = math.Min(lowest, sr.Min), math.Max(highest, sr.Max)
		}
	}
	if !(lowest < highest) {
		return nil
	}
	// The iterator's bounds are the ranges' own, so that RocksDB stops at
	// their end: a walk copies entries in batches, which would otherwise
	// read up to a batch past it.
	prefix, _ := r.v.prefix()
	scoreKey := func(s float64) []byte {
		if s == 0 {
			s = math.Copysign(0, -1) // -0 sorts before 0 and equals it
		}
		return metadata.AppendScore(prefix[:len(prefix):len(prefix)], s)
	}
	it := r.v.db.newIterator(CFZSetScore, scoreKey(lowest), scoreKey(highest), r.v.snap)
	defer it.close()
	more := true
	for _, sr := range ranges {
		if !(sr.Min < sr.Max) {
			continue
		}
		it.Seek(scoreKey(sr.Min))
		err := it.walkTo(false, 0, scoreKey(sr.Max), func(key, _ []byte) bool {
			sub := key[len(prefix):]
			score := decodeScore(sub)
			if score < sr.Min {
				return true
			}
			more = fn(sub[8:], score)
			return more
		})
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// ZRead calls fn with a reader of the sorted set at key, as of one
// snapshot that is released when fn returns; the reader must not be kept.
// It returns ErrWrongType, without calling fn, when key holds another
// type, and otherwise what fn returns.
func (db DB) ZRead(key []byte, fn func(r ZReader) error) error {
	v, err := db.readView(key, metadata.TypeZSet)
	if err != nil {
		return err
	}
	if v != nil {
		defer v.release()
	}
	return fn(ZReader{v: v})
}
