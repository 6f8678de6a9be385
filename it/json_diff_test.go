package it

import "testing"

// TestJSONDiff runs the JSON.* commands of testdata/json_diff.txt against
// the real Kvrocks and Basalt, in RESP2 and RESP3 (its r3 connection),
// in both storage formats and with a lowered json-max-nesting-depth; the
// replies must be the same bytes but for the differences of
// testdata/json_differences.txt, each with its reason.
func TestJSONDiff(t *testing.T) {
	kvdRunFile(t, "json_diff.txt", "json_differences.txt", false)
}
