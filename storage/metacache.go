package storage

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// metaCache keeps the metadata records reads asked for, so that reading a
// hot key costs a map lookup instead of a search of RocksDB's memtable
// skiplist, which is most of a GET's CPU (bench/PERFORMANCE.md). It holds
// what RocksDB holds, exactly, at every moment a reader can observe:
//
//   - Every write reaches RocksDB through apply. For each metadata record
//     a batch writes, apply invalidates the record (forgets it, bumps its
//     shard's generation and counts the write in flight) before the write,
//     and again once RocksDB applied it (bumping the generation and
//     counting the write done).
//   - Once RocksDB applied it, a write stores the record it wrote (write
//     through) when it was the shard's only write in flight from its first
//     invalidation to its second: no other write of the record can then
//     have been applied after it, so the record is what RocksDB holds. A
//     read-modify-write command (INCR, LPUSH, SADD, a script's GET after
//     its SET) thus finds its key's metadata cached at its next run.
//   - A reader that missed notes the shard's generation before it reads
//     RocksDB, and stores what it read only if no write of the shard was
//     in flight then and the generation is the same afterwards, under the
//     shard's lock. No write of the shard then overlapped its read, so
//     what it read is what RocksDB holds until the next write, whose first
//     invalidation forgets it. (A read that overlaps a write may see the
//     old value while another reader already saw the new one: storing it
//     would make values go back.)
//   - A range deletion (FLUSHDB, slot deletion) and a reopened database
//     (full sync, restore) clear everything.
//
// A read at a snapshot uses it only through snapshotMeta (collection.go),
// which checks that no write of the shard began between its hit and the
// snapshot, or through getAt, which checks that every write of the shard
// had ended before the snapshot was taken (stamps, below); iterators
// never use it. Expired records are kept
// as they are: readers decode the expiry, as they do from RocksDB, and see
// an expired record as absent, which is what RocksDB holds once the
// metadata compaction filter dropped it without a write. The subkey filter,
// which tells the two apart, reads RocksDB itself (compact.go).
//
// The same cache, over another column family, keeps the records of
// stream consumer groups (Storage.records): a group's record and its
// consumers' are read and rewritten by every XREADGROUP and XACK. There a
// write stores what it wrote only over an entry already cached, so that
// the stream entries and pending entries written, which are seldom read
// by key, do not crowd the groups out.
//
// A third, over the default column family, keeps the elements commands
// read by name (DB.getElement), also storing writes only over cached
// entries, and only elements found: the memtables' filters answer most
// reads of absent ones, and the writes that add elements, whose reads
// miss, would otherwise fill it with every element written. The
// compaction filters drop two kinds of its records without a write: those
// of an older version of a key, which no reader asks for any more, and a
// bitmap's all-zero segments, which read as the absent segment they stand
// for. A list's elements are never cached, so
// that a list trim's range deletion leaves the cache alone
// (batch.delUncachedRange).
type metaCache struct {
	budget atomic.Int64 // bytes for all shards; 0 disables the cache
	seed   maphash.Seed
	shards [metaShards]metaShard
	cf     CF   // the column family whose records it keeps
	addNew bool // an applied write stores a record not cached yet
	// keepAbsent: a read that found no record stores its absence.
	keepAbsent bool
	// stamps counts the shards' invalidations, each write's two and a
	// clear's, and a shard keeps the count at its last one: a ReadView
	// notes the count before its snapshot, so a shard whose stamp is not
	// above it, with no write in flight, holds what the snapshot holds.
	stamps atomic.Uint64
}

const metaShards = 256

type metaShard struct {
	mu  sync.Mutex
	gen uint64 // bumped before and after every write of a record of the shard
	// stamp is the cache's stamps at the shard's last invalidation.
	stamp uint64
	// writing counts the writes of the shard's records between their two
	// invalidations.
	writing int
	// overlapped is set when a write of the shard began while another
	// was in flight, until none is: those writes do not write through.
	overlapped bool
	// m holds the offsets in ring of the entries, by the 64-bit hash of
	// their key (metaring.go). Two keys of one hash share the slot: the
	// last stored wins.
	m         map[uint64]uint32
	ring      []byte
	head, end uint32
	// touched is the most of the ring entries have used: what of it is
	// resident.
	touched uint32
	bytes   int64
	// hits and misses are counted per shard, under its lock: one counter
	// for all would be a cache line both cores write at every lookup.
	hits, misses int64
}

