package storage

import (
	"bytes"
	"fmt"

	"github.com/basaltdb/basalt/metadata"
)

// What keyspace notifications and client-side caching ask of the storage:
// the state of keys before and after a write, and the deletion of keys
// whose time has passed, which Redis reports as "expired" events. Kvrocks
// leaves expired keys to compaction; Basalt deletes them only while
// someone listens for those events.

// KeyState is a key as a write found or left it.
type KeyState struct {
	Alive bool
	// Expired is set for a key present whose time has passed.
	Expired bool
	Type    metadata.Type
	Size    uint64 // elements of a collection
	Expire  int64  // Unix ms, 0: none
	// Meta is the key's metadata record (a copy), nil when absent.
	Meta []byte
}

// Same reports whether two states are the same record.
func (k KeyState) Same(o KeyState) bool {
	return k.Alive == o.Alive && bytes.Equal(k.Meta, o.Meta)
}

// KeyStates reads the state of keys, seeing the pending writes of the
// caller's write group, in one round trip.
func (db DB) KeyStates(keys [][]byte) ([]KeyState, error) {
	nsKeys := make([][]byte, len(keys))
	for i, k := range keys {
		nsKeys[i] = db.nsKey(k)
	}
	raws, err := db.multiGet(CFMetadata, nsKeys)
	if err != nil {
		return nil, err
	}
	out := make([]KeyState, len(keys))
	now := db.now()
	for i, raw := range raws {
		if out[i], err = keyState(raw, now); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// keyState is the state of a key whose metadata record is raw (nil:
// absent) at Unix ms now; Meta is a copy of raw.
func keyState(raw []byte, now int64) (KeyState, error) {
	if raw == nil {
		return KeyState{}, nil
	}
	m, _, err := metadata.Decode(raw)
	if err != nil {
		return KeyState{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return KeyState{Alive: !m.Dead(now), Expired: m.Expired(now), Type: m.Type, Size: m.Size, Expire: m.Expire, Meta: bytes.Clone(raw)}, nil
}

// DeleteExpired deletes key if its time has passed and reports whether it
// did; the caller holds the key's lock (Update).
func (db DB) DeleteExpired(key []byte) (bool, error) {
	nsKey := db.nsKey(key)
	raw, found, err := db.get(CFMetadata, nsKey, nil)
	if err != nil || !found {
		return false, err
	}
	_, expire, ok := metadata.PeekType(raw)
	if !ok || expire == 0 || expire >= db.now() {
		return false, nil
	}
	return true, db.delete(logDelete, CFMetadata, nsKey)
}

// ExpiredKeys examines up to count metadata records of every namespace
// from the metadata key from (nil: the first) and returns the keys among
// them whose time has passed, and the metadata key to go on from (nil:
// the end was reached).
func (s *Storage) ExpiredKeys(from []byte, count int) (keys []Key, next []byte, err error) {
	it := s.newIterator(CFMetadata, nil, nil, nil)
	defer it.close()
	if from != nil {
		it.Seek(from)
	} else {
		it.SeekToFirst()
	}
	now := nowMs()
	examined := 0
	err = it.walk(false, count+1, func(nsKey, value []byte) bool {
		if examined == count {
			next = bytes.Clone(nsKey)
			return false
		}
		examined++
		if _, expire, ok := metadata.PeekType(value); !ok || expire == 0 || expire >= now {
			return true
		}
		if ns, key, err := s.layout.ParseNSKey(nsKey); err == nil {
			keys = append(keys, Key{NS: string(ns), Name: bytes.Clone(key)})
		}
		return true
	})
	return keys, next, err
}

// StreamConsumerExists reports whether stream key has group with
// consumer.
func (db DB) StreamConsumerExists(key, group, consumer []byte) (bool, error) {
	g, err := db.streamGroupForWrite(key, group)
	if err != nil {
		return false, nil
	}
	c, err := g.consumer(consumer, false, 0)
	return c != nil, err
}
