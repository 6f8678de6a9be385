package storage

import (
	"bytes"
	"encoding/binary"
	"sync"

	"github.com/basaltdb/basalt/metadata"
)

// Popping from the front (or back) of a collection leaves RocksDB
// tombstones that every later iterator starting at that end must step over,
// which makes a run of ZPOPMIN or SPOP quadratic. popHints remembers, per
// collection incarnation, column family and end, a subkey beyond which the
// live elements start: pops seek there directly. A hint is a bound, not a
// position: the element at it may be gone. Every write that adds elements
// to a poppable collection widens the bounds (widen), so a hint never hides
// a live element.
type popHints struct {
	mu struct {
		sync.Mutex
		m map[string][]byte
	}
}

// maxPopHints bounds the memory of hints; when full they are all dropped,
// which only costs the next pops a walk over their tombstones.
const maxPopHints = 4096

func hintKey(c *collection, cf CF, back bool) string {
	var b [10]byte
	b[0] = byte(cf)
	if back {
		b[1] = 1
	}
	binary.BigEndian.PutUint64(b[2:], c.meta.Version)
	return string(b[:]) + string(c.nsKey)
}

func (h *popHints) get(c *collection, cf CF, back bool) []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.mu.m[hintKey(c, cf, back)]
}

func (h *popHints) set(c *collection, cf CF, back bool, sub []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.mu.m == nil || len(h.mu.m) >= maxPopHints {
		h.mu.m = map[string][]byte{}
	}
	h.mu.m[hintKey(c, cf, back)] = append([]byte(nil), sub...)
}

// widen makes both hints of c's cf admit a newly written subkey.
func (h *popHints) widen(c *collection, cf CF, sub []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.mu.m) == 0 {
		return
	}
	front, back := hintKey(c, cf, false), hintKey(c, cf, true)
	if cur, ok := h.mu.m[front]; ok && bytes.Compare(sub, cur) < 0 {
		h.mu.m[front] = append([]byte(nil), sub...)
	}
	if cur, ok := h.mu.m[back]; ok && bytes.Compare(sub, cur) > 0 {
		h.mu.m[back] = append([]byte(nil), sub...)
	}
}

// drop forgets the hints of a key, whatever the version: RENAME and COPY
// move an incarnation (and its version) from one key to another.
func (h *popHints) drop(nsKey []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for k := range h.mu.m {
		if k[10:] == string(nsKey) {
			delete(h.mu.m, k)
		}
	}
}

// seekEnd positions it at the first live element from the front, or from
// the back. Only a writer, which holds the key's lock and reads the latest
// state, uses and refreshes the hint: a reader on an older snapshot could
// both miss elements popped after its snapshot and hide elements added
// after it. Lists need no hints: their metadata says where they start.
func (c *collection) seekEnd(it iterator, lower []byte, cf CF, back bool) {
	hints := &c.db.s.hints
	useHint := c.writer && c.meta.Type != metadata.TypeList
	var hint []byte
	if useHint {
		hint = hints.get(c, cf, back)
	}
	switch {
	case hint == nil && back:
		it.SeekToLast()
	case hint == nil:
		it.SeekToFirst()
	case back:
		it.SeekForPrev(append(lower[:len(lower):len(lower)], hint...))
	default:
		it.Seek(append(lower[:len(lower):len(lower)], hint...))
	}
	if useHint && it.Valid() {
		hints.set(c, cf, back, it.keyData()[len(lower):])
	}
}

// reset forgets every hint.
func (h *popHints) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.mu.m = nil
}
