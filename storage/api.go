package storage

import (
	"fmt"
	"strconv"

	"github.com/basaltdb/basalt/compactfilter"
	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/metadata"
	"github.com/linxGnu/grocksdb"
)

// The engine API: what a data type's package (types/...) builds its type
// from, and all it sees of the engine. It reads a key's metadata (Lookup,
// LookupMany), names the key's elements (Object.Subkey), reads them
// (Object.GetElements, GetMany, Object.Each), and writes what a command
// changes as one Batch, which begins with the command's LogData record and
// goes through the write door (write.go). Reads of several records that
// must agree are made in a ReadView. RocksDB, the write groups and the
// caches stay behind these calls; doc.go says how to add a type.

// An Object is one key as a type package reads or writes it: its metadata
// record, decoded, and the keys of its elements, the subkeys of its
// version (FORMAT.md §2.3). It is used by one goroutine.
type Object struct {
	collection
	ext []byte // what follows the common header in the record read
}

// Lookup reads the metadata of key, through the write's pending records
// and the metadata cache; the Object is nil when the key is absent or
// dead: expired at the view's time (DB.At: a script's commands see time
// stand still), or an emptied collection. A record that does not decode
// is ErrCorrupt. Which types the caller accepts is its own check: a live
// key of another type is WRONGTYPE (ErrWrongType) to most commands. The
// Object keeps key: it must stay unmodified while the Object is used.
func (db DB) Lookup(key []byte) (*Object, error) {
	o := &Object{collection: collection{db: db, nsKey: db.nsKey(key), key: key}}
	if err := o.lookup(); err != nil || !o.exists {
		return nil, err
	}
	return o, nil
}

// LookupOrNew is Lookup for a write: an absent or dead key comes back as
// NewObject would make it (Exists false), of type t. The Object keeps
// key, as Lookup's.
func (db DB) LookupOrNew(key []byte, t metadata.Type) (*Object, error) {
	o := &Object{collection: collection{db: db, nsKey: db.nsKey(key), key: key, writer: true}}
	if err := o.lookup(); err != nil {
		return nil, err
	}
	if !o.exists {
		o.meta = metadata.New(t, db.s.versions.Next(nowTime()))
	}
	return o, nil
}

func (o *Object) lookup() error {
	rec, found, err := o.db.lookup(o.nsKey)
	if err == nil && found {
		o.meta, o.stored, o.exists, o.ext = rec.meta, rec.meta, true, rec.rest
	}
	return err
}

// NewObject returns a new incarnation of key, of type t, without reading
// what key holds: fresh metadata with a new version, no expiry and size
// 0. Writing its metadata record replaces whatever the key held, and the
// elements of any earlier incarnation are invisible to it (they are
// another version's). The Object keeps key, as Lookup's.
func (db DB) NewObject(key []byte, t metadata.Type) *Object {
	m := metadata.New(t, db.s.versions.Next(nowTime()))
	return &Object{collection: collection{db: db, nsKey: db.nsKey(key), key: key, meta: m, writer: true}}
}

// LookupMany reads the metadata of keys in one round trip, as of rv (nil:
// the latest, through the write's pending records), and calls fn with each
// key's Object in order: nil when the key is absent or dead. It returns
// fn's first error, or ErrCorrupt at the first record that does not
// decode, after fn had the keys before it. As of a view, the records
// are read through the metadata cache where it holds what the view's
// snapshot holds (a query reading the same documents again costs no
// RocksDB search); the latest, around it. The Objects keep keys' slices,
// as Lookup's.
func (db DB) LookupMany(rv *ReadView, keys [][]byte, fn func(i int, o *Object) error) error {
	return db.LookupManyIn(rv, keys, nil, fn)
}

// LookupManyIn is LookupMany with the Objects in objs, when it holds
// one for each key (else they are allocated): a query that reads
// hundreds of documents' metadata at a time reuses them from query to
// query.
func (db DB) LookupManyIn(rv *ReadView, keys [][]byte, objs []Object, fn func(i int, o *Object) error) error {
	// The keys are built into one buffer and the Objects carved from one
	// slice.
	size := 0
	for _, k := range keys {
		size += 3 + len(db.ns) + len(k)
	}
	buf := make([]byte, 0, size)
	nsKeys := make([][]byte, len(keys))
	for i, k := range keys {
		at := len(buf)
		buf = db.s.layout.AppendNSKey(buf, db.ns, k)
		nsKeys[i] = buf[at:len(buf):len(buf)]
	}
	raws, err := db.getMetaMany(rv, nsKeys)
	if err != nil {
		return err
	}
	if len(objs) < len(keys) {
		objs = nil
	}
	now := db.now()
	for i, raw := range raws {
		var o *Object
		if raw != nil {
			rec, found, err := decodeRecord(raw, now)
			if err != nil {
				return err
			}
			if found {
				if objs == nil {
					objs = make([]Object, len(keys))
				}
				o = &objs[i]
				*o = Object{collection: collection{db: db, nsKey: nsKeys[i], key: keys[i], meta: rec.meta, stored: rec.meta, exists: true}, ext: rec.rest}
			}
		}
		if err := fn(i, o); err != nil {
			return err
		}
	}
	return nil
}

