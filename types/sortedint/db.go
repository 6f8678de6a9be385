package sortedint

import (
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
)

// The commands on the engine: each function looks the key up, backs Store
// with its subkeys (objectStore) and does one command's work. A key of
// another type is storage.ErrWrongType, which the handlers answer with
// Kvrocks's text.

// Add adds ids to the sortedint at key, creating it, and returns how many
// were not there yet (SIADD).
func Add(db storage.DB, key []byte, ids []uint64) (int, error) {
	o, err := db.LookupOrNew(key, metadata.TypeSortedint)
	if err != nil {
		return 0, err
	}
	if err := check(o); err != nil {
		return 0, err
	}
	ch, err := planAdd(objectStore{o}, o.Meta().Size, ids)
	if err != nil || len(ch.IDs) == 0 {
		return 0, err
	}
	return len(ch.IDs), write(db, o, ch, func(b storage.Batch, sub []byte) { b.Put(storage.CFDefault, sub, nil) })
}

// Remove removes ids from the sortedint at key and returns how many it
// held (SIREM); a key emptied is deleted.
func Remove(db storage.DB, key []byte, ids []uint64) (int, error) {
	o, err := db.Lookup(key)
	if err != nil || o == nil {
		return 0, err
	}
	if err := check(o); err != nil {
		return 0, err
	}
	ch, err := planRemove(objectStore{o}, o.Meta().Size, ids)
	if err != nil || len(ch.IDs) == 0 {
		return 0, err
	}
	return len(ch.IDs), write(db, o, ch, func(b storage.Batch, sub []byte) { b.Delete(storage.CFDefault, sub) })
}

// write commits ch on o in one batch: each id's subkey through apply,
// then the metadata with the new size, or its deletion when the size is
// 0, as Basalt's other collections leave an emptied key (Kvrocks writes
// a record of size 0, which both read as no key).
func write(db storage.DB, o *storage.Object, ch Change, apply func(b storage.Batch, sub []byte)) error {
	b := db.NewBatch(storage.TypeLog(metadata.TypeSortedint))
	var buf [SubkeyLen]byte
	for _, id := range ch.IDs {
		apply(b, o.Subkey(AppendSubkey(buf[:0], id)))
	}
	o.Meta().Size = ch.Size
	if ch.Size == 0 {
		b.Delete(storage.CFMetadata, o.NSKey())
	} else {
		b.Put(storage.CFMetadata, o.NSKey(), o.Meta().AppendTo(nil))
	}
	return b.Commit()
}

// Card returns the number of ids of the sortedint at key, 0 when absent
// (SICARD): the size its metadata records.
func Card(db storage.DB, key []byte) (uint64, error) {
	o, err := lookup(db, key)
	if err != nil || o == nil {
		return 0, err
	}
	return o.Meta().Size, nil
}

// Exists reports for each of ids whether the sortedint at key holds it
// (SIEXISTS); all false when the key is absent.
func Exists(db storage.DB, key []byte, ids []uint64) ([]bool, error) {
	o, err := lookup(db, key)
	if err != nil || o == nil {
		return make([]bool, len(ids)), err
	}
	return exists(objectStore{o}, ids)
}

// Each calls emit with the ids of SIRANGE or SIREVRANGE q on the
// sortedint at key, in order, until they end or emit returns false; none
// when the key is absent.
func (q Range) Each(db storage.DB, key []byte, emit func(id uint64) bool) error {
	return walkKey(db, key, q.Walk, emit)
}

// Each calls emit with the ids of SIRANGEBYVALUE or SIREVRANGEBYVALUE q
// on the sortedint at key, as Range.Each.
func (q ValueRange) Each(db storage.DB, key []byte, emit func(id uint64) bool) error {
	return walkKey(db, key, q.Walk, emit)
}

// walkKey runs walk over the sortedint at key, if there is one.
func walkKey(db storage.DB, key []byte, walk func(s Store, emit func(id uint64) bool) error, emit func(id uint64) bool) error {
	o, err := lookup(db, key)
	if err != nil || o == nil {
		return err
	}
	return walk(objectStore{o}, emit)
}

// lookup reads the sortedint at key: nil when absent, ErrWrongType when a
// key of another type.
func lookup(db storage.DB, key []byte) (*storage.Object, error) {
	o, err := db.Lookup(key)
	if err != nil || o == nil {
		return nil, err
	}
	return o, check(o)
}

// check refuses a live key of another type.
func check(o *storage.Object) error {
	if o.Exists() && o.Meta().Type != metadata.TypeSortedint {
		return storage.ErrWrongType
	}
	return nil
}

// objectStore is the Store of a key as the engine holds it: its subkeys
// read latest, through the write's pending records. A new incarnation
// (not Exists) holds nothing, and is not read.
type objectStore struct{ o *storage.Object }

func (s objectStore) Contains(subs [][]byte) ([]bool, error) {
	out := make([]bool, len(subs))
	if !s.o.Exists() || len(subs) == 0 {
		return out, nil
	}
	keys := make([][]byte, len(subs))
	for i, sub := range subs {
		keys[i] = s.o.Subkey(sub)
	}
	values, err := s.o.GetElements(keys)
	if err != nil {
		return nil, err
	}
	for i, v := range values {
		out[i] = v != nil
	}
	return out, nil
}

func (s objectStore) Ascend(from []byte, want uint64, fn func(sub []byte) bool) error {
	if !s.o.Exists() {
		return nil
	}
	return s.o.Each(nil, storage.CFDefault, from, int(want), func(sub, _ []byte) bool { return fn(sub) })
}

func (s objectStore) Descend(from []byte, want uint64, fn func(sub []byte) bool) error {
	if !s.o.Exists() {
		return nil
	}
	return s.o.EachBack(nil, storage.CFDefault, from, int(want), func(sub, _ []byte) bool { return fn(sub) })
}
