package storage

import (
	"time"

	"github.com/basaltdb/basalt/metadata"
	"github.com/linxGnu/grocksdb"
)

// Helpers shared by every collection type (hash, set, sorted set, list):
// one metadata record with version and size, one record per element under
// the subkey prefix of that version.

// collection is a collection key being read or written: its metadata key,
// user key and decoded metadata.
type collection struct {
	db     DB
	nsKey  []byte
	key    []byte
	meta   metadata.Metadata
	stored metadata.Metadata // meta as read, when exists
	exists bool              // alive before this command
	writer bool              // read for a write, under the key's lock
	// slab is where newBuf carves buffers from once a command asks for
	// more than one.
	slab []byte
}

// forWrite reads a collection of type t for a read-modify-write. A key that
// is absent or dead gets fresh metadata with a new version, so elements of
// an earlier incarnation stay invisible. The caller holds the key's lock.
func (db DB) forWrite(key []byte, t metadata.Type) (*collection, error) {
	c := &collection{db: db, nsKey: db.nsKey(key), key: key, writer: true}
	rec, found, err := db.lookupType(c.nsKey, t)
	if err != nil {
		return nil, err
	}
	if found {
		c.meta, c.stored, c.exists = rec.meta, rec.meta, true
	} else {
		c.meta = metadata.New(t, db.s.versions.Next(time.Now()))
	}
	return c, nil
}

// forRead reads a live collection of type t; nil when absent.
func (db DB) forRead(key []byte, t metadata.Type) (*collection, error) {
	c := &collection{db: db, nsKey: db.nsKey(key), key: key}
	rec, found, err := db.lookupType(c.nsKey, t)
	if err != nil || !found {
		return nil, err
	}
	c.meta, c.exists = rec.meta, true
	return c, nil
}

// subkey returns the internal key of element sub in a new slice.
func (c *collection) subkey(sub []byte) []byte {
	return c.db.s.layout.AppendInternalKey(c.newKey(len(sub)), c.db.ns, c.key, c.meta.Version, sub)
}

// newKey returns an empty internal key with room for a subkey of n
// bytes.
func (c *collection) newKey(n int) []byte {
	return c.newBuf(c.db.s.layout.SubkeyPrefixLen(c.db.ns, c.key) + n)
}

// slabSize is the size of the buffers newBuf carves keys and values from.
const slabSize = 512

// newBuf returns an empty buffer with room for n bytes. A command that
// writes a consumer group's records makes a dozen keys and values: the
// first buffer is allocated on its own, later ones are carved from a
// shared slab, one allocation for many. Carved buffers never overlap (an
// append past one's room reallocates it) and are never reused, so they
// behave as separate allocations.
func (c *collection) newBuf(n int) []byte {
	if c.slab == nil {
		c.slab = []byte{} // the next one comes from a slab
		return make([]byte, 0, n)
	}
	if cap(c.slab)-len(c.slab) < n {
		c.slab = make([]byte, 0, max(slabSize, n))
	}
	at := len(c.slab)
	c.slab = c.slab[:at+n]
	return c.slab[at : at : at+n]
}

// scoreKey returns the internal key of a member's zset_score record.
func (c *collection) scoreKey(score float64, member []byte) []byte {
	k := c.db.s.layout.AppendSubkeyPrefix(c.newKey(8+len(member)), c.db.ns, c.key, c.meta.Version)
	return append(metadata.AppendScore(k, score), member...)
}

// prefix returns the bounds of this incarnation's elements.
func (c *collection) prefix() (lower, upper []byte) {
	lower = c.db.s.layout.AppendSubkeyPrefix(c.newKey(0), c.db.ns, c.key, c.meta.Version)
	return lower, metadata.PrefixEnd(lower)
}

// getElement reads the value of a hash field, or a set or zset member;
// found is false when absent.
func (c *collection) getElement(sub []byte) ([]byte, bool, error) {
	return c.db.getElement(c.subkey(sub))
}

// getElements reads many hash fields, or set or zset members, in one
// round trip; absent ones are nil.
func (c *collection) getElements(subs [][]byte) ([][]byte, error) {
	keys := make([][]byte, len(subs))
	for i, s := range subs {
		keys[i] = c.subkey(s)
	}
	return c.db.getElements(keys)
}

