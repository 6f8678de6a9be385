package storage

import (
	"bytes"
	"fmt"
	"testing"
)

// TestWalkMatchesIterator checks walk against grocksdb's own accessors on
// the same records, both ways, with empty values, values larger than a
// walk buffer, and a walk stopped early.
func TestWalkMatchesIterator(t *testing.T) {
	db := newTestDB(t)
	b := db.newBatch(nil)
	for i := 0; i < 1500; i++ {
		var v []byte
		switch {
		case i%500 == 7:
			v = bytes.Repeat([]byte{byte(i)}, 3*walkBufferSize)
		case i%3 == 0:
			v = []byte{}
		default:
			v = []byte(fmt.Sprint("value\x00", i))
		}
		b.put(CFDefault, []byte(fmt.Sprintf("k%05d", i)), v)
	}
	if err := b.commit(); err != nil {
		t.Fatal(err)
	}
	type entry struct{ k, v string }
	reference := func(reverse bool) []entry {
		it := db.s.newIterator(CFDefault, nil, nil, nil)
		defer it.close()
		var out []entry
		if reverse {
			for it.SeekToLast(); it.Valid(); it.Prev() {
				out = append(out, entry{string(it.keyData()), string(it.valueData())})
			}
		} else {
			for it.SeekToFirst(); it.Valid(); it.Next() {
				out = append(out, entry{string(it.keyData()), string(it.valueData())})
			}
		}
		return out
	}
	walked := func(reverse bool, limit int) []entry {
		it := db.s.newIterator(CFDefault, nil, nil, nil)
		defer it.close()
		if reverse {
			it.SeekToLast()
		} else {
			it.SeekToFirst()
		}
		var out []entry
		err := it.walk(reverse, limit, func(k, v []byte) bool {
			out = append(out, entry{string(k), string(v)})
			return len(out) != limit
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, reverse := range []bool{false, true} {
		want := reference(reverse)
		if len(want) != 1500 {
			t.Fatalf("reference walk found %d records", len(want))
		}
		for _, limit := range []int{0, 1, 9, 700} {
			got := walked(reverse, limit)
			n := len(want)
			if limit > 0 {
				n = limit
			}
			if len(got) != n {
				t.Fatalf("reverse=%v limit=%d: walked %d records, want %d", reverse, limit, len(got), n)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("reverse=%v: record %d is %.20q=%.20q, want %.20q=%.20q", reverse, i, got[i].k, got[i].v, want[i].k, want[i].v)
				}
			}
		}
	}
}
