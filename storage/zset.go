package storage

import (
	"bytes"
	"math"

	"github.com/basaltdb/basalt/metadata"
	"github.com/linxGnu/grocksdb"
)

// Sorted sets keep two records per member (FORMAT.md §4.5): in default,
// subkey = member, value = dbl(score); in zset_score, subkey = dbl(score) |
// member, empty value. Score order is the zset_score order; lex order is
// the default order.

// ScoredMember is a copied member with its score.
type ScoredMember struct {
	Member []byte
	Score  float64
}

// scoreSub returns the zset_score subkey of a member.
func scoreSub(score float64, member []byte) []byte {
	return append(metadata.AppendScore(make([]byte, 0, 8+len(member)), score), member...)
}

// decodeScore reads a score as stored. (A -0 that Kvrocks stored stays -0:
// removing a member needs the score its records were written with.)
func decodeScore(v []byte) float64 {
	s, _ := metadata.DecodeScore(v)
	return s
}

// plusZero turns -0 into 0: Redis keeps, prints and orders a score of -0
// as 0, so Basalt writes it so (Kvrocks writes -0, which sorts before
// every 0).
func plusZero(f float64) float64 {
	if f == 0 {
		return 0
	}
	return f
}

// ZAddFlags are ZADD's options.
type ZAddFlags struct {
	NX, XX, GT, LT, Incr bool
}

// ZAddResult reports what ZAdd did.
type ZAddResult struct {
	Added, Changed int64
	Score          float64 // the new score, with Incr
	Applied        bool    // with Incr: whether the member was updated
}

// ZAdd adds or updates members with their scores, pair by pair as Redis
// does (a member given twice ends with its last score).
func (db DB) ZAdd(key []byte, f ZAddFlags, scores []float64, members [][]byte) (ZAddResult, error) {
	var res ZAddResult
	c, err := db.forWrite(key, metadata.TypeZSet)
	if err != nil {
		return res, err
	}
	uniq := unique(members)
	current := make(map[string]float64, len(uniq))
	if c.exists {
		old, err := c.getElements(uniq)
		if err != nil {
			return res, err
		}
		for i, v := range old {
			if v != nil {
				current[string(uniq[i])] = decodeScore(v)
			}
		}
	}
	b := db.newBatch(typeLogs[metadata.TypeZSet])
	for i, m := range members {
		cur, exists := current[string(m)]
		if (f.NX && exists) || (f.XX && !exists) {
			continue
		}
		score := scores[i]
		if f.Incr && exists {
			score += cur
			if math.IsNaN(score) {
				return res, ErrScoreNaN
			}
		}
		if exists && ((f.GT && !(score > cur)) || (f.LT && !(score < cur))) {
			continue
		}
		// The reply of ZADD INCR shows -0 as Redis does; the score is
		// stored as 0.
		res.Score, res.Applied = score, true
		score = plusZero(score)
		if exists && score == cur {
			continue
		}
		if exists {
			b.del(CFZSetScore, c.scoreKey(cur, m))
			res.Changed++
		} else {
			res.Added++
		}
		b.put(CFDefault, c.subkey(m), metadata.AppendScore(nil, score))
		db.s.hints.widen(c, CFDefault, m)
		key := c.scoreKey(score, m)
		b.put(CFZSetScore, key, nil)
		db.s.hints.widen(c, CFZSetScore, key[len(key)-8-len(m):])
		current[string(m)] = score
	}
	if len(b.ops) == 0 {
		return res, nil
	}
	c.meta.Size += uint64(res.Added)
	c.saveMeta(b)
	return res, b.commit()
}

// removeMembers deletes both records of each member into b.
func (c *collection) removeMembers(b *batch, ms []ScoredMember) {
	for _, m := range ms {
		b.del(CFDefault, c.subkey(m.Member))
		b.del(CFZSetScore, c.scoreKey(m.Score, m.Member))
	}
	c.meta.Size -= uint64(len(ms))
}

