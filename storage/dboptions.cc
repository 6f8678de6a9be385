// SetDBOptions for Basalt: RocksDB 7.8's C API has rocksdb_set_options
// (column family options) but nothing for the DB-wide mutable options
// (max_open_files, max_background_jobs, ...), which Kvrocks changes live
// with DB::SetDBOptions. This is that one call.

#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>

#include <rocksdb/c.h>
#include <rocksdb/db.h>

// The C API's handle, as rocksdb/c.cc defines it.
struct rocksdb_t {
  rocksdb::DB* rep;
};

extern "C" char* basalt_set_db_options(rocksdb_t* db, int n, const char* const* keys, const char* const* values) {
  std::unordered_map<std::string, std::string> opts;
  for (int i = 0; i < n; i++) {
    opts[keys[i]] = values[i];
  }
  rocksdb::Status s = db->rep->SetDBOptions(opts);
  if (s.ok()) {
    return nullptr;
  }
  return strdup(s.ToString().c_str());
}
