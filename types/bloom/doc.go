// Package bloom is the Bloom filter type (type 9, the BF.* commands) as
// Apache Kvrocks stores it (FORMAT.md §4.10, KVROCKS-TYPES.md §2): a
// chain of block-split Bloom filters that grows by a factor when the last
// one is full.
//
// On disk a filter is the key's metadata record, whose type-specific
// extension is a Chain (sub-filter count, expansion, base capacity, error
// rate, total bytes; size = items inserted), and one subkey per
// sub-filter (Subkey) holding its bits. Items are hashed with XXH64 and
// land in one 32-byte block of a sub-filter, eight bits in eight words,
// exactly as Kvrocks addresses them, so a filter built by either server
// answers identically on the other and the subkey bytes are equal.
//
// The command semantics are functions over decoded values (Insert,
// Exists, Chain.Info) that read sub-filters through a Reader and return
// what to write; parsing of the commands' arguments returns Options and
// errors whose text is Kvrocks's reply (Error); replies are written as
// values to a reply.Sink. store.go runs them on storage's engine API, one
// function per command (Reserve, Add, MayContain, InfoOf, Card), each
// write one batch after Kvrocks's LogData.
//
// Cost: an insert or a lookup reads one 32-byte block per item and
// sub-filter, never a whole sub-filter, so a Reader that hands out a view
// of the stored value (a pinned slice) makes a lookup in a 128 MiB filter
// as cheap as in a 128-byte one. An insert's changes to an existing
// sub-filter come back as changed blocks (Write.Blocks): RocksDB has no
// partial update, so the handler writes the whole value, but it can build
// it from the old value and the blocks without another pass.
//
// It imports storage, metadata and reply of Basalt's packages.
package bloom