// ZRem removes members and returns how many existed.
func (db DB) ZRem(key []byte, members [][]byte) (int64, error) {
	c, err := db.forWrite(key, metadata.TypeZSet)
	if err != nil || !c.exists {
		return 0, err
	}
	uniq := unique(members)
	old, err := c.getElements(uniq)
	if err != nil {
		return 0, err
	}
	var gone []ScoredMember
	for i, v := range old {
		if v != nil {
			gone = append(gone, ScoredMember{Member: uniq[i], Score: decodeScore(v)})
		}
	}
	if len(gone) == 0 {
		return 0, nil
	}
	b := db.newBatch(typeLogs[metadata.TypeZSet])
	c.removeMembers(b, gone)
	c.saveMeta(b)
	return int64(len(gone)), b.commit()
}

// ZMScore returns the scores of members; found[i] is false for absent ones.
func (db DB) ZMScore(key []byte, members [][]byte) (scores []float64, found []bool, err error) {
	scores, found = make([]float64, len(members)), make([]bool, len(members))
	c, err := db.forRead(key, metadata.TypeZSet)
	if err != nil || c == nil {
		return scores, found, err
	}
	values, err := c.getElements(members)
	for i, v := range values {
		if v != nil {
			scores[i], found[i] = decodeScore(v), true
		}
	}
	return scores, found, err
}

// ScoreBound is one end of a score range.
type ScoreBound struct {
	Value     float64
	Exclusive bool
}

// LexBound is one end of a lex range: -1 is "-", +1 is "+".
type LexBound struct {
	Value     []byte
	Exclusive bool
	Inf       int
}

// ZRangeBy says how a ZRange selects members.
type ZRangeBy int

// Range kinds.
const (
	ByRank ZRangeBy = iota
	ByScore
	ByLex
)

// ZRange describes a range query: by rank (Start, Stop: Redis indexes), by
// score (Min, Max) or by lex (LexMin, LexMax), optionally reversed, with an
// Offset and a Count (negative: no limit) for score and lex ranges.
type ZRange struct {
	By            ZRangeBy
	Rev           bool
	Start, Stop   int64
	Min, Max      ScoreBound
	LexMin        LexBound
	LexMax        LexBound
	Offset, Count int64
}

// above reports whether score is past the far end of the range.
func (r *ZRange) pastScore(score float64) bool {
	if r.Rev {
		return score < r.Min.Value || (r.Min.Exclusive && score == r.Min.Value)
	}
	return score > r.Max.Value || (r.Max.Exclusive && score == r.Max.Value)
}

// beforeScore reports whether score is not yet inside the range.
func (r *ZRange) beforeScore(score float64) bool {
	if r.Rev {
		return score > r.Max.Value || (r.Max.Exclusive && score == r.Max.Value)
	}
	return score < r.Min.Value || (r.Min.Exclusive && score == r.Min.Value)
}

func lexBelow(m []byte, b LexBound) bool { // m is below the range's min
	switch b.Inf {
	case -1:
		return false
	case 1:
		return true
	}
	c := bytes.Compare(m, b.Value)
	return c < 0 || (c == 0 && b.Exclusive)
}

func lexAbove(m []byte, b LexBound) bool { // m is above the range's max
	switch b.Inf {
	case -1:
		return true
	case 1:
		return false
	}
	c := bytes.Compare(m, b.Value)
	return c > 0 || (c == 0 && b.Exclusive)
}

// walkWant is what a range walk expects to take: the entries it skips and
// returns, or 0 when its count is unlimited.
func walkWant(skip, left int64) int {
	if left < 0 || skip < 0 || left > math.MaxInt32-skip {
		return 0 // unlimited, or too many to matter (and skip+left may overflow)
	}
	return int(skip + left)
}

