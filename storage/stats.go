package storage

import (
	"strconv"
	"strings"
)

// RocksDB's statistics (enabled at open, as Kvrocks does) count what the
// engine did since it opened: block cache hits, keys written and read,
// compaction and flush bytes, write stalls.

// Tickers returns RocksDB's statistics by name: a ticker's count, and for
// a histogram its number of samples under name and their sum under
// name+".sum".
func (s *Storage) Tickers() map[string]uint64 {
	s.life.RLock()
	defer s.life.RUnlock()
	if s.closed {
		return nil
	}
	return parseStatistics(s.dbOpts.GetStatisticsString())
}

// parseStatistics reads the text of Statistics::ToString: one line per
// ticker, "name COUNT : n", and per histogram, "name P50 : x ... COUNT : n
// SUM : s".
func parseStatistics(text string) map[string]uint64 {
	out := make(map[string]uint64, 256)
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		for i := 1; i+2 < len(f); i++ {
			if f[i+1] != ":" {
				continue
			}
			n, err := strconv.ParseUint(f[i+2], 10, 64)
			if err != nil {
				continue
			}
			switch f[i] {
			case "COUNT":
				out[f[0]] = n
			case "SUM":
				out[f[0]+".sum"] = n
			}
		}
	}
	return out
}

// tickerStats are INFO rocksdb fields that are statistics, as Kvrocks
// names them.
var tickerStats = [][2]string{
	{"block_cache_hit", "rocksdb.block.cache.hit"},
	{"block_cache_miss", "rocksdb.block.cache.miss"},
	{"block_cache_index_hit", "rocksdb.block.cache.index.hit"},
	{"block_cache_index_miss", "rocksdb.block.cache.index.miss"},
	{"block_cache_filter_hit", "rocksdb.block.cache.filter.hit"},
	{"block_cache_filter_miss", "rocksdb.block.cache.filter.miss"},
	{"block_cache_data_hit", "rocksdb.block.cache.data.hit"},
	{"block_cache_data_miss", "rocksdb.block.cache.data.miss"},
	{"flush_count", "rocksdb.db.flush.micros"},
	{"compaction_count", "rocksdb.compaction.times.micros"},
	{"compaction_read_bytes", "rocksdb.compact.read.bytes"},
	{"compaction_write_bytes", "rocksdb.compact.write.bytes"},
	{"flush_write_bytes", "rocksdb.flush.write.bytes"},
	{"write_stall_micros", "rocksdb.stall.micros"},
}

// RateTickers are the statistics whose rate per second INFO shows as
// <name>_per_sec: keys written, keys read, seeks, nexts and prevs.
var RateTickers = [][2]string{
	{"put", "rocksdb.number.keys.written"},
	{"get", "rocksdb.number.keys.read"},
	{"seek", "rocksdb.number.db.seek"},
	{"next", "rocksdb.number.db.next"},
	{"prev", "rocksdb.number.db.prev"},
}
