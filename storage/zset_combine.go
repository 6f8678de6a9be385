package storage

import (
	"bytes"
	"errors"
	"math"
	"sort"

	"github.com/basaltdb/basalt/metadata"
	"github.com/linxGnu/grocksdb"
)

// Aggregate combines the scores of a member found in several sources.
type Aggregate int

// ZUNION/ZINTER's AGGREGATE options.
const (
	AggSum Aggregate = iota
	AggMin
	AggMax
)

func (a Aggregate) apply(cur, v float64) float64 {
	// Plain comparisons, as Redis: MAX(-0, 0) keeps the first, unlike math.Max.
	switch a {
	case AggMin:
		if v < cur {
			return v
		}
		return cur
	case AggMax:
		if v > cur {
			return v
		}
		return cur
	}
	sum := cur + v
	if math.IsNaN(sum) { // inf + -inf: Redis keeps 0
		return 0
	}
	return sum
}

// weighted multiplies a score by a weight, 0 when that is NaN (inf * 0).
func weighted(score, weight float64) float64 {
	s := score * weight
	if math.IsNaN(s) {
		return 0
	}
	return s
}

// zsource is one input of ZUNION/ZINTER/ZDIFF: a sorted set, or a set whose
// members all score 1.
type zsource struct {
	c      *collection // nil: absent key
	isSet  bool
	weight float64
}

func (z *zsource) size() uint64 {
	if z.c == nil {
		return 0
	}
	return z.c.meta.Size
}

// each walks the source's members with their unweighted scores.
func (z *zsource) each(snap *grocksdb.Snapshot, fn func(member []byte, score float64) bool) error {
	if z.c == nil {
		return nil
	}
	return z.c.each(CFDefault, snap, nil, 0, func(sub, value []byte) bool {
		s := 1.0
		if !z.isSet {
			s = decodeScore(value)
		}
		return fn(sub, s)
	})
}

// scores looks members up in the source: their unweighted scores, and
// whether each is present.
func (z *zsource) scores(snap *grocksdb.Snapshot, members [][]byte) ([]float64, []bool, error) {
	out, found := make([]float64, len(members)), make([]bool, len(members))
	if z.c == nil {
		return out, found, nil
	}
	keys := make([][]byte, len(members))
	for i, m := range members {
		keys[i] = z.c.subkey(m)
	}
	values, err := z.c.db.s.multiGetAt(snap, CFDefault, keys)
	for i, v := range values {
		if v != nil {
			found[i] = true
			out[i] = 1
			if !z.isSet {
				out[i] = decodeScore(v)
			}
		}
	}
	return out, found, err
}

// ZCheckSources fails with ErrWrongType unless every key holds a sorted
// set or a set, or is absent.
func (db DB) ZCheckSources(keys [][]byte) error {
	for _, k := range keys {
		t, err := db.Type(k)
		if err != nil {
			return err
		}
		if t != metadata.TypeNone && t != metadata.TypeZSet && t != metadata.TypeSet {
			return ErrWrongType
		}
	}
	return nil
}

// ZCombine computes the union, intersection or difference of the sorted
// sets (or sets) at keys, weighted and aggregated as ZUNION/ZINTER do, and
// returns it ordered by score then member. weights may be nil (all 1).
func (db DB) ZCombine(op SetOp, keys [][]byte, weights []float64, agg Aggregate, limit int64) ([]ScoredMember, error) {
	snap := db.snapshot()
	defer db.s.db.ReleaseSnapshot(snap)
	srcs := make([]*zsource, len(keys))
	for i, k := range keys {
		w := 1.0
		if weights != nil {
			w = weights[i]
		}
		src := &zsource{weight: w}
		c, err := db.readAt(snap, k, metadata.TypeZSet)
		if errors.Is(err, ErrWrongType) {
			c, err = db.readAt(snap, k, metadata.TypeSet)
			src.isSet = true
		}
		if err != nil {
			return nil, err
		}
		src.c = c
		srcs[i] = src
	}
	if op != SetDiff {
		// Redis visits the inputs from the smallest; keeping its order keeps
		// floating point sums identical.
		sort.SliceStable(srcs, func(i, j int) bool { return srcs[i].size() < srcs[j].size() })
	}
	var out []ScoredMember
	var err error
	switch op {
	case SetUnion:
		out, err = zunion(snap, srcs, agg)
	case SetInter:
		out, err = zinter(snap, srcs, agg, limit)
	default:
		out, err = zdiff(snap, srcs)
	}
	sortScored(out)
	return out, err
}