// walkRange calls fn for the members of r in order (reversed with Rev)
// until fn returns false. Arguments point into the iterator.
func (c *collection) walkRange(snap *grocksdb.Snapshot, r ZRange, fn func(member []byte, score float64) bool) error {
	if r.By == ByLex {
		return c.walkLex(snap, r, fn)
	}
	lower, upper := c.prefix()
	it := c.db.newIterator(CFZSetScore, lower, upper, snap)
	defer it.close()
	skip, left := r.Offset, r.Count
	switch {
	case r.By == ByRank:
		from, to, ok := listRange(int64(c.meta.Size), r.Start, r.Stop)
		if !ok {
			return nil
		}
		skip, left = from, to-from+1
		c.seekEnd(it, lower, CFZSetScore, r.Rev)
	case r.Rev:
		if math.IsInf(r.Max.Value, 1) {
			c.seekEnd(it, lower, CFZSetScore, true)
		} else {
			it.SeekForPrev(metadata.PrefixEnd(metadata.AppendScore(lower[:len(lower):len(lower)], r.Max.Value)))
		}
	case math.IsInf(r.Min.Value, -1):
		c.seekEnd(it, lower, CFZSetScore, false)
	default:
		from := r.Min.Value
		if from == 0 {
			from = math.Copysign(0, -1) // -0 sorts before +0 and equals it
		}
		it.Seek(metadata.AppendScore(lower[:len(lower):len(lower)], from))
	}
	if left == 0 {
		return nil
	}
	return it.walk(r.Rev, walkWant(skip, left), func(key, _ []byte) bool {
		sub := key[len(lower):]
		score := decodeScore(sub)
		if r.By == ByScore {
			if r.beforeScore(score) {
				return true
			}
			if r.pastScore(score) {
				return false
			}
		}
		if skip > 0 {
			skip--
			return true
		}
		if !fn(sub[8:], score) {
			return false
		}
		left--
		return left != 0
	})
}

// walkLex walks members in lex order through the default column family.
func (c *collection) walkLex(snap *grocksdb.Snapshot, r ZRange, fn func(member []byte, score float64) bool) error {
	return c.walkSubkeysByLex(snap, r, func(m, value []byte) bool { return fn(m, decodeScore(value)) })
}

// walkSubkeysByLex walks the subkeys of the default column family (zset
// members, hash fields) in range r by lex, with their values.
func (c *collection) walkSubkeysByLex(snap *grocksdb.Snapshot, r ZRange, fn func(sub, value []byte) bool) error {
	lower, upper := c.prefix()
	it := c.db.newIterator(CFDefault, lower, upper, snap)
	defer it.close()
	if r.Rev {
		if r.LexMax.Inf == 0 {
			it.SeekForPrev(append(lower[:len(lower):len(lower)], r.LexMax.Value...))
		} else {
			c.seekEnd(it, lower, CFDefault, true)
		}
	} else if r.LexMin.Inf == 0 {
		it.Seek(append(lower[:len(lower):len(lower)], r.LexMin.Value...))
	} else {
		c.seekEnd(it, lower, CFDefault, false)
	}
	skip, left := r.Offset, r.Count
	if left == 0 {
		return nil
	}
	return it.walk(r.Rev, walkWant(skip, left), func(key, value []byte) bool {
		m := key[len(lower):]
		if (r.Rev && lexAbove(m, r.LexMax)) || (!r.Rev && lexBelow(m, r.LexMin)) {
			return true
		}
		if (r.Rev && lexBelow(m, r.LexMin)) || (!r.Rev && lexAbove(m, r.LexMax)) {
			return false
		}
		if skip > 0 {
			skip--
			return true
		}
		if !fn(m, value) {
			return false
		}
		left--
		return left != 0
	})
}

// ZRangeWalk calls fn for the members of range r of a sorted set as of one
// snapshot, until fn returns false. total, the same in every call, is how
// many members a range by rank holds, known before the first, so that a
// reply can announce its length and stream; it is -1 for ranges by score
// and lex. fn's member is valid only during the call. An error returned
// after fn was called with a total means the range ended short of it.
func (db DB) ZRangeWalk(key []byte, r ZRange, fn func(total int64, member []byte, score float64) bool) error {
	v, err := db.readView(key, metadata.TypeZSet)
	if err != nil || v == nil {
		return err
	}
	defer v.release()
	total := int64(-1)
	if r.By == ByRank {
		from, to, ok := listRange(int64(v.meta.Size), r.Start, r.Stop)
		if !ok {
			return nil
		}
		total = to - from + 1
	}
	handed, stopped := int64(0), false
	err = v.walkRange(v.snap, r, func(m []byte, s float64) bool {
		handed++
		stopped = !fn(total, m, s)
		return !stopped
	})
	if err == nil && !stopped && handed > 0 && handed < total {
		err = errFewerElements
	}
	return err
}

// collect copies the members of range r.
func (c *collection) collect(snap *grocksdb.Snapshot, r ZRange) ([]ScoredMember, error) {
	var out []ScoredMember
	err := c.walkRange(snap, r, func(m []byte, s float64) bool {
		out = append(out, ScoredMember{Member: append([]byte(nil), m...), Score: s})
		return true
	})
	return out, err
}

