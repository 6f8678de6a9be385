package commands

import (
	"bytes"
	"math"
	"slices"
	"strings"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/storage"
)

func init() {
	register(
		&Command{Name: "sort", Arity: -2, Flags: Write, FirstKey: 1, LastKey: 1, Keys: sortKeys, Handler: cmdSort},
		&Command{Name: "sort_ro", Arity: -2, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdSortRO},
	)
}

// sortKeys are SORT's keys: the key sorted and the STORE destination.
// BY and GET patterns name keys too, but only at run time; in cluster mode
// they are refused.
func sortKeys(args [][]byte) [][]byte {
	keys := args[1:2]
	for i := 2; i+1 < len(args); i++ {
		if strings.EqualFold(string(args[i]), "store") {
			keys = append(keys[:len(keys):len(keys)], args[i+1])
			i++
		}
	}
	return keys
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
func cmdSort(c *Ctx) { sortCommand(c, false) }

// SORT_RO key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC|DESC] [ALPHA]
func cmdSortRO(c *Ctx) { sortCommand(c, true) }

func sortCommand(c *Ctx, readOnly bool) {
	s, ok := parseSort(c, readOnly)
	if !ok {
		return
	}
	elems, t, err := sortElements(c.DB, c.Args[1])
	if !c.ok(err) {
		return
	}
	// A set has no order of its own: sorted when stored, as Redis does
	// so that the result is the same everywhere.
	if s.dontSort && t == metadata.TypeSet && s.store != nil {
		s.dontSort, s.alpha, s.by = false, true, nil
	}
	elems, ok = s.order(c, elems, t)
	if !ok {
		return
	}
	if s.store != nil {
		n, err := c.DB.ListStore(s.store, s.output(c.DB, elems, true))
		if c.ok(err) {
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
func parseSort(c *Ctx, readOnly bool) (sortSpec, bool) {
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
			c.ErrorString(errSyntax)
			return s, false
		}
	}
	return s, true
}

// sortElements reads the elements of a list (in order), a set or a sorted
// set (by score); nothing when the key is absent.
func sortElements(db storage.DB, key []byte) ([][]byte, metadata.Type, error) {
	t, err := db.Type(key)
	if err != nil {
		return nil, t, err
	}
	var elems [][]byte
	keep := func(e []byte) { elems = append(elems, bytes.Clone(e)) }
	switch t {
	case metadata.TypeNone:
	case metadata.TypeList:
		err = db.LRange(key, 0, -1, func(_ int64, e []byte) bool { keep(e); return true })
	case metadata.TypeSet:
		_, err = db.Walk(key, metadata.TypeSet, func(m, _ []byte) { keep(m) })
	case metadata.TypeZSet:
		all := storage.ZRange{By: storage.ByRank, Start: 0, Stop: -1}
		err = db.ZRangeWalk(key, all, func(_ int64, m []byte, _ float64) bool { keep(m); return true })
	default:
		err = storage.ErrWrongType
	}
	return elems, t, err
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
func (s *sortSpec) order(c *Ctx, elems [][]byte, t metadata.Type) ([][]byte, bool) {
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
	if end < start {
		return nil, true
	}
	if s.dontSort {
		// DESC reverses a list or a sorted set; a set has no order.
		if s.desc && (t == metadata.TypeZSet || t == metadata.TypeList) {
			slices.Reverse(elems)
		}
		return elems[start : end+1], true
	}
	items := make([]sortItem, len(elems))
	for i, e := range elems {
		items[i].elem = e
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
	slices.SortStableFunc(items, func(a, b sortItem) int {
		cmp := s.compare(a, b)
		if s.desc {
			return -cmp
		}
		return cmp
	})
	out := make([][]byte, 0, end-start+1)
	for _, it := range items[start : end+1] {
		out = append(out, it.elem)
	}
	return out, true
}

// compare is Redis's sortCompare, before DESC: by score, ties by the
// elements' bytes; ALPHA by the BY values (a missing one first) or the
// elements.
func (s *sortSpec) compare(a, b sortItem) int {
	switch {
	case !s.alpha:
		if a.score != b.score {
			if a.score < b.score {
				return -1
			}
			return 1
		}
		return bytes.Compare(a.elem, b.elem)
	case s.by != nil:
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
	return bytes.Compare(a.elem, b.elem)
}

// sortScore reads a value as SORT does, with strtod: leading blanks
// allowed, the empty string is 0, anything after the number is an error.
func sortScore(v []byte) (float64, bool) {
	if len(v) == 0 {
		return 0, true
	}
	return num.ParseFloat(bytes.TrimLeft(v, " \t\n\v\f\r"))
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
	return v, found
}
