package search

import (
	"regexp"
	"strings"
	"testing"
)

// Kvrocks 5fccd57's DOT plans, node addresses aside.
var kvrocksDOT = map[string]string{
	`select * from idx2 where t hastag "a" order by n limit 1`: `digraph {   x7f699a01f0e0 [ label = "Projection" ];   x7f699a01f0e0 -> x7f699a01f080;   x7f699a01f080 [ label = "TopNSort" ];   x7f699a01f080 -> x7f699a01f120;   x7f699a01f120 [ label = "Filter" ];   x7f699a01f120 -> x7f699a007650;   x7f699a007650 [ label = "FullIndexScan" ];   x7f699a007650 -> x7f699a0121b0;   x7f699a0121b0 [ label = "IndexRef (idx2)" ];   x7f699a01f120 -> x7f699a01f100;   x7f699a01f100 [ label = "TagContainExpr" ];   x7f699a01f100 -> x7f699a012090;   x7f699a012090 [ label = "FieldRef (t)" ];   x7f699a01f100 -> x7f699a012150;   x7f699a012150 [ label = "StringLiteral (\"a\")" ];   x7f699a01f080 -> x7f699a01f040;   x7f699a01f040 [ label = "SortByClause (asc)" ];   x7f699a01f040 -> x7f699a012120;   x7f699a012120 [ label = "FieldRef (n)" ];   x7f699a01f080 -> x7f699a01f060;   x7f699a01f060 [ label = "LimitClause (0, 1)" ];   x7f699a01f0e0 -> x7f699a01f000;   x7f699a01f000 [ label = "SelectClause" ]; }`,
	`select n, t from idx where n != 1 order by n limit 1`:     `digraph {   x7f699821f0a0 [ label = "Projection" ];   x7f699821f0a0 -> x7f699821f000;   x7f699821f000 [ label = "Limit" ];   x7f699821f000 -> x7f699821f140;   x7f699821f140 [ label = "Filter" ];   x7f699821f140 -> x7f6998212090;   x7f6998212090 [ label = "NumericFieldScan ([-inf, inf), asc)" ];   x7f6998212090 -> x7f6998212210;   x7f6998212210 [ label = "FieldRef (n)" ];   x7f699821f140 -> x7f699821f020;   x7f699821f020 [ label = "NumericCompareExpr (!=)" ];   x7f699821f020 -> x7f6998212270;   x7f6998212270 [ label = "FieldRef (n)" ];   x7f699821f020 -> x7f69982076d0;   x7f69982076d0 [ label = "NumericLiteral (1)" ];   x7f699821f000 -> x7f699821f120;   x7f699821f120 [ label = "LimitClause (0, 1)" ];   x7f699821f0a0 -> x7f699821f040;   x7f699821f040 [ label = "SelectClause" ];   x7f699821f040 -> x7f69982120c0;   x7f69982120c0 [ label = "FieldRef (n)" ];   x7f699821f040 -> x7f69982120f0;   x7f69982120f0 [ label = "FieldRef (t)" ]; }`,
	`select * from idx order by v <-> [1,2] limit 1`:           `digraph {   x7f6994200e20 [ label = "Projection" ];   x7f6994200e20 -> x7f6994200ee0;   x7f6994200ee0 [ label = "Limit" ];   x7f6994200ee0 -> x7f699421fa70;   x7f699421fa70 [ label = "HnswVectorFieldKnnScan ([1.000000, 2.000000], 1)" ];   x7f699421fa70 -> x7f699421fad0;   x7f699421fad0 [ label = "FieldRef (v)" ];   x7f6994200ee0 -> x7f6994200ec0;   x7f6994200ec0 [ label = "LimitClause (0, 1)" ];   x7f6994200e20 -> x7f6994200e40;   x7f6994200e40 [ label = "SelectClause" ]; }`,
	`select * from idx where false`:                            `digraph {   x7f6994200e80 [ label = "Projection" ];   x7f6994200e80 -> x7f6994239370;   x7f6994239370 [ label = "Noop" ];   x7f6994200e80 -> x7f6994200e60;   x7f6994200e60 [ label = "SelectClause" ]; }`,
}

// normalizeDOT numbers the nodes in the order they first appear and
// joins the lines as the capture above did.
func normalizeDOT(s string) string {
	ids := map[string]string{}
	s = regexp.MustCompile(`x[0-9a-f]{6,}`).ReplaceAllStringFunc(s, func(id string) string {
		if _, ok := ids[id]; !ok {
			ids[id] = "n" + string(rune('A'+len(ids)))
		}
		return ids[id]
	})
	return strings.Join(strings.Fields(s), " ")
}

// TestDOTAsKvrocks: FT.EXPLAINSQL ... DOT prints Kvrocks's graph.
func TestDOTAsKvrocks(t *testing.T) {
	schemas := explainSchemas(t)
	for sql, want := range kvrocksDOT {
		got := explain([][]byte{[]byte("FT.EXPLAINSQL"), []byte(sql), []byte("DOT")}, schemas)
		if normalizeDOT(got) != normalizeDOT(want) {
			t.Errorf("%s:\n got %s\nwant %s", sql, normalizeDOT(got), normalizeDOT(want))
		}
	}
}
