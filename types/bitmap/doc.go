// Package bitmap is the bit commands (SETBIT, GETBIT, BITCOUNT, BITPOS,
// BITOP, BITFIELD) over storage's engine API, on strings and on
// Kvrocks's segmented bitmaps (FORMAT.md §4.6), which it teaches the
// engine to read as strings (GET, DUMP).
//
// It imports storage, metadata and nothing above them (it/lint_test.go).
package bitmap
