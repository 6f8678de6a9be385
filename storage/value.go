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

// ErrNotDumpable refuses DUMP of a type Basalt does not serialize yet:
// streams, and Kvrocks's own types (sorted ints, Bloom filters, JSON),
// which Redis has no payload for without its modules.
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
	// Scores are a sorted set's, Scores[i] that of Elems[i].
	Scores []float64
	// Entries are a stream's entries in ID order, Stream the rest of it.
	Entries []rdb.StreamEntry
	Stream  *rdb.StreamInfo
}

// HLLDenseBytes is the size of a HyperLogLog's registers in Value.Str.
const HLLDenseBytes = metadata.HLLSegments * metadata.HLLSegmentBytes

// ReadValue reads key's whole value as of one snapshot; found is false
// when it does not exist. The Value is the caller's.
func (db DB) ReadValue(key []byte) (v *Value, found bool, err error) {
	nsKey := db.nsKey(key)
	snap := db.snapshot()
	defer db.s.db.ReleaseSnapshot(snap)
	raw, found, err := db.s.getAt(snap, CFMetadata, nsKey)
	if err != nil || !found {
		return nil, false, err
	}
	rec, found, err := decodeRecord(raw, db.now())
	if err != nil || !found {
		return nil, false, err
	}
	c := &collection{db: db, nsKey: nsKey, key: key, meta: rec.meta, exists: true}
	v = &Value{Type: rec.meta.Type}
	keep := func(b []byte) []byte { return append([]byte(nil), b...) }
	switch rec.meta.Type {
	case metadata.TypeString:
		v.Str = keep(rec.rest)
	case metadata.TypeBitmap:
		// Read apart from the snapshot, as GET reads it: a write between
		// the two reads shows as the key gone or changed, never torn.
		v.Type = metadata.TypeString
		v.Str, found, err = db.bitmapString(key)
	case metadata.TypeList:
		var head [8]byte
		binary.BigEndian.PutUint64(head[:], rec.meta.Head)
		v.Elems = make([][]byte, 0, rec.meta.Size)
		err = c.each(CFDefault, snap, head[:], int(rec.meta.Size), func(_, value []byte) bool {
			v.Elems = append(v.Elems, keep(value))
			return uint64(len(v.Elems)) < rec.meta.Size
		})
	case metadata.TypeHash, metadata.TypeSet:
		err = c.each(CFDefault, snap, nil, 0, func(sub, value []byte) bool {
			v.Elems = append(v.Elems, keep(sub))
			if rec.meta.Type == metadata.TypeHash {
				v.Elems = append(v.Elems, keep(value))
			}
			return true
		})
	case metadata.TypeZSet:
		err = c.each(CFDefault, snap, nil, 0, func(sub, value []byte) bool {
			v.Elems, v.Scores = append(v.Elems, keep(sub)), append(v.Scores, decodeScore(value))
			return true
		})
	case metadata.TypeHyperLogLog:
		if len(rec.rest) < 1 || rec.rest[0] != metadata.HLLDense {
			return nil, false, fmt.Errorf("%w: HyperLogLog %q of encoding %x", ErrCorrupt, key, rec.rest)
		}
		var regs hllRegisters
		var present [metadata.HLLSegments]bool
		var segs [metadata.HLLSegments][]byte
		if err = db.mergeHLL(snap, c, &regs, &present, &segs); err != nil {
			return nil, false, err
		}
		v.Str = make([]byte, HLLDenseBytes)
		for i, seg := range segs {
			copy(v.Str[i*metadata.HLLSegmentBytes:], seg)
		}
	case metadata.TypeStream:
		err = db.readStream(snap, c, rec.rest, v)
	default:
		return nil, false, ErrNotDumpable
	}
	if err != nil || !found {
		return nil, false, err
	}
	return v, true, nil
}

// PutValue replaces key, of any type or absent, by v with expiry expire
// (absolute ms, 0: none), in one batch: a collection gets a new version,
// so the elements of what it replaces vanish at once. A collection v must
// have elements (sets, hashes and sorted sets distinct ones), but for a
// stream, whose entries must be in ID order, and a HyperLogLog's Str
// HLLDenseBytes bytes; v's slices must stay unmodified until PutValue
// returns.
func (db DB) PutValue(key []byte, v *Value, expire int64) error {
	c := &collection{db: db, nsKey: db.nsKey(key), key: key, writer: true}
	c.meta = metadata.New(v.Type, db.s.versions.Next(nowTime()))
	c.meta.Expire = expire
	b := db.newBatch(typeLog(v.Type))
	switch v.Type {
	case metadata.TypeString:
		b.put(CFMetadata, c.nsKey, encodeString(v.Str, expire))
		return b.commit()
	case metadata.TypeList:
		c.push(b, v.Elems, false)
	case metadata.TypeHash:
		for i := 0; i+1 < len(v.Elems); i += 2 {
			b.put(CFDefault, c.subkey(v.Elems[i]), v.Elems[i+1])
		}
		c.meta.Size = uint64(len(v.Elems) / 2)
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
	case metadata.TypeHyperLogLog:
		if len(v.Str) != HLLDenseBytes {
			return fmt.Errorf("storage: HyperLogLog registers of %d bytes", len(v.Str))
		}
		for seg := range metadata.HLLSegments {
			regs := v.Str[seg*metadata.HLLSegmentBytes : (seg+1)*metadata.HLLSegmentBytes]
			if allZero(regs) {
				continue // an absent segment reads as zeros
			}
			var buf [2]byte
			b.put(CFDefault, c.subkey(metadata.AppendHLLSegment(buf[:0], seg)), append([]byte(nil), regs...))
		}
		b.put(CFMetadata, c.nsKey, newHLLMeta(c.meta))
		return b.commit()
	case metadata.TypeStream:
		db.putStream(b, c, v)
		return b.commit()
	default:
		return fmt.Errorf("storage: no whole value of type %v", v.Type)
	}
	b.put(CFMetadata, c.nsKey, c.meta.AppendTo(nil))
	return b.commit()
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
