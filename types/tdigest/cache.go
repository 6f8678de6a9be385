package tdigest

import (
	"bytes"
	"sync"

	"github.com/basaltdb/basalt/storage"
)

// centroidCache keeps the centroids of merged t-digests, so that a query
// reads the metadata record alone instead of walking the centroid
// records, which every merge deletes and writes anew: the deleted ones
// stay in RocksDB as tombstones a walk steps over until a compaction
// drops them, thousands after a few dozen merges. There is one per
// Storage (centroidsOf).
//
// An entry is for one state of a key: its version and its metadata
// extension as the fill read them, with nothing buffered. Entries are
// filled only under the key's lock (Query with persist, in a write), and
// every write of the package forgets the key's entry under that lock
// before it commits, so an entry present was filled after the last
// commit; a reader whose metadata (read in its own snapshot) is not the
// entry's misses. Writes that take no key lock (a replica's or
// APPLYBATCH's raw batches, a reopened database) move
// Storage.LocklessWrites, which invalidates every entry filled before.
// The generic commands (DEL, RENAME, COPY, FLUSHALL) give a key a new
// version or metadata of another incarnation, which misses.
type centroidCache struct {
	mu    sync.Mutex
	m     map[string]cachedCentroids
	count int // centroids held, all entries together
}

type cachedCentroids struct {
	version, gen uint64
	ext          []byte
	centroids    []Centroid // shared by readers: never modified
}

// The entries and the centroids held (16 bytes each: 16 MiB) are
// bounded; past either bound random entries make room.
const (
	maxCachedDigests   = 4096
	maxCachedCentroids = 1 << 20
)

type centroidsKey struct{}

// centroidsOf returns the cache of db's Storage.
func centroidsOf(db storage.DB) *centroidCache {
	return db.Storage().Shared(centroidsKey{}, func() any { return &centroidCache{m: map[string]cachedCentroids{}} }).(*centroidCache)
}

// get returns the centroids of the key o, whose metadata extension is
// ext, when cached for that state.
func (c *centroidCache) get(db storage.DB, o *storage.Object, ext []byte) ([]Centroid, bool) {
	gen := db.Storage().LocklessWrites()
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[string(o.NSKey())]
	if !ok || e.version != o.Meta().Version || e.gen != gen || !bytes.Equal(e.ext, ext) {
		return nil, false
	}
	return e.centroids, true
}

// put caches the centroids of o read under its lock, with nothing
// buffered and ext its metadata extension, unless a write that takes no
// key lock came since gen, Storage.LocklessWrites before the read.
func (c *centroidCache) put(db storage.DB, o *storage.Object, ext []byte, centroids []Centroid, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != db.Storage().LocklessWrites() || len(centroids) > maxCachedCentroids {
		return
	}
	c.drop(string(o.NSKey()))
	for k := range c.m {
		if len(c.m) < maxCachedDigests && c.count+len(centroids) <= maxCachedCentroids {
			break
		}
		c.drop(k)
	}
	c.m[string(o.NSKey())] = cachedCentroids{version: o.Meta().Version, gen: gen, ext: ext, centroids: centroids}
	c.count += len(centroids)
}

// drop removes the entry of nsKey, if any; c.mu is held.
func (c *centroidCache) drop(nsKey string) {
	c.count -= len(c.m[nsKey].centroids)
	delete(c.m, nsKey)
}

// forget drops the entry of nsKey, which a write is about to change.
func (c *centroidCache) forget(nsKey []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drop(string(nsKey))
}
