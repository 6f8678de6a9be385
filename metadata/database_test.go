package metadata

import (
	"encoding/hex"
	"testing"
)

// TestDatabaseNamespace: the key bytes of SET foo bar in database 1 are
// 03 646231 666f6f, and database 0 is the default namespace
// (KVROCKS-TYPES.md §8, redis-databases).
func TestDatabaseNamespace(t *testing.T) {
	if got := hex.EncodeToString(Layout{}.AppendNSKey(nil, DatabaseNamespace(1), []byte("foo"))); got != "03646231666f6f" {
		t.Errorf("database 1: %s", got)
	}
	if DatabaseNamespace(0) != DefaultNamespace || DatabaseNamespace(15) != "db15" {
		t.Errorf("%q %q", DatabaseNamespace(0), DatabaseNamespace(15))
	}
	for ns, want := range map[string]int64{"__namespace": 0, "db1": 1, "db15": 15, "db": -1, "db0": -1, "db01": -1, "db-1": -1, "db+1": -1, "dbx": -1, "tenant": -1} {
		n, ok := DatabaseOf(ns)
		if (want < 0 && ok) || (want >= 0 && (!ok || n != want)) {
			t.Errorf("DatabaseOf(%q) = %d, %v", ns, n, ok)
		}
	}
}
