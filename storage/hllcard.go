package storage

import "sync"

// hllCards caches the cardinality of single HyperLogLogs, as Redis caches
// it in its HLL header: PFCOUNT of one key, the common case, then costs a
// metadata read instead of a walk of the 16 segments and an estimate.
//
// An entry is for one incarnation of a key (its version) and stays right
// while no segment of that incarnation changes. Segments change through
// PFADD and PFMERGE, which forget the entry under the key's lock, and
// single-key PFCOUNT reads and fills under the same lock; and through
// writes that take no key lock (a replica's or APPLYBATCH's raw batches,
// range deletions, a reopened database), which bump gen: an entry filled
// before, or by a count that began before, no longer counts.
type hllCards struct {
	mu  sync.Mutex
	gen uint64
	m   map[string]hllCard
}

type hllCard struct {
	version, gen uint64
	card         int64
}

// maxHLLCards bounds the entries; past it a random one makes room.
const maxHLLCards = 16384

// generation returns the current generation, for a count to fill with.
func (c *hllCards) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

func (c *hllCards) get(nsKey []byte, version uint64) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[string(nsKey)]
	if !ok || e.version != version || e.gen != c.gen {
		return 0, false
	}
	return e.card, true
}

// put stores a count that began at generation gen, unless a write that
// takes no key lock came since.
func (c *hllCards) put(nsKey []byte, version, gen uint64, card int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
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
func (c *hllCards) forget(nsKey []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, string(nsKey))
}

// invalidateAll makes every entry stale (a write that takes no key lock).
func (c *hllCards) invalidateAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.m)
}
