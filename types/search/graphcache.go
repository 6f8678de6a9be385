package search

// graphCache keeps the HNSW graphs' records as last applied, decoded: an
// insertion reads hundreds of nodes and their edges, each read a RocksDB
// call without it. Only writes of graphs use it, and they hold the
// registry's graph lock until their batch is applied, so what it holds is
// what the column family holds: they read through it, and once their
// batch is applied move their records into it (a batch that fails empties
// it). Writes the lock does not see (a replica's batches, APPLYBATCH, a
// reopening) move the storage's LocklessWrites count, which empties it;
// so does FT.DROPINDEX. Queries read the graph through it too, under the
// lock's read side, and bring it what they had to read from the database
// (fillFrom), so that after a restart it fills without waiting for
// writes. Its size is bounded: past graphCacheBudget, entries go at
// random.
type graphCache struct {
	lockless uint64
	// gen counts the changes writes made to it (apply, reset): a query
	// fills it only if none came since it read the database.
	gen   uint64
	nodes map[string]cachedNode // by NodeKey
	edges map[string][][]byte   // edge targets by EdgesPrefix
	bytes int
}

// cachedNode is a node's record: ok is false when the key has no node.
type cachedNode struct {
	n  Node
	ok bool
}

// graphCacheBudget bounds the bytes a graphCache holds (about 100,000
// nodes of 64 dimensions with their edges).
const graphCacheBudget = 96 << 20

// The approximate memory of an entry, beyond its key and vector.
const (
	nodeOverhead = 64
	edgeOverhead = 24
)

func (c *graphCache) reset(lockless uint64) {
	*c = graphCache{lockless: lockless, gen: c.gen + 1}
}

// sync empties the cache when writes it did not see may have changed a
// graph since it was filled.
func (c *graphCache) sync(lockless uint64) {
	if c.nodes == nil || c.lockless != lockless {
		c.reset(lockless)
		c.nodes, c.edges = map[string]cachedNode{}, map[string][][]byte{}
	}
}

func nodeSize(key string, n Node) int { return len(key) + 8*len(n.Vector) + nodeOverhead }

func edgesSize(prefix string, to [][]byte) int {
	size := len(prefix) + edgeOverhead
	for _, k := range to {
		size += len(k) + edgeOverhead
	}
	return size
}

func (c *graphCache) putNode(key string, n cachedNode) {
	c.dropNode(key)
	c.nodes[key] = n
	c.bytes += nodeSize(key, n.n)
}

func (c *graphCache) dropNode(key string) {
	if old, ok := c.nodes[key]; ok {
		c.bytes -= nodeSize(key, old.n)
		delete(c.nodes, key)
	}
}

func (c *graphCache) putEdges(prefix string, to [][]byte) {
	c.dropEdges(prefix)
	c.edges[prefix] = to
	c.bytes += edgesSize(prefix, to)
}

func (c *graphCache) dropEdges(prefix string) {
	if old, ok := c.edges[prefix]; ok {
		c.bytes -= edgesSize(prefix, old)
		delete(c.edges, prefix)
	}
}

// trim drops entries, in the maps' random order, until the cache holds
// three quarters of its budget.
func (c *graphCache) trim() {
	if c.bytes <= graphCacheBudget {
		return
	}
	for k := range c.edges {
		if c.bytes <= graphCacheBudget*3/4 {
			return
		}
		c.dropEdges(k)
	}
	for k := range c.nodes {
		if c.bytes <= graphCacheBudget*3/4 {
			return
		}
		c.dropNode(k)
	}
}

// apply moves the records of a command's graph writes, applied, into the
// cache (one storeGraph per field: their records are disjoint).
func (c *graphCache) apply(graphs []*storeGraph) {
	c.gen++
	for _, g := range graphs {
		for key, n := range g.nodes {
			c.putNode(key, n)
		}
		for prefix, pend := range g.edges {
			if stored, read := g.stored[prefix]; read {
				c.putEdges(prefix, mergeEdges(stored, pend))
			} else {
				c.dropEdges(prefix)
			}
		}
	}
	c.trim()
}

// fillFrom brings the cache the records a query read from the database,
// when the graphs are still what the query saw: no write changed the
// cache (gen) and none it does not see came (lockless) since the query
// noted them, holding the graph lock's read side, before its reads. The
// caller holds the lock's write side.
func (c *graphCache) fillFrom(g *storeGraph, gen, lockless, locklessNow uint64) {
	if c.gen != gen || lockless != locklessNow {
		return
	}
	c.sync(lockless)
	for key, n := range g.fetched {
		if _, ok := c.nodes[key]; !ok {
			c.putNode(key, n)
		}
	}
	for prefix, to := range g.stored {
		if _, ok := c.edges[prefix]; !ok {
			c.putEdges(prefix, to)
		}
	}
	c.trim()
}