func sortScored(ms []ScoredMember) {
	sort.Slice(ms, func(i, j int) bool {
		if ms[i].Score != ms[j].Score {
			return ms[i].Score < ms[j].Score
		}
		return bytes.Compare(ms[i].Member, ms[j].Member) < 0
	})
}

func zunion(snap *grocksdb.Snapshot, srcs []*zsource, agg Aggregate) ([]ScoredMember, error) {
	index := map[string]int{}
	var out []ScoredMember
	for _, src := range srcs {
		err := src.each(snap, func(m []byte, s float64) bool {
			v := weighted(s, src.weight)
			if i, ok := index[string(m)]; ok {
				out[i].Score = agg.apply(out[i].Score, v)
			} else {
				index[string(m)] = len(out)
				out = append(out, ScoredMember{Member: append([]byte(nil), m...), Score: v})
			}
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// walkWeighted yields copies of a source's members with weighted scores.
func walkWeighted(snap *grocksdb.Snapshot, src *zsource) func(yield func(ScoredMember) bool) error {
	return func(yield func(ScoredMember) bool) error {
		return src.each(snap, func(m []byte, s float64) bool {
			return yield(ScoredMember{Member: append([]byte(nil), m...), Score: weighted(s, src.weight)})
		})
	}
}

func memberList(ms []ScoredMember) [][]byte {
	out := make([][]byte, len(ms))
	for i, m := range ms {
		out[i] = m.Member
	}
	return out
}

// zinter walks the smallest input and looks each chunk of its members up
// in the others; limit (ZINTERCARD) stops early when positive.
func zinter(snap *grocksdb.Snapshot, srcs []*zsource, agg Aggregate, limit int64) ([]ScoredMember, error) {
	for _, s := range srcs {
		if s.c == nil {
			return nil, nil
		}
	}
	var out []ScoredMember
	full := func() bool { return limit > 0 && int64(len(out)) >= limit }
	err := inChunks(walkWeighted(snap, srcs[0]), func(chunk []ScoredMember) error {
		alive := make([]bool, len(chunk))
		for i := range alive {
			alive[i] = true
		}
		for _, src := range srcs[1:] {
			scores, found, err := src.scores(snap, memberList(chunk))
			if err != nil {
				return err
			}
			for i := range chunk {
				if !found[i] {
					alive[i] = false
				} else {
					chunk[i].Score = agg.apply(chunk[i].Score, weighted(scores[i], src.weight))
				}
			}
		}
		for i, m := range chunk {
			if alive[i] && !full() {
				out = append(out, m)
			}
		}
		return nil
	}, full)
	return out, err
}

// zdiff keeps the members of the first input found in no other; ZDIFF
// takes no weights, so the first input's weight is 1.
func zdiff(snap *grocksdb.Snapshot, srcs []*zsource) ([]ScoredMember, error) {
	if srcs[0].c == nil {
		return nil, nil
	}
	var out []ScoredMember
	err := inChunks(walkWeighted(snap, srcs[0]), func(chunk []ScoredMember) error {
		gone := make([]bool, len(chunk))
		for _, src := range srcs[1:] {
			_, found, err := src.scores(snap, memberList(chunk))
			if err != nil {
				return err
			}
			for i := range chunk {
				gone[i] = gone[i] || found[i]
			}
		}
		for i, m := range chunk {
			if !gone[i] {
				out = append(out, m)
			}
		}
		return nil
	}, func() bool { return false })
	return out, err
}
