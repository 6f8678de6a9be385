package storage

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/num"
)

// do runs fn holding the stripes of keys of namespace ns, as Update does.
func (l *keyLocks) do(ns string, keys [][]byte, fn func(*group)) error {
	return l.run((&Write{NS: ns, Keys: keys}).stripes(nil), fn)
}

// holdStripe holds the stripe of key until the returned function is
// called, so that critical sections queued meanwhile are combined.
func holdStripe(t *testing.T, db DB, key []byte, fn func(g *group)) (release func()) {
	held := make(chan struct{})
	releaseCh := make(chan struct{})
	done := make(chan error)
	go func() {
		done <- db.s.locks.do(db.ns, [][]byte{key}, func(g *group) {
			close(held)
			<-releaseCh
			fn(g)
		})
	}()
	<-held
	return func() {
		close(releaseCh)
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// waitUntil polls cond until it holds, failing the test after 5 seconds.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// waitQueued waits until n critical sections wait for key's stripe.
func waitQueued(t *testing.T, db DB, key []byte, n int) {
	st := &db.s.locks.stripes[stripeOf(db.ns, key)]
	waitUntil(t, fmt.Sprintf("%d sections to queue", n), func() bool {
		st.mu.Lock()
		defer st.mu.Unlock()
		return len(st.waiters)-st.next == n
	})
}

// TestGroupCombinesQueuedWrites queues read-modify-writes behind a held
// hot key: the holder runs them all in its group, each sees the writes of
// the ones before it, and nothing is visible outside until the group is
// flushed.
func TestGroupCombinesQueuedWrites(t *testing.T) {
	db := newTestDB(t)
	key := b("hot")
	const queued = 10
	var mu sync.Mutex
	var groups []*group
	var counts, lens []int64
	release := holdStripe(t, db, key, func(g *group) {
		mu.Lock()
		groups = append(groups, g)
		mu.Unlock()
		if _, err := db.in(g).Set(b("str"), b("first"), SetArgs{}); err != nil {
			t.Error(err)
		}
	})
	var wg sync.WaitGroup
	for i := 0; i < queued; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			err := db.s.locks.do(db.ns, [][]byte{key}, func(g *group) {
				in := db.in(g)
				n, err := in.HIncrBy(key, b("counter"), 1)
				if err != nil {
					t.Error(err)
				}
				l, err := in.Push(b("list"), [][]byte{b(fmt.Sprint(i))}, false, false)
				if err != nil {
					t.Error(err)
				}
				if _, err := in.Set(b("str"), b(fmt.Sprint("v", i)), SetArgs{}); err != nil {
					t.Error(err)
				}
				// Outside the group nothing is applied yet.
				if _, found, _ := db.Get(b("str")); found {
					t.Error("a pending write is visible outside its group")
				}
				mu.Lock()
				groups, counts, lens = append(groups, g), append(counts, n), append(lens, l)
				mu.Unlock()
			})
			if err != nil {
				t.Error(err)
			}
		}(i)
	}
	waitQueued(t, db, key, queued)
	release()
	wg.Wait()

	for _, g := range groups[1:] {
		if g != groups[0] {
			t.Fatal("queued sections did not run in the holder's group")
		}
	}
	slices.Sort(counts)
	slices.Sort(lens)
	for i := range counts {
		if counts[i] != int64(i+1) || lens[i] != int64(i+1) {
			t.Fatalf("members did not see each other's writes: HINCRBY gave %v, RPUSH %v", counts, lens)
		}
	}
	if v, _, _ := db.HGet(key, b("counter")); string(v) != fmt.Sprint(queued) {
		t.Fatalf("counter = %q after the group", v)
	}
	if n, _ := db.Len(b("list"), metadata.TypeList); n != queued {
		t.Fatalf("list holds %d elements", n)
	}
	if v, found, _ := db.Get(b("str")); !found || v[0] != 'v' {
		t.Fatalf("str = %q, %v: the last write in the group must win", v, found)
	}
}

