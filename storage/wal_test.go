package storage

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Each write leaves in the WAL one batch that starts with the LogData
// record Kvrocks writes for the same command (FORMAT.md §8.3), and the
// WAL reader gives the batches back in order, records decoded.
func TestWALBatchesCarryKvrocksLogData(t *testing.T) {
	db := newTestDB(t)
	s := db.s
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name string
		do   func()
		log  string // the batch's LogData blob ("" for none)
	}{
		{"SET", func() { must(db.Set(b("s"), b("v"), SetArgs{})) }, "1"},
		{"EXPIRE", func() { must(db.Expire(b("s"), nowMs()+100000, ExpireCond{})) }, "0 8"},
		{"PERSIST", func() { must(db.Persist(b("s"))) }, "0 8"},
		{"HSET", func() { must(db.HSet(b("h"), [][]byte{b("f"), b("v")}, false)) }, "2"},
		{"SADD", func() { must(db.SAdd(b("st"), [][]byte{b("a")})) }, "4"},
		{"ZADD", func() { must(db.ZAdd(b("z"), ZAddFlags{}, []float64{1}, [][]byte{b("m")})) }, "5"},
		{"RPUSH", func() { must(db.Push(b("l"), [][]byte{b("a"), b("b"), b("c"), b("d")}, false, false)) }, "3 7"},
		{"LPUSH", func() { must(db.Push(b("l"), [][]byte{b("z")}, true, false)) }, "3 6"},
		{"LPOP", func() { must(db.Pop(b("l"), true, 1)) }, "3 3"},
		{"RPOP", func() { must(db.Pop(b("l"), false, 1)) }, "3 4"},
		{"LSET -1", func() { must(nil, db.LSet(b("l"), -1, b("x"))) }, "3 0 2"},
		{"LINSERT BEFORE", func() { must(db.LInsert(b("l"), true, b("x"), b("y"))) }, "3 1 1 x y"},
		{"LREM", func() { must(db.LRem(b("l"), -1, b("y"))) }, "3 5 -1 y"},
		{"LTRIM", func() { must(nil, db.LTrim(b("l"), -100, -2)) }, "3 2 0 1"},
		{"LMOVE", func() {
			_, _, err := db.LMove(b("l"), b("l2"), true, false)
			must(nil, err)
		}, "3 12 l l2 left right"},
		{"COPY", func() { must(db.Copy(b("z"), b("z2"), false)) }, "5"},
		{"DEL", func() { must(db.Del([][]byte{b("s")})) }, "0"},
		{"FLUSHDB", func() { must(nil, db.Flush()) }, ""},
	}
	start := s.LatestSequence()
	for _, st := range steps {
		st.do()
	}
	var got []string
	last, err := s.ReadWALBatches(start, func(wb WALBatch) error {
		if wb.Seq <= start {
			return fmt.Errorf("batch at %d, read from after %d", wb.Seq, start)
		}
		recs, err := s.WALRecords(wb.Data)
		if err != nil {
			return err
		}
		log := ""
		if recs[0].Kind == RecordLogData {
			log = string(recs[0].Value)
			recs = recs[1:]
		}
		for _, r := range recs {
			if r.Kind == RecordLogData {
				return fmt.Errorf("batch %d: LogData after its first record", wb.Seq)
			}
		}
		if len(recs) == 0 {
			return fmt.Errorf("batch %d: nothing but LogData", wb.Seq)
		}
		got = append(got, log)
		return nil
	})
	if err != nil || last != s.LatestSequence() {
		t.Fatalf("ReadWALBatches: last %d of %d, %v", last, s.LatestSequence(), err)
	}
	if len(got) != len(steps) {
		t.Fatalf("%d batches for %d writes: %q", len(got), len(steps), got)
	}
	for i, st := range steps {
		if got[i] != st.log {
			t.Errorf("%s: LogData %q, want %q", st.name, got[i], st.log)
		}
	}
}

// ReadWALBatches stops where its callback says and reports how far it
// read; from the latest sequence it reads nothing.
func TestReadWALBatchesStops(t *testing.T) {
	db := newTestDB(t)
	s := db.s
	start := s.LatestSequence()
	for i := 0; i < 5; i++ {
		if _, err := db.Set(b(fmt.Sprint("k", i)), b("v"), SetArgs{}); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	last, err := s.ReadWALBatches(start, func(WALBatch) error {
		if n++; n == 2 {
			return ErrStopWAL
		}
		return nil
	})
	if err != nil || n != 2 || last != start+2 {
		t.Fatalf("stopped after %d batches at %d (%v), want 2 at %d", n, last, err, start+2)
	}
	boom := errors.New("boom")
	if _, err := s.ReadWALBatches(last, func(WALBatch) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("callback error: %v", err)
	}
	latest := s.LatestSequence()
	if got, err := s.ReadWALBatches(latest, func(WALBatch) error { t.Fatal("a batch past the latest"); return nil }); err != nil || got != latest {
		t.Fatalf("from the latest: %d, %v", got, err)
	}
}

// A read that begins inside a batch gets the whole batch: POLLUPDATES and
// migration ask for sequence numbers, not batch boundaries.
func TestReadWALBatchesFromInsideABatch(t *testing.T) {
	db := newTestDB(t)
	s := db.s
	start := s.LatestSequence()
	if _, err := db.MSet([][]byte{b("a"), b("1"), b("b"), b("2"), b("c"), b("3")}, false); err != nil {
		t.Fatal(err)
	}
	var seqs []string
	if _, err := s.ReadWALBatches(start+1, func(wb WALBatch) error {
		seqs = append(seqs, fmt.Sprintf("%d+%d", wb.Seq-start, wb.Count))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(seqs, ",") != "1+3" {
		t.Fatalf("batches %v, want the MSET batch 1+3", seqs)
	}
}
