package storage

/*
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <rocksdb/c.h>

typedef struct {
	int    entries; // entries copied
	size_t used;    // bytes of buf they fill
	size_t need;    // when no entry fits: the size of the next one
} basalt_fill_result;

// basalt_iter_fill copies entries of it, from its current one, into buf,
// each as (uint32 key length, key, uint32 value length, value), until max
// are copied, the next one does not fit, the iterator is exhausted or
// (stop not NULL) its key is not below stop in bytewise order, RocksDB's.
// It moves it past every entry copied: forward, or backward when reverse.
static basalt_fill_result basalt_iter_fill(rocksdb_iterator_t* it, int reverse, char* buf, size_t cap, int max, const char* stop, size_t stoplen) {
	basalt_fill_result r = {0, 0, 0};
	while (r.entries < max && rocksdb_iter_valid(it)) {
		size_t klen, vlen;
		const char* k = rocksdb_iter_key(it, &klen);
		if (stop != NULL) {
			int c = memcmp(k, stop, klen < stoplen ? klen : stoplen);
			if (c > 0 || (c == 0 && klen >= stoplen)) {
				break;
			}
		}
		const char* v = rocksdb_iter_value(it, &vlen);
		size_t size = 8 + klen + vlen;
		if (r.used + size > cap) {
			if (r.entries == 0) {
				r.need = size;
			}
			break;
		}
		uint32_t k32 = (uint32_t)klen, v32 = (uint32_t)vlen;
		char* p = buf + r.used;
		memcpy(p, &k32, 4);
		memcpy(p + 4, k, klen);
		memcpy(p + 4 + klen, &v32, 4);
		memcpy(p + 8 + klen, v, vlen);
		r.used += size;
		r.entries++;
		if (reverse) {
			rocksdb_iter_prev(it);
		} else {
			rocksdb_iter_next(it);
		}
	}
	return r;
}

// basalt_range is an iterator and the read options it was made with.
typedef struct {
	rocksdb_readoptions_t* ro;
	rocksdb_iterator_t* it;
} basalt_range;

// basalt_range_open makes an iterator over [lower, upper) of cf (a bound
// NULL: none) as of snap (NULL: the latest) and positions it: at seek
// (forward: Seek; reverse: SeekForPrev), or with seek NULL at the first
// entry (reverse: the last). The bounds must outlive the iterator.
static basalt_range basalt_range_open(rocksdb_t* db, rocksdb_column_family_handle_t* cf, const rocksdb_snapshot_t* snap, const char* lower, size_t lowerlen, const char* upper, size_t upperlen, const char* seek, size_t seeklen, int reverse) {
	basalt_range r;
	r.ro = rocksdb_readoptions_create();
	if (lower != NULL) {
		rocksdb_readoptions_set_iterate_lower_bound(r.ro, lower, lowerlen);
	}
	if (upper != NULL) {
		rocksdb_readoptions_set_iterate_upper_bound(r.ro, upper, upperlen);
	}
	if (snap != NULL) {
		rocksdb_readoptions_set_snapshot(r.ro, snap);
	}
	r.it = rocksdb_create_iterator_cf(db, r.ro, cf);
	if (seek != NULL && reverse) {
		rocksdb_iter_seek_for_prev(r.it, seek, seeklen);
	} else if (seek != NULL) {
		rocksdb_iter_seek(r.it, seek, seeklen);
	} else if (reverse) {
		rocksdb_iter_seek_to_last(r.it);
	} else {
		rocksdb_iter_seek_to_first(r.it);
	}
	return r;
}

// basalt_range_close frees r and returns the iterator's error, if any
// (to be freed by the caller).
static char* basalt_range_close(basalt_range r) {
	char* err = NULL;
	rocksdb_iter_get_error(r.it, &err);
	rocksdb_iter_destroy(r.it);
	rocksdb_readoptions_destroy(r.ro);
	return err;
}
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/linxGnu/grocksdb"
)

// Walking an iterator through grocksdb costs four cgo calls per entry (Valid,
// Key, Value, Next), each of which also allocates. walk copies entries in
// batches instead, with one call per batch into a Go buffer. Batches start
// small and double, so that a walk stopped after a few entries (a LIMIT)
// copies few more than it uses.
const (
	firstWalkBatch = 8
	maxWalkBatch   = 512
	walkBufferSize = 16 << 10
)

var walkBuffers = sync.Pool{New: func() any { b := make([]byte, walkBufferSize); return &b }}

// walk calls fn with the entries from the iterator's position on, moving
// forward (backward when reverse), until fn returns false or the bounds
// end. want, when not 0, is how many entries fn is expected to take: no
// batch copies more than those still expected. key and value are valid
// only during the call. The iterator's position afterwards is unspecified.
func (it iterator) walk(reverse bool, want int, fn func(key, value []byte) bool) error {
	return it.walkTo(reverse, want, nil, fn)
}

// walkTo is walk that also ends, moving forward, at the first key at or
// past stop (nil: at the bounds only). It lets one iterator read several
// ranges, seeked to each, without copying entries past a range's end.
func (it iterator) walkTo(reverse bool, want int, stop []byte, fn func(key, value []byte) bool) error {
	fillAll(nativeIterator(it.Iterator), reverse, want, stop, fn)
	if err := it.Err(); err != nil {
		return fmt.Errorf("storage: iterate: %w", err)
	}
	return nil
}

// walkRange reads [lower, upper) of cf as of snap (nil: the latest) as
// newIterator, a seek to from (nil: the first entry, or the last when
// reverse; reverse: SeekForPrev) and walk would, in two cgo calls and
// the batches' instead of a dozen: for the reads of a few entries
// through Object.Each (SIRANGE), where each call is a noticeable part
// of the cost.
func (s *Storage) walkRange(cf CF, lower, upper []byte, snap *grocksdb.Snapshot, from []byte, reverse bool, want int, fn func(key, value []byte) bool) error {
	var cSnap *C.rocksdb_snapshot_t
	if snap != nil {
		cSnap = *(**C.rocksdb_snapshot_t)(unsafe.Pointer(snap)) // grocksdb's only field, as nativeDB's
	}
	rev := C.int(0)
	if reverse {
		rev = 1
	}
	r := C.basalt_range_open(nativeDB(s.db), nativeCF(s.cfs[cf].Load()), cSnap,
		cBytes(lower), C.size_t(len(lower)), cBytes(upper), C.size_t(len(upper)), cBytes(from), C.size_t(len(from)), rev)
	fillAll(r.it, reverse, want, nil, fn)
	msg := C.basalt_range_close(r)
	runtime.KeepAlive(lower) // RocksDB kept the bounds until the close
	runtime.KeepAlive(upper)
	if msg != nil {
		defer C.free(unsafe.Pointer(msg))
		return fmt.Errorf("storage: iterate: %s", C.GoString(msg))
	}
	return nil
}

// cBytes is b's memory for C, NULL for a nil b (an empty one is a
// zero-length key, not NULL).
func cBytes(b []byte) *C.char {
	switch {
	case b == nil:
		return nil
	case len(b) == 0:
		return (*C.char)(unsafe.Pointer(&[1]byte{}))
	}
	return (*C.char)(unsafe.Pointer(&b[0]))
}

// fillAll calls fn with the entries from it's position on, as walkTo
// describes, copying them in batches.
func fillAll(it *C.rocksdb_iterator_t, reverse bool, want int, stop []byte, fn func(key, value []byte) bool) {
	var cStop *C.char
	if len(stop) > 0 {
		cStop = (*C.char)(unsafe.Pointer(&stop[0]))
	}
	bufp := walkBuffers.Get().(*[]byte)
	defer walkBuffers.Put(bufp)
	rev := C.int(0)
	if reverse {
		rev = 1
	}
	walked := 0
	// A caller that said how many it takes gets them in one batch.
	first := max(firstWalkBatch, min(want, maxWalkBatch))
	for batch := first; ; batch = min(2*batch, maxWalkBatch) {
		n := batch
		if want > walked {
			n = min(n, want-walked)
		}
		buf := *bufp
		r := C.basalt_iter_fill(it, rev, (*C.char)(unsafe.Pointer(&buf[0])), C.size_t(len(buf)), C.int(n), cStop, C.size_t(len(stop)))
		if r.entries == 0 {
			if r.need == 0 {
				return // exhausted
			}
			// One entry larger than the buffer: a buffer just for it,
			// not kept in the pool.
			big := make([]byte, int(r.need))
			bufp = &big
			continue
		}
		walked += int(r.entries)
		if !eachEntry(buf[:r.used], fn) {
			return
		}
	}
}

// eachEntry calls fn for the entries basalt_iter_fill wrote to b, until fn
// returns false; it reports whether fn wanted more.
func eachEntry(b []byte, fn func(key, value []byte) bool) bool {
	for len(b) > 0 {
		klen := int(binary.NativeEndian.Uint32(b))
		key := b[4 : 4+klen : 4+klen]
		b = b[4+klen:]
		vlen := int(binary.NativeEndian.Uint32(b))
		value := b[4 : 4+vlen : 4+vlen]
		b = b[4+vlen:]
		if !fn(key, value) {
			return false
		}
	}
	return true
}

// nativeIterator returns the RocksDB iterator behind it. grocksdb keeps it
// in the Iterator's only field and does not export it; TestWalkMatchesIterator
// fails if that ever changes.
func nativeIterator(it *grocksdb.Iterator) *C.rocksdb_iterator_t {
	return *(**C.rocksdb_iterator_t)(unsafe.Pointer(it))
}
