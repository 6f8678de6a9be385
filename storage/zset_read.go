package storage

import "github.com/basaltdb/basalt/metadata"

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
	if r.v == nil {
		return nil
	}
	rng := ZRange{By: ByScore, Min: ScoreBound{Value: min}, Max: ScoreBound{Value: max, Exclusive: true}, Count: -1}
	return r.v.walkRange(r.v.snap, rng, fn)
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
