package commands

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/storage"
)

func init() {
	executor.Register(
		&executor.Command{Name: "sort", Arity: -2, Flags: executor.Write, FirstKey: 1, LastKey: 1, Keys: sortKeys, Handler: cmdSort,
			Events: &executor.KeyEvents{Class: config.NotifyList, Event: "sortstore", Shape: executor.OnStore, Dest: executor.DestLastKey}},
		&executor.Command{Name: "sort_ro", Arity: -2, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdSortRO},
	)
}

// sortKeys are SORT's keys, as Redis's sortGetKeys finds them: the key
// sorted and the last STORE destination, the arguments of LIMIT, BY and
// GET skipped (a GET pattern may be "store"). BY and GET patterns name
// keys too, but only at run time; in cluster mode they are refused.
func sortKeys(args [][]byte) [][]byte {
	var store []byte
	for i := 2; i < len(args); i++ {
		switch opt := strings.ToLower(string(args[i])); {
		case opt == "limit":
			i += 2
		case opt == "get" || opt == "by":
			i++
		case opt == "store" && i+1 < len(args):
			store = args[i+1]
		}
	}
	if store == nil {
		return args[1:2]
	}
	return [][]byte{args[1], store}
}

// sortSpec is a parsed SORT.
type sortSpec struct {
	by            []byte // BY pattern; nil: the elements themselves
	dontSort      bool   // BY a pattern without '*': no sorting at all
	gets          [][]byte
	desc, alpha   bool
	offset, count int64 // LIMIT; count < 0: no limit
	store         []byte
}

// SORT key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC|DESC]
// [ALPHA] [STORE destination]
func cmdSort(c *executor.Ctx) { sortCommand(c, false) }

// SORT_RO key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC|DESC] [ALPHA]
func cmdSortRO(c *executor.Ctx) { sortCommand(c, true) }

func sortCommand(c *executor.Ctx, readOnly bool) {
	s, ok := parseSort(c, readOnly)
	if !ok {
		return
	}
	sc := sortScratches.Get().(*sortScratch)
	defer sc.release()
	elems, t, ranged, err := s.load(c.DB, c.Args[1], sc)
	if !c.OK(err) {
		return
	}
	// A set has no order of its own: sorted when stored, as Redis does
	// so that the result is the same everywhere.
	if s.dontSort && t == metadata.TypeSet && s.store != nil {
		s.dontSort, s.alpha, s.by = false, true, nil
	}
	if !ranged {
		if elems, ok = s.order(c, elems, t, sc); !ok {
			return
		}
	}
	if s.store != nil {
		n, err := c.DB.ListStore(s.store, s.output(c.DB, elems, true))
		if c.OK(err) {
			c.W.Int(n)
		}
		return
	}
	out := s.output(c.DB, elems, false)
	c.W.Array(len(out))
	for _, v := range out {
		if v == nil {
			c.W.Null()
		} else {
			c.W.Bulk(v)
		}
	}
}

// parseSort reads SORT's options as Redis does: later ones override earlier
// ones, and in cluster mode BY with a pattern and GET are refused.
func parseSort(c *executor.Ctx, readOnly bool) (sortSpec, bool) {
	s := sortSpec{count: -1}
	cluster := c.Env.Config.ClusterEnabled.Get()
	args := c.Args
	for i := 2; i < len(args); i++ {
		left := len(args) - i - 1
		switch opt := strings.ToLower(string(args[i])); {
		case opt == "asc":
			s.desc = false
		case opt == "desc":
			s.desc = true
		case opt == "alpha":
			s.alpha = true
		case opt == "limit" && left >= 2:
			var ok bool
			if s.offset, ok = c.Int(i + 1); !ok {
				return s, false
			}
			if s.count, ok = c.Int(i + 2); !ok {
				return s, false
			}
			i += 2
		case opt == "store" && left >= 1 && !readOnly:
			s.store = args[i+1]
			i++
		case opt == "by" && left >= 1:
			s.by = args[i+1]
			s.dontSort = bytes.IndexByte(s.by, '*') < 0
			if !s.dontSort && cluster {
				c.ErrorString("ERR BY option of SORT denied in Cluster mode.")
				return s, false
			}
			i++
		case opt == "get" && left >= 1:
			if cluster {
				c.ErrorString("ERR GET option of SORT denied in Cluster mode.")
				return s, false
			}
			s.gets = append(s.gets, args[i+1])
			i++
		default:
			c.ErrorString(executor.ErrSyntax)
			return s, false
		}
	}
	return s, true
}

