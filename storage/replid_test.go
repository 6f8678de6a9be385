package storage

import (
	"bytes"
	"strings"
	"testing"
)

// With a replication id, every local write batch ends with its marker
// and the id of the batch holding a sequence number can be read back; a
// master's batch applied as a replica keeps the master's marker only.
func TestReplIDMarksLocalWrites(t *testing.T) {
	db := newTestDB(t)
	s := db.s
	if _, err := db.Set(b("before"), b("v"), SetArgs{}); err != nil {
		t.Fatal(err)
	}
	if id := s.ReplIDAt(s.LatestSequence()); id != "" {
		t.Fatalf("a write before any id is marked %q", id)
	}
	id, err := s.ShiftReplID()
	if err != nil || len(id) != ReplIDLen || strings.Trim(id, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		t.Fatalf("ShiftReplID() = %q, %v", id, err)
	}
	if got := s.ReplIDAt(s.LatestSequence()); got != id {
		t.Fatalf("the id's own write is marked %q, want %q", got, id)
	}
	if _, err := db.Set(b("after"), b("v"), SetArgs{}); err != nil {
		t.Fatal(err)
	}
	seq := s.LatestSequence()
	if got := s.ReplIDAt(seq); got != id {
		t.Fatalf("a write after ShiftReplID is marked %q, want %q", got, id)
	}
	if got := s.ReplIDAt(seq + 1); got != "" {
		t.Fatalf("ReplIDAt past the latest = %q", got)
	}

	// A replica applies its master's batch as it is: the marker it
	// carries, not one of its own.
	var batch []byte
	if _, err := s.ReadWALBatches(seq-1, func(wb WALBatch) error {
		batch = bytes.Clone(wb.Data)
		return ErrStopWAL
	}); err != nil {
		t.Fatal(err)
	}
	replica := newTestDB(t).s
	if _, err := replica.ShiftReplID(); err != nil {
		t.Fatal(err)
	}
	replica.ClearReplID()
	if _, err := replica.ApplyReplicated(batch, nil); err != nil {
		t.Fatal(err)
	}
	if got := replica.ReplIDAt(replica.LatestSequence()); got != id {
		t.Fatalf("the applied batch is marked %q, want the master's %q", got, id)
	}
	if got := replica.LastReplID(); got != id {
		t.Fatalf("LastReplID() = %q, want %q", got, id)
	}
}
