package search

import (
	"errors"
	"sort"
	"time"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
)

// FT.CREATE, FT.DROPINDEX and the lookups of the other commands, over
// the registry and the search column family of namespace db.

// ErrIndexExists's and the lookups' texts, as Kvrocks words them.
var (
	errExists   = fail(ErrIndexExists, "index already exists")
	errNotFound = fail(ErrNoIndex, "index not found")
)

// Find returns the index named name of db's namespace, or an ErrNoIndex
// error worded as FT.INFO's and FT.DROPINDEX's.
func Find(db storage.DB, name string) (*Index, error) {
	ixs, err := registryOf(db.Storage()).indexesOf(db, db.Namespace())
	if err != nil {
		return nil, err
	}
	if ix := ixs[name]; ix != nil {
		return ix, nil
	}
	return nil, errNotFound
}

// List returns the names of db's namespace's indexes, in name order.
func List(db storage.DB) ([]string, error) {
	ixs, err := registryOf(db.Storage()).indexesOf(db, db.Namespace())
	return names(ixs), err
}

// Create writes a new index's records in one batch and registers it;
// its existing documents are then indexed by Backfill. It runs outside
// any write (it takes the write door itself).
func Create(s *storage.Storage, ns string, schema *Schema) (*Index, error) {
	reg := registryOf(s)
	reg.ddl.Lock()
	defer reg.ddl.Unlock()
	db := s.DB(ns)
	ixs, err := reg.indexesOf(db, ns)
	if err != nil {
		return nil, err
	}
	if ixs[schema.Name] != nil {
		return nil, errExists
	}
	ix := &Index{Schema: schema, NS: []byte(ns)}
	ix.Backfill.running.Store(true)
	var werr error
	err = s.Update(&storage.Write{NS: ns}, func(db storage.DB) {
		b := db.NewBatch(nil)
		for _, r := range SchemaRecords(ix.NS, schema) {
			b.Put(storage.CFSearch, r.Key, r.Value)
		}
		werr = b.Commit()
	})
	if err = firstError(werr, err); err != nil {
		return nil, err
	}
	reg.add(ns, ix)
	return ix, nil
}

// Drop deletes an index's records and forgets it. The documents stay.
func Drop(s *storage.Storage, ns, name string) error {
	reg := registryOf(s)
	reg.ddl.Lock()
	defer reg.ddl.Unlock()
	ix, err := Find(s.DB(ns), name)
	if err != nil {
		return err
	}
	ix.Backfill.running.Store(false)
	// Writes of the graph wait: none may read the records going, nor
	// the cache's.
	reg.graph.Lock()
	defer reg.graph.Unlock()
	reg.graphs.reset(0)
	var werr error
	err = s.Update(&storage.Write{NS: ns}, func(db storage.DB) {
		b := db.NewBatch(nil)
		for _, r := range IndexRanges(ix.NS, name) {
			b.DeleteRange(storage.CFSearch, r[0], r[1])
		}
		werr = b.Commit()
	})
	if err = firstError(werr, err); err != nil {
		return err
	}
	reg.remove(ns, name)
	return nil
}

// backfillBudget bounds the time one step of a backfill holds its keys'
// locks; backfillKeys the keys it takes.
const (
	backfillBudget = 2 * time.Millisecond
	backfillKeys   = 64
)

// Backfill indexes the documents that existed when ix was created, a few
// keys at a time under their locks, so that other clients wait for one
// step at most; writes meanwhile index their documents themselves. It
// returns when done, or when the index is dropped.
func Backfill(s *storage.Storage, ns string, ix *Index) error {
	defer ix.Backfill.running.Store(false)
	ex, ok := extractors[ix.Schema.On]
	if !ok {
		return nil
	}
	keys, err := coveredKeys(s.DB(ns), ix, ex.keyType)
	if err != nil {
		return err
	}
	ix.Backfill.total.Store(int64(len(keys)))
	for len(keys) > 0 && ix.Backfill.running.Load() {
		n := min(len(keys), backfillKeys)
		done, err := backfillStep(s, ns, ix, ex, keys[:n])
		if err != nil {
			return err
		}
		ix.Backfill.examined.Add(int64(done))
		keys = keys[done:]
	}
	return nil
}