// Key is the user key. It is the slice Lookup or NewObject was given.
func (o *Object) Key() []byte { return o.key }

// NSKey is the key of the metadata record: unique per namespace and user
// key, what a type package's caches are keyed by. The caller must not
// modify it.
func (o *Object) NSKey() []byte { return o.nsKey }

// Meta is the key's metadata: as stored for a live key, fresh for a new
// one. A writer changes it (Size, say) and writes it back in its Batch
// (Meta().AppendTo, then the type's extension, under NSKey in
// CFMetadata), keeping Expire and Version: a command that changes a
// key's elements keeps its TTL, and its elements stay its version's.
func (o *Object) Meta() *metadata.Metadata { return &o.meta }

// Ext is what follows the common header in the record read: the type's
// extension (a HyperLogLog's encoding byte), or a string's value; nil for
// a new incarnation. It is valid as long as o and must not be modified.
func (o *Object) Ext() []byte { return o.ext }

// Exists reports whether the key was live when it was read; false for a
// new incarnation.
func (o *Object) Exists() bool { return o.exists }

// Subkey returns the key of element sub of o's version (the default and
// the other element column families share the layout) in a new slice,
// which a Batch may keep. sub may be modified once it returns.
func (o *Object) Subkey(sub []byte) []byte { return o.subkey(sub) }

// AppendSubkey appends the key Subkey returns to dst: a reader of many
// objects' elements builds their keys into one buffer.
func (o *Object) AppendSubkey(dst, sub []byte) []byte {
	return o.db.s.layout.AppendInternalKey(dst, o.db.ns, o.key, o.meta.Version, sub)
}

// getMetaMany reads the metadata records of nsKeys as GetMany does,
// through the metadata cache at a view (getManyAt).
func (db DB) getMetaMany(rv *ReadView, nsKeys [][]byte) ([][]byte, error) {
	if rv == nil {
		return db.GetMany(nil, CFMetadata, nsKeys)
	}
	return db.getManyAt(rv, db.s.meta, rv.metaStamp, nsKeys)
}

// GetElementsAt reads elements of one or more objects by their keys
// (Subkey: hash fields, set and zset members) as of rv, through the
// elements cache as GetElements does; absent ones are nil. The values
// are the caller's; rv nil reads the latest, as GetElements.
func (db DB) GetElementsAt(rv *ReadView, keys [][]byte) ([][]byte, error) {
	if rv == nil {
		return db.getElements(keys)
	}
	return db.getManyAt(rv, db.s.elements, rv.elementStamp, keys)
}

// getManyAt reads keys of c's column family as of rv, whose snapshot
// was taken after c's stamps read stamp: those c holds as the snapshot
// does come from it, the others from RocksDB in one call, and fill it.
func (db DB) getManyAt(rv *ReadView, c *metaCache, stamp uint64, keys [][]byte) ([][]byte, error) {
	// ends says where each hit ends in hits, or that the key is absent or
	// was missed.
	const absent, missed = -1, -2
	ends := make([]int, len(keys))
	hits := make([]byte, 0, 64) // never nil: an empty value is not an absent one
	var misses [][]byte
	for i, k := range keys {
		var found, ok bool
		hits, found, ok = c.getAt(k, hits, stamp)
		switch {
		case !ok:
			ends[i], misses = missed, append(misses, k)
		case !found:
			ends[i] = absent
		default:
			ends[i] = len(hits)
		}
	}
	read, err := db.GetMany(rv, c.cf, misses)
	if err != nil {
		return nil, err
	}
	for i, k := range misses {
		c.fillAt(k, read[i], read[i] != nil, stamp)
	}
	if len(misses) == len(keys) {
		return read, nil
	}
	raws := make([][]byte, len(keys))
	from := 0
	for i, end := range ends {
		switch end {
		case missed:
			raws[i], read = read[0], read[1:]
		case absent:
		default:
			raws[i], from = hits[from:end:end], end
		}
	}
	return raws, nil
}

