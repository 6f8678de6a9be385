package storage

/*
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <rocksdb/c.h>

// basalt_multi_get reads the n keys packed back to back in keys (their
// lengths in klens) with RocksDB's batched MultiGet, and copies the values
// found back to back into buf (of room cap): vlens[i] is the length of
// key i's value, -1 when it is absent. It returns the room all the values
// need: when that is over cap, nothing past cap was copied and the caller
// asks again with more. *err is RocksDB's first error, to be freed.
static size_t basalt_multi_get(rocksdb_t* db, const rocksdb_readoptions_t* ro, rocksdb_column_family_handle_t* cf,
                               size_t n, const char* keys, const size_t* klens, char* buf, size_t cap,
                               int64_t* vlens, char** err) {
	const char** list = malloc(n * sizeof(char*));
	rocksdb_pinnableslice_t** values = malloc(n * sizeof(rocksdb_pinnableslice_t*));
	char** errs = malloc(n * sizeof(char*));
	size_t at = 0;
	for (size_t i = 0; i < n; i++) {
		list[i] = keys + at;
		at += klens[i];
	}
	rocksdb_batched_multi_get_cf(db, ro, cf, n, list, klens, values, errs, 0);
	size_t used = 0;
	*err = NULL;
	for (size_t i = 0; i < n; i++) {
		vlens[i] = -1;
		if (errs[i] != NULL) {
			if (*err == NULL) {
				*err = errs[i];
			} else {
				free(errs[i]);
			}
		}
		if (values[i] == NULL) {
			continue;
		}
		size_t vlen;
		const char* v = rocksdb_pinnableslice_value(values[i], &vlen);
		if (used + vlen <= cap) {
			memcpy(buf + used, v, vlen);
		}
		vlens[i] = (int64_t)vlen;
		used += vlen;
		rocksdb_pinnableslice_destroy(values[i]);
	}
	free(list);
	free(values);
	free(errs);
	return used;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/linxGnu/grocksdb"
)

// multiGetWith reads many keys of one column family in one crossing of
// cgo, with RocksDB's batched MultiGet (grocksdb's MultiGetCF takes the
// per-key path and four crossings a key: a copy of the key in C memory,
// its release, the value's copy and its release). A missing key has a nil
// value; the values share one Go buffer and are the caller's.
func (s *Storage) multiGetWith(ro *grocksdb.ReadOptions, cf CF, keys [][]byte) ([][]byte, error) {
	out := make([][]byte, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	if len(keys) == 1 {
		v, found, err := s.getWith(ro, cf, keys[0], []byte{})
		if err != nil || !found {
			return out, err
		}
		out[0] = v
		return out, nil
	}
	size := 0
	klens := make([]C.size_t, len(keys))
	for i, k := range keys {
		size += len(k)
		klens[i] = C.size_t(len(k))
	}
	packed := make([]byte, 0, size+1) // +1: a valid pointer when every key is empty
	for _, k := range keys {
		packed = append(packed, k...)
	}
	packed = packed[:cap(packed)]
	vlens := make([]C.int64_t, len(keys))
	buf := make([]byte, 64*len(keys))
	for {
		var cErr *C.char
		need := C.basalt_multi_get(nativeDB(s.db), nativeReadOptions(ro), nativeCF(s.cfs[cf].Load()), C.size_t(len(keys)),
			(*C.char)(unsafe.Pointer(&packed[0])), &klens[0], (*C.char)(unsafe.Pointer(&buf[0])), C.size_t(len(buf)), &vlens[0], &cErr)
		if cErr != nil {
			msg := C.GoString(cErr)
			C.free(unsafe.Pointer(cErr))
			return nil, fmt.Errorf("storage: multiget: %w", errors.New(msg))
		}
		if int(need) <= len(buf) {
			break
		}
		buf = make([]byte, int(need))
	}
	at := 0
	for i, n := range vlens {
		if n >= 0 {
			out[i] = buf[at : at+int(n) : at+int(n)]
			at += int(n)
		}
	}
	return out, nil
}

// nativeReadOptions returns grocksdb's C handle of read options (its
// first field, as nativeDB does).
func nativeReadOptions(ro *grocksdb.ReadOptions) *C.rocksdb_readoptions_t {
	return *(**C.rocksdb_readoptions_t)(unsafe.Pointer(ro))
}
