// Package storage is Basalt's engine: RocksDB with Kvrocks's column
// families, and the Redis data types stored on it in the layout of
// FORMAT.md (strings in metadata records, collections as one metadata
// record plus one record per element). The types that predate the engine
// API live here; every newer one is a package of its own under types/,
// built on that API (api.go), as Kvrocks's src/types are built on its
// src/storage.
//
// Writing: every command that may write goes through Storage.Update; the
// rules behind it (key locks, one batch per command beginning with
// Kvrocks's LogData, group commit, watchers, durability before replies)
// are written down in write.go.
//
// Byte ownership: arguments are never retained after a call returns, and
// the caller may reuse them, except what a Batch is given, which must
// stay unmodified until Commit returns. Returned byte slices are Go memory
// owned by the caller unless a function's comment says otherwise
// (Object.Ext and Object.NSKey alias the Object; Object.Each's arguments
// live for one call); nothing returned points into memory RocksDB owns.
//
// storage imports metadata, config, compactfilter, glob, num and rdb; it
// must never import server, commands or a type package (types/...),
// which register what the engine needs of them instead (RegisterType).
//
// # How to add a type
//
// types/hyperloglog (PFADD, PFCOUNT, PFMERGE) and types/bitmap (SETBIT,
// GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD) are the examples; a new type
// (JSON, Bloom, SortedInt, TDigest, TimeSeries, ...) follows them:
//
//  1. Its number and name. The type byte goes in metadata/metadata.go
//     (Type, its TYPE reply in typeNames, SingleKV and Emptyable), with
//     its layout in FORMAT.md or KVROCKS-TYPES.md; byte-level helpers that
//     are pure encoding (subkey and extension formats, hashes) go in
//     metadata/ beside hll.go and bitmap.go, with the spec's test vectors.
//  2. A package under types/, named for the type, that imports storage,
//     metadata and leaf packages (num, glob, geohash, config) and nothing
//     above them (it/lint_test.go checks it). Its functions take the
//     storage.DB the command runs with and do one command's work each:
//     Add(db, key, elems) is PFADD.
//  3. Reads. db.Lookup reads a key's metadata through the metadata cache
//     (nil when absent, expired or emptied); the type checks
//     Object.Meta().Type itself and returns ErrWrongType for a live key of
//     another type (or its own error, as ErrNotHLL). db.LookupMany reads
//     several keys' in one round trip. Elements are subkeys of the key's
//     version: Object.Subkey names one, Object.GetElements reads some by
//     name through the elements cache, db.GetMany reads many around it,
//     Object.Each walks them in key order, bounded by the version's
//     prefix (and want). A command that reads several records that must
//     agree takes a ReadView and passes it to those reads.
//  4. Writes. A write command runs under its keys' locks (the command
//     table's key specs name them) with a DB bound to the write: it reads
//     through db.LookupOrNew (an absent key comes back as a new
//     incarnation, with a new version), builds one Batch with
//     db.NewBatch(log), puts and deletes subkeys and the metadata record
//     (Meta().AppendTo, then the type's extension, under NSKey in
//     CFMetadata), and commits it. Rewriting only the metadata with a new
//     version (NewObject) drops every element at once; the compaction
//     filter reclaims them. Nothing is written when nothing changed.
//  5. Its LogData: the record Kvrocks writes for the command
//     (FORMAT.md §8.3): TypeLog(t) for most, CommandLog(t, cmd, args...)
//     where Kvrocks logs the command (LogSetBit). executor/batch_events.go
//     turns replicated batches into keyspace events by that record: add
//     the type's case there.
//  6. Caches of derived values (a HyperLogLog's cardinality) live in the
//     type package, one per Storage (Storage.Shared), forgotten by the
//     type's writes under the key's lock and judged stale when
//     Storage.LocklessWrites moved (hyperloglog/card.go).
//  7. Paths over keys of any type: a type that is a string to Redis (a
//     bitmap) registers TypeHooks.String for GET, MGET, GETEX and DUMP; one
//     that DUMP, RESTORE and RDB LOAD carry registers ReadValue and
//     WriteValue (HyperLogLog). Register from the package's init; the
//     commands package imports the type package, so the server has it.
//     COPY, RENAME, MOVE, DEL, EXPIRE, TYPE, SCAN and the compaction
//     filters work from the metadata alone: they need nothing more, unless
//     the type keeps elements outside the default column family
//     (subkeyCFs in keys.go) or needs a compaction rule of its own
//     (compactfilter/, as bitmaps drop all-zero segments).
//  8. Handlers: a file per family in commands/ (commands/hll.go) whose
//     handlers parse arguments, call the type package once and reply;
//     registrations in the command table; the type's errors mapped to
//     Redis's replies beside them.
//  9. Tests: the type's unit tests in its package, on a database from
//     storage/storagetest, with the spec's byte vectors (format tests read
//     records as stored); it/ tests against redis-server or Kvrocks for
//     the replies, and an interop test where Kvrocks reads what Basalt
//     wrote.
package storage