// load reads the elements of a list (in order), a set or a sorted set
// (by score); nothing when the key is absent. BY a constant with LIMIT, a
// list or a sorted set is read only within the LIMIT range, in its order
// (reversed by DESC), and ranged is true: nothing is left to sort or cut.
func (s *sortSpec) load(db storage.DB, key []byte, sc *sortScratch) (elems [][]byte, t metadata.Type, ranged bool, err error) {
	t, err = db.Type(key)
	if err != nil {
		return nil, t, false, err
	}
	arena := &sc.arena
	keep := func(e []byte) { arena.add(e) }
	ranged = s.dontSort && s.count >= 0 && (t == metadata.TypeList || t == metadata.TypeZSet)
	start, end := max(s.offset, 0), int64(math.MaxInt64)
	if s.offset <= math.MaxInt64-s.count {
		end = start + s.count - 1
	}
	switch {
	case t == metadata.TypeNone, ranged && end < start: // LIMIT of 0 elements
	case t == metadata.TypeList && ranged && s.desc:
		// Positions from the tail: -(end+1) wraps to MinInt64 at the
		// limit, which the range clamps to the head.
		err = db.LRange(key, -(end + 1), -(start + 1), func(_ int64, e []byte) bool { keep(e); return true })
	case t == metadata.TypeList && ranged:
		err = db.LRange(key, start, end, func(_ int64, e []byte) bool { keep(e); return true })
	case t == metadata.TypeList:
		err = db.LRange(key, 0, -1, func(_ int64, e []byte) bool { keep(e); return true })
	case t == metadata.TypeSet:
		_, err = db.Walk(key, metadata.TypeSet, func(m, _ []byte) { keep(m) })
	case t == metadata.TypeZSet:
		r := storage.ZRange{By: storage.ByRank, Start: 0, Stop: -1}
		if ranged {
			r.Start, r.Stop, r.Rev = start, end, s.desc
		}
		err = db.ZRangeWalk(key, r, func(_ int64, m []byte, _ float64) bool { keep(m); return true })
	default:
		err = storage.ErrWrongType
	}
	elems = arena.elems(sc.elems[:0])
	sc.elems = elems
	if t == metadata.TypeList && ranged && s.desc {
		slices.Reverse(elems)
	}
	return elems, t, ranged, err
}

// elemArena copies elements into one buffer, so that loading n elements
// allocates a few times rather than n.
type elemArena struct {
	buf  []byte
	ends []int
}

func (a *elemArena) add(e []byte) {
	a.buf = append(a.buf, e...)
	a.ends = append(a.ends, len(a.buf))
}

// elems appends to out the elements added, which share the arena's
// buffer.
func (a *elemArena) elems(out [][]byte) [][]byte {
	from := 0
	for _, end := range a.ends {
		out = append(out, a.buf[from:end:end])
		from = end
	}
	return out
}

// sortScratch is a SORT's working memory, reused from one SORT to the
// next: sorting 1,000 elements would otherwise allocate ~100 KB, most of
// it slices the garbage collector scans, and at a few thousand SORTs a
// second the collections cost more than the sort.
type sortScratch struct {
	arena  elemArena
	elems  [][]byte
	items  []sortItem
	places []int
	scored []scoredPlace
	out    [][]byte
}

var sortScratches = sync.Pool{New: func() any { return new(sortScratch) }}

// maxPooledElems bounds the scratch kept for the next SORT: the memory
// of one huge sort is left to the collector.
const maxPooledElems = 1 << 16

