package storage

/*
#cgo CXXFLAGS: -std=c++17
#include <stdlib.h>
#include <rocksdb/c.h>

char* basalt_set_db_options(rocksdb_t* db, int n, const char* const* keys, const char* const* values);
*/
import "C"

import (
	"errors"
	"strconv"
	"strings"
	"unsafe"

	"github.com/basaltdb/basalt/config"
	"github.com/linxGnu/grocksdb"
)

// The rocksdb.* settings Kvrocks changes while it runs (KVROCKS-CONFIG.md
// §5), changed here the same way: a CONFIG SET calls RocksDB's SetOptions
// on every column family, or SetDBOptions, with the value Kvrocks passes;
// a RocksDB refusal is the CONFIG SET error (its status text) and the old
// value stays.

// liveOption is one live rocksdb.* key: the RocksDB option it sets, on
// every column family (cf) or on the database, and the value to pass.
type liveOption struct {
	key   string // config key
	name  string // RocksDB option
	cf    bool
	value func(r *config.RocksDB) string
}

func intOf(i *config.Int) func(*config.RocksDB) string {
	return func(*config.RocksDB) string { return strconv.FormatInt(i.Get(), 10) }
}

func mbOf(i *config.Int) func(*config.RocksDB) string {
	return func(*config.RocksDB) string { return strconv.FormatInt(i.Get()<<20, 10) }
}

func boolOf(b *config.Bool) func(*config.RocksDB) string {
	return func(*config.RocksDB) string { return strconv.FormatBool(b.Get()) }
}

func liveOptions(r *config.RocksDB) []liveOption {
	return []liveOption{
		{"rocksdb.max_open_files", "max_open_files", false, intOf(&r.MaxOpenFiles)},
		{"rocksdb.stats_dump_period_sec", "stats_dump_period_sec", false, intOf(&r.StatsDumpPeriodSec)},
		{"rocksdb.delayed_write_rate", "delayed_write_rate", false, intOf(&r.DelayedWriteRate)},
		{"rocksdb.max_background_compactions", "max_background_compactions", false, intOf(&r.MaxBackgroundCompactions)},
		{"rocksdb.max_subcompactions", "max_subcompactions", false, intOf(&r.MaxSubcompactions)},
		{"rocksdb.compaction_readahead_size", "compaction_readahead_size", false, intOf(&r.CompactionReadaheadSize)},
		{"rocksdb.max_background_jobs", "max_background_jobs", false, intOf(&r.MaxBackgroundJobs)},
		{"rocksdb.max_total_wal_size", "max_total_wal_size", false, mbOf(&r.MaxTotalWALSize)},
		// As Kvrocks, which RocksDB then refuses: the option is not a
		// mutable DB option (it is fixed when the database opens).
		{"rocksdb.level_compaction_dynamic_level_bytes", "level_compaction_dynamic_level_bytes", false, boolOf(&r.LevelCompactionDynamicLevelBytes)},

		{"rocksdb.max_write_buffer_number", "max_write_buffer_number", true, intOf(&r.MaxWriteBufferNumber)},
		{"rocksdb.level0_slowdown_writes_trigger", "level0_slowdown_writes_trigger", true, intOf(&r.Level0SlowdownTrigger)},
		{"rocksdb.level0_stop_writes_trigger", "level0_stop_writes_trigger", true, intOf(&r.Level0StopTrigger)},
		{"rocksdb.level0_file_num_compaction_trigger", "level0_file_num_compaction_trigger", true, intOf(&r.Level0CompactionTrigger)},
		{"rocksdb.max_bytes_for_level_multiplier", "max_bytes_for_level_multiplier", true, intOf(&r.MaxBytesForLevelMultiplier)},
		{"rocksdb.min_blob_size", "min_blob_size", true, intOf(&r.MinBlobSize)},
		{"rocksdb.write_buffer_size", "write_buffer_size", true, mbOf(&r.WriteBufferSize)},
		{"rocksdb.target_file_size_base", "target_file_size_base", true, mbOf(&r.TargetFileSizeBase)},
		{"rocksdb.disable_auto_compactions", "disable_auto_compactions", true, boolOf(&r.DisableAutoCompactions)},
		{"rocksdb.enable_blob_files", "enable_blob_files", true, boolOf(&r.EnableBlobFiles)},
		{"rocksdb.enable_blob_garbage_collection", "enable_blob_garbage_collection", true, boolOf(&r.EnableBlobGC)},
		{"rocksdb.blob_file_size", "blob_file_size", true, intOf(&r.BlobFileSize)},
		{"rocksdb.max_bytes_for_level_base", "max_bytes_for_level_base", true, intOf(&r.MaxBytesForLevelBase)},
		{"rocksdb.blob_garbage_collection_age_cutoff", "blob_garbage_collection_age_cutoff", true, func(r *config.RocksDB) string {
			return strconv.FormatFloat(float64(r.BlobGCAgeCutoff.Get())/100, 'f', -1, 64)
		}},
		{"rocksdb.compression", "compression_per_level", true, compressionPerLevel},
		{"rocksdb.compression_start_level", "compression_per_level", true, compressionPerLevel},
	}
}

// rocksdbCompressionNames are RocksDB's names of the compression types in
// an options string.
var rocksdbCompressionNames = map[string]string{
	"no": "kNoCompression", "snappy": "kSnappyCompression", "zlib": "kZlibCompression",
	"lz4": "kLZ4Compression", "zstd": "kZSTD",
}

// compressionPerLevel is Kvrocks's compression_per_level: no compression
// below compression_start_level, the chosen type from there to level 6.
func compressionPerLevel(r *config.RocksDB) string {
	levels := make([]string, numLevels)
	for i := range levels {
		levels[i] = "kNoCompression"
		if int64(i) >= r.CompressionStartLevel.Get() {
			levels[i] = rocksdbCompressionNames[r.Compression.Get()]
		}
	}
	return strings.Join(levels, ":")
}

// numLevels is RocksDB's default number of levels, which Basalt keeps.
const numLevels = 7

// hookLiveOptions makes CONFIG SET of the live rocksdb.* keys change the
// open database.
func (s *Storage) hookLiveOptions() {
	r := &s.cfg.RocksDB
	for _, o := range liveOptions(r) {
		s.unhooks = append(s.unhooks, s.cfg.Hook(o.key, func() error {
			if o.cf {
				return s.setCFOptions(o.name, o.value(r))
			}
			return s.setDBOptions(o.name, o.value(r))
		}))
	}
}

// setCFOptions sets one option of every column family.
func (s *Storage) setCFOptions(name, value string) error {
	for _, c := range s.openCFs() {
		if err := s.db.SetOptionsCF(c.h, []string{name}, []string{value}); err != nil {
			return err
		}
	}
	return nil
}

// setDBOptions sets one database-wide option.
func (s *Storage) setDBOptions(name, value string) error {
	cName, cValue := C.CString(name), C.CString(value)
	defer C.free(unsafe.Pointer(cName))
	defer C.free(unsafe.Pointer(cValue))
	keys, values := []*C.char{cName}, []*C.char{cValue}
	if msg := C.basalt_set_db_options(nativeDB(s.db), 1, &keys[0], &values[0]); msg != nil {
		defer C.free(unsafe.Pointer(msg))
		return errors.New(C.GoString(msg))
	}
	return nil
}

// nativeDB returns grocksdb's C handle of db (its first field, as
// nativeIterator does for iterators).
func nativeDB(db *grocksdb.DB) *C.rocksdb_t {
	return *(**C.rocksdb_t)(unsafe.Pointer(db))
}
