package search

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
)

// Index maintenance: the storage's Indexer (storage/indexer.go) sees
// every command's batch before it applies, reads what the batch does to
// the documents of the indexes, and adds the index records that change
// to the same batch, so that an index and its documents never disagree,
// whatever the write (HSET, HDEL, DEL, EXPIRE, RENAME, RESTORE, MULTI,
// scripts). Kvrocks 5fccd57 writes them in a batch of their own after the
// command's: the records are the same.

func init() { storage.RegisterIndexer(maintain) }

// keyWrites is what a batch writes of one key.
type keyWrites struct {
	ns          string
	key         []byte
	metaWritten bool
	meta        []byte // the metadata record written; nil: deleted
	elems       []elemWrite
}

// elemWrite is a put or delete of one element of a version of a key.
type elemWrite struct {
	version    uint64
	sub, value []byte
	deleted    bool
}

// maintain is the Indexer.
func maintain(db storage.DB, b storage.Batch) (func(error), error) {
	s := db.Storage()
	if s.Layout().Cluster {
		return nil, nil // Kvrocks indexes nothing in cluster mode
	}
	reg := registryOf(s)
	if any, err := reg.any(db); err != nil || !any {
		return nil, err
	}
	writes := batchWrites(s.Layout(), b)
	m := &maintenance{db: db, b: b, reg: reg}
	for _, w := range writes {
		ixs, err := reg.indexesOf(db, w.ns)
		if err != nil {
			return nil, err
		}
		ix := indexOf(ixs, w.key)
		if ix == nil {
			continue
		}
		if ex, ok := extractors[ix.Schema.On]; ok {
			if err := m.update(ix, ex, w); err != nil {
				m.release(err)
				return nil, err
			}
		}
	}
	m.flushGraphs()
	return m.finish(), nil
}

// indexOf returns the index that keeps key's records: as in Kvrocks, of
// the indexes of its namespace, the one with the longest prefix of key
// (no prefix counts as the empty one), the first by name among equals.
// A key of another type than that index's is in no index.
func indexOf(ixs map[string]*Index, key []byte) *Index {
	var best *Index
	bestLen := -1
	for name, ix := range ixs {
		prefixes := ix.Schema.Prefixes
		if len(prefixes) == 0 {
			prefixes = []string{""}
		}
		for _, p := range prefixes {
			longer := len(p) > bestLen || (len(p) == bestLen && name < best.Schema.Name)
			if longer && bytes.HasPrefix(key, []byte(p)) {
				best, bestLen = ix, len(p)
			}
		}
	}
	return best
}

// batchWrites groups a batch's records of metadata and elements by key.
func batchWrites(layout metadata.Layout, b storage.Batch) []*keyWrites {
	var out []*keyWrites
	var byKey map[string]*keyWrites // made once the batch has many keys
	find := func(ns, key []byte) *keyWrites {
		if n := len(out); n > 0 && out[n-1].ns == string(ns) && bytes.Equal(out[n-1].key, key) {
			return out[n-1]
		}
		if byKey == nil && len(out) >= 8 {
			byKey = map[string]*keyWrites{}
			for _, w := range out {
				byKey[keyID(w.ns, w.key)] = w
			}
		}
		if byKey != nil {
			if w := byKey[keyID(string(ns), key)]; w != nil {
				return w
			}
		} else {
			for _, w := range out {
				if w.ns == string(ns) && bytes.Equal(w.key, key) {
					return w
				}
			}
		}
		w := &keyWrites{ns: string(ns), key: key}
		if byKey != nil {
			byKey[keyID(w.ns, key)] = w
		}
		out = append(out, w)
		return w
	}
	b.Records(func(cf storage.CF, key, value []byte, deleted bool) {
		switch cf {
		case storage.CFMetadata:
			if ns, k, err := layout.ParseNSKey(key); err == nil {
				w := find(ns, k)
				w.metaWritten, w.meta = true, value
				if deleted {
					w.meta = nil
				}
			}
		case storage.CFDefault:
			if ik, err := layout.ParseInternalKey(key); err == nil {
				w := find(ik.Namespace, ik.Key)
				w.elems = append(w.elems, elemWrite{ik.Version, ik.Sub, value, deleted})
			}
		}
	})
	return out
}

// keyID names a key of a namespace in a map.
func keyID(ns string, key []byte) string {
	return string(metadata.AppendNamespacePrefix(nil, ns)) + string(key)
}

