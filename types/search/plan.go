package search

import (
	"math"
	"strconv"
	"strings"
)

// Op is an operator of a query plan: a scan of the index's records, or an
// operator over other operators' documents. Dump prints it as Kvrocks's
// FT.EXPLAIN does.
type Op interface {
	Dump() string
}

// The scans, which phase 2's engine runs over the search column family
// (see Index).
type (
	// Noop produces nothing (a condition that is always false).
	Noop struct{}
	// FullScan produces every document of the index, in key order.
	FullScan struct{ Index string }
	// NumericScan produces the documents whose Field is in Range, by
	// value (descending when Desc), then by key.
	NumericScan struct {
		Field string
		Range interval
		Desc  bool
	}
	// TagScan produces the documents whose Field has Tag, by key.
	TagScan struct {
		Field string
		Tag   string
	}
	// KNNScan produces the K documents whose Field is nearest to
	// Vector, nearest first.
	KNNScan struct {
		Field  string
		Vector []float64
		K      uint64
	}
	// RangeScan produces the documents whose Field lies within Range of
	// Vector, nearest first.
	RangeScan struct {
		Field  string
		Vector []float64
		Range  float64
	}
)

// The operators over other operators.
type (
	// Filter passes on the documents of Source for which Cond holds.
	Filter struct {
		Source Op
		Cond   Expr
	}
	// Merge produces the documents of each source in turn; the planner
	// filters the later ones so that no document comes twice.
	Merge struct{ Sources []Op }
	// LimitOp skips Offset documents and passes on at most Count.
	LimitOp struct {
		Source Op
		Limit  Limit
	}
	// Sort orders all documents of Source by a numeric field.
	Sort struct {
		Source Op
		By     SortBy
	}
	// TopNSort is Sort then LimitOp, keeping only Offset+Count at a time.
	TopNSort struct {
		Source Op
		By     SortBy
		Limit  Limit
	}
)

// Plan is a query's plan: its operators and what to return.
type Plan struct {
	Root  Op
	Query *Query
}

// Dump prints the plan as FT.EXPLAIN and FT.EXPLAINSQL ... SIMPLE do.
func (p *Plan) Dump() string { return "project " + p.Query.dumpSelect() + ": " + p.Root.Dump() }

// Dump prints noop.
func (Noop) Dump() string { return "noop" }

// Dump prints full-scan index.
func (o *FullScan) Dump() string { return "full-scan " + o.Index }

// Dump prints numeric-scan field, [lo, hi), asc|desc.
func (o *NumericScan) Dump() string {
	return "numeric-scan " + o.Field + ", " + o.Range.String() + ", " + orderText(o.Desc)
}

// Dump prints tag-scan field, tag, the tag as it is.
func (o *TagScan) Dump() string { return "tag-scan " + o.Field + ", " + o.Tag }

// Dump prints hnsw-vector-knn-scan field, [vector], k.
func (o *KNNScan) Dump() string {
	return "hnsw-vector-knn-scan " + o.Field + ", " + dumpVector(o.Vector) + ", " + strconv.FormatUint(o.K, 10)
}

// Dump prints hnsw-vector-range-scan field, [vector], range, the range
// as Kvrocks keeps it: truncated to an unsigned 32-bit integer.
func (o *RangeScan) Dump() string {
	return "hnsw-vector-range-scan " + o.Field + ", " + dumpVector(o.Vector) + ", " + strconv.FormatUint(uint64(kvrocksRange(o.Range)), 10)
}

// kvrocksRange is the range Kvrocks's plan holds: the integer part, as an
// unsigned 32-bit number. Basalt searches with the exact range.
func kvrocksRange(r float64) uint32 {
	if math.IsNaN(r) || math.IsInf(r, 0) || math.Abs(r) >= 1<<63 {
		return 0
	}
	return uint32(int64(r))
}

// Dump prints (filter cond: source).
func (o *Filter) Dump() string { return "(filter " + o.Cond.Dump() + ": " + o.Source.Dump() + ")" }

// Dump prints (merge a, b, ...).
func (o *Merge) Dump() string {
	parts := make([]string, len(o.Sources))
	for i, s := range o.Sources {
		parts[i] = s.Dump()
	}
	return "(merge " + strings.Join(parts, ", ") + ")"
}