// TestGroupIteratorSeesPendingWrites checks that reads a group cannot
// merge (iterators, snapshots) write the group out first, and that a
// pending delete hides the stored record from point reads.
func TestGroupIteratorSeesPendingWrites(t *testing.T) {
	db := newTestDB(t)
	if _, err := db.Set(b("gone"), b("x"), SetArgs{}); err != nil {
		t.Fatal(err)
	}
	err := db.s.locks.do(db.ns, [][]byte{b("k")}, func(g *group) {
		in := db.in(g)
		// Read first, so that the group remembers k as absent.
		if _, found, _ := in.Get(b("k")); found {
			t.Fatal("k exists before it is set")
		}
		if _, err := in.Set(b("k"), b("v"), SetArgs{}); err != nil {
			t.Fatal(err)
		}
		if n, err := in.Del([][]byte{b("gone")}); err != nil || n != 1 {
			t.Fatalf("DEL = %d, %v", n, err)
		}
		if _, found, _ := in.Get(b("gone")); found {
			t.Fatal("a pending delete did not hide the key")
		}
		if vals, _ := in.MGet([][]byte{b("gone"), b("k")}); vals[0] != nil || string(vals[1]) != "v" {
			t.Fatalf("MGET through the group = %q", vals)
		}
		keys, err := in.Keys(b("*"))
		if err != nil || len(keys) != 1 || string(keys[0]) != "k" {
			t.Fatalf("KEYS through the group = %q, %v", keys, err)
		}
		// The iterator wrote the group out: everyone sees it now, and the
		// group no longer answers from what it read before.
		if v, _, _ := db.Get(b("k")); string(v) != "v" {
			t.Fatalf("after an iterator, k = %q outside the group", v)
		}
		if v, _, _ := in.Get(b("k")); string(v) != "v" {
			t.Fatalf("after an iterator, k = %q inside the group", v)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGroupHotKeyIncrements runs read-modify-writes of one hot key from
// many goroutines, combined into groups: every increment must see all the
// ones before it, through point reads and multi-gets alike.
func TestGroupHotKeyIncrements(t *testing.T) {
	db := newTestDB(t)
	key := b("hot")
	// A sorted set under the same stripe, found by trying names.
	var zkey []byte
	for i := 0; zkey == nil; i++ {
		if k := b(fmt.Sprint("z", i)); stripeOf(db.ns, k) == stripeOf(db.ns, key) {
			zkey = k
		}
	}
	const goroutines, each = 16, 200
	var mu sync.Mutex
	seen := make(map[int64]bool)
	var wg sync.WaitGroup
	for i := 0; i < goroutines; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < each; j++ {
				var n int64
				var err error
				applyErr := db.s.locks.do(db.ns, [][]byte{key}, func(g *group) {
					in := db.in(g)
					// ZADD INCR reads its member with a multi-get.
					res, zerr := in.ZAdd(zkey, ZAddFlags{Incr: true}, []float64{1}, [][]byte{b("m")})
					if n, err = in.HIncrBy(key, b("n"), 1); err == nil && zerr == nil && int64(res.Score) != n {
						t.Errorf("HINCRBY gave %d, ZADD INCR %v", n, res.Score)
					}
					if zerr != nil {
						err = zerr
					}
				})
				if err != nil || applyErr != nil {
					t.Error(err, applyErr)
					return
				}
				// Applied once Do returns: visible to a plain read.
				v, _, _ := db.HGet(key, b("n"))
				if got, _ := num.ParseInt(v); got < n {
					t.Errorf("HGET after HINCRBY returned %d = %q", n, v)
				}
				mu.Lock()
				seen[n] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != goroutines*each {
		t.Fatalf("%d distinct results of %d increments", len(seen), goroutines*each)
	}
	if v, _, _ := db.HGet(key, b("n")); string(v) != fmt.Sprint(goroutines*each) {
		t.Fatalf("counter = %q", v)
	}
}

// An iterator bound to a group applies the group's pending writes only
// when one of them falls in its range, which it must then see.
func TestGroupIteratorFlushesOnlyItsRange(t *testing.T) {
	db := newTestDB(t)
	if _, err := db.HSet(b("a"), [][]byte{b("f"), b("v")}, false); err != nil {
		t.Fatal(err)
	}
	c, err := db.readView(b("a"), metadata.TypeHash)
	if err != nil || c == nil {
		t.Fatalf("readView: %v", err)
	}
	otherLower, otherUpper := c.prefix()
	c.release()
	err = db.s.Update(&Write{NS: db.ns, Keys: [][]byte{b("h")}}, func(in DB) {
		if _, err := in.HSet(b("h"), [][]byte{b("f"), b("v")}, false); err != nil {
			t.Fatal(err)
		}
		pending := len(in.g.ops)
		if pending == 0 {
			t.Fatal("the write is not pending in the group")
		}
		for _, r := range []struct {
			cf           CF
			lower, upper []byte
		}{{CFZSetScore, nil, nil}, {CFDefault, otherLower, otherUpper}} {
			it := in.newIterator(r.cf, r.lower, r.upper, nil)
			it.close()
			if len(in.g.ops) != pending {
				t.Fatalf("an iterator of %v [%q, %q) flushed the group", r.cf, r.lower, r.upper)
			}
		}
		it := in.newIterator(CFDefault, nil, nil, nil)
		defer it.close()
		if len(in.g.ops) != 0 {
			t.Fatal("an iterator over the written keys did not flush the group")
		}
		found := false
		for it.SeekToFirst(); it.Valid(); it.Next() {
			found = found || strings.Contains(string(it.Key().Data()), "h")
		}
		if !found {
			t.Fatal("the iterator does not see the field written in the group")
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}
