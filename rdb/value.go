package rdb

// Kind is the Redis type of a Value.
type Kind uint8

// The Redis types Basalt stores. A bitmap and a HyperLogLog are strings
// to Redis.
const (
	String Kind = iota
	List
	Set
	Hash
	ZSet
	Stream
)

// Value is one key's value.
type Value struct {
	Kind Kind
	// Str is a String's bytes.
	Str []byte
	// Elems are a List's elements in order, a Set's members, a Hash's
	// fields and values alternating (field, value, field, value, ...) or a
	// ZSet's members. Encode takes them in any order except for a List;
	// Decode returns them in the payload's order.
	Elems [][]byte
	// FieldExpires are the field TTLs of a Hash that Redis 7.4 (RDB 12)
	// wrote with hash field expiration: FieldExpires[i] is the absolute
	// Unix time in ms at which the field Elems[2*i] expires, 0 for never.
	// Empty when the payload carries none. Encode writes a hash with one
	// as Redis 7.4 does (type 24, RDB 12).
	FieldExpires []int64
	// Scores are a ZSet's scores, Scores[i] that of Elems[i].
	Scores []float64
	// Entries are a Stream's entries in ID order; Stream is the rest of
	// it (ReadFile: on the last chunk). Encode writes a stream's pending
	// entries in ID order and its groups and consumers in name order, as
	// Redis keeps them.
	Entries []StreamEntry
	Stream  *StreamInfo
}

// Limits are Redis's encoding thresholds, the values of its config keys
// of the same names; the encoding Encode chooses for a collection depends
// on them as Redis's does.
type Limits struct {
	HashMaxListpackEntries int64
	HashMaxListpackValue   int64
	ZSetMaxListpackEntries int64
	ZSetMaxListpackValue   int64
	SetMaxIntsetEntries    int64
	// ListMaxListpackSize is a list node's capacity: n > 0 elements, or
	// -1 ... -5 for 4, 8, 16, 32 or 64 KB.
	ListMaxListpackSize int64
	// StreamNodeMaxBytes and StreamNodeMaxEntries bound a stream's
	// listpack nodes (0: 1 GB, and no limit).
	StreamNodeMaxBytes   int64
	StreamNodeMaxEntries int64
}

// DefaultLimits are redis-server 7.0's defaults.
var DefaultLimits = Limits{
	HashMaxListpackEntries: 512,
	HashMaxListpackValue:   64,
	ZSetMaxListpackEntries: 128,
	ZSetMaxListpackValue:   64,
	SetMaxIntsetEntries:    512,
	ListMaxListpackSize:    -2,
	StreamNodeMaxBytes:     4096,
	StreamNodeMaxEntries:   100,
}

// The RDB object types (rdb.h of Redis 7.0, and 7.2 and 7.4 after it).
const (
	typeString           = 0
	typeList             = 1
	typeSet              = 2
	typeZSet             = 3
	typeHash             = 4
	typeZSet2            = 5
	typeModule           = 6
	typeModule2          = 7
	typeHashZipmap       = 9
	typeListZiplist      = 10
	typeSetIntset        = 11
	typeZSetZiplist      = 12
	typeHashZiplist      = 13
	typeListQuicklist    = 14
	typeStreamListpacks  = 15
	typeHashListpack     = 16
	typeZSetListpack     = 17
	typeListQuicklist2   = 18
	typeStreamListpacks2 = 19
	typeSetListpack      = 20 // Redis 7.2 (RDB 11)
	typeStreamListpacks3 = 21 // Redis 7.2 (RDB 11)
	// Hashes with field TTLs, Redis 7.4 (RDB 12): a hash table (24) and
	// a listpack (25), each after the hash's least TTL; 22 and 23 are
	// their forms of 7.4's release candidates, without that TTL.
	typeHashMetadataPreGA   = 22
	typeHashListpackExPreGA = 23
	typeHashMetadata        = 24
	typeHashListpackEx      = 25
)

// Version is the RDB version Redis 7.0 writes, which Encode writes.
const Version = 10

// MaxVersion is the newest RDB version read, in payloads and files:
// Redis 7.4's (7.2 and Valkey 7.2 to 8 write 11). Later versions may
// hold types or opcodes this package does not know, and are refused as
// Redis refuses them (Valkey 9 writes 80).
const MaxVersion = 12

// Quicklist node containers (Redis's QUICKLIST_NODE_CONTAINER_*).
const (
	containerPlain  = 1 // one element, as a string
	containerPacked = 2 // a listpack
)
