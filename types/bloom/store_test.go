package bloom

import (
	"bytes"
	"errors"
	"strconv"
	"testing"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
	"github.com/basaltdb/basalt/storage/storagetest"
)

func b(s string) []byte { return []byte(s) }

// TestAddFormat: BF.ADD bf a on an absent key writes exactly
// KVROCKS-TYPES.md §2.7's records: the metadata with the default chain
// and one 128-byte sub-filter with a's eight bits; adding it again writes
// nothing.
func TestAddFormat(t *testing.T) {
	s := storagetest.Open(t)
	db := s.DB(metadata.DefaultNamespace)
	if rs, err := Add(db, b("bf"), [][]byte{b("a")}, &Defaults); err != nil || len(rs) != 1 || rs[0] != Added {
		t.Fatalf("Add = %v %v", rs, err)
	}
	o, err := db.Lookup(b("bf"))
	if err != nil || o == nil {
		t.Fatalf("Lookup = %v %v", o, err)
	}
	meta := storagetest.Record(t, db, storage.CFMetadata, o.NSKey())
	want := storagetest.WithVersion(t, "89 0000000000000000 305120c0f2000001 0000000000000001 0001 0002 00000064 bf847ae147ae147b 00000080", o.Meta().Version)
	if !bytes.Equal(meta, want) {
		t.Errorf("metadata %x, want %x", meta, want)
	}
	sub := storagetest.WithVersion(t, "0b5f5f6e616d657370616365 00000002 6266 305120c0f2000001 0000", o.Meta().Version)
	want = append(make([]byte, 96), storagetest.WithVersion(t, "00000400 00000200 02000000 00100000 00000200 00000001 00000008 00000080", 0)...)
	if v := storagetest.Record(t, db, storage.CFDefault, sub); !bytes.Equal(v, want) {
		t.Errorf("sub-filter 0 %x, want %x", v, want)
	}
	writes := s.LatestSequence()
	if rs, err := Add(db, b("bf"), [][]byte{b("a")}, &Defaults); err != nil || rs[0] != Present || s.LatestSequence() != writes {
		t.Errorf("Add of a present item: %v %v, %d writes", rs, err, s.LatestSequence()-writes)
	}
}

// TestStoreCommands: the other commands' cases that depend on the key.
func TestStoreCommands(t *testing.T) {
	db := storagetest.DB(t)
	if err := Reserve(db, b("r"), Options{ErrorRate: 0.001, Capacity: 2, Expansion: 0}); err != nil {
		t.Fatal(err)
	}
	if err := Reserve(db, b("r"), Defaults); !errors.Is(err, ErrExists) {
		t.Errorf("Reserve of an existing filter: %v", err)
	}
	rs, err := Add(db, b("r"), [][]byte{b("x"), b("y"), b("x"), b("z")}, nil)
	if err != nil || len(rs) != 4 || rs[0] != Added || rs[1] != Added || rs[2] != Present || rs[3] != Full {
		t.Errorf("Add to a non-scaling filter of capacity 2: %v %v", rs, err)
	}
	if found, err := MayContain(db, b("r"), [][]byte{b("x"), b("y"), b("z")}); err != nil || !found[0] || !found[1] || found[2] {
		t.Errorf("MayContain = %v %v", found, err)
	}
	if info, err := InfoOf(db, b("r")); err != nil || info != (Info{Capacity: 2, Size: 32, Filters: 1, Items: 2}) {
		t.Errorf("InfoOf = %+v %v", info, err)
	}
	if n, err := Card(db, b("r")); err != nil || n != 2 {
		t.Errorf("Card = %d %v", n, err)
	}
	// An absent key: created unless NOCREATE; no item, no info, card 0.
	if _, err := Add(db, b("none"), [][]byte{b("x")}, nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("Add with NOCREATE to an absent key: %v", err)
	}
	if found, err := MayContain(db, b("none"), [][]byte{b("x"), b("y")}); err != nil || len(found) != 2 || found[0] || found[1] {
		t.Errorf("MayContain of an absent key = %v %v", found, err)
	}
	if _, err := InfoOf(db, b("none")); !errors.Is(err, ErrNotFound) {
		t.Errorf("InfoOf an absent key: %v", err)
	}
	if n, err := Card(db, b("none")); err != nil || n != 0 {
		t.Errorf("Card of an absent key = %d %v", n, err)
	}
	// Another type.
	if _, err := db.Set(b("str"), b("v"), storage.SetArgs{}); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"Reserve":    Reserve(db, b("str"), Defaults),
		"Add":        second(Add(db, b("str"), [][]byte{b("x")}, &Defaults)),
		"MayContain": second(MayContain(db, b("str"), [][]byte{b("x")})),
		"InfoOf":     second(InfoOf(db, b("str"))),
		"Card":       second(Card(db, b("str"))),
	} {
		if !errors.Is(err, storage.ErrWrongType) {
			t.Errorf("%s on a string: %v", name, err)
		}
	}
}

// TestScalingStore: a chain that scales past its capacity in one call
// and the next writes each new sub-filter, and finds every item after.
func TestScalingStore(t *testing.T) {
	db := storagetest.DB(t)
	var items [][]byte
	for i := range 300 {
		items = append(items, b("k"+strconv.Itoa(i)))
	}
	if _, err := Add(db, b("s"), items[:120], &Options{ErrorRate: 0.0001, Capacity: 50, Expansion: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := Add(db, b("s"), items[120:], nil); err != nil {
		t.Fatal(err)
	}
	info, err := InfoOf(db, b("s"))
	if err != nil || info.Filters != 3 || info.Capacity != 350 || info.Size != 256+512+1024 {
		t.Errorf("InfoOf = %+v %v", info, err)
	}
	found, err := MayContain(db, b("s"), items)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range found {
		if !f {
			t.Errorf("item %s not found", items[i])
		}
	}
}

func second[T any](_ T, err error) error { return err }

// BenchmarkMayContain: BF.EXISTS's work on a default filter (128 bytes)
// and on one reserved for 100k items (128 KiB), with the store.
func BenchmarkMayContain(b *testing.B) {
	db := storagetest.DB(b)
	for _, capacity := range []uint32{100, 100000} {
		key := []byte("bf" + strconv.Itoa(int(capacity)))
		if err := Reserve(db, key, Options{ErrorRate: 0.01, Capacity: capacity, Expansion: 2}); err != nil {
			b.Fatal(err)
		}
		if _, err := Add(db, key, [][]byte{[]byte("a")}, nil); err != nil {
			b.Fatal(err)
		}
		b.Run(strconv.Itoa(int(capacity)), func(b *testing.B) {
			b.ReportAllocs()
			items := [][]byte{[]byte("a")}
			for b.Loop() {
				if _, err := MayContain(db, key, items); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