// GetElements reads elements of o by their keys (Subkey) in the default
// column family, latest, through the write's pending records and the
// elements cache, which keeps the elements commands read by name (see
// DB.getElement); absent ones are nil. The values are the caller's.
func (o *Object) GetElements(keys [][]byte) ([][]byte, error) {
	return o.db.getElements(keys)
}

// PinElement reads element key of o in the default column family,
// latest, through the write's pending records but around the elements
// cache, without copying it: value (nil when absent) may be RocksDB's own
// memory, valid until unpin is called, which must be, once. For a command
// that reads a few bytes of a big value (a Bloom filter's block of 32
// bytes in a sub-filter of up to 128 MiB).
func (o *Object) PinElement(key []byte) (value []byte, unpin func(), err error) {
	if g := o.db.g; g != nil {
		switch v, p := g.lookup(CFDefault, key); p {
		case pendingPut:
			return v, func() {}, nil
		case pendingDelete:
			return nil, func() {}, nil
		}
	}
	s := o.db.s
	h, err := s.db.GetPinnedCF(s.readOpts, s.cfs[CFDefault].Load(), key)
	if err != nil {
		return nil, nil, fmt.Errorf("storage: get: %w", err)
	}
	if !h.Exists() {
		h.Destroy()
		return nil, func() {}, nil
	}
	return h.Data(), h.Destroy, nil
}

// Each calls fn with o's elements in cf, in key order, from the subkey
// from (nil: the first) until fn returns false or they end. want, when not
// 0, is how many fn is expected to take: no more are read ahead. rv nil
// reads the latest, the write's pending records included; else as of rv.
// sub and value are valid only during the call.
func (o *Object) Each(rv *ReadView, cf CF, from []byte, want int, fn func(sub, value []byte) bool) error {
	return o.walkElements(rv, cf, from, false, want, fn)
}

// EachBack is Each backward: o's elements in cf in descending key order,
// from the last subkey at or before from (nil: the last one).
func (o *Object) EachBack(rv *ReadView, cf CF, from []byte, want int, fn func(sub, value []byte) bool) error {
	return o.walkElements(rv, cf, from, true, want, fn)
}

// walkElements is Each and EachBack.
func (o *Object) walkElements(rv *ReadView, cf CF, from []byte, reverse bool, want int, fn func(sub, value []byte) bool) error {
	lower, upper := o.prefix()
	o.db.flushWithin(cf, lower, upper)
	var seek []byte
	if from != nil {
		seek = append(lower[:len(lower):len(lower)], from...)
	}
	return o.db.s.walkRange(cf, lower, upper, rv.snapshot(), seek, reverse, want, func(key, value []byte) bool {
		return fn(key[len(lower):], value)
	})
}

// GetMany reads keys of cf in one round trip, as of rv (nil: the latest,
// through the write's pending records), around the caches: for the many
// records a command reads once (BITOP's segments). Absent ones are nil;
// the values are the caller's.
func (db DB) GetMany(rv *ReadView, cf CF, keys [][]byte) ([][]byte, error) {
	if rv != nil {
		return db.s.multiGetWith(rv.ro, cf, keys)
	}
	return db.multiGet(cf, keys)
}

// A ReadView reads the database as of one moment (a RocksDB snapshot):
// records read through it agree with each other whatever is written
// meanwhile. Release must be called when done.
type ReadView struct {
	s    *Storage
	snap *grocksdb.Snapshot
	ro   *grocksdb.ReadOptions
	// metaStamp and elementStamp are the metadata and the elements
	// caches' stamps before the snapshot was taken: what LookupMany and
	// GetElementsAt may take from them (metaCache.getAt).
	metaStamp, elementStamp uint64
}

// ReadView takes a ReadView that sees every write applied so far and the
// pending records of the write db belongs to, which it applies first.
func (db DB) ReadView() ReadView {
	if db.g != nil {
		db.g.flush()
	}
	// The stamps first: a write counted in them was applied before it
	// was counted, so before the snapshot.
	meta, elements := db.s.meta.stamps.Load(), db.s.elements.stamps.Load()
	rv := ReadView{s: db.s, snap: db.s.db.NewSnapshot(), ro: grocksdb.NewDefaultReadOptions(), metaStamp: meta, elementStamp: elements}
	rv.ro.SetSnapshot(rv.snap)
	return rv
}

// Release frees the view.
func (rv ReadView) Release() {
	rv.ro.Destroy()
	rv.s.db.ReleaseSnapshot(rv.snap)
}

// snapshot is rv's snapshot; nil (the latest) for a nil rv.
func (rv *ReadView) snapshot() *grocksdb.Snapshot {
	if rv == nil {
		return nil
	}
	return rv.snap
}

