package storage

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/basaltdb/basalt/metadata"
)

func TestPutAndReadValue(t *testing.T) {
	db := newTestDB(t)
	expire := time.Now().Add(time.Hour).UnixMilli()
	for _, v := range []*Value{
		{Type: metadata.TypeString, Str: b("v\x00")},
		{Type: metadata.TypeString, Str: b("")},
		{Type: metadata.TypeList, Elems: [][]byte{b("x"), b(""), b("x"), b("a")}},
		{Type: metadata.TypeHash, Elems: [][]byte{b("a"), b("1"), b("b"), b("")}},
		{Type: metadata.TypeSet, Elems: [][]byte{b(""), b("a"), b("b")}},
		{Type: metadata.TypeZSet, Elems: [][]byte{b("a"), b("b"), b("c")}, Scores: []float64{2, -1, 0}},
	} {
		t.Run(v.Type.String(), func(t *testing.T) {
			for _, at := range []int64{0, expire} {
				// Over a hash, whose elements must vanish.
				if _, err := db.Del([][]byte{b("k")}); err != nil {
					t.Fatal(err)
				}
				if _, err := db.HSet(b("k"), [][]byte{b("old"), b("x")}, false); err != nil {
					t.Fatal(err)
				}
				if err := db.PutValue(b("k"), v, at); err != nil {
					t.Fatal(err)
				}
				got, found, err := db.ReadValue(b("k"))
				if err != nil || !found {
					t.Fatalf("ReadValue: %v %v", found, err)
				}
				if fmt.Sprintf("%v %q %v", got.Type, got.Str, got.Scores) != fmt.Sprintf("%v %q %v", v.Type, v.Str, v.Scores) ||
					!slices.EqualFunc(got.Elems, v.Elems, func(a, b []byte) bool { return string(a) == string(b) }) {
					t.Fatalf("ReadValue = %+v, want %+v", got, v)
				}
				if gotAt, _, _ := db.ExpireAt(b("k")); gotAt != at {
					t.Fatalf("expire %d, want %d", gotAt, at)
				}
			}
		})
	}
	t.Run("absent", func(t *testing.T) {
		if v, found, err := db.ReadValue(b("nokey")); v != nil || found || err != nil {
			t.Fatalf("ReadValue(nokey) = %v %v %v", v, found, err)
		}
	})
}
