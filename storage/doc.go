// Package storage is Basalt's engine: RocksDB with Kvrocks's column
// families, and the Redis data types stored on it in the layout of
// FORMAT.md (strings in metadata records, collections as one metadata
// record plus one record per element).
//
// Locking: every read-modify-write must run while the caller holds the
// striped locks of the keys it touches (Storage.Locks); the command
// dispatcher takes them from the command table's key positions. Reads need
// no lock: each RocksDB Get is atomic, and multi-record reads use iterators
// or snapshots. Every command's writes commit as one batch, so the metadata
// record and the elements of a key change together or not at all; under
// Locks, the batches of the commands one stripe holder runs join its write
// Group and reach RocksDB in a single write, before any of them returns;
// the writes of different stripes arriving together share one too (see
// commit.go).
//
// Byte ownership: arguments are never retained after a call returns, and
// the caller may reuse them. Returned byte slices are Go memory owned by the
// caller unless a function's comment says otherwise; nothing returned points
// into memory RocksDB owns.
//
// storage imports metadata, config and glob; it must never import server
// or commands.
package storage
