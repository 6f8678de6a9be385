package it

import "testing"

// TestBloomDiff runs the BF.* corpus, testdata/bloom_diff.txt, against the
// real Kvrocks and Basalt, in RESP2 and again with every connection in
// RESP3; the 128 MiB filters of bloom-big, over which both servers spend
// seconds a command (a minute on a busy machine), only with
// BASALT_VOLUME=1. testdata/bloom_differences.txt lists the deliberate
// differences.
func TestBloomDiff(t *testing.T) {
	kvdRunFile(t, "bloom_diff.txt", "bloom_differences.txt", true)
}
