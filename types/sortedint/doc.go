// Package sortedint is Kvrocks's sortedint type (type 7, FORMAT.md §4.7,
// KVROCKS-TYPES.md §3): a set of unsigned 64-bit ids kept in numeric order.
//
// On disk a sortedint is a plain collection: its metadata record is the
// common header (flags 0x87, expire, version, size = number of ids) with
// no extension, and each id is one record in the default column family
// whose subkey is the id as 8 big-endian bytes (so RocksDB's bytewise
// order is numeric order) and whose value is empty.
//
// The package holds that subkey encoding, the parsing of the commands'
// arguments with Kvrocks's error texts (ReplyText), and the commands on
// the engine (db.go), one function each: Add (SIADD), Remove (SIREM),
// Card (SICARD), Exists (SIEXISTS), Range.Each (SIRANGE, SIREVRANGE) and
// ValueRange.Each (SIRANGEBYVALUE, SIREVRANGEBYVALUE). Their semantics are
// functions over a Store, one key's subkeys as the engine reads them
// (write.go, store.go), which do no I/O and are tested on their own;
// ranges stream their ids to a callback as they walk, reading no more
// subkeys than the reply needs.
//
// Nothing else is needed of the engine: TYPE, DEL, EXPIRE, RENAME, COPY,
// SCAN, slot migration, replication and the compaction filters work from
// the metadata record, and DUMP refuses the type as Kvrocks 5fccd57 does.
package sortedint
