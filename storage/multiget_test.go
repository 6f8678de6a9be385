package storage

import (
	"bytes"
	"fmt"
	"testing"
)

// TestMultiGetMatchesGet: a batched read answers for each key what a
// point read does: absent keys nil, empty values empty but present,
// values past the first guess of room (64 bytes a key) whole, the same
// key twice, and an empty key.
func TestMultiGetMatchesGet(t *testing.T) {
	db := newTestDB(t)
	sizes := []int{0, 1, 63, 64, 65, 500, 70000}
	var keys [][]byte
	wb := db.NewBatch(nil)
	for i, n := range sizes {
		k := []byte(fmt.Sprint("mg", i))
		wb.Put(CFDefault, k, bytes.Repeat([]byte{byte('a' + i)}, n))
		keys = append(keys, k, []byte(fmt.Sprint("absent", i)))
	}
	wb.Put(CFDefault, []byte{}, []byte("empty key"))
	if err := wb.Commit(); err != nil {
		t.Fatal(err)
	}
	keys = append(keys, keys[0], keys[len(keys)-2], []byte{})
	for _, set := range [][][]byte{keys, keys[:2], keys[1:2], nil} {
		got, err := db.GetMany(nil, CFDefault, set)
		if err != nil || len(got) != len(set) {
			t.Fatalf("GetMany of %d keys: %d values, %v", len(set), len(got), err)
		}
		for i, k := range set {
			want, found, err := db.s.get(CFDefault, k, nil)
			if err != nil {
				t.Fatal(err)
			}
			if (got[i] != nil) != found || !bytes.Equal(got[i], want) {
				t.Fatalf("key %q: GetMany %d bytes (nil %v), Get %d bytes (found %v)", k, len(got[i]), got[i] == nil, len(want), found)
			}
		}
	}
}
