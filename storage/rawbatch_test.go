package storage

import (
	"bufio"
	"encoding/hex"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/basaltdb/basalt/metadata"
	"github.com/linxGnu/grocksdb"
)

// rawBatchCase is one case of testdata/rawbatch.txt.
type rawBatchCase struct {
	name, line string
	batch      []byte
	records    int    // for a batch that applies
	err        string // a part of the error of one that is refused
}

func readRawBatchCases(t *testing.T) []rawBatchCase {
	t.Helper()
	f, err := os.Open("testdata/rawbatch.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []rawBatchCase
	var c rawBatchCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "# "):
			c.name = line[2:]
		case strings.HasPrefix(line, "batch: "):
			c.line = strconv.Itoa(n)
			if c.batch, err = hex.DecodeString(strings.ReplaceAll(line[len("batch: "):], " ", "")); err != nil {
				t.Fatalf("line %d: %v", n, err)
			}
		case strings.HasPrefix(line, "want: ok "):
			if c.records, err = strconv.Atoi(line[len("want: ok "):]); err != nil {
				t.Fatalf("line %d: %v", n, err)
			}
			cases, c = append(cases, c), rawBatchCase{}
		case strings.HasPrefix(line, "want: error "):
			c.err = line[len("want: error "):]
			cases, c = append(cases, c), rawBatchCase{}
		case line != "" && line != "#":
			t.Fatalf("line %d: cannot read %q", n, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestRawBatchCases applies the batches of testdata/rawbatch.txt: a
// refused one must change nothing and leave the database writable; one
// that is accepted must be applied.
func TestRawBatchCases(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir, false)
	defer func() { s.Close() }()
	for _, c := range s.openCFs() {
		if id := c.h.ID(); id != uint32(c.cf) {
			t.Fatalf("column family %s has id %d; the cases assume %d", c.cf, id, c.cf)
		}
	}
	cases := readRawBatchCases(t)
	if len(cases) < 30 {
		t.Fatalf("read only %d cases", len(cases))
	}
	for _, c := range cases {
		seq := s.LatestSequence()
		n, err := s.ApplyBatch(c.batch, nil)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("line %s, %s: %v", c.line, c.name, err)
		case c.err == "" && n != c.records:
			t.Errorf("line %s, %s: applied %d records, want %d", c.line, c.name, n, c.records)
		case c.err != "" && (!errors.Is(err, ErrBadBatch) || !strings.Contains(err.Error(), c.err)):
			t.Errorf("line %s, %s: %v, want ErrBadBatch with %q", c.line, c.name, err, c.err)
		case c.err != "" && s.LatestSequence() != seq:
			t.Errorf("line %s, %s: refused, yet the sequence number moved from %d to %d", c.line, c.name, seq, s.LatestSequence())
		}
		if err := s.WriteHealth(); err != nil {
			t.Fatalf("line %s, %s: %v", c.line, c.name, err)
		}
		if err := s.put(CFDefault, b("after"), b(c.line)); err != nil {
			t.Fatalf("line %s, %s: a write after the batch: %v", c.line, c.name, err)
		}
	}
	// What was accepted must flush and compact (RocksDB fails both on,
	// for one, a key with a deletion and a single deletion) and reopen.
	fo := grocksdb.NewDefaultFlushOptions()
	defer fo.Destroy()
	fo.SetWait(true)
	for _, c := range s.openCFs() {
		if err := s.db.FlushCF(c.h, fo); err != nil {
			t.Fatalf("flush %s: %v", c.cf, err)
		}
	}
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteHealth(); err != nil {
		t.Fatalf("after flushing and compacting: %v", err)
	}
	s.Close()
	s = openTest(t, dir, false)
	// The last accepted case puts p in the propagate column family.
	if v, found, err := s.get(CFPropagate, b("p"), nil); err != nil || !found || string(v) != "q" {
		t.Errorf("p in propagate: %q %v %v", v, found, err)
	}
}