// Dump prints (limit offset, count: source).
func (o *LimitOp) Dump() string { return "(limit " + o.Limit.dump() + ": " + o.Source.Dump() + ")" }

// Dump prints (sort field, order: source).
func (o *Sort) Dump() string { return "(sort " + o.By.Dump() + ": " + o.Source.Dump() + ")" }

// Dump prints (top-n sort field, order, offset, count: source).
func (o *TopNSort) Dump() string {
	return "(top-n sort " + o.By.Dump() + ", " + o.Limit.dump() + ": " + o.Source.Dump() + ")"
}

func (l Limit) dump() string {
	return strconv.FormatUint(l.Offset, 10) + ", " + strconv.FormatUint(l.Count, 10)
}

// Optimize simplifies a checked query and plans it as Kvrocks 5fccd57
// does: the condition's passes, then the choice of index scans by
// Kvrocks's cost model (a full scan 100, a numeric range 10 plus 20 per
// open side and 5 for one value, a tag 10, a vector scan 5, a filter its
// source plus 1, a merge the sum of its sources), a sort on an indexed
// numeric field replaced by a scan in its order, and a sort under a limit
// fused into a top-n sort.
func Optimize(q *Query, s *Schema) *Plan {
	where := simplify(q.Where)
	var root Op
	switch {
	case isBool(where, false):
		root = Noop{}
	case isBool(where, true):
		root = &FullScan{s.Name}
	default:
		root = nil
	}
	sel := &selector{schema: s}
	sortDone := false
	if q.SortBy != nil && !hasKNN(where) && !isBool(where, false) {
		if f := s.Field(q.SortBy.Field); f != nil && !f.NoIndex {
			scan := &NumericScan{Field: q.SortBy.Field, Range: interval{math.Inf(-1), math.Inf(1)}, Desc: q.SortBy.Desc}
			root, sortDone = scan, true
			if !isBool(where, true) {
				root = &Filter{scan, where}
			}
		}
	}
	if root == nil {
		root = sel.plan(where)
	}
	if q.SortBy != nil && !sortDone && !isBool(where, false) {
		if q.Limit != nil {
			return &Plan{Root: &TopNSort{root, *q.SortBy, *q.Limit}, Query: q}
		}
		root = &Sort{root, *q.SortBy}
	}
	if q.Limit != nil {
		root = &LimitOp{root, *q.Limit}
	}
	return &Plan{Root: root, Query: q}
}

func isBool(e Expr, v bool) bool {
	b, ok := e.(*BoolLit)
	return ok && b.Val == v
}

func hasKNN(e Expr) bool {
	switch e := e.(type) {
	case *VectorKNN:
		return true
	case *And:
		for _, c := range e.Inners {
			if hasKNN(c) {
				return true
			}
		}
	}
	return false
}

// selector chooses the scans of a condition.
type selector struct{ schema *Schema }

func (sel *selector) full(e Expr) Op { return &Filter{&FullScan{sel.schema.Name}, e} }

func (sel *selector) indexed(field string) bool {
	f := sel.schema.Field(field)
	return f != nil && !f.NoIndex
}

// plan is the cheapest plan of the documents for which e holds.
func (sel *selector) plan(e Expr) Op {
	switch e := e.(type) {
	case *And:
		return sel.planAnd(e)
	case *Or:
		return sel.planOr(e)
	case *TagContain:
		if sel.indexed(e.Field) {
			return &TagScan{e.Field, e.Tag}
		}
	case *NumericCompare:
		if sel.indexed(e.Field) && e.Op != OpNE {
			return &NumericScan{Field: e.Field, Range: compareSet(e.Op, e.Value).single()}
		}
	case *VectorRange:
		if sel.indexed(e.Field) {
			return &RangeScan{e.Field, e.Vector, e.Range}
		}
	case *VectorKNN:
		return &KNNScan{e.Field, e.Vector, e.K}
	}
	return sel.full(e)
}

// single is the one interval of a one-sided comparison's set, or an
// empty one.
func (s intervalSet) single() interval {
	if len(s) == 0 {
		return interval{0, 0}
	}
	return s[0]
}

