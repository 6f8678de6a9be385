package executor

import (
	"sync"
)

// cursorSlots is how many SCAN positions are remembered at once; a cursor
// is forgotten after that many newer ones were handed out.
const cursorSlots = 16384

// cursorTable turns SCAN positions (metadata keys, which can be long) into
// the numeric cursors Redis clients expect. A cursor number is a counter
// whose low bits index the slot it is stored in, so a stale number is
// detected rather than confused with a newer cursor.
type cursorTable struct {
	mu struct {
		sync.Mutex
		next  uint64
		slots [cursorSlots]cursorEntry
	}
}

type cursorEntry struct {
	id  uint64
	ns  string
	key []byte
}

// Save remembers the position key for namespace ns and returns its cursor.
func (t *cursorTable) Save(ns string, key []byte) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.mu.next++
	id := t.mu.next
	t.mu.slots[id%cursorSlots] = cursorEntry{id: id, ns: ns, key: key}
	return id
}

// Load returns the position of cursor id; ok is false for an unknown or
// forgotten cursor, or one handed out to another namespace.
func (t *cursorTable) Load(ns string, id uint64) (key []byte, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.mu.slots[id%cursorSlots]
	if e.id != id || e.ns != ns {
		return nil, false
	}
	return e.key, true
}
