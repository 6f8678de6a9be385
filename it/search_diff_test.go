package it

import "testing"

// TestSearchDiff runs the FT.* cases of testdata/search_diff.txt against
// the real Kvrocks and Basalt, with the machinery of TestKvrocksDiff:
// every section as written (its @r3 lines in RESP3) and with every
// connection in RESP3. Differences are listed, with their reasons, in
// testdata/search_differences.txt.
func TestSearchDiff(t *testing.T) {
	kvdRunFile(t, "search_diff.txt", "search_differences.txt", true)
}