// saveMeta adds the metadata write to b: the record is deleted when the
// collection became empty, and left alone when nothing in it changed (an
// update of existing elements).
func (c *collection) saveMeta(b *batch) {
	switch {
	case c.meta.Size == 0:
		if c.exists {
			b.del(CFMetadata, c.nsKey)
		}
	case c.exists && c.meta == c.stored:
	default:
		b.put(CFMetadata, c.nsKey, c.meta.AppendTo(nil))
	}
}

// each calls fn for the elements of cf in key order, from the subkey from
// (nil: the first) until fn returns false; want is how many fn is expected
// to take (0: unknown), as for walk. sub and value are valid only during
// the call.
func (c *collection) each(cf CF, snap *grocksdb.Snapshot, from []byte, want int, fn func(sub, value []byte) bool) error {
	lower, upper := c.prefix()
	it := c.db.newIterator(cf, lower, upper, snap)
	defer it.close()
	if from != nil {
		it.Seek(append(lower[:len(lower):len(lower)], from...))
	} else {
		c.seekEnd(it, lower, cf, false)
	}
	return it.walk(false, want, func(key, value []byte) bool {
		return fn(key[len(lower):], value)
	})
}

// view is a consistent read of one collection: its metadata and elements
// as of one snapshot. release must be called when done.
type view struct {
	*collection
	snap *grocksdb.Snapshot
}

// readView opens a snapshot and reads a live collection of type t in it;
// the view is nil (and needs no release) when the key is absent.
func (db DB) readView(key []byte, t metadata.Type) (*view, error) {
	c := &collection{db: db, nsKey: db.nsKey(key), key: key}
	snap, raw, found, err := db.snapshotMeta(c.nsKey)
	if err == nil && found {
		err = c.open(raw, t)
	}
	if err != nil || !c.exists {
		db.s.db.ReleaseSnapshot(snap)
		return nil, err
	}
	return &view{collection: c, snap: snap}, nil
}

// snapshotMeta takes a snapshot and reads nsKey's metadata record as of
// it. The record comes from the metadata cache when it was cached before
// the snapshot was taken and no write of its shard began or ended from
// then until after: it is what the snapshot holds, and a collection read
// costs no memtable search for its metadata. Otherwise it is read from
// RocksDB at the snapshot, and cached as a miss would be.
func (db DB) snapshotMeta(nsKey []byte) (snap *grocksdb.Snapshot, raw []byte, found bool, err error) {
	if db.g != nil {
		db.g.flush() // the snapshot and the cache hold the group's writes
	}
	c := db.s.meta
	raw, found, hit, gen := c.get(nsKey, nil)
	snap = db.s.db.NewSnapshot()
	if hit && c.unchanged(nsKey, gen) {
		return snap, raw, found, nil
	}
	raw, found, err = db.s.getAt(snap, CFMetadata, nsKey)
	if err == nil && !hit {
		c.fill(nsKey, raw, found, gen)
	}
	return snap, raw, found, err
}

// readAt reads a live collection of type t as of snap; nil when absent.
func (db DB) readAt(snap *grocksdb.Snapshot, key []byte, t metadata.Type) (*collection, error) {
	c := &collection{db: db, nsKey: db.nsKey(key), key: key}
	raw, found, err := db.s.getAt(snap, CFMetadata, c.nsKey)
	if err != nil || !found {
		return nil, err
	}
	if err := c.open(raw, t); err != nil || !c.exists {
		return nil, err
	}
	return c, nil
}

// open decodes raw, the metadata record of c, a live collection of type
// t unless it is dead (c.exists stays false).
func (c *collection) open(raw []byte, t metadata.Type) error {
	rec, found, err := decodeRecord(raw, c.db.now())
	if err != nil || !found {
		return err
	}
	if rec.meta.Type != t {
		return ErrWrongType
	}
	c.meta, c.exists = rec.meta, true
	return nil
}

func (v *view) release() { v.db.s.db.ReleaseSnapshot(v.snap) }

// eachAt iterates the view's elements (see collection.each).
func (v *view) eachAt(cf CF, from []byte, want int, fn func(sub, value []byte) bool) error {
	return v.each(cf, v.snap, from, want, fn)
}
