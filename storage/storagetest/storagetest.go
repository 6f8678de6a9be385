// Package storagetest opens databases for the tests of the packages built
// on storage's engine API (types/...). Only tests import it.
package storagetest

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
)

// Open opens a database in a new temporary directory, with a small block
// cache and the given configuration overrides; it is closed when the test
// ends.
func Open(t testing.TB, overrides ...[2]string) *storage.Storage {
	t.Helper()
	overrides = append([][2]string{{"dir", t.TempDir()}, {"rocksdb.block_cache_size", "8"}}, overrides...)
	cfg, err := config.Load("", overrides)
	if err != nil {
		t.Fatal(err)
	}
	s, err := storage.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// DB opens a database as Open does and returns its default namespace.
func DB(t testing.TB) storage.DB {
	return Open(t).DB(metadata.DefaultNamespace)
}

// Record reads a record as stored, failing the test when it is absent.
func Record(t testing.TB, db storage.DB, cf storage.CF, key []byte) []byte {
	t.Helper()
	v, err := db.GetMany(nil, cf, [][]byte{key})
	if err != nil || v[0] == nil {
		t.Fatalf("%s record %x: %q, %v", cf, key, v, err)
	}
	return v[0]
}

// WithVersion decodes a FORMAT.md §10 vector (hex, spaces ignored) with
// version instead of its V = 305120c0f2000001.
func WithVersion(t testing.TB, vector string, version uint64) []byte {
	t.Helper()
	var v [8]byte
	for i := range v {
		v[i] = byte(version >> (56 - 8*i))
	}
	raw, err := hex.DecodeString(strings.ReplaceAll(strings.ReplaceAll(vector, " ", ""), "305120c0f2000001", hex.EncodeToString(v[:])))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
