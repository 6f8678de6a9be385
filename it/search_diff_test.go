package it

import "testing"

// TestSearchDiff runs the FT.* cases of testdata/search_diff.txt against
// the real Kvrocks and Basalt, with the machinery of TestKvrocksDiff:
// every section as written (its @r3 lines in RESP3) and with every
// connection in RESP3. Differences are listed, with their reasons, in
// testdata/search_differences.txt. The section of JSON indexes is
// pending until Basalt indexes JSON documents.
func TestSearchDiff(t *testing.T) {
	kvdRunFile(t, "search_diff.txt", "search_differences.txt", true)
}

// TestSearchJSONRefused: until JSON documents are indexed, FT.CREATE ON
// JSON is refused rather than creating an index that stays empty.
func TestSearchJSONRefused(t *testing.T) {
	c := startBasalt(t).client(t, 2)
	err := c.Do(ctx, "FT.CREATE", "j", "ON", "JSON", "SCHEMA", "$.t", "AS", "t", "TAG").Err()
	if err == nil || err.Error() != "ERR indexes ON JSON are not supported yet" {
		t.Fatalf("FT.CREATE ON JSON: %v", err)
	}
}
