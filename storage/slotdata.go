package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/basaltdb/basalt/metadata"
	"github.com/linxGnu/grocksdb"
)

// What slot migration needs from the engine. In cluster mode every record
// of the data column families starts with u8 len(ns) | ns | u16 slot, so
// the data of a slot range is one key range per namespace and column
// family.

// SlotRange is an inclusive range of hash slots.
type SlotRange struct{ From, To uint16 }

// Contains reports whether slot is in the range.
func (r SlotRange) Contains(slot uint16) bool { return r.From <= slot && slot <= r.To }

// ErrSlotsFlushed reports a range deletion that may have touched a slot
// range being read from the WAL: a flush during a migration.
var ErrSlotsFlushed = errors.New("storage: the slots were flushed")

// slotBounds returns the bounds of namespace ns's records in r.
func slotBounds(ns []byte, r SlotRange) (lower, upper []byte) {
	lower = metadata.AppendSlotPrefix(nil, string(ns), r.From)
	upper = metadata.AppendSlotPrefix(nil, string(ns), r.To+1)
	return lower, upper
}

// slotOf returns the slot of a cluster-mode record key.
func slotOf(key []byte) (uint16, bool) {
	if len(key) < 1 || len(key) < 3+int(key[0]) {
		return 0, false
	}
	n := int(key[0])
	return binary.BigEndian.Uint16(key[1+n:]), true
}

// namespaces returns every namespace that has records in one of cfs,
// jumping from one namespace prefix to the next.
func (s *Storage) namespaces(snap *grocksdb.Snapshot, cfs ...CF) ([][]byte, error) {
	seen := map[string]bool{}
	var out [][]byte
	for _, cf := range cfs {
		it := s.newIterator(cf, nil, nil, snap)
		it.SeekToFirst()
		for it.Valid() {
			k := it.keyData()
			if len(k) < 1+int(k[0]) {
				it.Next() // not a Kvrocks key: skip it
				continue
			}
			prefix := k[:1+int(k[0])]
			if !seen[string(prefix[1:])] {
				seen[string(prefix[1:])] = true
				out = append(out, append([]byte(nil), prefix[1:]...))
			}
			next := metadata.PrefixEnd(prefix)
			if next == nil {
				break
			}
			it.Seek(next)
		}
		err := it.Err()
		it.close()
		if err != nil {
			return nil, fmt.Errorf("storage: list namespaces: %w", err)
		}
	}
	return out, nil
}

// DeleteSlots deletes every record of the slots in r, in every namespace
// and data column family, with range deletions. Elements go too, not only
// metadata: a key that comes back later with the same version (migrated
// away and back) must not find stale elements.
func (s *Storage) DeleteSlots(r SlotRange) error {
	nss, err := s.namespaces(nil, elementCFs...)
	if err != nil {
		return err
	}
	b := s.newBatch(nil)
	for _, ns := range nss {
		lower, upper := slotBounds(ns, r)
		for _, cf := range elementCFs {
			b.delRange(cf, lower, upper)
		}
	}
	s.hints.reset()
	return b.commit()
}

// Snapshot is a consistent view of the database and the WAL sequence
// number it ends at.
type Snapshot struct {
	s    *Storage
	snap *grocksdb.Snapshot
	// Seq is the sequence number of the last write the snapshot sees.
	Seq uint64
}

// NewSnapshot takes a snapshot; Release must be called when done.
func (s *Storage) NewSnapshot() *Snapshot {
	// Writes go through writeMu: holding it pins the sequence number the
	// snapshot ends at.
	s.life.RLock()
	defer s.life.RUnlock()
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.pinned.Add(1)
	return &Snapshot{s: s, snap: s.db.NewSnapshot(), Seq: s.db.GetLatestSequenceNumber()}
}

// Release frees the snapshot.
func (sn *Snapshot) Release() {
	sn.s.db.ReleaseSnapshot(sn.snap)
	sn.s.pinned.Add(-1)
}

// SlotKey is a live key read from a Snapshot. Its slices are valid only
// during the callback that receives it.
type SlotKey struct {
	sn        *Snapshot
	Namespace []byte
	Key       []byte
	NSKey     []byte // the metadata key
	Raw       []byte // the metadata value
	Meta      metadata.Metadata
	// Value is a string's payload.
	Value []byte
}

