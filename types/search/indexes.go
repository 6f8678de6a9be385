package search

import (
	"errors"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/basaltdb/basalt/storage"
)

// The indexes of a database, as the search column family defines them,
// kept in memory: every write looks up the indexes covering its keys
// (maintain.go), so they must not be read from disk each time. FT.CREATE
// and FT.DROPINDEX change both; writes that reach the column family by
// other ways (a replica's batches, APPLYBATCH) move the storage's
// LocklessWrites count, after which the indexes are read again.

// Index is one index of a namespace.
type Index struct {
	Schema *Schema
	// NS is the namespace, as the column family's keys hold it.
	NS []byte
	// Backfill is FT.CREATE's progress over the documents that existed
	// before the index: examined and total keys; done when it ends.
	Backfill Progress
}

// Progress counts a backfill's keys.
type Progress struct {
	examined, total atomic.Int64
	running         atomic.Bool
}

// Snapshot returns the keys examined and the total to examine, and
// whether the backfill still runs.
func (p *Progress) Snapshot() (examined, total int64, running bool) {
	return p.examined.Load(), p.total.Load(), p.running.Load()
}

// registry holds a Storage's indexes by namespace and name.
type registry struct {
	mu     sync.RWMutex
	loaded bool
	// lockless is the storage's LocklessWrites when the indexes were
	// read.
	lockless uint64
	byNS     map[string]map[string]*Index
	// graph serializes the writes of HNSW graphs (maintain.go).
	graph sync.Mutex
	// ddl serializes FT.CREATE and FT.DROPINDEX.
	ddl sync.Mutex
}

type registryKey struct{}

func registryOf(s *storage.Storage) *registry {
	return s.Shared(registryKey{}, func() any { return &registry{} }).(*registry)
}

// indexesOf returns the indexes of namespace ns, reading them from disk
// when they may have changed behind the registry's back. The map is the
// registry's: the caller must not modify it.
func (r *registry) indexesOf(db storage.DB, ns string) (map[string]*Index, error) {
	lockless := db.Storage().LocklessWrites()
	r.mu.RLock()
	if r.loaded && r.lockless == lockless {
		m := r.byNS[ns]
		r.mu.RUnlock()
		return m, nil
	}
	r.mu.RUnlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.loaded || r.lockless != lockless {
		byNS, err := loadAll(db)
		if err != nil {
			return nil, err
		}
		r.byNS, r.loaded, r.lockless = byNS, true, lockless
	}
	return r.byNS[ns], nil
}

// any reports whether the database has an index in any namespace.
func (r *registry) any(db storage.DB) (bool, error) {
	if _, err := r.indexesOf(db, ""); err != nil {
		return false, err
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.byNS) > 0, nil
}

// add registers a new index.
func (r *registry) add(ns string, ix *Index) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byNS == nil {
		r.byNS = map[string]map[string]*Index{}
	}
	m := make(map[string]*Index, len(r.byNS[ns])+1)
	for k, v := range r.byNS[ns] {
		m[k] = v
	}
	m[ix.Schema.Name] = ix
	r.byNS[ns] = m
}

// remove forgets an index.
func (r *registry) remove(ns, name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := make(map[string]*Index, len(r.byNS[ns]))
	for k, v := range r.byNS[ns] {
		if k != name {
			m[k] = v
		}
	}
	if len(m) == 0 {
		delete(r.byNS, ns)
		return
	}
	r.byNS[ns] = m
}

// registered reports whether ns has an index named name.
func (r *registry) registered(ns, name string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.byNS[ns][name] != nil
}

// loadAll reads every index of every namespace: one seek per namespace
// holding search records, to its index metadata records.
func loadAll(db storage.DB) (map[string]map[string]*Index, error) {
	out := map[string]map[string]*Index{}
	var from []byte
	for {
		var nsp []byte
		err := db.ScanRange(nil, storage.CFSearch, from, nil, func(key, _ []byte) bool {
			if len(key) >= 1+int(key[0]) {
				nsp = append([]byte(nil), key[:1+int(key[0])]...)
			}
			return false
		})
		if err != nil || nsp == nil {
			return out, err
		}
		ns := nsp[1:]
		m, err := loadNamespace(db, ns)
		if err != nil {
			return nil, err
		}
		if len(m) > 0 {
			out[string(ns)] = m
		}
		if from = successor(nsp); from == nil {
			return out, nil
		}
	}
}

// loadNamespace reads the indexes of namespace ns.
func loadNamespace(db storage.DB, ns []byte) (map[string]*Index, error) {
	prefix := IndexMetaPrefix(ns)
	var names []string
	var metas [][]byte
	err := db.ScanRange(nil, storage.CFSearch, prefix, successor(prefix), func(key, value []byte) bool {
		if name, err := ParseIndexMetaKey(ns, key); err == nil {
			names, metas = append(names, name), append(metas, append([]byte(nil), value...))
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	out := map[string]*Index{}
	for i, name := range names {
		s, err := readSchema(db, nil, ns, name, metas[i])
		if errors.Is(err, ErrCorrupt) {
			// An index this server cannot read (a newer Kvrocks's field
			// kind) is left alone: writes must not fail for it.
			slog.Warn("search: an index that does not decode is ignored", "namespace", string(ns), "index", name, "err", err)
			continue
		}
		if err != nil {
			return nil, err
		}
		out[name] = &Index{Schema: s, NS: ns}
	}
	return out, nil
}

// readSchema reads an index's schema records as of rv (nil: the latest),
// given its metadata value.
func readSchema(db storage.DB, rv *storage.ReadView, ns []byte, name string, meta []byte) (*Schema, error) {
	vals, err := db.GetMany(rv, storage.CFSearch, [][]byte{PrefixesKey(ns, name)})
	if err != nil {
		return nil, err
	}
	fields, err := records(db, rv, FieldMetaPrefix(ns, name))
	if err != nil {
		return nil, err
	}
	aliases, err := records(db, rv, AliasPrefix(ns, name))
	if err != nil {
		return nil, err
	}
	prefixes := vals[0]
	if prefixes == nil {
		prefixes = []byte{}
	}
	return DecodeSchema(ns, name, meta, prefixes, fields, aliases)
}

// records reads the records under prefix.
func records(db storage.DB, rv *storage.ReadView, prefix []byte) ([]Record, error) {
	var out []Record
	err := db.ScanRange(rv, storage.CFSearch, prefix, successor(prefix), func(key, value []byte) bool {
		out = append(out, Record{append([]byte(nil), key...), append([]byte(nil), value...)})
		return true
	})
	return out, err
}

// names returns the index names of m in name order.
func names(m map[string]*Index) []string {
	out := make([]string, 0, len(m))
	for name := range m {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