// release empties sc and returns it to the pool, the slices' memory kept
// (and the values they point to until overwritten; a scratch holds at
// most maxPooledElems of them).
func (sc *sortScratch) release() {
	if cap(sc.elems) > maxPooledElems || cap(sc.out) > maxPooledElems || cap(sc.arena.buf) > 64*maxPooledElems {
		return
	}
	sc.arena.buf, sc.arena.ends = sc.arena.buf[:0], sc.arena.ends[:0]
	sc.elems, sc.items, sc.places, sc.scored, sc.out = sc.elems[:0], sc.items[:0], sc.places[:0], sc.scored[:0], sc.out[:0]
	sortScratches.Put(sc)
}

// sortItem is an element with what it sorts by.
type sortItem struct {
	elem  []byte
	score float64
	by    []byte // ALPHA BY: the pattern's value; nil when it has none
}

// order sorts elems (or, BY a constant, keeps them in place) and cuts the
// LIMIT range, as Redis does: BY a constant, a list keeps its order and
// a sorted set its score order, each reversed by DESC.
func (s *sortSpec) order(c *executor.Ctx, elems [][]byte, t metadata.Type, sc *sortScratch) ([][]byte, bool) {
	n := int64(len(elems))
	start, end := s.offset, s.count
	if start < 0 {
		start = 0
	}
	if s.count < 0 {
		end = n - 1
	} else if start > math.MaxInt64-s.count {
		end = math.MaxInt64
	} else {
		end = start + s.count - 1
	}
	if start >= n {
		start, end = n-1, n-2
	}
	if end >= n {
		end = n - 1
	}
	if s.dontSort {
		if end < start {
			return nil, true
		}
		// DESC reverses a list or a sorted set; a set has no order.
		if s.desc && (t == metadata.TypeZSet || t == metadata.TypeList) {
			slices.Reverse(elems)
		}
		return elems[start : end+1], true
	}
	items := slices.Grow(sc.items[:0], len(elems))[:len(elems)]
	sc.items = items
	for i, e := range elems {
		items[i] = sortItem{elem: e}
		val, found := e, true
		if s.by != nil {
			val, found = sortLookup(c.DB, s.by, e)
		}
		switch {
		case s.alpha && s.by != nil && found:
			items[i].by = val
		case !s.alpha && found:
			f, ok := sortScore(val)
			if !ok {
				c.ErrorString("ERR One or more scores can't be converted into double")
				return nil, false
			}
			items[i].score = f
		}
	}
	// As in Redis, every score is read before the LIMIT cuts: one that
	// is no number fails the SORT even when the range is empty.
	if end < start {
		return nil, true
	}
	// Sorted as a stable sort would (equal items keep their order), by
	// sorting their places, with their scores beside them when numeric:
	// swapping them moves no pointers.
	out := sc.out[:0]
	if !s.alpha {
		for _, p := range s.firstByScore(items, int(end+1), sc)[start:] {
			out = append(out, items[p.place].elem)
		}
		sc.out = out
		return out, true
	}
	byPlace := slices.Grow(sc.places[:0], len(items))[:len(items)]
	sc.places = byPlace
	for i := range byPlace {
		byPlace[i] = i
	}
	first := firstSorted(byPlace, int(end+1), func(i, j int) int {
		cmp := s.compare(&items[i], &items[j])
		if s.desc {
			cmp = -cmp
		}
		if cmp == 0 {
			return i - j
		}
		return cmp
	})
	for _, i := range first[start:] {
		out = append(out, items[i].elem)
	}
	sc.out = out
	return out, true
}

// scoredPlace is an item's score and place, what a numeric sort compares
// first, side by side.
type scoredPlace struct {
	score float64
	place int
}

// firstByScore is the first k items in numeric order, Redis's sortCompare
// without ALPHA: by score, ties by the elements' bytes; reversed by DESC,
// and what is still equal kept in place order.
func (s *sortSpec) firstByScore(items []sortItem, k int, sc *sortScratch) []scoredPlace {
	keys := slices.Grow(sc.scored[:0], len(items))[:len(items)]
	sc.scored = keys
	for i := range items {
		keys[i] = scoredPlace{items[i].score, i}
	}
	return firstSorted(keys, k, func(a, b scoredPlace) int {
		cmp := 0
		switch {
		case a.score == b.score:
			cmp = bytes.Compare(items[a.place].elem, items[b.place].elem)
		case a.score < b.score:
			cmp = -1
		default:
			cmp = 1
		}
		if s.desc {
			cmp = -cmp
		}
		if cmp == 0 {
			return a.place - b.place
		}
		return cmp
	})
}

