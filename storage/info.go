package storage

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strconv"
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

// SSTBytes returns the size of the database's SST files: the used_db_size
// of INFO keyspace.
func (s *Storage) SSTBytes() int64 {
	total := uint64(0)
	for _, c := range s.openCFs() {
		v, _ := s.db.GetIntPropertyCF("rocksdb.total-sst-files-size", c.h)
		total += v
	}
	return int64(total)
}

// Stat is one field of INFO's rocksdb section.
type Stat struct {
	Name  string
	Value uint64
}

// perCFStats are the per column family figures of INFO's rocksdb section:
// the field name (shown with a [cf] suffix, as Kvrocks does) and the
// RocksDB property behind it.
var perCFStats = [][2]string{
	{"estimate_keys", "rocksdb.estimate-num-keys"},
	{"index_and_filter_cache_usage", "rocksdb.estimate-table-readers-mem"},
	{"estimate_live_data_size", "rocksdb.estimate-live-data-size"},
	{"live_sst_files_size", "rocksdb.live-sst-files-size"},
	{"estimate_pending_compaction_bytes", "rocksdb.estimate-pending-compaction-bytes"},
	{"num_files_at_level0", "rocksdb.num-files-at-level0"},
}

// stallStats are Kvrocks's per column family write-stall counters and,
// after each, the name RocksDB gives it on the "Stalls(count):" line of
// its column family statistics. (Kvrocks reads the same counters from the
// rocksdb.cfstats map, as io_stalls.*; RocksDB's C API has no map
// properties.)
var stallStats = [][2]string{
	{"level0_file_limit_slowdown", "level0_slowdown"},
	{"level0_file_limit_stop", "level0_numfiles"},
	{"pending_compaction_bytes_slowdown", "slowdown for pending_compaction_bytes"},
	{"pending_compaction_bytes_stop", "stop for pending_compaction_bytes"},
	{"level0_file_limit_stop_with_ongoing_compaction", "level0_numfiles_with_compaction"},
	{"level0_file_limit_slowdown_with_ongoing_compaction", "level0_slowdown_with_compaction"},
	{"memtable_count_limit_slowdown", "memtable_slowdown"},
	{"memtable_count_limit_stop", "memtable_compaction"},
}

// parseStalls reads the counts of the "Stalls(count): 0 level0_slowdown,
// 0 level0_slowdown_with_compaction, ..., interval 0 total count" line of
// RocksDB's column family statistics, by name.
func parseStalls(cfstats string) map[string]uint64 {
	out := map[string]uint64{}
	_, line, ok := strings.Cut(cfstats, "Stalls(count): ")
	if !ok {
		return out
	}
	line, _, _ = strings.Cut(line, "\n")
	for _, part := range strings.Split(line, ", ") {
		num, name, ok := strings.Cut(strings.TrimSpace(part), " ")
		if n, err := strconv.ParseUint(num, 10, 64); ok && err == nil {
			out[name] = n
		}
	}
	return out
}

// dbStats are the database-wide figures, summed over the column families
// where RocksDB keeps them per column family (as Kvrocks does).
var dbStats = [][2]string{
	{"all_mem_tables", "rocksdb.size-all-mem-tables"},
	{"cur_mem_tables", "rocksdb.cur-size-all-mem-tables"},
	{"snapshots", "rocksdb.num-snapshots"},
	{"num_immutable_tables", "rocksdb.num-immutable-mem-table"},
	{"num_running_flushes", "rocksdb.num-running-flushes"},
	{"memtable_flush_pending", "rocksdb.mem-table-flush-pending"},
	{"compaction_pending", "rocksdb.compaction-pending"},
	{"num_running_compactions", "rocksdb.num-running-compactions"},
	{"num_live_versions", "rocksdb.num-live-versions"},
	{"num_super_version", "rocksdb.current-super-version-number"},
	{"num_background_errors", "rocksdb.background-errors"},
	{"is_write_stopped", "rocksdb.is-write-stopped"},
	{"actual_delayed_write_rate", "rocksdb.actual-delayed-write-rate"},
	{"total_sst_files_size", "rocksdb.total-sst-files-size"},
}

