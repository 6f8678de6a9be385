package storage

import (
	"slices"
	"sync"
	"testing"
)

// recordingWatcher keeps the writes it is told of, and whether the keys'
// stripes were held when it was told.
type recordingWatcher struct {
	s        *Storage
	watching bool
	mu       sync.Mutex
	told     []string // "ns/key" per key told, by Write.By order
	unlocked int      // notices given while a stripe of the write was free
}

func (r *recordingWatcher) Watching() bool { return r.watching }

func (r *recordingWatcher) Wrote(w *Write) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.told = append(r.told, w.By.(string))
	for _, k := range w.Keys {
		if !r.s.stripeHeld(w.NS, k) {
			r.unlocked++
		}
	}
	for _, k := range w.Also {
		if !r.s.stripeHeld(k.NS, k.Name) {
			r.unlocked++
		}
	}
}

func (s *Storage) stripeHeld(ns string, key []byte) bool {
	st := &s.locks.stripes[stripeOf(ns, key)]
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.held
}

// TestUpdateTellsTheWatcher checks rule 4 of write.go: a write that
// changed something is reported under its keys' locks, one that changed
// nothing or has no writer is not, and nothing is reported while nobody
// watches.
func TestUpdateTellsTheWatcher(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	w := &recordingWatcher{s: s, watching: true}
	s.SetWatcher(w)
	set := func(key string) func(DB) {
		return func(db DB) {
			if _, err := db.Set(b(key), b("v"), SetArgs{}); err != nil {
				t.Error(err)
			}
		}
	}
	mustUpdate := func(wr *Write, fn func(DB)) {
		t.Helper()
		if err := s.Update(wr, fn); err != nil {
			t.Fatal(err)
		}
	}
	mustUpdate(&Write{NS: "ns", Keys: [][]byte{b("a")}, By: "set a"}, set("a"))
	mustUpdate(&Write{NS: "ns", Keys: [][]byte{b("a")}, By: "read a"}, func(db DB) {
		if _, _, err := db.Get(b("a")); err != nil {
			t.Error(err)
		}
	})
	mustUpdate(&Write{NS: "ns", Keys: [][]byte{b("b")}}, set("b"))
	w.watching = false
	mustUpdate(&Write{NS: "ns", Keys: [][]byte{b("c")}, By: "unwatched c"}, set("c"))
	w.watching = true
	mustUpdate(&Write{NS: "ns", Keys: [][]byte{b("a")}, Also: []Key{{NS: "other", Name: b("a")}}, By: "move a"}, func(db DB) {
		if moved, err := db.MoveTo(b("a"), db.Sibling("other")); err != nil || !moved {
			t.Errorf("MoveTo: %v, %v", moved, err)
		}
	})
	if want := []string{"set a", "move a"}; !slices.Equal(w.told, want) {
		t.Errorf("watcher told of %q, want %q", w.told, want)
	}
	if w.unlocked != 0 {
		t.Errorf("%d notices came while a key's stripe was free", w.unlocked)
	}
	if _, found, err := s.DB("other").Get(b("a")); err != nil || !found {
		t.Errorf("the key moved through a sibling DB is not in its namespace: %v, %v", found, err)
	}
}

// TestHolds: a write's view holds the locks of its keys and of its Also
// keys, each in its namespace, and of no other key; a view of no write
// holds every key.
func TestHolds(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	wr := &Write{NS: "ns", Keys: [][]byte{b("a")}, Also: []Key{{NS: "ns", Name: b("dest")}, {NS: "other", Name: b("b")}}}
	err := s.Update(wr, func(db DB) {
		for _, c := range []struct {
			db   DB
			key  string
			want bool
		}{
			{db, "a", true}, {db, "dest", true}, {db, "b", false}, {db, "c", false},
			{db.Sibling("other"), "b", true}, {db.Sibling("other"), "a", false},
		} {
			if got := c.db.Holds(b(c.key)); got != c.want {
				t.Errorf("Holds(%s) in %s: %v, want %v", c.key, c.db.Namespace(), got, c.want)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !s.DB("ns").Holds(b("c")) {
		t.Error("a view of no write holds no key")
	}
}