func newMetaCache(budget int64, cf CF, addNew, keepAbsent bool) *metaCache {
	c := &metaCache{seed: maphash.MakeSeed(), cf: cf, addNew: addNew, keepAbsent: keepAbsent}
	for i := range c.shards {
		c.shards[i].m = map[uint64]uint32{}
	}
	c.setBudget(budget)
	return c
}

// setBudget sets the bytes the cache may hold, mapping each shard a ring
// of its share (metaring.go); a shard whose share changed forgets what it
// held.
func (c *metaCache) setBudget(budget int64) {
	c.budget.Store(budget)
	size := ringShare(budget)
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		if int64(len(sh.ring)) != size {
			sh.remap(size)
		}
		sh.mu.Unlock()
	}
}

// ringShare is the ring of each shard of a cache of budget bytes.
func ringShare(budget int64) int64 { return min(budget/metaShards, maxRing) &^ 7 }

// release unmaps the shards' rings: the cache is not used again.
func (c *metaCache) release() {
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		sh.release()
		sh.mu.Unlock()
	}
}

// shard returns key's shard and its hash there.
func (c *metaCache) shard(key []byte) (*metaShard, uint64) {
	h := maphash.Bytes(c.seed, key)
	return &c.shards[h%metaShards], h
}

// noFill is the generation get returns while a write of the shard is in
// flight: fill then stores nothing.
const noFill = ^uint64(0)

// get appends key's cached value to dst. ok is false on a miss; gen is
// then the generation fill must be given. On a hit, gen is the shard's
// generation, for unchanged.
func (c *metaCache) get(key, dst []byte) (value []byte, found, ok bool, gen uint64) {
	sh, h := c.shard(key)
	sh.mu.Lock()
	off, ok := sh.entry(h, key)
	if !ok || sh.stale(off) {
		gen = sh.gen
		if sh.writing > 0 {
			gen = noFill
		}
		sh.misses++
		sh.mu.Unlock()
		return dst, false, false, gen
	}
	// Entries are rewritten in place: read them under the lock.
	value, found, gen = append(dst, sh.value(off)...), sh.found(off), sh.gen
	sh.hits++
	sh.mu.Unlock()
	return value, found, true, gen
}

// getAt appends key's cached value to dst when it is what a snapshot
// taken after the cache's stamps read stamp holds (asOfLocked). ok is
// false otherwise, or on a miss; the reader then reads its snapshot, and
// may fill what it read with fillAt.
func (c *metaCache) getAt(key, dst []byte, stamp uint64) (value []byte, found, ok bool) {
	sh, h := c.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if !sh.asOfLocked(stamp) {
		return dst, false, false
	}
	off, ok := sh.entry(h, key)
	if !ok || sh.stale(off) {
		sh.misses++
		return dst, false, false
	}
	sh.hits++
	return append(dst, sh.value(off)...), sh.found(off), true
}

// fillAt stores what a reader read at a snapshot taken after the cache's
// stamps read stamp, when the shard still holds what the snapshot holds
// (asOfLocked): then it is what RocksDB holds.
func (c *metaCache) fillAt(key, value []byte, found bool, stamp uint64) {
	if !found && !c.keepAbsent {
		return
	}
	sh, h := c.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.asOfLocked(stamp) {
		sh.storeLocked(h, key, value, found)
	}
}

// asOfLocked reports whether the shard holds what a snapshot taken after
// the cache's stamps read stamp holds: no write of it is in flight, and
// every write of it was counted in stamp, so applied before the snapshot.
func (sh *metaShard) asOfLocked(stamp uint64) bool {
	return sh.writing == 0 && sh.stamp <= stamp
}

// unchanged reports whether no write of key's shard began or ended since
// get returned gen: a value get returned is then still what RocksDB holds.
func (c *metaCache) unchanged(key []byte, gen uint64) bool {
	sh, _ := c.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.gen == gen
}