// ZRemRange removes the members of range r and returns how many.
func (db DB) ZRemRange(key []byte, r ZRange) (int64, error) {
	c, err := db.forWrite(key, metadata.TypeZSet)
	if err != nil || !c.exists {
		return 0, err
	}
	gone, err := c.collect(nil, r)
	if err != nil || len(gone) == 0 {
		return 0, err
	}
	b := db.newBatch(typeLogs[metadata.TypeZSet])
	c.removeMembers(b, gone)
	c.saveMeta(b)
	return int64(len(gone)), b.commit()
}

// ZPop removes and returns up to count members with the lowest (or, with
// max, the highest) scores; nil when the key is absent.
func (db DB) ZPop(key []byte, max bool, count int64) ([]ScoredMember, error) {
	c, err := db.forWrite(key, metadata.TypeZSet)
	if err != nil || !c.exists || count <= 0 {
		return nil, err
	}
	popped, err := c.collect(nil, ZRange{By: ByRank, Rev: max, Start: 0, Stop: count - 1})
	if err != nil || len(popped) == 0 {
		return popped, err
	}
	b := db.newBatch(typeLogs[metadata.TypeZSet])
	c.removeMembers(b, popped)
	c.saveMeta(b)
	return popped, b.commit()
}

// ZCount counts the members of a score or lex range.
func (db DB) ZCount(key []byte, r ZRange) (int64, error) {
	var n int64
	err := db.ZRangeWalk(key, r, func(int64, []byte, float64) bool {
		n++
		return true
	})
	return n, err
}

// ZRank returns a member's rank (from the highest score with rev) and its
// score; found is false when the key or member is absent. It counts the
// members before it in score order.
func (db DB) ZRank(key, member []byte, rev bool) (rank int64, score float64, found bool, err error) {
	v, err := db.readView(key, metadata.TypeZSet)
	if err != nil || v == nil {
		return 0, 0, false, err
	}
	defer v.release()
	raw, found, err := db.s.getAt(v.snap, CFDefault, v.subkey(member))
	if err != nil || !found {
		return 0, 0, false, err
	}
	score = decodeScore(raw)
	target := scoreSub(score, member)
	err = v.walkRange(v.snap, ZRange{By: ByRank, Rev: rev, Start: 0, Stop: -1}, func(m []byte, s float64) bool {
		if bytes.Equal(scoreSub(s, m), target) {
			return false
		}
		rank++
		return true
	})
	return rank, score, true, err
}

// ZRangeStore stores range r of src into dst (a new version; an empty
// result deletes dst) and returns its size.
func (db DB) ZRangeStore(dst, src []byte, r ZRange) (int64, error) {
	v, err := db.readView(src, metadata.TypeZSet)
	if err != nil {
		return 0, err
	}
	var ms []ScoredMember
	if v != nil {
		ms, err = v.collect(v.snap, r)
		v.release()
		if err != nil {
			return 0, err
		}
	}
	return db.ZStore(dst, ms)
}

// ZStore replaces dst by a sorted set of ms (members unique): a new
// version without TTL, or no key at all when ms is empty. It returns the
// size.
func (db DB) ZStore(dst []byte, ms []ScoredMember) (int64, error) {
	out := &collection{db: db, nsKey: db.nsKey(dst), key: dst}
	out.meta = metadata.New(metadata.TypeZSet, db.s.versions.Next(nowTime()))
	b := db.newBatch(typeLogs[metadata.TypeZSet])
	for _, m := range ms {
		score := plusZero(m.Score)
		b.put(CFDefault, out.subkey(m.Member), metadata.AppendScore(nil, score))
		b.put(CFZSetScore, out.scoreKey(score, m.Member), nil)
	}
	out.meta.Size = uint64(len(ms))
	if len(ms) == 0 {
		// Nothing onto nothing writes nothing, so that, as in Redis, a
		// WATCH of dst is not touched.
		if _, found, err := db.lookup(out.nsKey); err != nil || !found {
			return 0, err
		}
		b.del(CFMetadata, out.nsKey)
	} else {
		b.put(CFMetadata, out.nsKey, out.meta.AppendTo(nil))
	}
	return int64(len(ms)), b.commit()
}
