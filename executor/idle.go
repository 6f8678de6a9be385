package executor

import (
	"hash/maphash"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// accessClock remembers when keys were last used, for OBJECT IDLETIME, as
// Redis keeps an LRU clock in every object. Basalt keeps no object in
// memory, so the times live in a table of a fixed number of slots, each
// holding a fingerprint of one key and the second it was last used: the
// memory is the same for ten keys as for a billion. A key whose slot
// another key took since, or that nobody used since the server started,
// reads as idle since the start, which is where Redis's clock stands for
// the keys it loads from disk.
type accessClock struct {
	seed  maphash.Seed
	start uint32 // Unix seconds
	slots []atomic.Uint64
}

// accessSlotsLog2 sizes the table: 2^20 slots of 8 bytes.
const accessSlotsLog2 = 20

func newAccessClock() *accessClock {
	return &accessClock{seed: maphash.MakeSeed(), start: unixSeconds(), slots: accessSlots()}
}

// accessSlots maps the table outside the Go heap, for the life of the
// process: on the heap, its 8 MB would count as live, and the collector,
// which lets the heap grow to twice what is live, would keep 8 MB more of
// garbage besides.
func accessSlots() []atomic.Uint64 {
	const n = 1 << accessSlotsLog2
	mem, err := syscall.Mmap(-1, 0, n*8, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE|syscall.MAP_NORESERVE)
	if err != nil {
		return make([]atomic.Uint64, n)
	}
	return unsafe.Slice((*atomic.Uint64)(unsafe.Pointer(unsafe.SliceData(mem))), n)
}

func unixSeconds() uint32 { return uint32(time.Now().Unix()) }

// slot returns the slot of key of namespace ns and the key's fingerprint
// (never 0, which marks an empty slot).
func (a *accessClock) slot(ns string, key []byte) (*atomic.Uint64, uint64) {
	h := maphash.Bytes(a.seed, key) ^ maphash.String(a.seed, ns)*0x9e3779b97f4a7c15
	return &a.slots[h>>(64-accessSlotsLog2)], uint64(uint32(h) | 1)
}

// touch records that key was used at Unix second now.
func (a *accessClock) touch(ns string, key []byte, now uint32) {
	slot, fp := a.slot(ns, key)
	// Written only when it changes: a hot key read all second long keeps
	// its cache line shared.
	if v := fp<<32 | uint64(now); slot.Load() != v {
		slot.Store(v)
	}
}

// SetIdle records that key was last used idle seconds ago (RESTORE
// IDLETIME).
func (a *accessClock) SetIdle(ns string, key []byte, idle int64) {
	now := int64(unixSeconds())
	a.touch(ns, key, uint32(max(now-idle, 1)))
}

// Idle returns the seconds since key was last used.
func (a *accessClock) Idle(ns string, key []byte) int64 {
	slot, fp := a.slot(ns, key)
	last := a.start
	if v := slot.Load(); v>>32 == fp {
		last = uint32(v)
	}
	return max(int64(unixSeconds())-int64(last), 0)
}

// touchKeys records the use of a command's keys, unless it only inspects
// them (TYPE, TTL, EXISTS, OBJECT, ...), as Redis's lookups with
// LOOKUP_NOTOUCH do.
func (e *Env) touchKeys(ns string, cmd *Command, args [][]byte, at time.Time) {
	if cmd.Flags&NoTouch != 0 || !cmd.HasKeys() {
		return
	}
	now := uint32(at.Unix())
	for _, k := range cmd.KeysOf(args) {
		e.Access.touch(ns, k, now)
	}
}