// TestApplyBatchKeepsLogData checks that the batch written to the WAL
// holds the log data records of the one applied, in place, as replicas
// and migrations reading the WAL expect.
func TestApplyBatchKeepsLogData(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	defer s.Close()
	in, _ := hex.DecodeString("0000000000000000" + "02000000" + "0303332037" + "01016b0176" + "0302617a" + "05020178017a")
	seq := s.LatestSequence()
	if _, err := s.ApplyBatch(in, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Durable(s.LatestSequence()); err != nil {
		t.Fatal(err)
	}
	wal, err := s.db.GetUpdatesSince(seq + 1)
	if err != nil {
		t.Fatal(err)
	}
	defer wal.Destroy()
	if !wal.Valid() {
		t.Fatalf("no batch in the WAL after %d: %v", seq, wal.Err())
	}
	wb, got := wal.GetBatch()
	defer wb.Destroy()
	if out := wb.Data(); got != seq+1 || hex.EncodeToString(out[8:]) != hex.EncodeToString(in[8:]) {
		t.Fatalf("the WAL holds %x at %d, want %x at %d", out[8:], got, in[8:], seq+1)
	}
}

// TestBackwardRangeIsRefused checks that a command's batch with a range
// deletion that ends before it begins is refused before it reaches
// RocksDB, which would stop taking writes.
func TestBackwardRangeIsRefused(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	defer s.Close()
	bt := s.newBatch(nil)
	bt.put(CFDefault, b("k"), b("v"))
	bt.delRange(CFDefault, b("b"), b("a"))
	if err := bt.commit(); !errors.Is(err, errBackwardRange) {
		t.Fatalf("commit: %v, want errBackwardRange", err)
	}
	if _, found, _ := s.get(CFDefault, b("k"), nil); found {
		t.Fatal("the refused batch was partly applied")
	}
	if err := s.put(CFDefault, b("k"), b("v")); err != nil {
		t.Fatal(err)
	}
}

// TestStoppedWritesAreReported hands RocksDB, bypassing every check, the
// batch that stops it, and checks that the failures then say so and that
// reopening the database recovers.
func TestStoppedWritesAreReported(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir, false)
	db := s.DB(metadata.DefaultNamespace)
	if _, err := db.Set(b("before"), b("1"), SetArgs{}); err != nil {
		t.Fatal(err)
	}
	poison, _ := hex.DecodeString("0000000000000000010000000f01620161")
	wb := grocksdb.WriteBatchFrom(poison)
	err := s.db.Write(s.writeOptions(), wb)
	wb.Destroy()
	if err == nil {
		t.Fatal("RocksDB took the backwards range deletion")
	}
	if err := s.WriteHealth(); !errors.Is(err, ErrWritesStopped) {
		t.Fatalf("WriteHealth: %v, want ErrWritesStopped", err)
	}
	_, err = db.Set(b("after"), b("1"), SetArgs{})
	if !errors.Is(err, ErrWritesStopped) || !strings.Contains(err.Error(), "end key comes before start key") {
		t.Fatalf("a write after RocksDB stopped: %v", err)
	}
	if _, err := s.ApplyBatch(make([]byte, rawBatchHeaderBytes), nil); !errors.Is(err, ErrWritesStopped) {
		t.Fatalf("APPLYBATCH after RocksDB stopped: %v", err)
	}
	if err := s.Durable(s.LatestSequence()); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = openTest(t, dir, false)
	defer s.Close()
	db = s.DB(metadata.DefaultNamespace)
	if err := s.WriteHealth(); err != nil {
		t.Fatalf("after reopening: %v", err)
	}
	if _, err := db.Set(b("after"), b("1"), SetArgs{}); err != nil {
		t.Fatalf("a write after reopening: %v", err)
	}
	if v, found, err := db.Get(b("before")); err != nil || !found || string(v) != "1" {
		t.Fatalf("before: %q %v %v", v, found, err)
	}
}
