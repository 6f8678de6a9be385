package search

import (
	"math"
	"sort"
)

// interval is the half-open numeric range [lo, hi). Kvrocks writes every
// bound this way: n <= x is [-inf, next(x)), n > x is [next(x), inf).
type interval struct{ lo, hi float64 }

// next is the smallest double above x (nextafter toward +inf).
func next(x float64) float64 { return math.Nextafter(x, math.Inf(1)) }

func (i interval) String() string {
	return "[" + formatNumber(i.lo) + ", " + formatNumber(i.hi) + ")"
}

// intervalSet is a union of disjoint, ordered, non-empty intervals.
type intervalSet []interval

// compareSet is where `field op v` holds.
func compareSet(op CompareOp, v float64) intervalSet {
	inf := math.Inf(1)
	var s intervalSet
	switch op {
	case OpEQ:
		s = intervalSet{{v, next(v)}}
	case OpNE:
		s = intervalSet{{-inf, v}, {next(v), inf}}
	case OpLT:
		s = intervalSet{{-inf, v}}
	case OpLE:
		s = intervalSet{{-inf, next(v)}}
	case OpGT:
		s = intervalSet{{next(v), inf}}
	case OpGE:
		s = intervalSet{{v, inf}}
	}
	return s.normalize()
}

// normalize drops empty intervals and merges overlapping or touching ones.
func (s intervalSet) normalize() intervalSet {
	var in intervalSet
	for _, i := range s {
		if i.lo < i.hi {
			in = append(in, i)
		}
	}
	sort.Slice(in, func(a, b int) bool { return in[a].lo < in[b].lo })
	var out intervalSet
	for _, i := range in {
		if n := len(out); n > 0 && i.lo <= out[n-1].hi {
			out[n-1].hi = math.Max(out[n-1].hi, i.hi)
			continue
		}
		out = append(out, i)
	}
	return out
}

func (s intervalSet) union(t intervalSet) intervalSet {
	return append(append(intervalSet{}, s...), t...).normalize()
}

func (s intervalSet) intersect(t intervalSet) intervalSet {
	var out intervalSet
	for _, a := range s {
		for _, b := range t {
			lo, hi := math.Max(a.lo, b.lo), math.Min(a.hi, b.hi)
			if lo < hi {
				out = append(out, interval{lo, hi})
			}
		}
	}
	return out.normalize()
}

func (s intervalSet) empty() bool { return len(s) == 0 }

func (s intervalSet) full() bool {
	return len(s) == 1 && math.IsInf(s[0].lo, -1) && math.IsInf(s[0].hi, 1)
}

// contains reports whether v lies in the set.
func (s intervalSet) contains(v float64) bool {
	for _, i := range s {
		if v >= i.lo && v < i.hi {
			return true
		}
	}
	return false
}

// exprs writes the set back as comparisons, as Kvrocks's interval
// analysis does: everything but a few points as `field != x` each (ANDed),
// otherwise one comparison or an AND of two per interval (ORed).
func (s intervalSet) expr(field string) Expr {
	switch {
	case s.empty():
		return &BoolLit{false}
	case s.full():
		return &BoolLit{true}
	}
	if ne := s.notEqualPoints(); ne != nil {
		var es []Expr
		for _, v := range ne {
			es = append(es, &NumericCompare{field, OpNE, v})
		}
		return andOf(es)
	}
	var es []Expr
	for _, i := range s {
		switch {
		case math.IsInf(i.lo, -1):
			es = append(es, &NumericCompare{field, OpLT, i.hi})
		case math.IsInf(i.hi, 1):
			es = append(es, &NumericCompare{field, OpGE, i.lo})
		case next(i.lo) == i.hi:
			es = append(es, &NumericCompare{field, OpEQ, i.lo})
		default:
			es = append(es, &And{[]Expr{&NumericCompare{field, OpGE, i.lo}, &NumericCompare{field, OpLT, i.hi}}})
		}
	}
	return orOf(es)
}

// notEqualPoints returns the points the set leaves out when it is the
// whole line but for single points, or nil.
func (s intervalSet) notEqualPoints() []float64 {
	if len(s) < 2 || !math.IsInf(s[0].lo, -1) || !math.IsInf(s[len(s)-1].hi, 1) {
		return nil
	}
	var out []float64
	for k := 1; k < len(s); k++ {
		if s[k].lo != next(s[k-1].hi) {
			return nil
		}
		out = append(out, s[k-1].hi)
	}
	return out
}
