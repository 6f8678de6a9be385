package search

import (
	"strconv"
	"strings"
)

// Expr is a query condition, the tree both query languages parse into
// and the planner rewrites. Dump prints it as Kvrocks prints a filter in
// FT.EXPLAIN's plan.
type Expr interface {
	Dump() string
	clone() Expr
}

// BoolLit is a condition that is always true (RediSearch's `*`, SQL's
// `true`) or always false.
type BoolLit struct{ Val bool }

// TagContain holds for a document whose tag field has the tag.
type TagContain struct {
	Field string
	Tag   string
}

// CompareOp is a numeric comparison.
type CompareOp uint8

// The comparisons, as SQL writes them.
const (
	OpEQ CompareOp = iota
	OpNE
	OpLT
	OpLE
	OpGT
	OpGE
)

var opText = [...]string{OpEQ: "=", OpNE: "!=", OpLT: "<", OpLE: "<=", OpGT: ">", OpGE: ">="}

func (op CompareOp) String() string { return opText[op] }

// negate is the comparison that holds exactly where op does not.
func (op CompareOp) negate() CompareOp {
	return [...]CompareOp{OpEQ: OpNE, OpNE: OpEQ, OpLT: OpGE, OpLE: OpGT, OpGT: OpLE, OpGE: OpLT}[op]
}

// flip is the comparison with its sides swapped (1 < n is n > 1).
func (op CompareOp) flip() CompareOp {
	return [...]CompareOp{OpEQ: OpEQ, OpNE: OpNE, OpLT: OpGT, OpLE: OpGE, OpGT: OpLT, OpGE: OpLE}[op]
}

// NumericCompare holds for a document whose numeric field compares with
// Value.
type NumericCompare struct {
	Field string
	Op    CompareOp
	Value float64
}

// VectorRange holds for a document whose vector field lies within Range
// of Vector by the field's distance metric.
type VectorRange struct {
	Field  string
	Vector []float64
	Range  float64
	blob   []byte // RediSearch's $param, until Check decodes it
}

// VectorKNN is the K documents nearest to Vector in a vector field: not
// a condition of one document, so only a whole query is one.
type VectorKNN struct {
	Field  string
	Vector []float64
	K      uint64
	blob   []byte // RediSearch's $param, until Check decodes it
	// fromSQL: made of SQL's ORDER BY, which Kvrocks checks with
	// other words.
	fromSQL bool
}

// Not, And and Or combine conditions.
type (
	Not struct{ Inner Expr }
	And struct{ Inners []Expr }
	Or  struct{ Inners []Expr }
)

// Dump prints true or false.
func (e *BoolLit) Dump() string {
	if e.Val {
		return "true"
	}
	return "false"
}

// Dump prints `field hastag "tag"`.
func (e *TagContain) Dump() string { return e.Field + " hastag " + quote(e.Tag) }

// Dump prints `field op number`.
func (e *NumericCompare) Dump() string {
	return e.Field + " " + e.Op.String() + " " + formatNumber(e.Value)
}

// Dump prints `field <-> [vector] < range`.
func (e *VectorRange) Dump() string {
	return e.Field + " <-> " + dumpVector(e.Vector) + " < " + formatNumber(e.Range)
}

// Dump prints `KNN k=K, field <-> [vector]`.
func (e *VectorKNN) Dump() string {
	return "KNN k=" + strconv.FormatUint(e.K, 10) + ", " + e.Field + " <-> " + dumpVector(e.Vector)
}

// Dump prints `not inner`.
func (e *Not) Dump() string { return "not " + e.Inner.Dump() }

// Dump prints `(and a, b, ...)`.
func (e *And) Dump() string { return dumpList("and", e.Inners) }

// Dump prints `(or a, b, ...)`.
func (e *Or) Dump() string { return dumpList("or", e.Inners) }

func dumpList(op string, inners []Expr) string {
	var b strings.Builder
	b.WriteString("(" + op + " ")
	for i, e := range inners {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.Dump())
	}
	b.WriteString(")")
	return b.String()
}

// dumpVector prints [x, y, ...] with six decimals, as Kvrocks does.
func dumpVector(v []float64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatFloat(x, 'f', 6, 64))
	}
	b.WriteByte(']')
	return b.String()
}

func (e *BoolLit) clone() Expr        { c := *e; return &c }
func (e *TagContain) clone() Expr     { c := *e; return &c }
func (e *NumericCompare) clone() Expr { c := *e; return &c }
func (e *VectorRange) clone() Expr    { c := *e; return &c }
func (e *VectorKNN) clone() Expr      { c := *e; return &c }
func (e *Not) clone() Expr            { return &Not{e.Inner.clone()} }
func (e *And) clone() Expr            { return &And{cloneAll(e.Inners)} }
func (e *Or) clone() Expr             { return &Or{cloneAll(e.Inners)} }

func cloneAll(es []Expr) []Expr {
	out := make([]Expr, len(es))
	for i, e := range es {
		out[i] = e.clone()
	}
	return out
}

// andOf is the conjunction of es: true when there is none, the one
// condition when there is one.
func andOf(es []Expr) Expr {
	switch len(es) {
	case 0:
		return &BoolLit{true}
	case 1:
		return es[0]
	}
	return &And{es}
}

// orOf is the disjunction of es: false when there is none.
func orOf(es []Expr) Expr {
	switch len(es) {
	case 0:
		return &BoolLit{false}
	case 1:
		return es[0]
	}
	return &Or{es}
}

// SortBy orders the results by a numeric field, or (SQL's
// `ORDER BY v <-> [...]`) by the distance to a vector.
type SortBy struct {
	Field  string
	Desc   bool
	Vector []float64 // not nil: order by distance to this vector
}

// Dump prints `field, asc|desc`.
func (s *SortBy) Dump() string { return s.Field + ", " + orderText(s.Desc) }

func orderText(desc bool) string {
	if desc {
		return "desc"
	}
	return "asc"
}

// Limit is the window of results: skip Offset, return at most Count.
type Limit struct{ Offset, Count uint64 }

// Query is a parsed FT.SEARCH or FT.SEARCHSQL query: what to return, of
// which index, the condition, and the order and window of the results.
type Query struct {
	Index  string
	Select []string // the fields to return; nil: all of them
	Where  Expr
	SortBy *SortBy
	Limit  *Limit
	// NoContent returns the keys without their fields (RediSearch's
	// NOCONTENT, or RETURN 0), beyond Kvrocks.
	NoContent bool
	// Aliases renames returned fields (RediSearch's RETURN n f AS a):
	// Aliases[i] names Select[i] in the reply, "" keeps its name.
	Aliases []string
}

// dumpSelect prints the projection: * or `a, b`.
func (q *Query) dumpSelect() string {
	if q.Select == nil {
		return "*"
	}
	return strings.Join(q.Select, ", ")
}
