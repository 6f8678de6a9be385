package storage

import (
	"slices"
	"sync"
)

// lockStripes is the number of mutexes keys are spread over. Two keys that
// share a stripe serialise needlessly, so it is large; a mutex is 8 bytes.
const lockStripes = 1 << 14

// Locks serialises read-modify-writes of the same key without a global
// lock: a key maps to one of lockStripes mutexes by a hash of its namespace
// and name. Multi-key commands lock their stripes in ascending order, so two
// of them can never deadlock.
type Locks struct {
	stripes [lockStripes]sync.Mutex
}

// KeyGuard holds the stripes locked for one command; Unlock releases them.
type KeyGuard struct {
	l       *Locks
	inline  [4]uint32
	stripes []uint32
}

func stripeOf(ns string, key []byte) uint32 {
	// FNV-1a over namespace and key: cheap and allocation free.
	h := uint32(2166136261)
	for i := 0; i < len(ns); i++ {
		h = (h ^ uint32(ns[i])) * 16777619
	}
	h = (h ^ 0xff) * 16777619
	for _, c := range key {
		h = (h ^ uint32(c)) * 16777619
	}
	return h % lockStripes
}

// Lock locks the stripes of keys in namespace ns and returns the guard that
// unlocks them.
func (l *Locks) Lock(ns string, keys [][]byte) KeyGuard {
	g := KeyGuard{l: l}
	g.stripes = g.inline[:0]
	for _, k := range keys {
		g.stripes = append(g.stripes, stripeOf(ns, k))
	}
	if len(g.stripes) > 1 {
		slices.Sort(g.stripes)
		g.stripes = slices.Compact(g.stripes)
	}
	for _, s := range g.stripes {
		l.stripes[s].Lock()
	}
	return g
}

// Unlock releases the guard's stripes.
func (g *KeyGuard) Unlock() {
	for i := len(g.stripes) - 1; i >= 0; i-- {
		g.l.stripes[g.stripes[i]].Unlock()
	}
	g.stripes = nil
}