// firstSorted returns the first k of places in cmp's order (a total
// order), sorted. When k is small beside them, as with SORT ... LIMIT 0
// 10, it keeps the k first in a bounded max-heap instead of sorting all.
func firstSorted[T any](places []T, k int, cmp func(a, b T) int) []T {
	if k*4 >= len(places) {
		slices.SortFunc(places, cmp)
		return places[:k]
	}
	heap := places[:k] // the k first so far; the last of them on top
	down := func(i int) {
		for {
			top, l, r := i, 2*i+1, 2*i+2
			if l < k && cmp(heap[l], heap[top]) > 0 {
				top = l
			}
			if r < k && cmp(heap[r], heap[top]) > 0 {
				top = r
			}
			if top == i {
				return
			}
			heap[i], heap[top] = heap[top], heap[i]
			i = top
		}
	}
	for i := k/2 - 1; i >= 0; i-- {
		down(i)
	}
	for _, p := range places[k:] {
		if k > 0 && cmp(p, heap[0]) < 0 {
			heap[0] = p
			down(0)
		}
	}
	slices.SortFunc(heap, cmp)
	return heap
}

// compare is Redis's sortCompare with ALPHA, before DESC: by the BY
// values (a missing one first) or the elements. (Without ALPHA, see
// firstByScore.)
func (s *sortSpec) compare(a, b *sortItem) int {
	if s.by == nil {
		return bytes.Compare(a.elem, b.elem)
	}
	switch {
	case a.by == nil && b.by == nil:
		return 0
	case a.by == nil:
		return -1
	case b.by == nil:
		return 1
	}
	return bytes.Compare(a.by, b.by)
}

// sortScore reads a value as SORT does, with strtod: leading blanks
// allowed, the empty string is 0, anything after the number is an error.
func sortScore(v []byte) (float64, bool) {
	if len(v) == 0 {
		return 0, true
	}
	if v[0] <= ' ' {
		v = bytes.TrimLeft(v, " \t\n\v\f\r")
	}
	return num.ParseFloat(v)
}

// output renders the sorted elements: each element, or with GET each
// pattern's value for it (nil when missing, or empty when stored).
func (s *sortSpec) output(db storage.DB, elems [][]byte, store bool) [][]byte {
	if len(s.gets) == 0 {
		return elems
	}
	out := make([][]byte, 0, len(elems)*len(s.gets))
	for _, e := range elems {
		for _, pattern := range s.gets {
			v, found := sortLookup(db, pattern, e)
			switch {
			case found:
				out = append(out, v)
			case store:
				out = append(out, []byte{})
			default:
				out = append(out, nil)
			}
		}
	}
	return out
}

// sortLookup is Redis's lookupKeyByPattern: "#" is the element itself;
// otherwise the first '*' of the pattern is replaced by the element, and
// "key->field" reads a hash field. A pattern without '*', a missing key
// or a key of another type have no value.
func sortLookup(db storage.DB, pattern, elem []byte) ([]byte, bool) {
	if len(pattern) == 1 && pattern[0] == '#' {
		return elem, true
	}
	star := bytes.IndexByte(pattern, '*')
	if star < 0 {
		return nil, false
	}
	keyEnd, field := len(pattern), []byte(nil)
	if arrow := bytes.Index(pattern[star+1:], []byte("->")); arrow >= 0 && star+1+arrow+2 < len(pattern) {
		keyEnd = star + 1 + arrow
		field = pattern[keyEnd+2:]
	}
	key := make([]byte, 0, keyEnd+len(elem))
	key = append(append(append(key, pattern[:star]...), elem...), pattern[star+1:keyEnd]...)
	var v []byte
	var found bool
	var err error
	if field != nil {
		v, found, err = db.HGet(key, field)
	} else {
		v, found, err = db.Get(key)
	}
	if err != nil {
		return nil, false
	}
	if found && v == nil {
		v = []byte{} // an empty value, which nil would read as none
	}
	return v, found
}
