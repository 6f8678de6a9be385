package json

import (
	"sort"
	"strings"
)

// Elem is one step of a node's location: a member name or an array
// index.
type Elem struct {
	Key     string
	Index   int
	IsIndex bool
}

// Match is a node a path selected and where it is. A match without a
// location is a value the path computed (a length, a function's result):
// commands that change the document skip it.
type Match struct {
	Val *Value
	Loc []Elem
	// computed marks a value that is not a node of the document.
	computed bool
}

// Eval returns the nodes path selects in doc, in jsoncons's order and
// with repeats, as read commands answer them.
func (path *Path) Eval(doc *Value) []Match { return path.evalFrom(doc, doc) }

// Targets returns the nodes path selects in doc for a command that
// changes them: each node once, ordered by location (descending: each
// node before the nodes it contains and later siblings before earlier
// ones, so that removing one keeps the others' locations valid), leaving
// out computed values.
func (path *Path) Targets(doc *Value, descending bool) []Match {
	var out []Match
	seen := map[string]bool{}
	for _, m := range path.Eval(doc) {
		if m.computed {
			continue
		}
		k := locKey(m.Loc)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, m)
	}
	sort.SliceStable(out, func(i, j int) bool {
		c := compareLocs(out[i].Loc, out[j].Loc)
		if descending {
			return c > 0
		}
		return c < 0
	})
	return out
}

func locKey(loc []Elem) string {
	var sb strings.Builder
	for _, e := range loc {
		if e.IsIndex {
			sb.WriteByte('#')
			sb.WriteString(itoa(e.Index))
		} else {
			sb.WriteByte('.')
			sb.WriteString(e.Key)
		}
		sb.WriteByte(0)
	}
	return sb.String()
}

func itoa(n int) string { return string(appendInt(nil, n)) }

func appendInt(dst []byte, n int) []byte {
	if n < 0 {
		dst = append(dst, '-')
		n = -n
	}
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return append(dst, buf[i:]...)
}

// compareLocs orders locations element by element, a location before
// the ones below it.
func compareLocs(a, b []Elem) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		switch {
		case x.IsIndex && y.IsIndex:
			if x.Index != y.Index {
				if x.Index < y.Index {
					return -1
				}
				return 1
			}
		case !x.IsIndex && !y.IsIndex:
			if c := compareStrings(x.Key, y.Key); c != 0 {
				return c
			}
		case x.IsIndex:
			return -1
		default:
			return 1
		}
	}
	return len(a) - len(b)
}

// evalFrom evaluates path with $ at root and, for a relative path, @ at
// start.
func (path *Path) evalFrom(root, start *Value) []Match {
	if path.call != nil {
		return []Match{{Val: path.call.eval(root, start), computed: true}}
	}
	cur := []Match{{Val: start}}
	if !path.relative {
		cur[0].Val = root
	}
	for _, st := range path.steps {
		var next []Match
		for _, m := range cur {
			if st.descent {
				next = st.descend(root, m, next)
			} else {
				next = st.apply(root, m, next)
			}
		}
		cur = next
	}
	return cur
}

// child returns the match for an element of m's node.
func child(m Match, v *Value, e Elem) Match {
	if m.computed {
		return Match{Val: v, computed: true}
	}
	loc := make([]Elem, len(m.Loc)+1)
	copy(loc, m.Loc)
	loc[len(m.Loc)] = e
	return Match{Val: v, Loc: loc}
}

// descend applies st at m's node and then at every node below it, each
// node before its children (jsoncons's recursive descent).
func (st *step) descend(root *Value, m Match, out []Match) []Match {
	if st.kind == stepSelf {
		if m.Val.Kind == KindArray || m.Val.Kind == KindObject {
			out = append(out, m)
		}
	} else {
		out = st.apply(root, m, out)
	}
	switch m.Val.Kind {
	case KindArray:
		for i, e := range m.Val.Elems {
			out = st.descend(root, child(m, e, Elem{Index: i, IsIndex: true}), out)
		}
	case KindObject:
		for _, f := range m.Val.Fields {
			out = st.descend(root, child(m, f.Val, Elem{Key: f.Key}), out)
		}
	}
	return out
}

