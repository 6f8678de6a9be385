package storage

/*
#include <malloc.h>
*/
import "C"

import (
	"os"
	"runtime"
)

// RocksDB allocates its blocks, iterators, write batches and memtable
// arenas with glibc's malloc, from whichever thread calls it, and glibc
// keeps what they free unless told otherwise. Both settings yield to the
// environment variable of the same tunable, which glibc reads itself.
func init() {
	// Basalt calls RocksDB from many Go threads (every cgo call may run on
	// another one), and glibc gives each contending thread its own arena,
	// up to 8 per core, each keeping freed memory to itself: after `make
	// bench` that left 357 MB RSS, against 244 MB with at most one arena
	// per core (Kvrocks links jemalloc and ended at 204 MB).
	if os.Getenv("MALLOC_ARENA_MAX") == "" {
		C.mallopt(C.M_ARENA_MAX, C.int(max(2, runtime.NumCPU())))
	}
	// glibc maps blocks above its mmap threshold and unmaps them when
	// freed, but raises the threshold to the size of each mapped block
	// freed: after the first memtable is flushed, its 8 MB arena blocks
	// come from the arenas' heaps, which keep them once freed. A fixed
	// threshold of 1 MB keeps returning them: RSS after make bench's main
	// table 266 MB against 311, at no measurable cost per request
	// (bench/PERFORMANCE.md).
	if os.Getenv("MALLOC_MMAP_THRESHOLD_") == "" {
		C.mallopt(C.M_MMAP_THRESHOLD, 1<<20)
	}
}
