package tdigest

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
)

// The commands over storage's engine API: each function is one command's
// reads and, for the writes, one batch behind the LogData Kvrocks writes
// for a t-digest (its type alone). A key is its metadata record (the
// common header, then Meta's extension) and its records in the default
// column family (the buffer, the centroids), Store reading them.

var logWrite = storage.TypeLog(metadata.TypeTDigest)

// ErrLockNeeded is Query's answer, without a reply, when the query must
// run under the key's lock: to write the merge of buffered values, or to
// cache the centroids it reads (cache.go). The caller queries again in a
// write on the key.
var ErrLockNeeded = errors.New("tdigest: the query needs the key's lock")

// engineStore is the Store of the live key o: its records as of rv (nil:
// the latest, through the pending records of the write db belongs to).
type engineStore struct {
	db storage.DB
	o  *storage.Object
	rv *storage.ReadView
}

func (s engineStore) Buffer() ([]byte, error) {
	// Read around the elements cache: the buffer changes with every ADD.
	values, err := s.db.GetMany(s.rv, storage.CFDefault, [][]byte{s.o.Subkey(BufferSubkey)})
	if err != nil {
		return nil, err
	}
	return values[0], nil
}

func (s engineStore) Centroids(want uint64, fn func(sub, value []byte) bool) error {
	return s.o.Each(s.rv, storage.CFDefault, []byte{SegmentCentroid}, int(want), func(sub, value []byte) bool {
		return len(sub) > 0 && sub[0] == SegmentCentroid && fn(sub, value)
	})
}

// metaOf checks that the live key o is a t-digest and decodes its
// extension.
func metaOf(o *storage.Object) (Meta, error) {
	if o.Meta().Type != metadata.TypeTDigest {
		return Meta{}, storage.ErrWrongType
	}
	m, err := DecodeExt(o.Ext())
	if err != nil {
		return Meta{}, fmt.Errorf("%w: t-digest %q: %w", storage.ErrCorrupt, o.Key(), err)
	}
	return m, nil
}

// open reads the t-digest at key for a write: ErrNoKey when absent.
func open(db storage.DB, key []byte) (*storage.Object, Meta, error) {
	o, err := db.Lookup(key)
	if err != nil {
		return nil, Meta{}, err
	}
	if o == nil {
		return nil, Meta{}, ErrNoKey
	}
	m, err := metaOf(o)
	return o, m, err
}

// write writes ch to o (a live key, or a new incarnation) in one batch,
// the key's cached centroids forgotten first.
func write(db storage.DB, o *storage.Object, ch Change) error {
	centroidsOf(db).forget(o.NSKey())
	b := db.NewBatch(logWrite)
	for _, sub := range ch.Delete {
		b.Delete(storage.CFDefault, o.Subkey(sub))
	}
	for _, r := range ch.Put {
		b.Put(storage.CFDefault, o.Subkey(r.Sub), r.Value)
	}
	b.Put(storage.CFMetadata, o.NSKey(), ch.Meta.AppendExt(o.Meta().AppendTo(nil)))
	return b.Commit()
}

// Create makes an empty t-digest of the given compression at key
// (TDIGEST.CREATE); ErrKeyExists when the key holds one.
func Create(db storage.DB, key []byte, compression uint32) error {
	o, err := db.LookupOrNew(key, metadata.TypeTDigest)
	if err != nil {
		return err
	}
	if o.Exists() {
		if _, err := metaOf(o); err != nil {
			return err
		}
		return ErrKeyExists
	}
	return write(db, o, Change{Meta: NewMeta(compression)})
}

// AddValues adds values (ParseValues's) to the t-digest at key
// (TDIGEST.ADD).
func AddValues(db storage.DB, key []byte, values []float64) error {
	o, m, err := open(db, key)
	if err != nil {
		return err
	}
	ch, err := Add(m, engineStore{db: db, o: o}, values)
	if err != nil {
		return err
	}
	return write(db, o, ch)
}

// Clear empties the t-digest at key, keeping its compression
// (TDIGEST.RESET).
func Clear(db storage.DB, key []byte) error {
	o, m, err := open(db, key)
	if err != nil {
		return err
	}
	ch, err := Reset(m, engineStore{db: db, o: o})
	if err != nil {
		return err
	}
	return write(db, o, ch)
}

