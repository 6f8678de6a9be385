package storage

import (
	"errors"
	"strconv"
	"testing"
)

// A WALTail reads every batch once, in order, across reads that find the
// WAL's tail, and across a new WAL file (a memtable flush); it refuses a
// start the WAL no longer holds or that falls inside a batch.
func TestWALTail(t *testing.T) {
	db := newTestDB(t)
	s := db.s
	set := func(n int) {
		t.Helper()
		for i := 0; i < n; i++ {
			if _, err := db.Set(b("k"+strconv.Itoa(i)), b("v"), SetArgs{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	tail := s.TailWAL(s.LatestSequence() + 1)
	defer tail.Close()
	read := func() int {
		t.Helper()
		n := 0
		if err := tail.Read(func(wb WALBatch) error {
			n++
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if tail.Next() != s.LatestSequence()+1 {
			t.Fatalf("after a read the tail is at %d, the latest sequence is %d", tail.Next(), s.LatestSequence())
		}
		return n
	}
	if n := read(); n != 0 {
		t.Fatalf("%d batches before any write", n)
	}
	for round, writes := range []int{3, 1, 50} {
		set(writes)
		if n := read(); n != writes {
			t.Fatalf("round %d: %d batches, want %d", round, n, writes)
		}
	}
	// A flush moves the WAL to a new file.
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	set(7)
	if n := read(); n != 7 {
		t.Fatalf("after a new WAL file: %d batches, want 7", n)
	}
	// Stopping early leaves the rest for the next read.
	set(4)
	first := tail.Read(func(WALBatch) error { return ErrStopWAL })
	if first != nil || read() != 3 {
		t.Fatal("the batches after an early stop were not read next")
	}
	// A start inside a batch is refused.
	if _, err := db.SAdd(b("set"), [][]byte{b("a"), b("b"), b("c")}); err != nil {
		t.Fatal(err)
	}
	inside := s.TailWAL(s.LatestSequence())
	defer inside.Close()
	if err := inside.Read(func(WALBatch) error { return nil }); !errors.Is(err, ErrWALNotRetained) {
		t.Fatalf("a start inside a batch: %v", err)
	}
}
