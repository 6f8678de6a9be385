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
// Reads at a snapshot and iterators never use it. Expired records are kept
// as they are: readers decode the expiry, as they do from RocksDB, and see
// an expired record as absent, which is what RocksDB holds once the
// metadata compaction filter dropped it without a write. The subkey filter,
// which tells the two apart, reads RocksDB itself (compact.go).
type metaCache struct {
	budget atomic.Int64 // bytes for all shards; 0 disables the cache
	seed   maphash.Seed
	shards [metaShards]metaShard

	hits, misses atomic.Int64
}

const metaShards = 256

// metaEntryOverhead is what an entry costs beyond its key and value: the
// map's slot, the string and slice headers.
const metaEntryOverhead = 64

type metaShard struct {
	mu  sync.Mutex
	gen uint64 // bumped before and after every write of a record of the shard
	// writing counts the writes of the shard's records between their two
	// invalidations.
	writing int
	m       map[string]metaEntry
	bytes   int64
}

// metaEntry is a cached record: its value, or found false for a record
// that does not exist.
type metaEntry struct {
	value []byte
	found bool
}

func newMetaCache(budget int64) *metaCache {
	c := &metaCache{seed: maphash.MakeSeed()}
	c.budget.Store(budget)
	for i := range c.shards {
		c.shards[i].m = map[string]metaEntry{}
	}
	return c
}

func (c *metaCache) shard(key []byte) *metaShard {
	return &c.shards[maphash.Bytes(c.seed, key)%metaShards]
}

// noFill is the generation get returns while a write of the shard is in
// flight: fill then stores nothing.
const noFill = ^uint64(0)

// get appends key's cached value to dst. ok is false on a miss; gen is
// then the generation fill must be given.
func (c *metaCache) get(key, dst []byte) (value []byte, found, ok bool, gen uint64) {
	sh := c.shard(key)
	sh.mu.Lock()
	e, ok := sh.m[string(key)]
	if !ok {
		gen = sh.gen
		if sh.writing > 0 {
			gen = noFill
		}
		sh.mu.Unlock()
		c.misses.Add(1)
		return dst, false, false, gen
	}
	value = append(dst, e.value...)
	sh.mu.Unlock()
	c.hits.Add(1)
	return value, e.found, true, 0
}

// fill stores what a reader read from RocksDB after get missed with gen,
// unless a write of the shard was in flight then or began since.
func (c *metaCache) fill(key, value []byte, found bool, gen uint64) {
	limit := c.budget.Load() / metaShards
	size := int64(len(key)+len(value)) + metaEntryOverhead
	if size > limit || gen == noFill {
		return
	}
	sh := c.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.gen != gen {
		return
	}
	if old, ok := sh.m[string(key)]; ok {
		sh.bytes -= int64(len(key)+len(old.value)) + metaEntryOverhead
	}
	// Go's map order is random: the first entries met are random ones.
	for k, e := range sh.m {
		if sh.bytes+size <= limit {
			break
		}
		delete(sh.m, k)
		sh.bytes -= int64(len(k)+len(e.value)) + metaEntryOverhead
	}
	sh.m[string(key)] = metaEntry{value: append([]byte(nil), value...), found: found}
	sh.bytes += size
}

// invalidate forgets key before a write of it is applied (begin) and
// after.
func (c *metaCache) invalidate(key []byte, begin bool) {
	sh := c.shard(key)
	sh.mu.Lock()
	sh.invalidateLocked(begin)
	if old, ok := sh.m[string(key)]; ok {
		delete(sh.m, string(key))
		sh.bytes -= int64(len(key)+len(old.value)) + metaEntryOverhead
	}
	sh.mu.Unlock()
}

func (sh *metaShard) invalidateLocked(begin bool) {
	sh.gen++
	if begin {
		sh.writing++
	} else {
		sh.writing--
	}
}

// invalidateAll forgets everything before a range deletion is applied
// (begin) and after.
func (c *metaCache) invalidateAll(begin bool) {
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		sh.invalidateLocked(begin)
		clear(sh.m)
		sh.bytes = 0
		sh.mu.Unlock()
	}
}

// clear forgets everything (a reopened database).
func (c *metaCache) clear() {
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		sh.gen++
		clear(sh.m)
		sh.bytes = 0
		sh.mu.Unlock()
	}
}

// size returns the bytes the cache holds.
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

// invalidateOps invalidates the metadata records ops write, before they
// are applied (begin) and after; a range deletion of metadata forgets
// everything.
func (c *metaCache) invalidateOps(ops []op, begin bool) {
	for _, o := range ops {
		if o.cf != CFMetadata {
			continue
		}
		switch o.kind {
		case opPut, opDelete:
			c.invalidate(o.key, begin)
		case opDeleteRange:
			c.invalidateAll(begin)
		}
	}
}
