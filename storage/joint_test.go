package storage

import (
	"fmt"
	"testing"
	"time"
)

// jointIncr is INCR of key through the joint, as a command of its
// goroutine writes.
func jointIncr(t *testing.T, j *Joint, ns string, key []byte) int64 {
	t.Helper()
	var n int64
	var err error
	j.Run(func() {
		uerr := j.s.Update(&Write{NS: ns, Keys: [][]byte{key}, Joint: j}, func(db DB) { n, err = db.IncrBy(key, 1) })
		if uerr != nil {
			err = uerr
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestJointAppliesOnceAtEnd checks that the members of a joint see each
// other's writes, that nothing is visible outside it before End, and that
// End applies it all.
func TestJointAppliesOnceAtEnd(t *testing.T) {
	db := newTestDB(t)
	j := db.s.NewJoint()
	for i := 1; i <= 5; i++ {
		if n := jointIncr(t, j, db.ns, b("counter")); n != int64(i) {
			t.Fatalf("member %d read %d: members do not see each other's writes", i, n)
		}
		if v, found, err := j.DB(db.ns).Get(b("counter")); err != nil || !found || string(v) != fmt.Sprint(i) {
			t.Fatalf("the joint's view reads %q, %v, %v; want %d", v, found, err, i)
		}
	}
	if _, found, _ := db.Get(b("counter")); found {
		t.Fatal("a joint's write is visible outside it before End")
	}
	before := db.s.LatestSequence()
	if from, err := j.End(); from != -1 || err != nil {
		t.Fatalf("End: %d, %v", from, err)
	}
	if v, _, _ := db.Get(b("counter")); string(v) != "5" {
		t.Fatalf("after End counter is %q, want 5", v)
	}
	if got := db.s.LatestSequence() - before; got != 1 {
		// The group keeps the last write of a record: five INCRs are
		// one record in one RocksDB write.
		t.Fatalf("End applied %d records, want 1", got)
	}
}

// TestJointWaitingWriterSeesItsWrites checks that a writer of a key the
// joint wrote waits for the joint to end, then reads what it wrote: no
// increment is lost.
func TestJointWaitingWriterSeesItsWrites(t *testing.T) {
	db := newTestDB(t)
	j := db.s.NewJoint()
	jointIncr(t, j, db.ns, b("k"))
	done := make(chan int64)
	go func() {
		var n int64
		err := db.s.Update(&Write{NS: db.ns, Keys: [][]byte{b("k")}}, func(in DB) {
			var err error
			if n, err = in.IncrBy(b("k"), 1); err != nil {
				t.Error(err)
			}
		})
		if err != nil {
			t.Error(err)
		}
		done <- n
	}()
	waitQueued(t, db, b("k"), 1)
	jointIncr(t, j, db.ns, b("k"))
	select {
	case n := <-done:
		t.Fatalf("a writer ran while the joint held its key, and read %d", n)
	case <-time.After(50 * time.Millisecond):
	}
	j.End()
	if n := <-done; n != 3 {
		t.Fatalf("the waiting writer read %d, want 3", n)
	}
}

// TestJointNeverWaitsHoldingStripes has the joint need a stripe held by
// a writer that waits for one the joint holds: the joint applies its
// writes and lets its stripes go before it waits, so the two cannot
// deadlock, and neither's write is lost.
func TestJointNeverWaitsHoldingStripes(t *testing.T) {
	db := newTestDB(t)
	// A writer of both takes low's stripe first, as keyLocks takes them
	// in ascending order.
	low, high := b("x"), b("y")
	if stripeOf(db.ns, low) > stripeOf(db.ns, high) {
		low, high = high, low
	}
	j := db.s.NewJoint()
	jointIncr(t, j, db.ns, high)

	finished := make(chan error)
	go func() {
		finished <- db.s.Update(&Write{NS: db.ns, Keys: [][]byte{low, high}}, func(in DB) {
			for _, k := range [][]byte{low, high} {
				if _, err := in.IncrBy(k, 10); err != nil {
					t.Error(err)
				}
			}
		})
	}()
	waitQueued(t, db, high, 1) // it holds low and waits for high
	jointIncr(t, j, db.ns, low)
	if err := <-finished; err != nil {
		t.Fatal(err)
	}
	if from, err := j.End(); from != -1 || err != nil {
		t.Fatalf("End: %d, %v", from, err)
	}
	for _, k := range [][]byte{low, high} {
		if v, _, _ := db.Get(k); string(v) != "11" {
			t.Fatalf("%s is %q, want 11", k, v)
		}
	}
}