// MergeInto merges the t-digests a names into the one at dest, which it
// creates when absent (TDIGEST.MERGE): WRONGTYPE for a destination of
// another type first, then ErrNoKey or WRONGTYPE for the first source
// that is no t-digest. A key named several times is read once.
func MergeInto(db storage.DB, dest []byte, a MergeArgs) error {
	do, err := db.LookupOrNew(dest, metadata.TypeTDigest)
	if err != nil {
		return err
	}
	if do.Exists() && do.Meta().Type != metadata.TypeTDigest {
		return storage.ErrWrongType
	}
	loaded := map[string]*Sketch{}
	sketch := func(key []byte, o *storage.Object) (*Sketch, error) {
		if sk, ok := loaded[string(key)]; ok {
			return sk, nil
		}
		m, err := metaOf(o)
		if err != nil {
			return nil, err
		}
		sk, _, err := Load(m, engineStore{db: db, o: o}) // Merge replaces the destination whole
		loaded[string(key)] = sk
		return sk, err
	}
	sources := make([]*Sketch, len(a.Sources))
	for i, key := range a.Sources {
		o := do
		if string(key) != string(dest) {
			if o, err = db.Lookup(key); err != nil {
				return err
			}
		}
		if o == nil || !o.Exists() {
			return ErrNoKey
		}
		if sources[i], err = sketch(key, o); err != nil {
			return err
		}
	}
	var destSketch *Sketch
	if do.Exists() {
		if destSketch, err = sketch(dest, do); err != nil {
			return err
		}
	}
	ch, err := Merge(destSketch, sources, a)
	if err != nil {
		return err
	}
	return write(db, do, ch)
}

// InfoOf returns the metadata of the t-digest at key, as TDIGEST.INFO
// shows it: nothing merged.
func InfoOf(db storage.DB, key []byte) (Meta, error) {
	o, err := db.Lookup(key)
	if err != nil {
		return Meta{}, err
	}
	if o == nil {
		return Meta{}, ErrNoKey
	}
	return metaOf(o)
}

// Query calls answer with the sketch at key, all its records read in one
// snapshot (MIN, QUANTILE, ...); ErrNoKey when absent. Values in the
// buffer are merged first, as Kvrocks merges them before every query:
// in memory only unless persist is set. persist is for a node that takes
// writes, outside scripts (whose reads must not write): with it, a db
// that is not a write's gets ErrLockNeeded (answer not called) when
// there is a merge to write or centroids to cache, and one that is
// writes the merge and caches the centroids. The centroids come from the
// cache when it has them for the key's state.
func Query(db storage.DB, key []byte, persist bool, answer func(*Sketch) error) error {
	gen := db.Storage().LocklessWrites()
	locked := db.InWrite()
	var rv *storage.ReadView
	var o *storage.Object
	var err error
	if locked {
		o, err = db.Lookup(key)
	} else {
		view := db.ReadView()
		defer view.Release()
		rv = &view
		err = db.LookupMany(rv, [][]byte{key}, func(_ int, found *storage.Object) error {
			o = found
			return nil
		})
	}
	if err != nil {
		return err
	}
	if o == nil {
		return ErrNoKey
	}
	m, err := metaOf(o)
	if err != nil {
		return err
	}
	cache := centroidsOf(db)
	if m.UnmergedNodes == 0 {
		if cs, ok := cache.get(db, o, o.Ext()); ok {
			return answer(&Sketch{meta: m, loaded: true, d: digest{centroids: cs, weight: float64(m.MergedWeight), min: m.Min, max: m.Max}})
		}
	}
	if persist && !locked {
		return ErrLockNeeded
	}
	sk, merge, err := Load(m, engineStore{db: db, o: o, rv: rv})
	if err != nil {
		return err
	}
	if persist {
		ext := bytes.Clone(o.Ext())
		if merge != nil {
			if err := write(db, o, *merge); err != nil {
				return err
			}
			ext = merge.Meta.AppendExt(nil)
		}
		d, err := sk.digest()
		if err != nil {
			return err
		}
		cache.put(db, o, ext, d.centroids, gen)
	}
	return answer(sk)
}