// dbWide are the properties RocksDB keeps for the whole database rather
// than per column family.
var dbWide = map[string]bool{
	"rocksdb.num-snapshots": true, "rocksdb.num-running-flushes": true,
	"rocksdb.num-running-compactions": true, "rocksdb.background-errors": true,
	"rocksdb.is-write-stopped": true, "rocksdb.actual-delayed-write-rate": true,
}

// MemoryStats returns what RocksDB holds in memory against what the config
// lets it hold, for INFO memory: the memtables (rocksdb.write_buffer_size
// times rocksdb.max_write_buffer_number, per column family, or
// rocksdb.db_write_buffer_size when that is less) and the block
// cache (rocksdb.block_cache_size, or the metadata and subkey sizes).
func (s *Storage) MemoryStats() []Stat {
	var memtables uint64
	for _, c := range s.openCFs() {
		v, _ := s.db.GetIntPropertyCF("rocksdb.size-all-mem-tables", c.h)
		memtables += v
	}
	r := &s.cfg.RocksDB
	memtablesBudget := uint64(r.WriteBufferSize.Get()) << 20 * uint64(r.MaxWriteBufferNumber.Get()) * uint64(numCF)
	if all := uint64(r.DBWriteBufferSize.Get()) << 20; all > 0 {
		memtablesBudget = min(memtablesBudget, all)
	}
	var used, budget, hits, misses int64
	for _, c := range s.caches() {
		h, m := c.counts()
		used, budget, hits, misses = used+c.resident(), budget+c.budget.Load(), hits+h, misses+m
	}
	return []Stat{
		{"used_memory_memtables", memtables},
		{"memtables_budget", memtablesBudget},
		{"used_memory_block_cache", s.cache.GetUsage()},
		{"block_cache_budget", s.cache.GetCapacity()},
		{"used_memory_metadata_cache", uint64(used)},
		{"metadata_cache_budget", uint64(budget)},
		{"metadata_cache_hits", uint64(hits)},
		{"metadata_cache_misses", uint64(misses)},
	}
}

// RocksDBStats returns the figures of INFO's rocksdb section, with
// Kvrocks's field names where Kvrocks has them.
func (s *Storage) RocksDBStats() []Stat {
	out := []Stat{{"block_cache_usage", s.cache.GetUsage()}}
	// The column families share one block cache, whose pinned usage
	// Kvrocks shows under each of them.
	pinned := s.cache.GetPinnedUsage()
	cfs := s.openCFs()
	for _, c := range cfs {
		out = append(out, Stat{"block_cache_pinned_usage[" + c.cf.String() + "]", pinned})
	}
	for _, st := range perCFStats {
		for _, c := range cfs {
			v, _ := s.db.GetIntPropertyCF(st[1], c.h)
			out = append(out, Stat{st[0] + "[" + c.cf.String() + "]", v})
		}
	}
	for _, c := range cfs {
		stalls := parseStalls(s.db.GetPropertyCF("rocksdb.cfstats-no-file-histogram", c.h))
		for _, st := range stallStats {
			out = append(out, Stat{st[0] + "[" + c.cf.String() + "]", stalls[st[1]]})
		}
	}
	for _, st := range dbStats {
		var total uint64
		if dbWide[st[1]] {
			total, _ = s.db.GetIntProperty(st[1])
		} else {
			for _, c := range cfs {
				v, _ := s.db.GetIntPropertyCF(st[1], c.h)
				total += v
			}
		}
		out = append(out, Stat{st[0], total})
	}
	tickers := s.Tickers()
	for _, st := range tickerStats {
		out = append(out, Stat{st[0], tickers[st[1]]})
	}
	compacting := uint64(0)
	if s.compacting.Load() > 0 {
		compacting = 1
	}
	return append(out, Stat{"is_compacting", compacting})
}
