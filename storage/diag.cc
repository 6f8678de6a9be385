// Diagnostics RocksDB 7.8's C API lacks: the thread's perf and I/O
// context as text (PERFLOG), and approximate sizes of key ranges with
// the memtables counted (DISK USAGE), as Kvrocks gets them.

#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include <rocksdb/c.h>
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/iostats_context.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>

// The C API's handles, as rocksdb/c.cc defines them.
struct rocksdb_t {
  rocksdb::DB* rep;
};
struct rocksdb_column_family_handle_t {
  rocksdb::ColumnFamilyHandle* rep;
};

extern "C" void basalt_perf_begin() {
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableTimeExceptForMutex);
  rocksdb::get_perf_context()->Reset();
  rocksdb::get_iostats_context()->Reset();
}

extern "C" void basalt_perf_end(char** perf, char** iostats) {
  *perf = strdup(rocksdb::get_perf_context()->ToString(true).c_str());
  *iostats = strdup(rocksdb::get_iostats_context()->ToString(true).c_str());
  rocksdb::get_perf_context()->Reset();
  rocksdb::get_iostats_context()->Reset();
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
}

extern "C" char* basalt_approximate_sizes(rocksdb_t* db, rocksdb_column_family_handle_t* cf, int n,
                                          const char* const* bounds, const size_t* lens, uint64_t* sizes) {
  std::vector<rocksdb::Range> ranges(n);
  for (int i = 0; i < n; i++) {
    ranges[i] = rocksdb::Range(rocksdb::Slice(bounds[2 * i], lens[2 * i]), rocksdb::Slice(bounds[2 * i + 1], lens[2 * i + 1]));
  }
  rocksdb::SizeApproximationOptions opts;
  opts.include_memtables = true;
  opts.include_files = true;
  rocksdb::Status s = db->rep->GetApproximateSizes(opts, cf->rep, ranges.data(), n, sizes);
  if (s.ok()) {
    return nullptr;
  }
  return strdup(s.ToString().c_str());
}

// The C API's cache handle, as rocksdb/c.cc defines it.
struct rocksdb_cache_t {
  std::shared_ptr<rocksdb::Cache> rep;
};

// basalt_cache_erase_unref drops the cache's entries that nobody holds
// (FLUSHBLOCKCACHE); the C API of RocksDB 7.8 lacks it.
extern "C" void basalt_cache_erase_unref(rocksdb_cache_t* cache) { cache->rep->EraseUnRefEntries(); }
