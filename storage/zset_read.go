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

// Scan calls fn, in score order, for the members whose score s is
// min <= s < max, until fn returns false. It seeks to min and stops at
// max, never reading the rest of the set. fn's member is valid only
// during the call.
func (r ZReader) Scan(min, max float64, fn func(member []byte, score float64) bool) error {
	if r.v == nil || !(min < max) {
		return nil
	}
	// The iterator's bounds are the range's own, so that RocksDB stops at
	// its end: a walk copies entries in batches, which would otherwise
	// read up to a batch past it. (-0 sorts before 0 and equals it.)
	prefix, _ := r.v.prefix()
	from := min
	if from == 0 {
		from = math.Copysign(0, -1)
	}
	lower := metadata.AppendScore(prefix[:len(prefix):len(prefix)], from)
	upper := metadata.AppendScore(prefix[:len(prefix):len(prefix)], max)
	it := r.v.db.newIterator(CFZSetScore, lower, upper, r.v.snap)
	defer it.close()
	it.Seek(lower)
	return it.walk(false, 0, func(key, _ []byte) bool {
		sub := key[len(prefix):]
		score := decodeScore(sub)
		if score < min {
			return true
		}
		return score < max && fn(sub[8:], score)
	})
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
