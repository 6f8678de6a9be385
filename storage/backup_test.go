package storage

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/basaltdb/basalt/metadata"
)

// A backup replaces the one before, restores into a new data directory
// with every key it held, and is deleted without touching other files.
func TestBackupRestore(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	defer s.Close()
	db := s.DB(metadata.DefaultNamespace)
	backup := filepath.Join(t.TempDir(), "backup")
	for round, value := range []string{"first", "second"} {
		if _, err := db.Set(b("k"), b(value), SetArgs{}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.HSet(b("h"), [][]byte{b("f"), b(value)}, false); err != nil {
			t.Fatal(err)
		}
		if err := s.Backup(backup); err != nil {
			t.Fatalf("backup %d: %v", round, err)
		}
	}
	if _, ok := BackupTime(backup); !ok {
		t.Fatal("no backup time")
	}
	if _, err := os.Stat(backup + ".tmp"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("staging directory left: %v", err)
	}

	dataDir := t.TempDir()
	if err := RestoreBackup(backup, dataDir); err != nil {
		t.Fatal(err)
	}
	if err := RestoreBackup(backup, dataDir); err == nil {
		t.Fatal("a restore over an existing database succeeded")
	}
	r := openTest(t, dataDir, false)
	rdb := r.DB(metadata.DefaultNamespace)
	v, found, err := rdb.Get(b("k"))
	if err != nil || !found || string(v) != "second" {
		t.Fatalf("restored k = %q %v %v", v, found, err)
	}
	v, found, err = rdb.HGet(b("h"), b("f"))
	if err != nil || !found || string(v) != "second" {
		t.Fatalf("restored h.f = %q %v %v", v, found, err)
	}
	r.Close()

	keep := filepath.Join(backup, "not-rocksdb.txt")
	if err := os.WriteFile(keep, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := DestroyBackup(backup); err != nil {
		t.Fatal(err)
	}
	if _, ok := BackupTime(backup); ok {
		t.Fatal("backup still there")
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatalf("a file that is not the backup's was deleted: %v", err)
	}
	if err := RestoreBackup(backup, t.TempDir()); !errors.Is(err, ErrNotBackup) {
		t.Fatalf("restore of no backup: %v", err)
	}
}

// Reopen keeps every write, and the database serves writes after it.
func TestReopen(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	defer s.Close()
	db := s.DB(metadata.DefaultNamespace)
	if _, err := db.Set(b("k"), b("v"), SetArgs{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Reopen(); err != nil {
		t.Fatal(err)
	}
	if v, found, err := db.Get(b("k")); err != nil || !found || string(v) != "v" {
		t.Fatalf("after Reopen: %q %v %v", v, found, err)
	}
	if _, err := db.HSet(b("h"), [][]byte{b("f"), b("v")}, false); err != nil {
		t.Fatalf("write after Reopen: %v", err)
	}
}
