// Package rdb is Redis's serialization of values: a single value as DUMP
// writes and RESTORE reads it (the value's type byte, the value, the RDB
// version (2 bytes, little-endian) and a CRC64 of all that (8 bytes,
// little-endian)), and whole RDB files as SAVE writes them (ReadFile).
//
// Encode writes what redis-server 7.0 writes for the same value (RDB
// version 10) with rdbcompression off (strings are never LZF-compressed:
// Redis's LZF output depends on uninitialised memory, so no encoder can
// match it byte for byte, and an uncompressed payload is a valid one).
// Decode and ReadFile read RDB versions up to 12, every encoding Redis 7.4
// writes (7.2's sets in listpacks, 7.4's hashes with field TTLs), except
// modules and the zipmap of Redis 2.4, which no DUMP ever wrote; newer
// versions are refused. ReadFile reads a file from an io.Reader as it
// goes, handing a long value's elements over in chunks, so that neither
// the file nor a big collection is held in memory.
//
// Every payload and file is hostile: every length is checked against the
// bytes that remain before anything is allocated for it, and the packed
// encodings (listpack, ziplist, intset) are validated as Redis's
// sanitize-dump-payload yes validates them.
//
// It opens no file, uses no cgo, and imports nothing of Basalt's but num,
// so it knows nothing of RocksDB or of the key layout.
//
// Byte ownership: Decode's Value aliases the payload where it can (plain
// strings); the caller keeps the payload unmodified while it uses the
// Value. Encode's result is a new slice. ReadFile's entries are valid
// only during the call that receives them.
package rdb
