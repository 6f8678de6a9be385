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

// registry holds a Storage's indexes by namespace and name. Every write
// reads it (maintain.go), most to learn there is no index at all: the
// current set is an immutable snapshot behind an atomic pointer, so that
// reading it takes no lock; FT.CREATE, FT.DROPINDEX and reloads replace
// it whole.
type registry struct {
	cur atomic.Pointer[indexSet] // nil until first read
	// swap serializes the replacements of cur.
	swap sync.Mutex
	// graph serializes the writes of HNSW graphs (maintain.go), which
	// hold it until applied, and guards graphs, their records as
	// applied; queries of graphs read under it.
	graph  sync.RWMutex
	graphs graphCache
	// ddl serializes FT.CREATE and FT.DROPINDEX.
	ddl sync.Mutex
}

// indexSet is a snapshot of a registry's indexes.
type indexSet struct {
	// lockless is the storage's LocklessWrites when the indexes were
	// read.
	lockless uint64
	byNS     map[string]map[string]*Index
}

type registryKey struct{}

func registryOf(s *storage.Storage) *registry {
	return s.Shared(registryKey{}, func() any { return &registry{} }).(*registry)
}

// current returns the indexes, reading them from disk when they may have
// changed behind the registry's back. The maps are shared: the caller
// must not modify them.
func (r *registry) current(db storage.DB) (*indexSet, error) {
	lockless := db.Storage().LocklessWrites()
	if set := r.cur.Load(); set != nil && set.lockless == lockless {
		return set, nil
	}
	r.swap.Lock()
	defer r.swap.Unlock()
	if set := r.cur.Load(); set != nil && set.lockless == lockless {
		return set, nil
	}
	byNS, err := loadAll(db)
	if err != nil {
		return nil, err
	}
	set := &indexSet{lockless: lockless, byNS: byNS}
	r.cur.Store(set)
	return set, nil
}

// indexesOf returns the indexes of namespace ns; see current.
func (r *registry) indexesOf(db storage.DB, ns string) (map[string]*Index, error) {
	set, err := r.current(db)
	if err != nil {
		return nil, err
	}
	return set.byNS[ns], nil
}

// any reports whether the database has an index in any namespace.
func (r *registry) any(db storage.DB) (bool, error) {
	set, err := r.current(db)
	return err == nil && len(set.byNS) > 0, err
}

// add registers a new index.
func (r *registry) add(ns string, ix *Index) {
	r.change(ns, func(m map[string]*Index) { m[ix.Schema.Name] = ix })
}

// remove forgets an index.
func (r *registry) remove(ns, name string) {
	r.change(ns, func(m map[string]*Index) { delete(m, name) })
}

// change replaces the current set by a copy whose namespace ns edit has
// changed. With no current set there is nothing to change: the next read
// loads the indexes from disk.
func (r *registry) change(ns string, edit func(map[string]*Index)) {
	r.swap.Lock()
	defer r.swap.Unlock()
	old := r.cur.Load()
	if old == nil {
		return
	}
	m := make(map[string]*Index, len(old.byNS[ns])+1)
	for k, v := range old.byNS[ns] {
		m[k] = v
	}
	edit(m)
	byNS := make(map[string]map[string]*Index, len(old.byNS)+1)
	for k, v := range old.byNS {
		byNS[k] = v
	}
	if len(m) == 0 {
		delete(byNS, ns)
	} else {
		byNS[ns] = m
	}
	r.cur.Store(&indexSet{lockless: old.lockless, byNS: byNS})
}

// registered reports whether ns has an index named name.
func (r *registry) registered(ns, name string) bool {
	set := r.cur.Load()
	return set != nil && set.byNS[ns][name] != nil
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
