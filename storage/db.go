package storage

import (
	"fmt"

	"github.com/basaltdb/basalt/metadata"
)

// DB is the view of one namespace of a Storage. It is a small value, cheap
// to copy, and safe for concurrent use.
type DB struct {
	s  *Storage
	ns string
	g  *group // the lock holder's write group, see in
	w  *Write // the write whose locks are held, see Holds
	// at, when not 0, is the time in Unix ms at which keys are judged
	// expired: a script's commands see time stand still at its start, as
	// Redis's do, so that a key cannot expire in the middle of a script.
	at int64
}

// At returns the view that judges keys expired at ms (Unix ms; 0: now).
func (db DB) At(ms int64) DB {
	db.at = ms
	return db
}

// now is the time at which the view judges keys expired.
func (db DB) now() int64 {
	if db.at != 0 {
		return db.at
	}
	return nowMs()
}

// DB returns the view of namespace ns.
func (s *Storage) DB(ns string) DB { return DB{s: s, ns: ns} }

// Namespace returns the namespace this view works in.
func (db DB) Namespace() string { return db.ns }

// nsKey returns the metadata key of a user key in a new slice.
func (db DB) nsKey(key []byte) []byte {
	return db.s.layout.AppendNSKey(make([]byte, 0, 3+len(db.ns)+len(key)), db.ns, key)
}

// prefix returns the first key of the namespace in the metadata column
// family and the end of its range.
func (db DB) prefix() (lower, upper []byte) {
	lower = metadata.AppendNamespacePrefix(nil, db.ns)
	return lower, metadata.PrefixEnd(lower)
}

// record is a decoded metadata record.
type record struct {
	meta metadata.Metadata
	// rest is what follows the common header: a string's payload, or the
	// type's extension. It aliases raw.
	rest []byte
	raw  []byte
}

// lookup reads the metadata of nsKey. found is false when the key is absent
// or dead (expired, or an emptied collection).
func (db DB) lookup(nsKey []byte) (rec record, found bool, err error) {
	raw, found, err := db.get(CFMetadata, nsKey, nil)
	if err != nil || !found {
		return rec, false, err
	}
	return decodeRecord(raw, db.now())
}

// decodeRecord decodes a raw metadata value; found is false when dead.
func decodeRecord(raw []byte, now int64) (rec record, found bool, err error) {
	m, rest, err := metadata.Decode(raw)
	if err != nil {
		return rec, false, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if m.Dead(now) {
		return rec, false, nil
	}
	return record{meta: m, rest: rest, raw: raw}, true, nil
}

// lookupType is lookup that fails with ErrWrongType when a live key holds
// another type than t.
func (db DB) lookupType(nsKey []byte, t metadata.Type) (rec record, found bool, err error) {
	rec, found, err = db.lookup(nsKey)
	if err == nil && found && rec.meta.Type != t {
		return rec, false, ErrWrongType
	}
	return rec, found, err
}
