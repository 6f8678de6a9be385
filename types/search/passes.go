package search

import "sort"

// simplify rewrites a condition as Kvrocks's expression passes do, in
// their order, so that plans print as Kvrocks prints them: nested ANDs
// and ORs flattened, NOT pushed down to the leaves (De Morgan, negated
// comparisons), constants folded, and the numeric comparisons of a field
// under one AND or OR merged into the intervals they mean and written
// back (moved after the other conditions).
//
// Kvrocks also merges a child AND or OR into its parent's interval when
// only its numeric part is on one field, dropping its other conditions
// (`n > 1 and (n < 3 or t hastag "x")` becomes `n > 1 and n < 3`); Basalt
// merges only children that are wholly numeric on the field, so its
// answers stay right where Kvrocks's plans lose conditions.
func simplify(e Expr) Expr {
	e = flatten(e)
	e = pushDownNot(e)
	e = foldBool(e)
	e = flatten(e)
	e = mergeIntervals(e)
	e = flatten(e)
	return foldBool(e)
}

// flatten lifts the children of an AND under an AND (OR under OR) into
// their parent and replaces a one-child AND or OR by its child.
func flatten(e Expr) Expr {
	switch e := e.(type) {
	case *And:
		var out []Expr
		for _, c := range e.Inners {
			c = flatten(c)
			if a, ok := c.(*And); ok {
				out = append(out, a.Inners...)
			} else {
				out = append(out, c)
			}
		}
		if len(out) == 1 {
			return out[0]
		}
		return &And{out}
	case *Or:
		var out []Expr
		for _, c := range e.Inners {
			c = flatten(c)
			if o, ok := c.(*Or); ok {
				out = append(out, o.Inners...)
			} else {
				out = append(out, c)
			}
		}
		if len(out) == 1 {
			return out[0]
		}
		return &Or{out}
	case *Not:
		return &Not{flatten(e.Inner)}
	}
	return e
}

// pushDownNot moves every NOT to a leaf: not not x is x, De Morgan for
// AND and OR, a negated comparison, a flipped constant (on which Kvrocks
// crashes); NOT stays on tags and vectors.
func pushDownNot(e Expr) Expr {
	switch e := e.(type) {
	case *And:
		return &And{mapExprs(e.Inners, pushDownNot)}
	case *Or:
		return &Or{mapExprs(e.Inners, pushDownNot)}
	case *Not:
		switch in := e.Inner.(type) {
		case *Not:
			return pushDownNot(in.Inner)
		case *And:
			return &Or{mapExprs(in.Inners, negate)}
		case *Or:
			return &And{mapExprs(in.Inners, negate)}
		case *NumericCompare:
			return &NumericCompare{in.Field, in.Op.negate(), in.Value}
		case *BoolLit:
			return &BoolLit{!in.Val}
		}
	}
	return e
}

func negate(e Expr) Expr { return pushDownNot(&Not{e}) }

func mapExprs(es []Expr, f func(Expr) Expr) []Expr {
	out := make([]Expr, len(es))
	for i, e := range es {
		out[i] = f(e)
	}
	return out
}

// foldBool folds constants: false in an AND makes it false, true in an
// OR makes it true, the others drop out.
func foldBool(e Expr) Expr {
	switch e := e.(type) {
	case *And:
		var out []Expr
		for _, c := range e.Inners {
			c = foldBool(c)
			if b, ok := c.(*BoolLit); ok {
				if !b.Val {
					return &BoolLit{false}
				}
				continue
			}
			out = append(out, c)
		}
		return andOf(out)
	case *Or:
		var out []Expr
		for _, c := range e.Inners {
			c = foldBool(c)
			if b, ok := c.(*BoolLit); ok {
				if b.Val {
					return &BoolLit{true}
				}
				continue
			}
			out = append(out, c)
		}
		return orOf(out)
	case *Not:
		in := foldBool(e.Inner)
		if b, ok := in.(*BoolLit); ok {
			return &BoolLit{!b.Val}
		}
		return &Not{in}
	}
	return e
}

// numericOf returns the field and the set of values where e holds, when e
// is a comparison or an AND or OR of comparisons of one field.
func numericOf(e Expr) (string, intervalSet, bool) {
	switch e := e.(type) {
	case *NumericCompare:
		return e.Field, compareSet(e.Op, e.Value), true
	case *And:
		return numericOfAll(e.Inners, intervalSet.intersect)
	case *Or:
		return numericOfAll(e.Inners, intervalSet.union)
	}
	return "", nil, false
}

func numericOfAll(es []Expr, join func(a, b intervalSet) intervalSet) (string, intervalSet, bool) {
	field, set, ok := numericOf(es[0])
	if !ok {
		return "", nil, false
	}
	for _, c := range es[1:] {
		f, s, ok := numericOf(c)
		if !ok || f != field {
			return "", nil, false
		}
		set = join(set, s)
	}
	return field, set, true
}

// mergeIntervals replaces, in every AND and OR, the children that are
// numeric conditions of one field by the expression of their combined
// interval, appended after the other children, field by field in the
// order of the fields' names.
func mergeIntervals(e Expr) Expr {
	var inners []Expr
	var join func(a, b intervalSet) intervalSet
	switch n := e.(type) {
	case *And:
		inners, join = mapExprs(n.Inners, mergeIntervals), intervalSet.intersect
	case *Or:
		inners, join = mapExprs(n.Inners, mergeIntervals), intervalSet.union
	default:
		return e
	}
	sets := map[string]intervalSet{}
	var rest []Expr
	for _, c := range inners {
		field, s, ok := numericOf(c)
		if !ok {
			rest = append(rest, c)
			continue
		}
		if prev, seen := sets[field]; seen {
			s = join(prev, s)
		}
		sets[field] = s
	}
	fields := make([]string, 0, len(sets))
	for f := range sets {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	for _, f := range fields {
		rest = append(rest, sets[f].expr(f))
	}
	if _, ok := e.(*And); ok {
		return &And{rest}
	}
	return &Or{rest}
}
