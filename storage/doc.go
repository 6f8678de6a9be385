// Package storage is Basalt's engine: RocksDB with Kvrocks's column
// families, and the Redis data types stored on it in the layout of
// FORMAT.md (strings in metadata records, collections as one metadata
// record plus one record per element).
//
// Writing: every command that may write goes through Storage.Update; the
// rules behind it (key locks, one batch per command beginning with
// Kvrocks's LogData, group commit, watchers, durability before replies)
// are written down in write.go.
//
// Byte ownership: arguments are never retained after a call returns, and
// the caller may reuse them. Returned byte slices are Go memory owned by the
// caller unless a function's comment says otherwise; nothing returned points
// into memory RocksDB owns.
//
// storage imports metadata, config and glob; it must never import server
// or commands.
package storage
