package sortedint

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
	"github.com/basaltdb/basalt/storage/storagetest"
)

func b(s string) []byte { return []byte(s) }

// TestAddFormat: SIADD s 5 on an absent key writes KVROCKS-TYPES.md §3.1's
// vector: metadata 87, no expiry, the version, size 1; one subkey, the id
// big-endian, with an empty value. A second SIADD of it writes nothing.
func TestAddFormat(t *testing.T) {
	s := storagetest.Open(t)
	db := s.DB(metadata.DefaultNamespace)
	if n, err := Add(db, b("s"), []uint64{5}); err != nil || n != 1 {
		t.Fatalf("Add = %d, %v", n, err)
	}
	o, err := db.Lookup(b("s"))
	if err != nil || o == nil {
		t.Fatalf("Lookup: %v %v", o, err)
	}
	v := o.Meta().Version
	if got, want := storagetest.Record(t, db, storage.CFMetadata, o.NSKey()), storagetest.WithVersion(t, "87 0000000000000000 305120c0f2000001 0000000000000001", v); !bytes.Equal(got, want) {
		t.Errorf("metadata %x, want %x", got, want)
	}
	sub := storagetest.WithVersion(t, "0b5f5f6e616d657370616365 00000001 73 305120c0f2000001 0000000000000005", v)
	if got := storagetest.Record(t, db, storage.CFDefault, sub); len(got) != 0 {
		t.Errorf("value of the id's subkey %x, want empty", got)
	}
	writes := s.LatestSequence()
	if n, err := Add(db, b("s"), []uint64{5, 5}); err != nil || n != 0 || s.LatestSequence() != writes {
		t.Errorf("Add of a held id: %d, %v, %d writes", n, err, s.LatestSequence()-writes)
	}
}

