package storage

/*
#include <malloc.h>
*/
import "C"

import (
	"os"
	"runtime"
)

// RocksDB allocates its blocks, iterators and write batches with glibc's
// malloc, from whichever thread calls it. Basalt calls it from many Go
// threads (every cgo call may run on another one), and glibc gives each
// contending thread its own arena, up to 8 per core, each keeping freed
// memory to itself: after `make bench` that left 357 MB RSS, against 244
// MB with at most one arena per core (Kvrocks links jemalloc and ended at
// 204 MB). So the arenas are capped at one per core, unless the operator
// set MALLOC_ARENA_MAX, which glibc reads itself.
func init() {
	if os.Getenv("MALLOC_ARENA_MAX") != "" {
		return
	}
	C.mallopt(C.M_ARENA_MAX, C.int(max(2, runtime.NumCPU())))
}
