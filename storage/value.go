package storage

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/rdb"
)

// Whole values, as DUMP reads them and RESTORE writes them: every element
// of a key at once, in one snapshot or one batch.

// ErrNotDumpable refuses DUMP of a type that has no Redis payload:
// Kvrocks's own types (sorted ints, Bloom filters, JSON...), which Redis
// serializes only with its modules; Kvrocks refuses them too.
var ErrNotDumpable = errors.New("storage: the key's type cannot be dumped")

// Value is a key's whole value.
type Value struct {
	// Type is TypeString (for a bitmap too: its bytes in Redis's order),
	// TypeList, TypeHash, TypeSet, TypeZSet, TypeHyperLogLog or
	// TypeStream.
	Type metadata.Type
	// Str is a string's bytes, or a HyperLogLog's 16384 registers packed
	// as Redis's dense encoding packs them (12288 bytes).
	Str []byte
	// Elems are a list's elements in order, a set's members, a hash's
	// fields and values alternating, or a sorted set's members, each in
	// its own slice.
	Elems [][]byte
	// FieldExpires are a hash's field TTLs, FieldExpires[i] that of
	// field Elems[2*i] (Unix ms, 0: none); nil when no field has one.
	FieldExpires []int64
	// Scores are a sorted set's, Scores[i] that of Elems[i].
	Scores []float64
	// Entries are a stream's entries in ID order, Stream the rest of it.
	Entries []rdb.StreamEntry
	Stream  *rdb.StreamInfo
}

// ReadValue reads key's whole value as of one snapshot; found is false
// when it does not exist. The Value is the caller's.
func (db DB) ReadValue(key []byte) (v *Value, found bool, err error) {
	nsKey := db.nsKey(key)
	rv := db.ReadView()
	defer rv.Release()
	snap := rv.snap
	raw, found, err := db.s.getWith(rv.ro, CFMetadata, nsKey, nil)
	if err != nil || !found {
		return nil, false, err
	}
	rec, found, err := decodeRecord(raw, db.now())
	if err != nil || !found {
		return nil, false, err
	}
	o := &Object{collection: collection{db: db, nsKey: nsKey, key: key, meta: rec.meta, exists: true}, ext: rec.rest}
	c := &o.collection
	v = &Value{Type: rec.meta.Type}
	keep := func(b []byte) []byte { return append([]byte(nil), b...) }
	switch rec.meta.Type {
	case metadata.TypeString:
		v.Str = keep(rec.rest)
	case metadata.TypeList:
		var head [8]byte
		binary.BigEndian.PutUint64(head[:], rec.meta.Head)
		v.Elems = make([][]byte, 0, rec.meta.Size)
		err = c.each(CFDefault, snap, head[:], int(rec.meta.Size), func(_, value []byte) bool {
			v.Elems = append(v.Elems, keep(value))
			return uint64(len(v.Elems)) < rec.meta.Size
		})
	case metadata.TypeHash, metadata.TypeSet:
		now := db.now()
		err = c.each(CFDefault, snap, nil, 0, func(sub, value []byte) bool {
			if !rec.meta.FieldTTL {
				v.Elems = append(v.Elems, keep(sub))
				if rec.meta.Type == metadata.TypeHash {
					v.Elems = append(v.Elems, keep(value))
				}
				return true
			}
			expire, value := c.splitField(value)
			if expire == 0 || expire >= now {
				v.Elems, v.FieldExpires = append(v.Elems, keep(sub), keep(value)), append(v.FieldExpires, expire)
			}
			return true
		})
	case metadata.TypeZSet:
		err = c.each(CFDefault, snap, nil, 0, func(sub, value []byte) bool {
			v.Elems, v.Scores = append(v.Elems, keep(sub)), append(v.Scores, decodeScore(value))
			return true
		})
	case metadata.TypeStream:
		err = db.readStream(snap, c, rec.rest, v)
	default:
		found, err = db.readTypeValue(&rv, o, v)
	}
	if err != nil || !found {
		return nil, false, err
	}
	return v, true, nil
}

