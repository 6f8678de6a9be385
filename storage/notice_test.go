package storage

import (
	"testing"

	"github.com/basaltdb/basalt/metadata"
)

// TestKeyStatesAndExpiredKeys: the states notifications compare, and the
// expired keys found by the walk and deleted one by one, in every
// namespace and only when their time has passed.
func TestKeyStatesAndExpiredKeys(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	t.Cleanup(s.Close)
	db, other := s.DB(metadata.DefaultNamespace), s.DB("tenant")
	past := nowMs() - 1000
	for _, w := range []struct {
		db     DB
		key    string
		expire int64
	}{{db, "live", 0}, {db, "later", nowMs() + 3_600_000}, {db, "gone", past}, {other, "gone2", past}} {
		if _, err := w.db.Set(b(w.key), b("v"), SetArgs{Expire: w.expire}); err != nil {
			t.Fatal(err)
		}
	}
	states, err := db.KeyStates([][]byte{b("live"), b("gone"), b("absent")})
	if err != nil {
		t.Fatal(err)
	}
	if !states[0].Alive || states[0].Type != metadata.TypeString || states[0].Meta == nil {
		t.Errorf("live: %+v", states[0])
	}
	if states[1].Alive || !states[1].Expired || states[1].Meta == nil {
		t.Errorf("gone: %+v", states[1])
	}
	if states[2].Alive || states[2].Expired || states[2].Meta != nil || states[2].Same(states[1]) {
		t.Errorf("absent: %+v", states[2])
	}
	// One record at a time: the walk goes on from where it stopped.
	var found []Key
	var from []byte
	for steps := 0; steps == 0 || from != nil; steps++ {
		keys, next, err := s.ExpiredKeys(from, 1)
		if err != nil || steps > 10 {
			t.Fatalf("step %d: %v", steps, err)
		}
		found, from = append(found, keys...), next
	}
	if len(found) != 2 {
		t.Fatalf("expired keys: %+v", found)
	}
	for _, k := range found {
		deleted, err := s.DB(k.NS).DeleteExpired(k.Name)
		if err != nil || !deleted {
			t.Fatalf("delete %s/%s: %v %v", k.NS, k.Name, deleted, err)
		}
	}
	for _, k := range []string{"live", "later", "absent"} {
		if deleted, err := db.DeleteExpired(b(k)); err != nil || deleted {
			t.Errorf("%s deleted: %v %v", k, deleted, err)
		}
	}
	if keys, _, _ := s.ExpiredKeys(nil, 100); len(keys) != 0 {
		t.Errorf("left: %+v", keys)
	}
}
