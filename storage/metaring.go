package storage

import (
	"encoding/binary"
	"log/slog"
	"syscall"
)

// A metadata cache shard keeps its entries in a ring of memory mapped
// outside the Go heap, and its map holds only their offsets. When each
// entry was a []byte of its own (until 2026-11-29), the cache's 32 MB
// budget cost 44 MB of live heap, and Go's collector, which lets the heap
// grow to twice what is live before it collects, made that about 90 MB of
// RSS, with every entry's pointer to mark at each collection. In the ring
// an entry costs its bytes and a 24-byte header, the map is free of
// pointers, and the budget is what the shards map.
//
// Entries are written at head, one after the other, and the ring is
// overwritten from its start when head reaches its end, so the oldest
// entries go first. Entries lie back to back from offset 0 to end, each
// header giving its size: head is always at an entry's start or at end.
// An entry forgotten or replaced stays in the ring, out of the map, until
// head passes it.
//
// An entry's header, in host byte order:
//
//	0  size    uint32, the entry's bytes with the header, a multiple of 8
//	4  keyLen  uint32
//	8  valLen  uint32
//	12 flags   found, stale
//	16 hash    uint64, the key's in the map
//
// then the key and the value, and room up to size, which a later value of
// the same key may take without moving.
const (
	entryHeader = 24
	entryFound  = 1
	entryStale  = 2
)

// maxRing bounds a shard's ring, whose offsets are 32-bit: a budget
// beyond 256 times it maps no more.
const maxRing = 1 << 31

// entrySize is what an entry of n bytes of key and value takes of the
// budget.
func entrySize(n int) int64 { return int64(entryHeader+n+7) &^ 7 }

func (sh *metaShard) u32(off uint32) uint32 { return binary.NativeEndian.Uint32(sh.ring[off:]) }

func (sh *metaShard) putU32(off, v uint32) { binary.NativeEndian.PutUint32(sh.ring[off:], v) }

func (sh *metaShard) size(off uint32) uint32   { return sh.u32(off) }
func (sh *metaShard) keyLen(off uint32) uint32 { return sh.u32(off + 4) }
func (sh *metaShard) valLen(off uint32) uint32 { return sh.u32(off + 8) }
func (sh *metaShard) flags(off uint32) byte    { return sh.ring[off+12] }
func (sh *metaShard) hash(off uint32) uint64 {
	return binary.NativeEndian.Uint64(sh.ring[off+16:])
}

// key and value return the entry's bytes in the ring: copy them before
// the shard's lock is released.
func (sh *metaShard) key(off uint32) []byte {
	from := off + entryHeader
	return sh.ring[from : from+sh.keyLen(off)]
}

func (sh *metaShard) value(off uint32) []byte {
	from := off + entryHeader + sh.keyLen(off)
	return sh.ring[from : from+sh.valLen(off)]
}

func (sh *metaShard) found(off uint32) bool { return sh.flags(off)&entryFound != 0 }
func (sh *metaShard) stale(off uint32) bool { return sh.flags(off)&entryStale != 0 }

// markStale keeps the entry for a write in flight to rewrite, and makes
// readers miss it meanwhile.
func (sh *metaShard) markStale(off uint32) { sh.ring[off+12] |= entryStale }

// entry returns the offset of key's entry, of hash h; ok is false when it
// has none.
func (sh *metaShard) entry(h uint64, key []byte) (off uint32, ok bool) {
	off, ok = sh.m[h]
	return off, ok && string(sh.key(off)) == string(key)
}

// storeLocked stores key's record, of hash h; the caller checked that the
// entry fits the budget. The entry of the same key is rewritten where it
// is when the record fits its room; another key's of the same hash is
// dropped: the last stored wins.
func (sh *metaShard) storeLocked(h uint64, key, value []byte, found bool) {
	size := entrySize(len(key) + len(value))
	if size > int64(len(sh.ring)) {
		// No ring (the budget is 0, or mapping it failed), or one not yet
		// remapped to a larger budget: what the shard held of key goes.
		if off, ok := sh.entry(h, key); ok {
			sh.forget(h, off)
		}
		return
	}
	need := uint32(size)
	off, had := sh.m[h]
	if !had || string(sh.key(off)) != string(key) || sh.size(off) < need {
		if had {
			sh.forget(h, off)
		}
		off = sh.alloc(need)
		sh.putU32(off+4, uint32(len(key)))
		binary.NativeEndian.PutUint64(sh.ring[off+16:], h)
		copy(sh.ring[off+entryHeader:], key)
		sh.m[h] = off
		sh.bytes += int64(sh.size(off))
	}
	sh.putU32(off+8, uint32(len(value)))
	copy(sh.ring[off+entryHeader+uint32(len(key)):], value)
	sh.ring[off+12] = 0
	if found {
		sh.ring[off+12] = entryFound
	}
}

// alloc makes room for an entry of need bytes at head, evicting the
// entries there, and returns its offset with its size written: need, or
// up to the end of the last entry evicted, whose rest would otherwise lie
// between two entries with no header of its own.
func (sh *metaShard) alloc(need uint32) uint32 {
	if int64(sh.head)+int64(need) > int64(len(sh.ring)) {
		sh.evict(sh.head, sh.end)
		sh.end, sh.head = sh.head, 0
	}
	off := sh.head
	p := sh.evict(off, off+need)
	size := need
	switch {
	case p < off+need:
		sh.end = off + need // evicted to end: what follows is free
	case p > off+need:
		size = p - off // the rest of the last entry evicted joins this one
	}
	sh.putU32(off, size)
	sh.head = off + size
	sh.touched = max(sh.touched, sh.end)
	return off
}

// evict drops the entries that start in [from, to), up to end, and
// returns where the first entry it left starts (or end).
func (sh *metaShard) evict(from, to uint32) uint32 {
	p := from
	for p < to && p < sh.end {
		if h := sh.hash(p); sh.owns(h, p) {
			sh.forget(h, p)
		}
		p += sh.size(p)
	}
	return p
}

// owns reports whether the map's entry of hash h is the one at off.
func (sh *metaShard) owns(h uint64, off uint32) bool {
	o, ok := sh.m[h]
	return ok && o == off
}

// forget drops the entry of hash h at off; its bytes stay in the ring
// until head passes them.
func (sh *metaShard) forget(h uint64, off uint32) {
	delete(sh.m, h)
	sh.bytes -= int64(sh.size(off))
}

// reset forgets every entry; the ring stays mapped.
func (sh *metaShard) reset() {
	clear(sh.m)
	sh.bytes, sh.head, sh.end = 0, 0, 0
}

// remap replaces the ring by one of size bytes (none for 0), forgetting
// every entry: the budget changed. Without memory for it the shard stores
// nothing: the cache only saves reads.
func (sh *metaShard) remap(size int64) {
	sh.release()
	if size == 0 {
		return
	}
	ring, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE|syscall.MAP_NORESERVE)
	if err != nil {
		slog.Warn("no memory mapped for a metadata cache shard: it caches nothing", "bytes", size, "err", err)
		return
	}
	sh.ring = ring
}

// release unmaps the ring, forgetting every entry.
func (sh *metaShard) release() {
	sh.reset()
	if sh.ring != nil {
		if err := syscall.Munmap(sh.ring); err != nil {
			slog.Error("unmap a metadata cache shard", "err", err)
		}
		sh.ring, sh.touched = nil, 0
	}
}
