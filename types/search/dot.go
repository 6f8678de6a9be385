package search

import (
	"fmt"
	"strconv"
	"strings"
)

// dotNode is a node of the graph FT.EXPLAINSQL ... DOT prints: Kvrocks's
// node class name, its content, and its children.
type dotNode struct {
	name, content string
	children      []dotNode
}

// DOT prints the plan as FT.EXPLAINSQL ... DOT does, a Graphviz digraph
// of the plan's operators and the conditions under them. Kvrocks names
// the nodes by their addresses in memory, which differ from run to run;
// Basalt numbers them in the order they are printed.
func (p *Plan) DOT() string {
	sel := dotNode{name: "SelectClause"}
	for _, f := range p.Query.Select {
		sel.children = append(sel.children, fieldRef(f))
	}
	root := dotNode{name: "Projection", children: []dotNode{opNode(p.Root), sel}}
	var b strings.Builder
	b.WriteString("digraph {\n")
	n := 0
	var visit func(d dotNode)
	visit = func(d dotNode) {
		n++
		id := fmt.Sprintf("x%012x", n)
		label := d.name
		if d.content != "" {
			q := quote(d.content)
			label += " (" + q[1:len(q)-1] + ")"
		}
		fmt.Fprintf(&b, "  %s [ label = \"%s\" ];\n", id, label)
		for _, c := range d.children {
			childID := fmt.Sprintf("x%012x", n+1)
			fmt.Fprintf(&b, "  %s -> %s;\n", id, childID)
			visit(c)
		}
	}
	visit(root)
	b.WriteString("}\n")
	return b.String()
}

func fieldRef(name string) dotNode { return dotNode{name: "FieldRef", content: name} }

func limitNode(l Limit) dotNode { return dotNode{name: "LimitClause", content: l.dump()} }

func sortNode(s SortBy) dotNode {
	return dotNode{name: "SortByClause", content: orderText(s.Desc), children: []dotNode{fieldRef(s.Field)}}
}

func opNode(op Op) dotNode {
	switch o := op.(type) {
	case Noop:
		return dotNode{name: "Noop"}
	case *FullScan:
		return dotNode{name: "FullIndexScan", children: []dotNode{{name: "IndexRef", content: o.Index}}}
	case *NumericScan:
		return dotNode{name: "NumericFieldScan", content: o.Range.String() + ", " + orderText(o.Desc), children: []dotNode{fieldRef(o.Field)}}
	case *TagScan:
		return dotNode{name: "TagFieldScan", content: o.Tag, children: []dotNode{fieldRef(o.Field)}}
	case *KNNScan:
		return dotNode{name: "HnswVectorFieldKnnScan", content: dumpVector(o.Vector) + ", " + strconv.FormatUint(o.K, 10), children: []dotNode{fieldRef(o.Field)}}
	case *RangeScan:
		return dotNode{name: "HnswVectorFieldRangeScan", content: dumpVector(o.Vector) + ", " + strconv.FormatUint(uint64(kvrocksRange(o.Range)), 10), children: []dotNode{fieldRef(o.Field)}}
	case *Filter:
		return dotNode{name: "Filter", children: []dotNode{opNode(o.Source), exprNode(o.Cond)}}
	case *Merge:
		d := dotNode{name: "Merge"}
		for _, s := range o.Sources {
			d.children = append(d.children, opNode(s))
		}
		return d
	case *LimitOp:
		return dotNode{name: "Limit", children: []dotNode{opNode(o.Source), limitNode(o.Limit)}}
	case *Sort:
		return dotNode{name: "Sort", children: []dotNode{opNode(o.Source), sortNode(o.By)}}
	case *TopNSort:
		return dotNode{name: "TopNSort", children: []dotNode{opNode(o.Source), sortNode(o.By), limitNode(o.Limit)}}
	}
	return dotNode{name: "Unknown"}
}

func exprNode(e Expr) dotNode {
	switch e := e.(type) {
	case *BoolLit:
		return dotNode{name: "BoolLiteral", content: e.Dump()}
	case *TagContain:
		return dotNode{name: "TagContainExpr", children: []dotNode{fieldRef(e.Field), {name: "StringLiteral", content: quote(e.Tag)}}}
	case *NumericCompare:
		return dotNode{name: "NumericCompareExpr", content: e.Op.String(), children: []dotNode{fieldRef(e.Field), {name: "NumericLiteral", content: formatNumber(e.Value)}}}
	case *VectorRange:
		return dotNode{name: "VectorRangeExpr", children: []dotNode{fieldRef(e.Field), {name: "NumericLiteral", content: formatNumber(e.Range)}, {name: "VectorLiteral", content: dumpVector(e.Vector)}}}
	case *VectorKNN:
		return dotNode{name: "VectorKnnExpr", children: []dotNode{fieldRef(e.Field), {name: "NumericLiteral", content: strconv.FormatUint(e.K, 10)}, {name: "VectorLiteral", content: dumpVector(e.Vector)}}}
	case *Not:
		return dotNode{name: "NotExpr", children: []dotNode{exprNode(e.Inner)}}
	case *And:
		return dotNode{name: "AndExpr", children: mapNodes(e.Inners)}
	case *Or:
		return dotNode{name: "OrExpr", children: mapNodes(e.Inners)}
	}
	return dotNode{name: "Unknown"}
}

func mapNodes(es []Expr) []dotNode {
	out := make([]dotNode, len(es))
	for i, e := range es {
		out[i] = exprNode(e)
	}
	return out
}
