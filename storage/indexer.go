package storage

import "github.com/basaltdb/basalt/metadata"

// Secondary indexes (the search column family's, types/search, and
// the index column family's, types/timeseries) are
// records derived from other keys. They change in the same batch as the
// keys they derive from: every command's batch passes, as it commits,
// through the registered Indexers, which read the batch's records
// and adds the index records they call for. This is the single place
// where every write reaches a key (HSET and the hash family, DEL, EXPIRE,
// RENAME, COPY, RESTORE, MULTI/EXEC and scripts, which commit batches
// too), so no command need know of indexes. Raw batches (a replica's,
// APPLYBATCH's) carry the index records their writer derived, and range
// deletions (FLUSHALL, FLUSHDB, slot deletion) reach the metadata alone,
// as in Kvrocks: they pass by the Indexer.

// An Indexer derives the records of a batch's indexes. It is called, in
// the write of the batch (db is that write's view, of no particular
// namespace: DB.Sibling names one), before the batch is applied, and may
// add records to b. When it returns a non-nil applied, the batch is
// applied at once (its group flushed) and applied is called after with
// the outcome (nil: applied): an Indexer whose records depend on records
// other writes change (an HNSW graph) holds its lock until then. An error
// fails the command's write.
type Indexer func(db DB, b Batch) (applied func(err error), err error)

var indexers []Indexer

// RegisterIndexer installs an Indexer; a type package calls it from its
// init function, once. The Indexers run in the order registered.
func RegisterIndexer(ix Indexer) { indexers = append(indexers, ix) }

// index runs the Indexers over a command's batch; see Indexer.
func (b *batch) index() (applied func(error), err error) {
	if len(indexers) == 0 || b.indexed {
		return nil, nil
	}
	b.indexed = true
	var after []func(error)
	for _, ix := range indexers {
		done, err := ix(DB{s: b.s, ns: metadata.DefaultNamespace, g: b.g}, Batch{b})
		if done != nil {
			after = append(after, done)
		}
		if err != nil {
			runAll(after, err)
			return nil, err
		}
	}
	if len(after) == 0 {
		return nil, nil
	}
	return func(err error) { runAll(after, err) }, nil
}

// runAll calls the Indexers' applied functions with the batch's outcome.
func runAll(fns []func(error), err error) {
	for _, fn := range fns {
		fn(err)
	}
}

// Records calls fn with the batch's puts and deletes in order: deleted is
// set for a delete, whose value is nil. Range deletions and LogData are
// left out. The bytes are the batch's: fn must not modify them.
func (b Batch) Records(fn func(cf CF, key, value []byte, deleted bool)) {
	for _, o := range b.b.ops {
		switch o.kind {
		case opPut:
			fn(o.cf, o.key, o.value, false)
		case opDelete:
			fn(o.cf, o.key, nil, true)
		}
	}
}

// DeleteRange deletes the keys of cf in [from, to).
func (b Batch) DeleteRange(cf CF, from, to []byte) { b.b.delRange(cf, from, to) }

// ScanRange calls fn with the records of cf in [lower, upper) (upper nil: no
// bound) in key order, as of rv (nil: the latest, the write's pending
// records included), until fn returns false. key and value are valid only
// during the call.
func (db DB) ScanRange(rv *ReadView, cf CF, lower, upper []byte, fn func(key, value []byte) bool) error {
	if db.s.cfs[cf].Load() == nil {
		return nil // the index column family, not made yet: empty
	}
	it := db.newIterator(cf, lower, upper, rv.snapshot())
	defer it.close()
	it.SeekToFirst()
	return it.walk(false, 0, fn)
}

// Layout is the key layout of the database: with the cluster slot or
// not.
func (s *Storage) Layout() metadata.Layout { return s.layout }

// CommitNow is Commit, then applies the batch at once, with the writes
// pending before it in its group: for a write whose records the next
// writes of others must read (an HNSW graph's, under its lock).
func (b Batch) CommitNow() error {
	if err := b.b.commit(); err != nil || b.b.g == nil {
		return err
	}
	b.b.g.flush()
	return b.b.g.err
}