// numericGroup returns the children of an AND or OR that are numeric
// conditions, when they are of one indexed field and at least two, and
// that field.
func (sel *selector) numericGroup(inners []Expr) (string, map[int]bool) {
	field, members := "", map[int]bool{}
	for i, c := range inners {
		f, _, ok := numericOf(c)
		if !ok {
			continue
		}
		if field != "" && f != field {
			return "", nil
		}
		field, members[i] = f, true
	}
	if len(members) < 2 || !sel.indexed(field) {
		return "", nil
	}
	return field, members
}

func (sel *selector) planAnd(e *And) Op {
	candidates := []Op{sel.full(e)}
	for i, c := range e.Inners {
		candidates = append(candidates, filtered(sel.plan(c), others(e.Inners, map[int]bool{i: true})))
	}
	if field, members := sel.numericGroup(e.Inners); members != nil {
		set := intervalSet{{math.Inf(-1), math.Inf(1)}}
		for i := range members {
			_, s, _ := numericOf(e.Inners[i])
			set = set.intersect(s)
		}
		if len(set) == 1 {
			candidates = append(candidates, filtered(&NumericScan{Field: field, Range: set[0]}, others(e.Inners, members)))
		}
	}
	best := candidates[0]
	for _, c := range candidates[1:] {
		if cost(c) < cost(best) {
			best = c
		}
	}
	return best
}

// others is the AND of the children not in skip.
func others(inners []Expr, skip map[int]bool) Expr {
	var rest []Expr
	for i, c := range inners {
		if !skip[i] {
			rest = append(rest, c.clone())
		}
	}
	return andOf(rest)
}

func filtered(op Op, cond Expr) Op {
	if isBool(cond, true) {
		return op
	}
	return &Filter{op, cond}
}

// planOr merges the plans of the children, each filtered by the negation
// of those before it so that a document comes once; the numeric children
// of one field are merged into one scan per interval. A child that needs
// a full scan makes the whole OR one.
func (sel *selector) planOr(e *Or) Op {
	field, members := sel.numericGroup(e.Inners)
	var sources []Op
	var before []Expr
	add := func(op Op) {
		if len(before) > 0 {
			op = &Filter{op, simplifyFilter(&Not{orOf(cloneAll(before))})}
		}
		sources = append(sources, op)
	}
	for i, c := range e.Inners {
		if members[i] {
			continue
		}
		op := sel.plan(c)
		if usesFullScan(op) {
			return sel.full(e)
		}
		add(op)
		before = append(before, c)
	}
	if members != nil {
		set := intervalSet{}
		for i := range members {
			_, s, _ := numericOf(e.Inners[i])
			set = set.union(s)
		}
		var scans []Op
		for _, in := range set {
			scans = append(scans, &NumericScan{Field: field, Range: in})
		}
		if len(scans) == 1 {
			add(scans[0])
		} else {
			add(&Merge{scans})
		}
	}
	if len(sources) == 1 {
		return sources[0]
	}
	return &Merge{sources}
}

// simplifyFilter is the passes Kvrocks runs on the filters of a merge.
func simplifyFilter(e Expr) Expr { return flatten(foldBool(pushDownNot(flatten(e)))) }

func usesFullScan(op Op) bool {
	switch op := op.(type) {
	case *FullScan:
		return true
	case *Filter:
		return usesFullScan(op.Source)
	case *Merge:
		for _, s := range op.Sources {
			if usesFullScan(s) {
				return true
			}
		}
	}
	return false
}

// cost is Kvrocks's cost model.
func cost(op Op) int {
	switch op := op.(type) {
	case *FullScan:
		return 100
	case *NumericScan:
		if op.Range.hi == next(op.Range.lo) {
			return 5
		}
		c := 10
		if math.IsInf(op.Range.lo, 0) {
			c += 20
		}
		if math.IsInf(op.Range.hi, 0) {
			c += 20
		}
		return c
	case *TagScan:
		return 10
	case *KNNScan, *RangeScan:
		return 5
	case *Filter:
		return cost(op.Source) + 1
	case *Merge:
		sum := 0
		for _, s := range op.Sources {
			sum += cost(s)
		}
		return sum
	}
	return 0
}