// apply appends what st selects at m's node.
func (st *step) apply(root *Value, m Match, out []Match) []Match {
	v := m.Val
	switch st.kind {
	case stepName:
		return selectName(m, st.name, out)
	case stepIndex:
		return selectIndex(m, st.index, out)
	case stepWildcard:
		return selectAll(m, out)
	case stepSlice:
		return st.selectSlice(m, out)
	case stepUnion:
		for _, u := range st.union {
			out = u.apply(root, m, out)
		}
		return out
	case stepFilter:
		return st.selectFiltered(root, m, out)
	case stepExpr:
		r := st.expr.eval(root, v)
		switch {
		case r.Kind == KindInt:
			return selectIndex(m, int(r.Int), out)
		case r.Kind == KindString:
			return selectName(m, r.Str, out)
		}
		return out
	case stepPath:
		start := root
		if st.path.relative {
			start = v
		}
		for _, r := range st.path.evalFrom(root, start) {
			out = append(out, Match{Val: r.Val, Loc: r.Loc, computed: r.computed || st.path.relative})
		}
		return out
	}
	return out
}

func selectName(m Match, name string, out []Match) []Match {
	switch m.Val.Kind {
	case KindObject:
		if c := m.Val.Get(name); c != nil {
			out = append(out, child(m, c, Elem{Key: name}))
		}
	case KindArray:
		if name == "length" {
			out = append(out, Match{Val: NewInt(int64(len(m.Val.Elems))), computed: true})
		}
	}
	return out
}

func selectIndex(m Match, i int, out []Match) []Match {
	if m.Val.Kind != KindArray {
		return out
	}
	n := len(m.Val.Elems)
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return out
	}
	return append(out, child(m, m.Val.Elems[i], Elem{Index: i, IsIndex: true}))
}

func selectAll(m Match, out []Match) []Match {
	switch m.Val.Kind {
	case KindArray:
		for i, e := range m.Val.Elems {
			out = append(out, child(m, e, Elem{Index: i, IsIndex: true}))
		}
	case KindObject:
		for _, f := range m.Val.Fields {
			out = append(out, child(m, f.Val, Elem{Key: f.Key}))
		}
	}
	return out
}

// selectSlice selects [start:end:step] as Python slices do.
func (st *step) selectSlice(m Match, out []Match) []Match {
	if m.Val.Kind != KindArray {
		return out
	}
	n := len(m.Val.Elems)
	step := 1
	if st.slice[2] != nil {
		step = *st.slice[2]
	}
	norm := func(p *int, def int) int {
		if p == nil {
			return def
		}
		i := *p
		if i < 0 {
			i += n
		}
		return i
	}
	if step > 0 {
		start := max(norm(st.slice[0], 0), 0)
		end := min(norm(st.slice[1], n), n)
		for i := start; i < end; i += step {
			out = append(out, child(m, m.Val.Elems[i], Elem{Index: i, IsIndex: true}))
		}
		return out
	}
	start := min(norm(st.slice[0], n-1), n-1)
	end := max(norm(st.slice[1], -1), -1)
	if st.slice[1] != nil && *st.slice[1] < 0 && *st.slice[1]+n < -1 {
		end = -1
	}
	for i := start; i > end; i += step {
		out = append(out, child(m, m.Val.Elems[i], Elem{Index: i, IsIndex: true}))
	}
	return out
}

// selectFiltered selects the children of m's node for which the filter
// is true.
func (st *step) selectFiltered(root *Value, m Match, out []Match) []Match {
	for _, c := range selectAll(m, nil) {
		if truthy(st.expr.eval(root, c.Val)) {
			out = append(out, c)
		}
	}
	return out
}
