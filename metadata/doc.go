// Package metadata is the pure byte encoding of Basalt's on-disk format, the
// Apache Kvrocks layout described in FORMAT.md: namespace keys, hash slots,
// metadata values, versions, internal (subkey) keys and order-preserving
// score bytes.
//
// It does no I/O, uses no cgo and imports nothing else of Basalt's, so every
// other package may import it.
//
// Byte ownership: functions named Append* append to dst and return the
// extended slice, never retaining their arguments. Parse* functions return
// slices that alias their input; the caller must keep the input alive (and
// unmodified) for as long as it uses them.
package metadata