// A Batch is one command's write: its records apply together or not at
// all, after the command's LogData record (write.go, rules 1 and 2), and
// are visible once Commit returns. Keys and values given to it must stay
// unmodified until then. A Batch with no record but its LogData writes
// nothing.
type Batch struct{ b *batch }

// NewBatch starts the batch of a command's write through db, whose first
// record is log (nil: none, for a write Kvrocks logs nothing for).
func (db DB) NewBatch(log LogData) Batch { return Batch{db.newBatch(log)} }

// Put writes value under key in cf.
func (b Batch) Put(cf CF, key, value []byte) { b.b.put(cf, key, value) }

// Delete deletes key in cf.
func (b Batch) Delete(cf CF, key []byte) { b.b.del(cf, key) }

// Commit applies the batch (see batch.commit); ErrBatchTooLarge refuses
// one larger than rocksdb.write_options.write_batch_max_bytes.
func (b Batch) Commit() error { return b.b.commit() }

// CommandLog returns the LogData Kvrocks writes for command cmd on a key
// of type t, with its arguments (FORMAT.md §8.3), in a new slice.
func CommandLog(t metadata.Type, cmd LogCommand, args ...[]byte) LogData {
	b := strconv.AppendInt([]byte(strconv.Itoa(int(t))+" "), int64(cmd), 10)
	for _, a := range args {
		b = append(append(b, ' '), a...)
	}
	return b
}

// InWrite reports whether db is the view of a write in progress: the fn
// of Update, or a Joint's. Its reads see that write's pending records,
// and its goroutine may hold lock stripes: it must not take any itself
// (Storage.Update).
func (db DB) InWrite() bool { return db.g != nil }

// Storage returns the database db is a view of.
func (db DB) Storage() *Storage { return db.s }

// Config returns the configuration the database was opened with.
func (s *Storage) Config() *config.Config { return s.cfg }

// Shared returns the value a type package keeps with the database, one
// per Storage for all its namespaces (a cache of values derived from
// keys' records), made by newValue at first use. key identifies it: a
// value of a type of the package's own.
func (s *Storage) Shared(key any, newValue func() any) any {
	if v, ok := s.shared.Load(key); ok {
		return v
	}
	v, _ := s.shared.LoadOrStore(key, newValue())
	return v
}

// LocklessWrites counts the writes that change keys without taking their
// locks (a replica's and APPLYBATCH's raw batches, each counted before
// and after it is applied) and the reopenings of the database. A cache
// of values derived from a key's records, kept right by the commands
// that change them under the key's lock, may serve an entry only while
// the count is what it was before the entry's records were read.
func (s *Storage) LocklessWrites() uint64 { return s.lockless.Load() }

// TypeHooks are what the engine's paths over keys of any type need of a
// type whose package lives above it (types/...).
type TypeHooks struct {
	// String reads key, of the type, as the Redis string it stands for
	// (a bitmap's bits): GET, MGET, GETEX and DUMP then take it for a
	// string. found is false when the key is gone meanwhile; the value is
	// the caller's. nil: the type is no string to Redis.
	String func(db DB, key []byte) (value []byte, found bool, err error)
	// ReadValue fills v, whose Type is set, with the whole value of o as
	// of rv (DUMP). nil: the type cannot be dumped, unless it has String.
	ReadValue func(rv *ReadView, o *Object, v *Value) error
	// WriteValue writes v as a new incarnation whose metadata is m (a new
	// version, the expiry set): it calls put with each element's subkey
	// and value, which put may keep, may change m, and returns the type's
	// extension of the metadata record (RESTORE, RDB LOAD).
	WriteValue func(v *Value, m *metadata.Metadata, put func(sub, value []byte)) (ext []byte, err error)
	// Drop is the type's compaction rule for the subkeys of its live
	// keys in the default column family; nil: the generic rules alone.
	Drop compactfilter.TypeDrop
	// IndexStale reports whether a record of the index column family
	// (the type's) may be dropped by the compaction filter; get reads a
	// record of the database, latest. On an error it must keep the entry.
	IndexStale func(layout metadata.Layout, entry []byte, get func(cf CF, key []byte) (value []byte, found bool, err error)) bool
}

// typeHooks are the registered hooks by type; written only by the init
// functions of type packages, before any Storage is opened.
var typeHooks = map[metadata.Type]TypeHooks{}

// RegisterType registers the hooks of type t; a type package calls it
// from its init function, once.
func RegisterType(t metadata.Type, h TypeHooks) {
	if _, dup := typeHooks[t]; dup {
		panic(fmt.Sprintf("storage: type %v registered twice", t))
	}
	typeHooks[t] = h
}
