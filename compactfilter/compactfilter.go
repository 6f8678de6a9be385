// Package compactfilter holds the RocksDB compaction filters that physically
// drop what the data model has already made invisible (FORMAT.md §6):
// expired metadata, the subkeys of deleted, overwritten or expired
// collections, and the column families that only carry transient records.
//
// The filters run on RocksDB's background threads, concurrently. They get
// the metadata of a key through a Lookup the storage package provides, so
// this package does not depend on it.
package compactfilter

import (
	"bytes"
	"encoding/binary"
	"sync"
	"time"

	"github.com/basaltdb/basalt/metadata"
)

// Lookup reads the metadata record of nsKey from the live database (latest
// state, memtables included, no snapshot). The value may be retained.
type Lookup func(nsKey []byte) (value []byte, found bool, err error)

// expiryGrace is how long after its expiry a collection's subkeys are kept,
// so that a command that saw the key alive just before it expired can still
// read them (FORMAT.md §6).
const expiryGrace = 5 * time.Minute

// Metadata drops metadata records that are dead now: expired, or a
// collection emptied to size 0. Records it cannot decode are kept.
type Metadata struct {
	Now func() time.Time
}

// Name implements grocksdb.CompactionFilter.
func (*Metadata) Name() string { return "MetadataFilter" }

// SetIgnoreSnapshots implements grocksdb.CompactionFilter; since RocksDB 6
// filters always ignore snapshots.
func (*Metadata) SetIgnoreSnapshots(bool) {}

// Destroy implements grocksdb.CompactionFilter.
func (*Metadata) Destroy() {}

// Filter implements grocksdb.CompactionFilter.
func (f *Metadata) Filter(_ int, _, value []byte) (bool, []byte) {
	m, _, err := metadata.Decode(value)
	if err != nil {
		return false, nil
	}
	return m.Dead(f.Now().UnixMilli()), nil
}

// Subkey drops a record of the default, zset_score or stream column family
// when its key's metadata is gone, belongs to a string or JSON value that
// replaced the collection, has another version, or has been dead for longer
// than the expiry grace; a bitmap segment that is all zeros; and an
// expired field of a hash with field TTLs. Anything it
// cannot parse or look up is kept.
type Subkey struct {
	Layout metadata.Layout
	Lookup Lookup
	Now    func() time.Time
	// Drops are the rules of types that drop subkeys of live keys
	// (a time series's chunks past its retention).
	Drops map[metadata.Type]TypeDrop

	cache liveCache
}

// Name implements grocksdb.CompactionFilter.
func (*Subkey) Name() string { return "SubKeyFilter" }

// SetIgnoreSnapshots implements grocksdb.CompactionFilter.
func (*Subkey) SetIgnoreSnapshots(bool) {}

// Destroy implements grocksdb.CompactionFilter.
func (*Subkey) Destroy() {}

// Filter implements grocksdb.CompactionFilter.
func (f *Subkey) Filter(_ int, key, value []byte) (bool, []byte) {
	ik, err := f.Layout.ParseInternalKey(key)
	if err != nil {
		return false, nil
	}
	now := f.Now()
	nsKey := f.Layout.AppendNSKeyOf(nil, ik)
	if m, ok := f.cache.get(nsKey, now); ok && f.keeps(m, ik.Version, value, now) && f.Drops[m.Type] == nil {
		return false, nil
	}
	raw, found, err := f.Lookup(nsKey)
	if err != nil {
		return false, nil
	}
	if !found {
		return true, nil
	}
	m, ext, err := metadata.Decode(raw)
	if err != nil {
		return false, nil
	}
	f.cache.put(nsKey, m, now)
	if !f.keeps(m, ik.Version, value, now) {
		return true, nil
	}
	if drop := f.Drops[m.Type]; drop != nil {
		other := func(key []byte) ([]byte, bool, error) {
			return f.Lookup(f.Layout.AppendNSKey(nil, string(ik.Namespace), key))
		}
		return drop(other, ik.Key, ext, ik.Sub, value), nil
	}
	return false, nil
}

// A TypeDrop is a type's rule for the subkeys of its live keys: whether
// the filter drops subkey sub with value of key, ext being the key's
// metadata extension. other reads the metadata record of another key of the
// namespace; on an error the rule must keep the subkey.
type TypeDrop func(other func(key []byte) (raw []byte, found bool, err error), key, ext, sub, value []byte) bool

