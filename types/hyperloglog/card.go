package hyperloglog

import (
	"sync"

	"github.com/basaltdb/basalt/storage"
)

// cardCache caches the cardinality of single HyperLogLogs, as Redis caches
// it in its HLL header: PFCOUNT of one key, the common case, then costs a
// metadata read instead of a walk of the 16 segments and an estimate.
// There is one per Storage (cards).
//
// An entry is for one incarnation of a key (its version) and stays right
// while no segment of that incarnation changes. Segments change through
// PFADD and PFMERGE, which forget the entry under the key's lock, and
// single-key PFCOUNT reads and fills under the same lock; and through
// writes that take no key lock (a replica's or APPLYBATCH's raw batches,
// a reopened database), which Storage.LocklessWrites counts: an entry
// filled before, or by a count that began before, no longer counts.
type cardCache struct {
	mu sync.Mutex
	m  map[string]hllCard
}

type hllCard struct {
	version, gen uint64
	card         int64
}

// maxHLLCards bounds the entries; past it a random one makes room.
const maxHLLCards = 16384

// cardsKey identifies the cache among what the Storage keeps for type
// packages.
type cardsKey struct{}

// cards returns the cache of db's Storage.
func cards(db storage.DB) *cardCache {
	return db.Storage().Shared(cardsKey{}, func() any { return &cardCache{} }).(*cardCache)
}

func (c *cardCache) get(db storage.DB, nsKey []byte, version uint64) (int64, bool) {
	gen := db.Storage().LocklessWrites()
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[string(nsKey)]
	if !ok || e.version != version || e.gen != gen {
		return 0, false
	}
	return e.card, true
}

// put stores a count that began when Storage.LocklessWrites was gen,
// unless a write that takes no key lock came since.
func (c *cardCache) put(db storage.DB, nsKey []byte, version, gen uint64, card int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != db.Storage().LocklessWrites() {
		return
	}
	if c.m == nil {
		c.m = map[string]hllCard{}
	}
	if _, ok := c.m[string(nsKey)]; !ok && len(c.m) >= maxHLLCards {
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	c.m[string(nsKey)] = hllCard{version: version, gen: gen, card: card}
}

// forget drops the entry of nsKey, whose segments a command changes.
func (c *cardCache) forget(nsKey []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, string(nsKey))
}