// backfillStep indexes keys from the first until the time budget is
// spent, in one write under their locks, and returns how many it did.
func backfillStep(s *storage.Storage, ns string, ix *Index, ex extractor, keys [][]byte) (int, error) {
	done := 0
	var werr error
	err := s.Update(&storage.Write{NS: ns, Keys: keys}, func(db storage.DB) {
		if reg := registryOf(s); !ix.Backfill.running.Load() || !reg.registered(ns, ix.Schema.Name) {
			done = len(keys)
			return
		}
		start := time.Now()
		m := &maintenance{db: db, reg: registryOf(s)}
		defer func() { m.release(werr) }()
		for done < len(keys) && (done == 0 || time.Since(start) < backfillBudget) {
			if werr = m.backfill(ix, ex, keys[done]); werr != nil {
				return
			}
			done++
		}
	})
	return done, firstError(werr, err)
}

// backfill indexes one document as it is, in a batch of its own.
func (m *maintenance) backfill(ix *Index, ex extractor, key []byte) error {
	db := m.db.Sibling(string(ix.NS))
	o, err := db.Lookup(key)
	if err != nil || o == nil || o.Meta().Type != ex.keyType {
		return err
	}
	cur, err := m.values(ix, ex, o, nil)
	if err != nil || cur == nil {
		return err
	}
	m.b = db.NewBatch(nil)
	if err := m.write(ix, key, nil, cur); err != nil {
		return err
	}
	if !m.locked {
		return m.b.Commit()
	}
	m.flushGraphs()
	err = m.b.CommitNow()
	m.release(err)
	return err
}

// coveredKeys lists the live keys of type t under the index's prefixes.
func coveredKeys(db storage.DB, ix *Index, t metadata.Type) ([][]byte, error) {
	prefixes := ix.Schema.Prefixes
	if len(prefixes) == 0 {
		prefixes = []string{""}
	}
	seen := map[string]bool{}
	var out [][]byte
	for _, p := range prefixes {
		var from []byte
		for {
			keys, next, err := db.Scan(storage.ScanArgs{From: from, Match: escapeGlob(p), Count: 1000, Type: t})
			if err != nil {
				return nil, err
			}
			for _, k := range keys {
				if !seen[string(k)] {
					seen[string(k)] = true
					out = append(out, k)
				}
			}
			if next == nil {
				break
			}
			from = next
		}
	}
	sort.Slice(out, func(i, j int) bool { return string(out[i]) < string(out[j]) })
	return out, nil
}

// TagValues lists the tags stored for a tag field, in order; none for a
// field that is not one.
func TagValues(db storage.DB, ix *Index, field string) ([]string, error) {
	f := ix.Schema.Field(field)
	if f == nil || f.Type != FieldTag {
		return nil, nil
	}
	prefix := FieldDataPrefix(ix.NS, ix.Schema.Name, f.Name)
	var out []string
	var perr error
	err := db.ScanRange(nil, storage.CFSearch, prefix, successor(prefix), func(k, _ []byte) bool {
		tag, _, err := ParseTagEntry(k[len(prefix):])
		if err != nil {
			perr = err
			return false
		}
		if n := len(out); n == 0 || out[n-1] != string(tag) {
			out = append(out, string(tag))
		}
		return true
	})
	if err = firstError(err, perr); err != nil && !errors.Is(err, ErrCorrupt) {
		return nil, err
	}
	return out, err
}

// escapeGlob is the pattern of the keys that begin with prefix.
func escapeGlob(prefix string) []byte {
	out := make([]byte, 0, len(prefix)+1)
	for i := 0; i < len(prefix); i++ {
		switch c := prefix[i]; c {
		case '*', '?', '[', ']', '\\':
			out = append(out, '\\', c)
		default:
			out = append(out, c)
		}
	}
	return append(out, '*')
}
