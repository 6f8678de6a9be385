package storage

import (
	"strings"
	"testing"
)

// The write-stall counters are read from RocksDB's own text: every
// counter Kvrocks shows is found on the line RocksDB writes.
func TestStallCounters(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	defer s.Close()
	text := s.db.GetPropertyCF("rocksdb.cfstats-no-file-histogram", s.cfs[0].Load())
	stalls := parseStalls(text)
	for _, st := range stallStats {
		if _, ok := stalls[st[1]]; !ok {
			t.Errorf("%s (%q) not on RocksDB's stall line:\n%s", st[0], st[1], text)
		}
	}
	got := parseStalls("x\nStalls(count): 3 level0_slowdown, 0 level0_slowdown_with_compaction, 7 stop for pending_compaction_bytes, interval 10 total count\nmore")
	if got["level0_slowdown"] != 3 || got["stop for pending_compaction_bytes"] != 7 || got["level0_slowdown_with_compaction"] != 0 {
		t.Errorf("parseStalls = %v", got)
	}
	n := 0
	for _, st := range s.RocksDBStats() {
		if strings.HasPrefix(st.Name, "memtable_count_limit_stop[") {
			n++
		}
	}
	if n != len(s.openCFs()) {
		t.Errorf("memtable_count_limit_stop shown for %d column families of %d", n, len(s.openCFs()))
	}
}
