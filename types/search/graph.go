package search

import (
	"bytes"
	"slices"

	"github.com/basaltdb/basalt/storage"
)

// storeGraph is a vector field's HNSW graph in the search column family
// (the Graph HNSWIndex works on): reads as of rv (nil: the latest, the
// write's pending records included), and writes kept in pending, which
// reads see, until flush puts them in the command's batch.
type storeGraph struct {
	db           storage.DB
	rv           *storage.ReadView
	ns           []byte
	index, field string
	// pending holds the records written, by key; a nil value is a
	// deletion. edges indexes the pending edges by their EdgesPrefix.
	pending map[string][]byte
	edges   map[string]map[string]bool
	order   []string // pending's keys in the order first written
	// stored caches the edges read from the database, by EdgesPrefix:
	// an insertion reads the same nodes' edges at several steps.
	stored map[string][][]byte
	// cache holds the records as applied (graphcache.go), for a write
	// holding the graph lock, which fills it (fill), or a query holding
	// it to read; nodes are the nodes written, by key, which the cache
	// takes once the write is applied.
	cache *graphCache
	fill  bool
	nodes map[string]cachedNode
	// fetched are the nodes a query read from the database, by key, for
	// the cache (graphCache.fillFrom); nil for a write, which fills it.
	fetched map[string]cachedNode
	// meta is the field as stored, its NumLevels as the writes grow it;
	// levels is its NumLevels as read.
	meta   Field
	levels uint16
	// levelPrefixes are each level's NodesPrefix and edge prefix (the
	// EdgesPrefix of every node before its key), built once; nodeKey and
	// edgesKey are where a search builds the keys it looks up, so that a
	// lookup the caches answer allocates nothing.
	levelPrefixes     [][2][]byte
	nodeKey, edgesKey []byte
}

func newStoreGraph(db storage.DB, rv *storage.ReadView, ix *Index, field string) *storeGraph {
	return &storeGraph{db: db, rv: rv, ns: ix.NS, index: ix.Schema.Name, field: field,
		pending: map[string][]byte{}, edges: map[string]map[string]bool{}, stored: map[string][][]byte{},
		nodes: map[string]cachedNode{}}
}

func (g *storeGraph) write(key, value []byte) {
	k := string(key)
	if _, seen := g.pending[k]; !seen {
		g.order = append(g.order, k)
	}
	g.pending[k] = value
}

func (g *storeGraph) Node(level uint16, key []byte) (Node, bool, error) {
	nodes, err := g.Nodes(level, [][]byte{key})
	if err != nil {
		return Node{}, false, err
	}
	return nodes[0], nodes[0].Vector != nil, nil
}

// Nodes reads the nodes: written by this write, then in the cache, then
// in the database (what it reads there joins the cache).
func (g *storeGraph) Nodes(level uint16, keys [][]byte) ([]Node, error) {
	out := make([]Node, len(keys))
	var missing [][]byte
	var at []int
	nodes, _ := g.prefixes(level)
	for i, k := range keys {
		g.nodeKey = appendSized(append(g.nodeKey[:0], nodes...), k)
		nk := g.nodeKey
		if n, ok := g.nodes[string(nk)]; ok {
			out[i] = n.n
			continue
		}
		if g.cache != nil {
			if n, ok := g.cache.nodes[string(nk)]; ok {
				out[i] = n.n
				continue
			}
		}
		missing, at = append(missing, slices.Clone(nk)), append(at, i)
	}
	if len(missing) == 0 {
		return out, nil
	}
	vals, err := g.db.GetMany(g.rv, storage.CFSearch, missing)
	if err != nil {
		return nil, err
	}
	for j, v := range vals {
		var n cachedNode
		if v != nil {
			if n.n, err = DecodeNode(v); err != nil {
				return nil, err
			}
			n.ok = true
		}
		out[at[j]] = n.n
		switch {
		case g.fill:
			g.cache.putNode(string(missing[j]), n)
		case g.fetched != nil:
			g.fetched[string(missing[j])] = n
		}
	}
	return out, nil
}

func (g *storeGraph) Neighbours(level uint16, key []byte) ([][]byte, error) {
	_, edges := g.prefixes(level)
	g.edgesKey = appendSized(append(g.edgesKey[:0], edges...), key)
	prefix := g.edgesKey
	stored, err := g.storedEdges(prefix)
	if err != nil {
		return nil, err
	}
	return mergeEdges(stored, g.edges[string(prefix)]), nil
}

// prefixes returns the level's NodesPrefix and edge prefix.
func (g *storeGraph) prefixes(level uint16) (nodes, edges []byte) {
	for int(level) >= len(g.levelPrefixes) {
		l := uint16(len(g.levelPrefixes))
		g.levelPrefixes = append(g.levelPrefixes, [2][]byte{NodesPrefix(g.ns, g.index, g.field, l), append(LevelPrefix(g.ns, g.index, g.field, l), hnswEdge)})
	}
	p := g.levelPrefixes[level]
	return p[0], p[1]
}

