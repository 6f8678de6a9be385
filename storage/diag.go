package storage

/*
#cgo CXXFLAGS: -std=c++17
#include <stdlib.h>
#include <stdint.h>
#include <rocksdb/c.h>

void basalt_perf_begin();
void basalt_perf_end(char** perf, char** iostats);
char* basalt_approximate_sizes(rocksdb_t* db, rocksdb_column_family_handle_t* cf, int n, const char* const* bounds, const size_t* lens, uint64_t* sizes);
void basalt_cache_erase_unref(rocksdb_cache_t* cache);
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/basaltdb/basalt/metadata"
	"github.com/linxGnu/grocksdb"
)

// PerfSample is RocksDB's perf and I/O context of the calling goroutine,
// counting from BeginPerf: what a command did inside RocksDB, as Kvrocks's
// PERFLOG shows it. The contexts are the thread's, so the goroutine stays
// on its thread until EndPerf; what another goroutine did for it (a write
// another command's goroutine applied with its own) is not counted.
type PerfSample struct{ began bool }

// BeginPerf starts counting; EndPerf must follow on the same goroutine.
func BeginPerf() PerfSample {
	runtime.LockOSThread()
	C.basalt_perf_begin()
	return PerfSample{began: true}
}

// EndPerf stops counting and returns the counters that are not zero as
// RocksDB writes them ("name = value, ...").
func (p PerfSample) EndPerf() (perf, iostats string) {
	if !p.began {
		return "", ""
	}
	var cPerf, cIO *C.char
	C.basalt_perf_end(&cPerf, &cIO)
	runtime.UnlockOSThread()
	defer C.free(unsafe.Pointer(cPerf))
	defer C.free(unsafe.Pointer(cIO))
	return C.GoString(cPerf), C.GoString(cIO)
}

// DiskUsage returns RocksDB's estimate of the bytes key takes, in its
// memtables and SST files: its metadata record and its elements, as
// Kvrocks's DISK USAGE adds them up. found is false when key does not
// exist.
func (db DB) DiskUsage(key []byte) (size int64, found bool, err error) {
	nsKey := db.nsKey(key)
	rec, found, err := db.lookup(nsKey)
	if err != nil || !found {
		return 0, false, err
	}
	s := db.s
	// The metadata record alone: [nsKey, nsKey+"\x00").
	total, err := s.approximateSizes(CFMetadata, [][2][]byte{{nsKey, append(nsKey[:len(nsKey):len(nsKey)], 0)}})
	if err != nil {
		return 0, false, err
	}
	if !rec.meta.Type.SingleKV() {
		c := &collection{db: db, nsKey: nsKey, key: key, meta: rec.meta}
		lower, upper := c.prefix()
		for _, cf := range subkeyCFs(rec.meta.Type) {
			n, err := s.approximateSizes(cf, [][2][]byte{{lower, upper}})
			if err != nil {
				return 0, false, err
			}
			total += n
		}
	}
	return total, true, nil
}

// approximateSizes sums RocksDB's estimates of the ranges [from, to) of
// cf, memtables included.
func (s *Storage) approximateSizes(cf CF, ranges [][2][]byte) (int64, error) {
	n := len(ranges)
	bounds := C.malloc(C.size_t(2*n) * C.size_t(unsafe.Sizeof(uintptr(0))))
	defer C.free(bounds)
	ptrs := unsafe.Slice((**C.char)(bounds), 2*n)
	lens := make([]C.size_t, 2*n)
	for i, r := range ranges {
		for j, b := range r {
			ptrs[2*i+j] = (*C.char)(C.CBytes(b))
			defer C.free(unsafe.Pointer(ptrs[2*i+j]))
			lens[2*i+j] = C.size_t(len(b))
		}
	}
	sizes := make([]C.uint64_t, n)
	if msg := C.basalt_approximate_sizes(nativeDB(s.db), nativeCF(s.cfs[cf].Load()), C.int(n), (**C.char)(bounds), &lens[0], &sizes[0]); msg != nil {
		defer C.free(unsafe.Pointer(msg))
		return 0, fmt.Errorf("storage: approximate sizes: %w", errors.New(C.GoString(msg)))
	}
	var total int64
	for _, v := range sizes {
		total += int64(v)
	}
	return total, nil
}

// eraseUnreferenced drops the entries of cache that no reader holds,
// which RocksDB 7.8's C API cannot. grocksdb's Cache holds the C handle as
// its only field.
func eraseUnreferenced(cache *grocksdb.Cache) {
	C.basalt_cache_erase_unref(*(**C.rocksdb_cache_t)(unsafe.Pointer(cache)))
}

// nativeCF returns grocksdb's C handle of a column family (its first
// field, as nativeDB does).
func nativeCF(h *grocksdb.ColumnFamilyHandle) *C.rocksdb_column_family_handle_t {
	return *(**C.rocksdb_column_family_handle_t)(unsafe.Pointer(h))
}

// MemoryUsage returns the bytes of key's records, keys and values, as
// MEMORY USAGE reports them: exact for a string; for a collection its
// metadata record and, per column family of its elements, the mean of
// its first samples element records times their number (samples 0: all
// of them, summed), as Redis samples. found is false when key does not
// exist.
func (db DB) MemoryUsage(key []byte, samples int64) (size int64, found bool, err error) {
	nsKey := db.nsKey(key)
	snap := db.snapshot()
	defer db.s.db.ReleaseSnapshot(snap)
	raw, found, err := db.s.getAt(snap, CFMetadata, nsKey)
	if err != nil || !found {
		return 0, false, err
	}
	rec, found, err := decodeRecord(raw, db.now())
	if err != nil || !found {
		return 0, false, err
	}
	size = int64(len(nsKey) + len(raw))
	m := rec.meta
	if m.Type.SingleKV() {
		return size, true, nil
	}
	c := &collection{db: db, nsKey: nsKey, key: key, meta: m, exists: true}
	// Bitmaps, HyperLogLogs and t-digests count no elements: their
	// records are read whole.
	counted := m.Type != metadata.TypeBitmap && m.Type != metadata.TypeHyperLogLog && m.Type != metadata.TypeTDigest
	prefix := int64(db.s.layout.SubkeyPrefixLen(db.ns, key))
	for _, cf := range subkeyCFs(m.Type) {
		var bytes, n int64
		want := 0
		if counted && samples > 0 {
			want = int(samples)
		}
		err := c.each(cf, snap, nil, want, func(sub, value []byte) bool {
			bytes += prefix + int64(len(sub)+len(value))
			n++
			return !counted || samples <= 0 || n < samples
		})
		if err != nil {
			return 0, false, err
		}
		if counted && n > 0 && samples > 0 && uint64(n) < m.Size {
			bytes = bytes * int64(m.Size) / n
		}
		size += bytes
	}
	return size, true, nil
}
