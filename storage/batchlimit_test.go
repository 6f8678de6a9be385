package storage

import (
	"bytes"
	"errors"
	"testing"

	"github.com/basaltdb/basalt/metadata"
	"github.com/linxGnu/grocksdb"
)

// TestBatchBytes: batchBytes counts a batch as RocksDB does (the size of
// the write batch's representation), for every kind of record, in the
// default column family and the others, with lengths of one varint byte
// and of several.
func TestBatchBytes(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	defer s.Close()
	long := bytes.Repeat([]byte("x"), 20000)
	ops := []op{
		{kind: opLogData, value: []byte("1 h")},
		{kind: opPut, cf: CFDefault, key: b("k"), value: b("v")},
		{kind: opPut, cf: CFMetadata, key: long[:200], value: long},
		{kind: opDelete, cf: CFZSetScore, key: b("gone")},
		{kind: opDelete, cf: CFDefault, key: long[:128]},
		{kind: opDeleteRange, cf: CFStream, key: b("a"), value: b("b")},
		{kind: opLogData, value: long[:300]},
	}
	for n := 0; n <= len(ops); n++ {
		wb := grocksdb.NewWriteBatch()
		s.addOps(wb, ops[:n])
		if got, want := s.batchBytes(ops[:n]), int64(len(wb.Data())); got != want {
			t.Errorf("the first %d ops: batchBytes %d, RocksDB's batch %d bytes", n, got, want)
		}
		wb.Destroy()
	}
}

// TestWriteBatchMaxBytes: with rocksdb.write_options.write_batch_max_bytes
// set, a command whose batch is larger fails with ErrBatchTooLarge and
// writes nothing; one at the limit passes, and 0 lifts it.
func TestWriteBatchMaxBytes(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	defer s.Close()
	db := s.DB(metadata.DefaultNamespace)
	// SET k 1: 12 bytes of header, 3 of LogData and 27 of metadata record,
	// as Kvrocks counts them too (the smallest limit it takes SET a 1 at).
	if err := s.cfg.Set("rocksdb.write_options.write_batch_max_bytes", "42"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Set(b("k"), b("1"), SetArgs{}); err != nil {
		t.Fatalf("a batch at the limit: %v", err)
	}
	if _, err := db.Set(b("j"), b("12"), SetArgs{}); !errors.Is(err, ErrBatchTooLarge) {
		t.Fatalf("a batch one byte past the limit: %v", err)
	}
	if _, found, _ := db.Get(b("j")); found {
		t.Fatal("the refused SET wrote")
	}
	if _, err := db.HSet(b("h"), [][]byte{b("a"), b("1"), b("b"), b("2")}, false); !errors.Is(err, ErrBatchTooLarge) {
		t.Fatalf("HSET past the limit: %v", err)
	}
	if n, err := db.Len(b("h"), metadata.TypeHash); n != 0 || err != nil {
		t.Fatalf("the refused HSET left %d fields (%v)", n, err)
	}
	if err := s.cfg.Set("rocksdb.write_options.write_batch_max_bytes", "0"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.HSet(b("h"), [][]byte{b("a"), b("1"), b("b"), b("2")}, false); err != nil {
		t.Fatalf("HSET without a limit: %v", err)
	}
}