// readTypeValue reads the whole value of o, of a type whose package
// registered hooks: the string it stands for, read apart from rv as GET
// reads it (a write between the two reads shows as the key gone or
// changed, never torn), or else what its ReadValue reads in rv.
func (db DB) readTypeValue(rv *ReadView, o *Object, v *Value) (found bool, err error) {
	h := typeHooks[o.meta.Type]
	switch {
	case h.String != nil:
		v.Type = metadata.TypeString
		v.Str, found, err = h.String(db, o.key)
		return found, err
	case h.ReadValue != nil:
		return true, h.ReadValue(rv, o, v)
	}
	return false, ErrNotDumpable
}

// PutValue replaces key, of any type or absent, by v with expiry expire
// (absolute ms, 0: none), in one batch: a collection gets a new version,
// so the elements of what it replaces vanish at once. A collection v must
// have elements (sets, hashes and sorted sets distinct ones), but for a
// stream, whose entries must be in ID order, and a HyperLogLog, whose Str
// holds its registers (types/hyperloglog.DenseBytes of them), as any type
// whose package writes its value (TypeHooks.WriteValue); v's slices must
// stay unmodified until PutValue returns.
func (db DB) PutValue(key []byte, v *Value, expire int64) error {
	c := &collection{db: db, nsKey: db.nsKey(key), key: key, writer: true}
	c.meta = metadata.New(v.Type, db.s.versions.Next(nowTime()))
	c.meta.Expire = expire
	b := db.newBatch(TypeLog(v.Type))
	switch v.Type {
	case metadata.TypeString:
		b.put(CFMetadata, c.nsKey, EncodeString(v.Str, expire))
		return b.commit()
	case metadata.TypeList:
		c.push(b, v.Elems, false)
	case metadata.TypeHash:
		w := &fieldWrite{c: c, b: b}
		c.meta.FieldTTL = hasFieldTTL(v.FieldExpires)
		for i := 0; i+1 < len(v.Elems); i += 2 {
			var expire int64
			if c.meta.FieldTTL && i/2 < len(v.FieldExpires) {
				expire = v.FieldExpires[i/2]
			}
			w.put(v.Elems[i], v.Elems[i+1], expire, hashField{})
		}
		if c.meta.FieldTTL {
			db.s.fieldReaps.seen.Store(true)
		}
	case metadata.TypeSet:
		for _, m := range v.Elems {
			b.put(CFDefault, c.subkey(m), nil)
		}
		c.meta.Size = uint64(len(v.Elems))
	case metadata.TypeZSet:
		for i, m := range v.Elems {
			score := plusZero(v.Scores[i])
			b.put(CFDefault, c.subkey(m), metadata.AppendScore(nil, score))
			b.put(CFZSetScore, c.scoreKey(score, m), nil)
		}
		c.meta.Size = uint64(len(v.Elems))
	case metadata.TypeStream:
		db.putStream(b, c, v)
		return b.commit()
	default:
		write, err := typeWriter(v.Type)
		if err != nil {
			return err
		}
		ext, err := write(v, &c.meta, func(sub, value []byte) { b.put(CFDefault, c.subkey(sub), value) })
		if err != nil {
			return err
		}
		b.put(CFMetadata, c.nsKey, append(c.meta.AppendTo(nil), ext...))
		return b.commit()
	}
	b.put(CFMetadata, c.nsKey, c.meta.AppendTo(nil))
	return b.commit()
}

// typeWriter returns the WriteValue of type t, which a type package
// registered.
func typeWriter(t metadata.Type) (func(*Value, *metadata.Metadata, func(sub, value []byte)) ([]byte, error), error) {
	if write := typeHooks[t].WriteValue; write != nil {
		return write, nil
	}
	return nil, fmt.Errorf("storage: no whole value of type %v", t)
}
