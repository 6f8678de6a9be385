package storage

import (
	"encoding/json"
	"testing"
)

func TestStatisticsJSON(t *testing.T) {
	text := "rocksdb.block.cache.miss COUNT : 12\nrocksdb.db.get.micros P50 : 71.000000 P95 : 2.500000 P99 : 0.000000 P100 : 71.000000 COUNT : 1 SUM : 71\nrocksdb.a COUNT : 0\n"
	want := `{"rocksdb.a":0,"rocksdb.block.cache.miss":12,"rocksdb.db.get.micros":[71.0,2.5,0.0,71.0,1,71]}`
	if got := statisticsJSON(text); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	s := openTest(t, t.TempDir(), false)
	defer s.Close()
	var v map[string]any
	if err := json.Unmarshal([]byte(s.StatisticsJSON()), &v); err != nil || len(v) < 100 {
		t.Fatalf("STATS of an open database: %d fields, %v", len(v), err)
	}
	if _, ok := v["rocksdb.number.keys.written"].(float64); !ok {
		t.Fatalf("no ticker rocksdb.number.keys.written")
	}
}

// TestStatisticsAfterClose: the server's sampler may ask for the
// statistics once more while the storage closes; after Close the answer
// is empty, not a read of freed options (a SIGSEGV in make test).
func TestStatisticsAfterClose(t *testing.T) {
	s := openWith(t, t.TempDir())
	if len(s.Tickers()) == 0 {
		t.Fatal("no tickers while open")
	}
	s.Close()
	if got := s.Tickers(); len(got) != 0 {
		t.Errorf("Tickers after Close: %d entries", len(got))
	}
	if got := s.StatisticsJSON(); got != "{}" {
		t.Errorf("StatisticsJSON after Close: %.40q", got)
	}
}
