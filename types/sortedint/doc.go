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
// arguments with Kvrocks's error texts (ReplyText), and the semantics of
// the commands as functions over a Store, one key's subkeys as the engine
// reads them: Add (SIADD), Remove (SIREM), Exists (SIEXISTS), Range.Walk
// (SIRANGE, SIREVRANGE) and ValueRange.Walk (SIRANGEBYVALUE,
// SIREVRANGEBYVALUE). SICARD is the metadata's size and needs nothing of
// this package. Ranges stream their ids to a callback as they walk, so a
// large set is never held whole.
//
// It does no I/O and imports nothing of Basalt's: the engine backs Store,
// and the command handlers render the results.
package sortedint
