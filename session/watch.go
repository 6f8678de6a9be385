package session

import (
	"hash/maphash"
	"sync/atomic"
	"time"
)

// Watches detects writes to WATCHed keys. Each key hashes to one of a
// fixed set of stamps, which every write to it bumps while anyone
// watches; a write without keys (FLUSHALL) bumps the epoch, which every
// watch depends on. Two keys sharing a stamp can only make an EXEC fail
// without need, never succeed wrongly.
type Watches struct {
	count  atomic.Int64 // sessions watching
	epoch  atomic.Uint64
	stamps [1 << 14]atomic.Uint64
}

var watchSeed = maphash.MakeSeed()

// watchedKey is one WATCHed key: the stamp and epoch when watched, and
// its expiry then (0: none), which EXEC checks too. As in Redis, a flush
// changes only the keys that existed: one that did not when watched, and
// whose stamp has not moved since, did not when the flush came either.
type watchedKey struct {
	stamp    int
	value    uint64
	epoch    uint64
	expireAt int64
	existed  bool
}

func stampOf(ns string, key []byte) int {
	var h maphash.Hash
	h.SetSeed(watchSeed)
	h.WriteString(ns)
	h.WriteByte(0)
	h.Write(key)
	return int(h.Sum64() % (1 << 14))
}

// Watch adds key of s's namespace to what s watches; existed and
// expireAt (Unix ms, 0: none) say what the key was when watched. The
// caller holds the key's lock, so no write to it is half done.
func (s *Session) Watch(key []byte, existed bool, expireAt int64) {
	w := &s.reg.Watches
	if s.watched == nil {
		w.count.Add(1)
	}
	if !existed {
		expireAt = 0
	}
	i := stampOf(s.Namespace, key)
	s.watched = append(s.watched, watchedKey{stamp: i, value: w.stamps[i].Load(), epoch: w.epoch.Load(), expireAt: expireAt, existed: existed})
}

// Touch records a write to keys of namespace ns (none: everything).
func (w *Watches) Touch(ns string, keys [][]byte) {
	if len(keys) == 0 {
		w.epoch.Add(1)
		return
	}
	for _, k := range keys {
		w.stamps[stampOf(ns, k)].Add(1)
	}
}

// Active reports whether any session watches keys.
func (w *Watches) Active() bool { return w.count.Load() > 0 }

// WatchedChanged reports whether a key s watches was written or has
// expired since.
func (s *Session) WatchedChanged() bool {
	w := &s.reg.Watches
	now := time.Now().UnixMilli()
	for _, k := range s.watched {
		if w.stamps[k.stamp].Load() != k.value || (k.existed && w.epoch.Load() != k.epoch) || (k.expireAt > 0 && k.expireAt <= now) {
			return true
		}
	}
	return false
}

// Unwatch forgets every key s watches.
func (w *Watches) Unwatch(s *Session) {
	if s.watched != nil {
		s.watched = nil
		w.count.Add(-1)
	}
}