// maintenance is the index work of one batch.
type maintenance struct {
	db     storage.DB
	b      storage.Batch
	reg    *registry
	locked bool // holds reg.graph
	// graphs are the graph writes of the batch, in order.
	graphs []*storeGraph
}

// release releases the graph lock if taken, once the batch is applied
// (err nil) or failed: the graph cache takes the graphs' records, or,
// when the batch failed or writes it did not see came meanwhile, empties.
func (m *maintenance) release(err error) {
	if !m.locked {
		return
	}
	c := &m.reg.graphs
	if err == nil && m.db.Storage().LocklessWrites() == c.lockless {
		c.apply(m.graphs)
	} else {
		c.reset(0)
	}
	m.graphs = nil
	m.locked = false
	m.reg.graph.Unlock()
}

// finish returns what the storage calls once the batch is applied: nil
// when no graph changed, so that the batch joins its group as usual.
func (m *maintenance) finish() func(error) {
	if !m.locked {
		return nil
	}
	return m.release
}

// update writes the changes of ix's records for the document w writes.
func (m *maintenance) update(ix *Index, ex extractor, w *keyWrites) error {
	db := m.db.Sibling(w.ns)
	// Judged at time 1, expired documents count as there: their records
	// are still in the index, and go now.
	before, err := db.At(1).Lookup(w.key)
	if err != nil {
		return err
	}
	if before != nil && before.Meta().Type != ex.keyType {
		before = nil
	}
	old, err := m.values(ix, ex, before, nil)
	if err != nil {
		return err
	}
	after, afterMeta, err := afterState(db, ex, before, w)
	if err != nil {
		return err
	}
	var cur docValues
	if afterMeta != nil {
		cur, err = m.values(ix, ex, after, &docWrites{w: w, version: afterMeta.Version, rest: afterMeta.rest, meta: &afterMeta.Metadata})
		if err != nil {
			return err
		}
	}
	return m.write(ix, w.key, old, cur)
}

// afterMeta is the key's metadata once the batch applies.
type afterMeta struct {
	metadata.Metadata
	rest []byte
}

// afterState returns the document's state once the batch applies: the
// stored key whose elements it keeps (nil: none), and its metadata (nil:
// no document of the kind).
func afterState(db storage.DB, ex extractor, before *storage.Object, w *keyWrites) (*storage.Object, *afterMeta, error) {
	if !w.metaWritten {
		if before == nil {
			return nil, nil, nil
		}
		return before, &afterMeta{*before.Meta(), before.Ext()}, nil
	}
	if w.meta == nil {
		return nil, nil, nil
	}
	md, rest, err := metadata.Decode(w.meta)
	if err != nil || md.Type != ex.keyType || md.Dead(time.Now().UnixMilli()) {
		return nil, nil, nil
	}
	if before != nil && before.Meta().Version != md.Version {
		before = nil // a new incarnation: its elements are all in the batch
	}
	return before, &afterMeta{md, rest}, nil
}

// docWrites are the batch's writes of a document's version.
type docWrites struct {
	w       *keyWrites
	version uint64
	rest    []byte
	meta    *metadata.Metadata // what the batch leaves
}

// values reads ix's values of a document: o's stored elements (o nil:
// none), with the batch's writes of its version over them when dw is set.
// A document that does not extract (a field of the wrong kind) has none.
func (m *maintenance) values(ix *Index, ex extractor, o *storage.Object, dw *docWrites) (docValues, error) {
	if o == nil && dw == nil {
		return nil, nil
	}
	st, err := readState(ix.Schema, o, dw)
	if err != nil {
		return nil, err
	}
	if v, err := ex.extract(st); err == nil {
		return v, nil
	}
	return nil, nil // not indexed, as in Kvrocks
}

// readState reads the schema's fields of a document: o's stored ones (o
// nil: none), with the batch's writes of its version over them when dw is
// set.
func readState(s *Schema, o *storage.Object, dw *docWrites) (*docState, error) {
	st := newDocState(s, nil)
	if o != nil {
		st.rest = o.Ext()
		if !o.Meta().Type.SingleKV() {
			vals, err := o.GetElements(fieldSubkeys(s, o))
			if err != nil {
				return nil, err
			}
			for i, v := range vals {
				st.setField(i, o.Meta(), v)
			}
		}
	}
	if dw != nil {
		st.rest = dw.rest
		for _, e := range dw.w.elems {
			if e.version != dw.version {
				continue
			}
			var v []byte
			if !e.deleted {
				v = e.value
			}
			st.setNamed(e.sub, dw.meta, v)
		}
	}
	return st, nil
}

