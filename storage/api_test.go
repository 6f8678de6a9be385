package storage

import (
	"errors"
	"fmt"
	"testing"

	"github.com/basaltdb/basalt/metadata"
)

// TestEngineAPI: what a type package does through the engine API: write
// a new key's records in one batch, look it up, walk its elements from a
// subkey and within a bound, forward and backward, read in a ReadView
// that later writes do not change, and look up several keys in order up
// to a corrupt record.
func TestEngineAPI(t *testing.T) {
	db := newTestDB(t)
	o := db.NewObject(b("k"), metadata.TypeSortedint)
	wb := db.NewBatch(TypeLog(metadata.TypeSortedint))
	for i := range 5 {
		wb.Put(CFDefault, o.Subkey(b(fmt.Sprint("e", i))), b(fmt.Sprint("v", i)))
	}
	o.Meta().Size = 5
	wb.Put(CFMetadata, o.NSKey(), o.Meta().AppendTo(nil))
	if err := wb.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := db.Lookup(b("k"))
	if err != nil || got == nil || !got.Exists() || got.Meta().Version != o.Meta().Version || got.Meta().Size != 5 {
		t.Fatalf("Lookup = %+v %v", got, err)
	}
	var seen []string
	err = got.Each(nil, CFDefault, b("e1"), 2, func(sub, value []byte) bool {
		seen = append(seen, string(sub)+"="+string(value))
		return len(seen) < 2
	})
	if err != nil || fmt.Sprint(seen) != "[e1=v1 e2=v2]" {
		t.Fatalf("Each from e1 = %v %v", seen, err)
	}

	seen = nil
	err = got.EachBack(nil, CFDefault, b("e3x"), 0, func(sub, value []byte) bool {
		seen = append(seen, string(sub))
		return true
	})
	if err != nil || fmt.Sprint(seen) != "[e3 e2 e1 e0]" {
		t.Fatalf("EachBack from e3x = %v %v", seen, err)
	}
	seen = nil
	err = got.EachBack(nil, CFDefault, nil, 2, func(sub, value []byte) bool {
		seen = append(seen, string(sub))
		return len(seen) < 2
	})
	if err != nil || fmt.Sprint(seen) != "[e4 e3]" {
		t.Fatalf("EachBack from the end = %v %v", seen, err)
	}

	rv := db.ReadView()
	defer rv.Release()
	key := o.Subkey(b("e0"))
	wb = db.NewBatch(TypeLog(metadata.TypeSortedint))
	wb.Put(CFDefault, key, b("new"))
	if err := wb.Commit(); err != nil {
		t.Fatal(err)
	}
	then, err1 := db.GetMany(&rv, CFDefault, [][]byte{key})
	now, err2 := db.GetMany(nil, CFDefault, [][]byte{key})
	if err1 != nil || err2 != nil || string(then[0]) != "v0" || string(now[0]) != "new" {
		t.Fatalf("GetMany in the view %q, latest %q (%v %v)", then, now, err1, err2)
	}

	bad := db.NewBatch(nil)
	bad.Put(CFMetadata, db.nsKey(b("bad")), []byte{0})
	if err := bad.Commit(); err != nil {
		t.Fatal(err)
	}
	var order []string
	err = db.LookupMany(nil, [][]byte{b("k"), b("none"), b("bad"), b("k")}, func(i int, o *Object) error {
		order = append(order, fmt.Sprint(i, o != nil))
		return nil
	})
	if !errors.Is(err, ErrCorrupt) || fmt.Sprint(order) != "[0 true 1 false]" {
		t.Fatalf("LookupMany: %v, %v", order, err)
	}
}

// TestInWrite: a plain view is in no write; Update's is.
func TestInWrite(t *testing.T) {
	db := newTestDB(t)
	if db.InWrite() {
		t.Fatal("a plain view is in a write")
	}
	var in bool
	if err := db.Storage().Update(&Write{NS: db.Namespace(), Keys: [][]byte{b("k")}}, func(w DB) { in = w.InWrite() }); err != nil || !in {
		t.Fatalf("Update's view: InWrite %v, %v", in, err)
	}
}

// TestPinElement: PinElement reads an element as stored (nil when
// absent) and, in a write, as the write left it so far.
func TestPinElement(t *testing.T) {
	db := newTestDB(t)
	o := db.NewObject(b("k"), metadata.TypeBloom)
	wb := db.NewBatch(nil)
	wb.Put(CFDefault, o.Subkey(b("a")), b("stored"))
	if err := wb.Commit(); err != nil {
		t.Fatal(err)
	}
	pin := func(o *Object, sub string) string {
		v, unpin, err := o.PinElement(o.Subkey(b(sub)))
		if err != nil {
			t.Fatal(err)
		}
		defer unpin()
		if v == nil {
			return "(absent)"
		}
		return string(v)
	}
	if a, x := pin(o, "a"), pin(o, "x"); a != "stored" || x != "(absent)" {
		t.Fatalf("PinElement a = %q, x = %q", a, x)
	}
	var a, x string
	err := db.Storage().Update(&Write{NS: db.Namespace(), Keys: [][]byte{b("k")}}, func(w DB) {
		in := &Object{collection: collection{db: w, nsKey: o.nsKey, key: o.key, meta: o.meta}}
		wb := w.NewBatch(nil)
		wb.Put(CFDefault, in.Subkey(b("a")), b("pending"))
		wb.Delete(CFDefault, in.Subkey(b("x")))
		if err := wb.Commit(); err != nil {
			t.Error(err)
		}
		a, x = pin(in, "a"), pin(in, "x")
	})
	if err != nil || a != "pending" || x != "(absent)" {
		t.Fatalf("in a write: PinElement a = %q, x = %q (%v)", a, x, err)
	}
}
