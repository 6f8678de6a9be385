package storage

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/basaltdb/basalt/config"
)

// rocksdbOptions reads the options RocksDB last wrote for the database
// (its newest OPTIONS-* file): section -> name -> value.
func rocksdbOptions(t *testing.T, s *Storage) map[string]map[string]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(s.dir, "OPTIONS-*"))
	newest, n := "", -1
	for _, f := range files {
		if v, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(f), "OPTIONS-")); err == nil && v > n {
			newest, n = f, v
		}
	}
	raw, err := os.ReadFile(newest)
	if err != nil {
		t.Fatal(err)
	}
	out, section := map[string]map[string]string{}, ""
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			section = strings.Trim(line, "[]")
			out[section] = map[string]string{}
		} else if k, v, ok := strings.Cut(line, "="); ok && section != "" {
			out[section][k] = v
		}
	}
	return out
}

// TestOptionsAtOpen: the rocksdb.* settings reach RocksDB when it opens.
func TestOptionsAtOpen(t *testing.T) {
	s := openWith(t, t.TempDir(), [2]string{"rocksdb.block_cache_size", "0"}, [2]string{"rocksdb.metadata_block_cache_size", "3"},
		[2]string{"rocksdb.subkey_block_cache_size", "5"}, [2]string{"rocksdb.compression", "lz4"}, [2]string{"rocksdb.compression_start_level", "3"},
		[2]string{"rocksdb.enable_blob_files", "yes"}, [2]string{"rocksdb.min_blob_size", "100"}, [2]string{"rocksdb.level_compaction_dynamic_level_bytes", "yes"},
		[2]string{"rocksdb.max_background_compactions", "3"}, [2]string{"rocksdb.delayed_write_rate", "12345"}, [2]string{"rocksdb.row_cache_size", "1"},
		[2]string{"rocksdb.db_write_buffer_size", "96"})
	defer s.Close()
	if got := s.cache.GetCapacity(); got != 8<<20 {
		t.Errorf("block cache of block_cache_size 0: %d bytes, want metadata + subkey sizes", got)
	}
	for _, st := range s.MemoryStats() {
		if st.Name == "memtables_budget" && st.Value != 96<<20 {
			t.Errorf("memtables_budget %d, want db_write_buffer_size's %d", st.Value, 96<<20)
		}
	}
	opts := rocksdbOptions(t, s)
	for _, tc := range []struct{ section, name, want string }{
		{`CFOptions "default"`, "compression_per_level", "kNoCompression:kNoCompression:kNoCompression:kLZ4Compression:kLZ4Compression:kLZ4Compression:kLZ4Compression"},
		{`CFOptions "metadata"`, "enable_blob_files", "true"},
		{`CFOptions "metadata"`, "min_blob_size", "100"},
		{`CFOptions "default"`, "level_compaction_dynamic_level_bytes", "true"},
		{"DBOptions", "max_background_compactions", "3"},
		{"DBOptions", "delayed_write_rate", "12345"},
		{"DBOptions", "db_write_buffer_size", strconv.Itoa(96 << 20)},
	} {
		if got := opts[tc.section][tc.name]; got != tc.want {
			t.Errorf("%s %s = %q, want %q", tc.section, tc.name, got, tc.want)
		}
	}
}

// TestLiveOptions: CONFIG SET of a live key changes every column family
// or the database, and a value RocksDB refuses is an error that leaves
// the old value.
func TestLiveOptions(t *testing.T) {
	s := openWith(t, t.TempDir())
	defer s.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.cfg.Set("rocksdb.write_buffer_size", "16"))
	must(s.cfg.Set("rocksdb.max_open_files", "500"))
	must(s.cfg.Set("rocksdb.compression", "snappy"))
	opts := rocksdbOptions(t, s)
	for _, c := range s.openCFs() {
		cf := c.cf.String()
		if got := opts[`CFOptions "`+cf+`"`]["write_buffer_size"]; got != "16777216" {
			t.Errorf("%s write_buffer_size = %q", cf, got)
		}
		if got := opts[`CFOptions "`+cf+`"`]["compression_per_level"]; got != "kNoCompression:kNoCompression:kSnappyCompression:kSnappyCompression:kSnappyCompression:kSnappyCompression:kSnappyCompression" {
			t.Errorf("%s compression_per_level = %q", cf, got)
		}
	}
	if got := opts["DBOptions"]["max_open_files"]; got != "500" {
		t.Errorf("max_open_files = %q", got)
	}
	var setErr *config.SetError
	err := s.cfg.Set("rocksdb.level_compaction_dynamic_level_bytes", "yes")
	if !errors.As(err, &setErr) || setErr.Text != "NotFound: Unrecognized option: level_compaction_dynamic_level_bytes" || s.cfg.RocksDB.LevelCompactionDynamicLevelBytes.Get() {
		t.Fatalf("a change RocksDB refuses: %v", err)
	}
	// Once closed, the storage no longer follows the config.
	s.Close()
	must(s.cfg.Set("rocksdb.max_open_files", "600"))
}

// TestDBSizeLimit: with max-db-size 0 nothing is refused; the limit is
// looked at again as soon as it changes.
func TestDBSizeLimit(t *testing.T) {
	s := openWith(t, t.TempDir())
	defer s.Close()
	if s.DBSizeLimitReached() {
		t.Fatal("limit reached without a limit")
	}
	if err := s.cfg.Set("max-db-size", "1"); err != nil {
		t.Fatal(err)
	}
	if s.DBSizeLimitReached() {
		t.Fatal("an empty database reached 1 GB")
	}
}