// EachKey calls fn for every live key of the slots in r, in every
// namespace.
func (sn *Snapshot) EachKey(r SlotRange, fn func(*SlotKey) error) error {
	nss, err := sn.s.namespaces(sn.snap, CFMetadata)
	if err != nil {
		return err
	}
	now := nowMs()
	for _, ns := range nss {
		lower, upper := slotBounds(ns, r)
		err := sn.s.scan(CFMetadata, lower, upper, sn.snap, func(nsKey, raw []byte) error {
			k, err := sn.slotKey(nsKey, raw, now)
			if err != nil || k == nil {
				return err
			}
			return fn(k)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Key reads one key by its metadata key; nil when it is absent or dead.
func (sn *Snapshot) Key(nsKey []byte) (*SlotKey, error) {
	raw, found, err := sn.s.getAt(sn.snap, CFMetadata, nsKey)
	if err != nil || !found {
		return nil, err
	}
	return sn.slotKey(nsKey, raw, nowMs())
}

func (sn *Snapshot) slotKey(nsKey, raw []byte, now int64) (*SlotKey, error) {
	m, rest, err := metadata.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if m.Dead(now) {
		return nil, nil
	}
	ns, key, err := sn.s.layout.ParseNSKey(nsKey)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	k := &SlotKey{sn: sn, Namespace: ns, Key: key, NSKey: nsKey, Raw: raw, Meta: m}
	if m.Type.SingleKV() {
		k.Value = rest
	}
	return k, nil
}

// EachElement calls fn, in key order per column family, with every
// element record of the key: the column family, the record's key, the
// part of it after the key's subkey prefix, and its value. The slices are
// valid only during the call.
func (k *SlotKey) EachElement(fn func(cf CF, ikey, sub, value []byte) error) error {
	s := k.sn.s
	lower := s.layout.AppendSubkeyPrefix(nil, string(k.Namespace), k.Key, k.Meta.Version)
	upper := metadata.PrefixEnd(lower)
	for _, cf := range subkeyCFs(k.Meta.Type) {
		err := s.scan(cf, lower, upper, k.sn.snap, func(ikey, value []byte) error {
			return fn(cf, ikey, ikey[len(lower):], value)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// ParseNSKey splits a metadata key into namespace and user key; both
// alias nsKey.
func (s *Storage) ParseNSKey(nsKey []byte) (ns, key []byte, err error) {
	return s.layout.ParseNSKey(nsKey)
}

// Change is one write to a slot range read from the WAL.
type Change struct{ op op }

// AddChange adds a change read from the WAL to the batch.
func (b *RawBatch) AddChange(c Change) { b.add(c.op) }

// ChangedKey returns the metadata key of the key a change wrote to.
func (s *Storage) ChangedKey(c Change) ([]byte, error) {
	if c.op.cf == CFMetadata {
		return c.op.key, nil
	}
	k, err := s.layout.ParseInternalKey(c.op.key)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return s.layout.AppendNSKeyOf(nil, k), nil
}

// ReadWAL calls fn with the writes to the slots of r of every batch
// committed after sequence number after, in commit order, and returns the
// last sequence number it read. The changes slice is reused after the
// call. A range deletion that may touch r fails
// with ErrSlotsFlushed.
func (s *Storage) ReadWAL(after uint64, r SlotRange, fn func([]Change) error) (uint64, error) {
	var changes []Change
	return s.ReadWALBatches(after, func(b WALBatch) error {
		var err error
		changes, err = s.slotChanges(b.Data, r, changes[:0])
		if err == nil && len(changes) > 0 {
			err = fn(changes)
		}
		return err
	})
}

// slotChanges appends to dst the writes of a raw batch to r's slots.
func (s *Storage) slotChanges(data []byte, r SlotRange, dst []Change) ([]Change, error) {
	ops, err := s.parseRawBatch(data, false)
	if err != nil {
		return dst, err
	}
	for _, o := range ops {
		if !isElementCF(o.cf) {
			continue
		}
		if o.kind == opDeleteRange {
			if rangeMayTouch(o.key, o.value, r) {
				return dst, ErrSlotsFlushed
			}
			continue
		}
		if slot, ok := slotOf(o.key); ok && r.Contains(slot) {
			// The WAL batch is freed after the callback: copy.
			o.key, o.value = bytes.Clone(o.key), bytes.Clone(o.value)
			dst = append(dst, Change{op: o})
		}
	}
	return dst, nil
}

func isElementCF(cf CF) bool {
	for _, c := range elementCFs {
		if c == cf {
			return true
		}
	}
	return false
}

// rangeMayTouch reports whether the deletion of [from, to) may touch slot
// range r. Only a deletion within one namespace whose slot bounds are
// readable is known to miss r.
func rangeMayTouch(from, to []byte, r SlotRange) bool {
	first, okFrom := slotOf(from)
	end, okTo := slotOf(to)
	if !okFrom || !okTo || from[0] != to[0] || !bytes.Equal(from[:1+int(from[0])], to[:1+int(to[0])]) {
		return true
	}
	if len(to) > 3+int(to[0]) {
		end++ // to is inside slot end, which is partly deleted
	}
	return !(int(end) <= int(r.From) || first > r.To)
}