// Index is the filter of the index column family: it drops the entries
// Stale reports (a time series's label entry whose series is gone or no
// longer has the label's value).
type Index struct {
	Stale func(key []byte) bool
}

// Name implements grocksdb.CompactionFilter.
func (*Index) Name() string { return "IndexFilter" }

// SetIgnoreSnapshots implements grocksdb.CompactionFilter.
func (*Index) SetIgnoreSnapshots(bool) {}

// Destroy implements grocksdb.CompactionFilter.
func (*Index) Destroy() {}

// Filter implements grocksdb.CompactionFilter.
func (f *Index) Filter(_ int, key, _ []byte) (bool, []byte) {
	return f.Stale != nil && f.Stale(key), nil
}

// keeps decides on a subkey of the given version and value from its key's
// metadata m.
func (f *Subkey) keeps(m metadata.Metadata, version uint64, value []byte, now time.Time) bool {
	switch {
	case m.Type.SingleKV(), m.Version != version, m.Dead(now.Add(-expiryGrace).UnixMilli()):
		return false
	case m.Type == metadata.TypeBitmap:
		return !allZero(value)
	case m.FieldTTL:
		return !fieldExpired(value, now.UnixMilli())
	}
	return true
}

// fieldExpired reports whether a field of a hash in field-expiration
// mode has a TTL that ended before now: it is dropped at once, without
// the grace of a key, and the hash's metadata still counts it until the
// sweep or a write recounts (KVROCKS-TYPES.md §7.4). A value too short
// for its expiry is corrupt and kept.
func fieldExpired(value []byte, now int64) bool {
	if len(value) < 8 {
		return false
	}
	expire := int64(binary.BigEndian.Uint64(value))
	return expire != 0 && expire < now
}

func allZero(b []byte) bool {
	return len(bytes.Trim(b, "\x00")) == 0
}

// liveCacheTTL bounds how stale a cached metadata record may be. The cache
// only ever lets a subkey be kept, never dropped: a drop is always decided
// on a fresh lookup, because a stale record could belong to an older
// incarnation than the subkey's. A stale "keep" only defers the reclaim
// to a later compaction.
const liveCacheTTL = 100 * time.Millisecond

// liveCacheSize bounds the cache's memory.
const liveCacheSize = 4096

// liveCache remembers recently looked-up metadata, so that the many
// subkeys of one collection, which sit next to each other in a compaction,
// cost one lookup rather than one each.
type liveCache struct {
	mu      sync.Mutex
	entries map[string]metadata.Metadata
	born    time.Time // when entries was started; all expire together
}

func (c *liveCache) get(nsKey []byte, now time.Time) (metadata.Metadata, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if now.Sub(c.born) > liveCacheTTL {
		return metadata.Metadata{}, false
	}
	m, ok := c.entries[string(nsKey)]
	return m, ok
}

func (c *liveCache) put(nsKey []byte, m metadata.Metadata, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= liveCacheSize || now.Sub(c.born) > liveCacheTTL {
		c.entries = make(map[string]metadata.Metadata)
		c.born = now
	}
	c.entries[string(nsKey)] = m
}

// Reset forgets every cached record, so that a compaction started now
// decides on the latest metadata only.
func (f *Subkey) Reset() {
	f.cache.mu.Lock()
	defer f.cache.mu.Unlock()
	f.cache.entries = nil
}

// DropAll drops every record: the pubsub column family only carries
// messages to replicas through the WAL.
type DropAll struct{}

// Name implements grocksdb.CompactionFilter.
func (DropAll) Name() string { return "PubSubFilter" }

// SetIgnoreSnapshots implements grocksdb.CompactionFilter.
func (DropAll) SetIgnoreSnapshots(bool) {}

// Destroy implements grocksdb.CompactionFilter.
func (DropAll) Destroy() {}

// Filter implements grocksdb.CompactionFilter.
func (DropAll) Filter(int, []byte, []byte) (bool, []byte) { return true, nil }

// Propagate drops the "script" records of the propagate column family,
// which only carry script commands to replicas.
type Propagate struct{}

// Name implements grocksdb.CompactionFilter.
func (Propagate) Name() string { return "PropagateFilter" }

// SetIgnoreSnapshots implements grocksdb.CompactionFilter.
func (Propagate) SetIgnoreSnapshots(bool) {}

// Destroy implements grocksdb.CompactionFilter.
func (Propagate) Destroy() {}

// Filter implements grocksdb.CompactionFilter.
func (Propagate) Filter(_ int, key, _ []byte) (bool, []byte) {
	return string(key) == "script", nil
}