// TestCommandsOnEngine: the commands over the engine's records: ranges
// both ways from a cursor, by value, existence, removal down to a deleted
// key, and a new incarnation after it that sees none of the old ids.
func TestCommandsOnEngine(t *testing.T) {
	db := storagetest.DB(t)
	ids := []uint64{0, 1, 2, 3, 4, 5, 123, 245, 1 << 63, math.MaxUint64}
	if n, err := Add(db, b("s"), ids); err != nil || n != len(ids) {
		t.Fatalf("Add = %d, %v", n, err)
	}
	each := func(q interface {
		Each(storage.DB, []byte, func(uint64) bool) error
	}) []uint64 {
		var out []uint64
		if err := q.Each(db, b("s"), func(id uint64) bool { out = append(out, id); return true }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, c := range []struct {
		name string
		got  []uint64
		want []uint64
	}{
		{"SIRANGE s 0 3", each(Range{Limit: 3}), []uint64{1, 2, 3}},
		{"SIRANGE s 1 0 CURSOR 123", each(Range{Offset: 1, Cursor: 123}), []uint64{1 << 63, math.MaxUint64}},
		{"SIREVRANGE s 0 3", each(Range{Reverse: true, Limit: 3}), []uint64{math.MaxUint64, 1 << 63, 245}},
		{"SIREVRANGE s 0 3 CURSOR 5", each(Range{Reverse: true, Limit: 3, Cursor: 5}), []uint64{4, 3, 2}},
		{"SIREVRANGE s 0 0 CURSOR 18446744073709551615", each(Range{Reverse: true, Cursor: math.MaxUint64}), []uint64{1 << 63, 245, 123, 5, 4, 3, 2, 1, 0}},
		{"SIRANGEBYVALUE s 1 (5", each(ValueRange{Min: 1, Max: 5, MaxExclusive: true}), []uint64{1, 2, 3, 4}},
		{"SIREVRANGEBYVALUE s +inf (123 LIMIT 1 2", each(ValueRange{Reverse: true, Min: 123, MinExclusive: true, Max: math.MaxUint64, Offset: 1, Count: 2}), []uint64{1 << 63, 245}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if in, err := Exists(db, b("s"), []uint64{0, 6, math.MaxUint64}); err != nil || !slices.Equal(in, []bool{true, false, true}) {
		t.Errorf("Exists = %v, %v", in, err)
	}
	if n, err := Remove(db, b("s"), append(ids, 7)); err != nil || n != len(ids) {
		t.Errorf("Remove = %d, %v", n, err)
	}
	if o, err := db.Lookup(b("s")); err != nil || o != nil {
		t.Errorf("an emptied key: %v, %v", o, err)
	}
	if n, err := Add(db, b("s"), []uint64{9}); err != nil || n != 1 {
		t.Errorf("Add after emptying = %d, %v", n, err)
	}
	if got := each(Range{}); !slices.Equal(got, []uint64{9}) {
		t.Errorf("a new incarnation holds %v", got)
	}
	if n, err := Card(db, b("s")); err != nil || n != 1 {
		t.Errorf("Card = %d, %v", n, err)
	}
}

// TestAbsentAndWrongType: an absent key is empty to every command; a key
// of another type is ErrWrongType, and nothing is written to it.
func TestAbsentAndWrongType(t *testing.T) {
	db := storagetest.DB(t)
	if n, err := Card(db, b("none")); err != nil || n != 0 {
		t.Errorf("Card of none = %d, %v", n, err)
	}
	if in, err := Exists(db, b("none"), []uint64{1, 2}); err != nil || !slices.Equal(in, []bool{false, false}) {
		t.Errorf("Exists on none = %v, %v", in, err)
	}
	if n, err := Remove(db, b("none"), []uint64{1}); err != nil || n != 0 {
		t.Errorf("Remove on none = %d, %v", n, err)
	}
	called := false
	if err := (Range{}).Each(db, b("none"), func(uint64) bool { called = true; return true }); err != nil || called {
		t.Errorf("Range on none: %v, emitted %v", err, called)
	}

	o := db.NewObject(b("h"), metadata.TypeHash)
	o.Meta().Size = 1
	wb := db.NewBatch(storage.TypeLog(metadata.TypeHash))
	wb.Put(storage.CFDefault, o.Subkey(b("f")), b("v"))
	wb.Put(storage.CFMetadata, o.NSKey(), o.Meta().AppendTo(nil))
	if err := wb.Commit(); err != nil {
		t.Fatal(err)
	}
	_, errAdd := Add(db, b("h"), []uint64{1})
	_, errRem := Remove(db, b("h"), []uint64{1})
	_, errCard := Card(db, b("h"))
	_, errIn := Exists(db, b("h"), []uint64{1})
	errRange := (ValueRange{Max: 9}).Each(db, b("h"), func(uint64) bool { return true })
	for i, err := range []error{errAdd, errRem, errCard, errIn, errRange} {
		if !errors.Is(err, storage.ErrWrongType) {
			t.Errorf("command %d on a hash: %v", i, err)
		}
	}
}

// TestCorruptSubkeyOnEngine: a record under the key's version whose
// subkey is no id ends a range with ErrCorrupt, not a panic.
func TestCorruptSubkeyOnEngine(t *testing.T) {
	db := storagetest.DB(t)
	if _, err := Add(db, b("s"), []uint64{1, 3}); err != nil {
		t.Fatal(err)
	}
	o, err := db.Lookup(b("s"))
	if err != nil || o == nil {
		t.Fatal(o, err)
	}
	wb := db.NewBatch(nil)
	wb.Put(storage.CFDefault, o.Subkey(b("\x00\x00\x00\x00\x00\x00\x00\x02x")), nil)
	if err := wb.Commit(); err != nil {
		t.Fatal(err)
	}
	var got []uint64
	err = (Range{}).Each(db, b("s"), func(id uint64) bool { got = append(got, id); return true })
	if !errors.Is(err, ErrCorrupt) || !slices.Equal(got, []uint64{1}) {
		t.Errorf("Range over a corrupt subkey: %v, %v", got, err)
	}
}