// write puts and deletes the records that differ between a document's
// old and current values.
func (m *maintenance) write(ix *Index, key []byte, old, cur docValues) error {
	for i := range ix.Schema.Fields {
		f := &ix.Schema.Fields[i]
		if f.NoIndex {
			continue
		}
		o, hadOld := old.at(i)
		c, hasCur := cur.at(i)
		switch f.Type {
		case FieldTag:
			m.writeTags(ix, f, key, o.tags, c.tags)
		case FieldNumeric:
			if hadOld == hasCur && o.num == c.num {
				continue
			}
			if hadOld {
				m.b.Delete(storage.CFSearch, NumericKey(ix.NS, ix.Schema.Name, f.Name, o.num, key))
			}
			if hasCur {
				m.b.Put(storage.CFSearch, NumericKey(ix.NS, ix.Schema.Name, f.Name, c.num, key), []byte{})
			}
		case FieldVector:
			if hadOld == hasCur && slices.Equal(o.vector, c.vector) {
				continue
			}
			if err := m.writeVector(ix, f, key, c.vector); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeTags writes the tags added and deletes those removed.
func (m *maintenance) writeTags(ix *Index, f *Field, key []byte, old, cur []string) {
	for _, t := range old {
		if _, found := slices.BinarySearch(cur, t); !found {
			m.b.Delete(storage.CFSearch, TagKey(ix.NS, ix.Schema.Name, f.Name, []byte(t), key))
		}
	}
	for _, t := range cur {
		if _, found := slices.BinarySearch(old, t); !found {
			m.b.Put(storage.CFSearch, TagKey(ix.NS, ix.Schema.Name, f.Name, []byte(t), key), []byte{})
		}
	}
}

// writeVector replaces key's node in the field's graph by one of v (nil:
// none).
func (m *maintenance) writeVector(ix *Index, f *Field, key []byte, v []float64) error {
	g, err := m.graph(ix, f)
	if err != nil {
		return err
	}
	h := &HNSWIndex{Graph: g, Params: &g.meta.Vector, Uniform: rand.Float64}
	// Deleted whether the old document had a vector or not: a backfill
	// may have indexed the document already.
	if err := h.Delete(key); err != nil {
		return err
	}
	if v != nil {
		return h.Insert(key, v)
	}
	return nil
}

// graph returns the batch's writes of field f's graph, begun the first
// time under the graph lock, which holds until the batch is applied: the
// next graph write must read this one's records. One per field, so that
// the batch's insertions see each other's records.
func (m *maintenance) graph(ix *Index, f *Field) (*storeGraph, error) {
	for _, g := range m.graphs {
		if g.index == ix.Schema.Name && g.field == f.Name && bytes.Equal(g.ns, ix.NS) {
			return g, nil
		}
	}
	if !m.locked {
		m.reg.graph.Lock()
		m.locked = true
		m.reg.graphs.sync(m.db.Storage().LocklessWrites())
	}
	db := m.db.Sibling(string(ix.NS))
	vals, err := db.GetMany(nil, storage.CFSearch, [][]byte{FieldMetaKey(ix.NS, ix.Schema.Name, f.Name)})
	if err != nil {
		return nil, err
	}
	g := newStoreGraph(db, nil, ix, f.Name)
	g.cache, g.fill, g.meta = &m.reg.graphs, true, *f
	if vals[0] != nil {
		if g.meta, err = DecodeFieldMeta(f.Name, vals[0]); err != nil {
			return nil, err
		}
	}
	g.levels = g.meta.Vector.NumLevels
	m.graphs = append(m.graphs, g)
	return g, nil
}

// flushGraphs puts the graphs' records in the batch, and the metadata of
// the fields whose graph has a new number of levels.
func (m *maintenance) flushGraphs() {
	for _, g := range m.graphs {
		g.flush(m.b)
		if g.meta.Vector.NumLevels != g.levels {
			m.b.Put(storage.CFSearch, FieldMetaKey(g.ns, g.index, g.field), EncodeFieldMeta(&g.meta))
		}
	}
}