// fill stores what a reader read from RocksDB after get missed with gen,
// unless a write of the shard was in flight then or began since
// (storeLocked decides whether the record fits).
func (c *metaCache) fill(key, value []byte, found bool, gen uint64) {
	if gen == noFill || !found && !c.keepAbsent {
		return
	}
	sh, h := c.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.gen != gen {
		return
	}
	sh.storeLocked(h, key, value, found)
}

// invalidate forgets key before a write of it is applied (begin: the
// entry is kept, stale, for the write to reuse) and after.
func (c *metaCache) invalidate(key []byte, begin bool) {
	sh, h := c.shard(key)
	sh.mu.Lock()
	c.invalidateLocked(sh, begin)
	switch off, ok := sh.entry(h, key); {
	case !ok:
	case begin:
		sh.markStale(off)
	default:
		sh.forget(h, off)
	}
	sh.mu.Unlock()
}

// written ends a write of key that RocksDB applied, storing the record it
// wrote (value, or none when found is false) if the write was the shard's
// only one in flight throughout (and, unless addNew, the key is cached).
func (c *metaCache) written(key, value []byte, found bool) {
	sh, h := c.shard(key)
	sh.mu.Lock()
	off, cached := sh.entry(h, key)
	switch {
	case sh.writing == 1 && !sh.overlapped && (c.addNew || cached):
		// A record too large for the ring is not stored, and what the
		// shard held of the key goes (storeLocked).
		sh.storeLocked(h, key, value, found)
	case cached:
		sh.forget(h, off)
	}
	c.invalidateLocked(sh, false)
	sh.mu.Unlock()
}

func (c *metaCache) invalidateLocked(sh *metaShard, begin bool) {
	sh.gen++
	sh.stamp = c.stamps.Add(1)
	if begin {
		sh.overlapped = sh.overlapped || sh.writing > 0
		sh.writing++
		return
	}
	sh.writing--
	if sh.writing == 0 {
		sh.overlapped = false
	}
}

// invalidateAll forgets everything before a range deletion is applied
// (begin) and after.
func (c *metaCache) invalidateAll(begin bool) {
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		c.invalidateLocked(sh, begin)
		sh.reset()
		sh.mu.Unlock()
	}
}

// clear forgets everything (a reopened database).
func (c *metaCache) clear() {
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		sh.gen++
		sh.stamp = c.stamps.Add(1)
		sh.reset()
		sh.mu.Unlock()
	}
}

// counts returns how many lookups hit and missed.
func (c *metaCache) counts() (hits, misses int64) {
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		hits, misses = hits+sh.hits, misses+sh.misses
		sh.mu.Unlock()
	}
	return hits, misses
}

// size returns the bytes of the entries the cache holds.
func (c *metaCache) size() int64 {
	var n int64
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		n += sh.bytes
		sh.mu.Unlock()
	}
	return n
}

// resident returns the bytes of the cache's rings that entries have used
// so far, which stay resident when the entries go.
func (c *metaCache) resident() int64 {
	var n int64
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		n += int64(sh.touched)
		sh.mu.Unlock()
	}
	return n
}

// writePhase is where a RocksDB write is, for the metadata cache.
type writePhase uint8

const (
	writeBegins  writePhase = iota
	writeApplied            // RocksDB applied it
	writeFailed             // RocksDB refused it: what it holds is not known
)

// writeOps tells the cache of the records of its column family ops
// write, before they are applied and after: an applied put or delete
// writes through; a range deletion forgets everything.
func (c *metaCache) writeOps(ops []op, phase writePhase) {
	for _, o := range ops {
		if o.cf != c.cf {
			continue
		}
		switch {
		case o.kind == opDeleteRange && o.uncached:
		case o.kind == opDeleteRange:
			c.invalidateAll(phase == writeBegins)
		case o.kind != opPut && o.kind != opDelete:
		case phase == writeApplied:
			c.written(o.key, o.value, o.kind == opPut)
		default:
			c.invalidate(o.key, phase == writeBegins)
		}
	}
}