// mergeEdges returns the edge targets stored with the pending changes
// over them (true: added, false: deleted), in the order of their records.
func mergeEdges(stored [][]byte, pend map[string]bool) [][]byte {
	if len(pend) == 0 {
		return stored
	}
	out := make([][]byte, 0, len(stored)+len(pend))
	for _, to := range stored {
		if present, ok := pend[string(to)]; !ok || present {
			out = append(out, to)
		}
	}
	for to, present := range pend {
		if present && !containsKey(out, []byte(to)) {
			out = append(out, []byte(to))
		}
	}
	slices.SortFunc(out, compareSized)
	return out
}

// compareSized orders keys as their sized() encodings sort: by length,
// then by bytes.
func compareSized(a, b []byte) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return bytes.Compare(a, b)
}

// storedEdges reads the keys of the edges under prefix as applied, once:
// from the cache, or the database (and then into the cache). The cache
// does not change while a graph is used (a query holds the graph lock's
// read side, a write its write side and fills the cache only with what
// it lacks), so what it holds need not be kept in stored too.
func (g *storeGraph) storedEdges(prefix []byte) ([][]byte, error) {
	if keys, ok := g.stored[string(prefix)]; ok {
		return keys, nil
	}
	if g.cache != nil {
		if keys, ok := g.cache.edges[string(prefix)]; ok {
			if g.fill { // apply merges the write's edges with these
				g.stored[string(prefix)] = keys
			}
			return keys, nil
		}
	}
	keys := [][]byte{}
	var perr error
	err := g.db.ScanRange(g.rv, storage.CFSearch, prefix, successor(prefix), func(k, _ []byte) bool {
		to, err := ParseSizedKey(k[len(prefix):])
		if err != nil {
			perr = err
			return false
		}
		keys = append(keys, append([]byte(nil), to...))
		return true
	})
	if err = firstError(err, perr); err != nil {
		return nil, err
	}
	g.stored[string(prefix)] = keys
	if g.fill {
		g.cache.putEdges(string(prefix), keys)
	}
	return keys, nil
}

func (g *storeGraph) FirstNode(level uint16) ([]byte, bool, error) {
	prefix := NodesPrefix(g.ns, g.index, g.field, level)
	var first []byte
	var perr error
	err := g.db.ScanRange(g.rv, storage.CFSearch, prefix, successor(prefix), func(k, _ []byte) bool {
		if v, ok := g.pending[string(k)]; ok && v == nil {
			return true // deleted meanwhile
		}
		first, perr = ParseSizedKey(k[len(prefix):])
		first = append([]byte(nil), first...)
		return false
	})
	if err != nil || perr != nil {
		return nil, false, firstError(err, perr)
	}
	for k, v := range g.pending {
		if v == nil || !bytes.HasPrefix([]byte(k), prefix) {
			continue
		}
		key, err := ParseSizedKey([]byte(k)[len(prefix):])
		if err != nil {
			continue
		}
		if first == nil || bytes.Compare(NodeKey(g.ns, g.index, g.field, level, key), NodeKey(g.ns, g.index, g.field, level, first)) < 0 {
			first = key
		}
	}
	return first, first != nil, nil
}

func (g *storeGraph) PutNode(level uint16, key []byte, n Node) error {
	nk := NodeKey(g.ns, g.index, g.field, level, key)
	g.write(nk, EncodeNode(n))
	g.nodes[string(nk)] = cachedNode{n, true}
	return nil
}

func (g *storeGraph) DeleteNode(level uint16, key []byte) error {
	nk := NodeKey(g.ns, g.index, g.field, level, key)
	g.write(nk, nil)
	g.nodes[string(nk)] = cachedNode{}
	return nil
}

func (g *storeGraph) AddEdge(level uint16, from, to []byte) error {
	g.edge(level, from, to, true)
	return nil
}

func (g *storeGraph) DeleteEdge(level uint16, from, to []byte) error {
	g.edge(level, from, to, false)
	return nil
}

func (g *storeGraph) edge(level uint16, from, to []byte, present bool) {
	prefix := string(EdgesPrefix(g.ns, g.index, g.field, level, from))
	m := g.edges[prefix]
	if m == nil {
		m = map[string]bool{}
		g.edges[prefix] = m
	}
	m[string(to)] = present
	v := []byte(nil)
	if present {
		v = []byte{}
	}
	g.write(EdgeKey(g.ns, g.index, g.field, level, from, to), v)
}

// flush puts the pending records in b.
func (g *storeGraph) flush(b storage.Batch) {
	for _, k := range g.order {
		if v := g.pending[k]; v == nil {
			b.Delete(storage.CFSearch, []byte(k))
		} else {
			b.Put(storage.CFSearch, []byte(k), v)
		}
	}
}

func containsKey(keys [][]byte, k []byte) bool {
	for _, x := range keys {
		if bytes.Equal(x, k) {
			return true
		}
	}
	return false
}

func firstError(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
