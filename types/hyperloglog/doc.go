// Package hyperloglog is the HyperLogLog type (PFADD, PFCOUNT, PFMERGE)
// over storage's engine API: Kvrocks's segmented dense registers
// (FORMAT.md §4.9), Redis's estimates, and a cache of single keys'
// cardinalities.
//
// It imports storage, metadata and nothing above them (it/lint_test.go).
package hyperloglog
