package storage

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// RocksDBVersion returns the version of the RocksDB library that opened the
// database, as RocksDB records it in its newest OPTIONS file.
func (s *Storage) RocksDBVersion() string {
	files, _ := filepath.Glob(filepath.Join(s.dir, "OPTIONS-*"))
	sort.Strings(files)
	if len(files) == 0 {
		return "unknown"
	}
	f, err := os.Open(files[len(files)-1])
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "rocksdb_version="); ok {
			return v
		}
	}
	return "unknown"
}

// LatestSequence returns the sequence number of the last write: the
// replication offset Kvrocks reports as master_repl_offset and sequence.
func (s *Storage) LatestSequence() uint64 { return s.db.GetLatestSequenceNumber() }
