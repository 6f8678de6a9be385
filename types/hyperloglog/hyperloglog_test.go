package hyperloglog

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
	"github.com/basaltdb/basalt/storage/storagetest"
)

func b(s string) []byte { return []byte(s) }

// TestPFAddFormat: PFADD on an absent key writes exactly FORMAT.md §10's
// metadata and one 768-byte segment per segment its elements touch, with
// the registers Kvrocks writes for them.
func TestPFAddFormat(t *testing.T) {
	s := storagetest.Open(t)
	db := s.DB(metadata.DefaultNamespace)
	if changed, err := Add(db, b("p"), [][]byte{b("a"), b("hello")}); err != nil || !changed {
		t.Fatalf("Add = %v %v", changed, err)
	}
	o, err := db.Lookup(b("p"))
	if err != nil || o == nil || o.Meta().Type != metadata.TypeHyperLogLog {
		t.Fatalf("metadata %+v %v", o, err)
	}
	m := o.Meta()
	meta := storagetest.Record(t, db, storage.CFMetadata, o.NSKey())
	if want := storagetest.WithVersion(t, "8b 0000000000000000 305120c0f2000001 0000000000000000 00", m.Version); !bytes.Equal(meta, want) {
		t.Errorf("metadata %x, want %x", meta, want)
	}
	// "a" sets register 423 of segment 12 to 2 (byte 317 = 0x08); "hello"
	// register 0 of segment 9 to 1.
	for seg, byteAt := range map[string]int{"12": 317, "9": 0} {
		v := storagetest.Record(t, db, storage.CFDefault, append(storagetest.WithVersion(t, "0b5f5f6e616d657370616365 00000001 70 305120c0f2000001", m.Version), seg...))
		want := make([]byte, metadata.HLLSegmentBytes)
		want[byteAt] = map[string]byte{"12": 0x08, "9": 0x01}[seg]
		if !bytes.Equal(v, want) {
			t.Errorf("segment %s: %x", seg, v)
		}
	}
	n := 0
	if err := o.Each(nil, storage.CFDefault, nil, 0, func(_, _ []byte) bool { n++; return true }); err != nil || n != 2 {
		t.Errorf("%d segments written, want 2 (%v)", n, err)
	}
	// Adding an element whose register is already as high changes nothing
	// and writes nothing.
	writes := s.LatestSequence()
	if changed, err := Add(db, b("p"), [][]byte{b("a")}); err != nil || changed || s.LatestSequence() != writes {
		t.Errorf("Add of a known element: changed %v, %v, %d writes", changed, err, s.LatestSequence()-writes)
	}
	// No elements: a new key is created (metadata only), an existing one
	// left alone.
	if changed, _ := Add(db, b("empty"), nil); !changed {
		t.Error("Add of no element on an absent key did not create it")
	}
	if changed, _ := Add(db, b("empty"), nil); changed {
		t.Error("Add of no element on an existing key changed it")
	}
	if n, _ := Count(db, [][]byte{b("empty")}); n != 0 {
		t.Errorf("PFCOUNT of an empty HyperLogLog = %d", n)
	}
}

// TestHLLEstimate: the estimator gives what Redis's hllCount (compiled from
// its C source) gives for the same register histograms.
func TestHLLEstimate(t *testing.T) {
	for _, tt := range []struct {
		histo map[int]int
		want  int64
	}{
		{map[int]int{0: 16384}, 0},
		{map[int]int{0: 16384 - 1000, 1: 1000}, 1031},
		{map[int]int{10: 16384}, 12102203},
		{map[int]int{0: 5000, 1: 6000, 2: 3000, 3: 1500, 5: 800, 20: 84}, 17967},
		{map[int]int{13: 8000, 14: 4000, 15: 2000, 16: 1000, 17: 1000, 51: 384}, 148421986},
	} {
		var h [64]int
		for v, n := range tt.histo {
			h[v] = n
		}
		if got := hllEstimate(&h); got != tt.want {
			t.Errorf("estimate of %v = %d, want %d", tt.histo, got, tt.want)
		}
	}
}

// TestPFMergeAndCount: counts of unions, merged on the fly or stored; a
// merge keeps the destination's version and expiry; type errors.
func TestPFMergeAndCount(t *testing.T) {
	db := storagetest.DB(t)
	elems := func(from, to int) [][]byte {
		var out [][]byte
		for i := from; i < to; i++ {
			out = append(out, b(fmt.Sprint("e", i)))
		}
		return out
	}
	Add(db, b("a"), elems(0, 3000))
	Add(db, b("b"), elems(2000, 5000))
	union, err := Count(db, [][]byte{b("a"), b("b"), b("none")})
	if err != nil || union < 4900 || union > 5100 {
		t.Fatalf("PFCOUNT a b = %d %v", union, err)
	}
	at := time.Now().Add(time.Hour).UnixMilli()
	db.Expire(b("a"), at, storage.ExpireCond{})
	m1, _ := db.Lookup(b("a"))
	if err := Merge(db, b("a"), [][]byte{b("b")}); err != nil {
		t.Fatal(err)
	}
	m2, _ := db.Lookup(b("a"))
	if m2.Meta().Version != m1.Meta().Version || m2.Meta().Expire != at {
		t.Errorf("PFMERGE changed the destination: %+v, was %+v", m2.Meta(), m1.Meta())
	}
	if n, _ := Count(db, [][]byte{b("a")}); n != union {
		t.Errorf("PFCOUNT of the merge = %d, union was %d", n, union)
	}
	if err := Merge(db, b("c"), [][]byte{b("a"), b("none")}); err != nil {
		t.Fatal(err)
	}
	if n, _ := Count(db, [][]byte{b("c")}); n != union {
		t.Errorf("PFCOUNT of a new merge = %d, want %d", n, union)
	}
	db.Set(b("str"), b("x"), storage.SetArgs{})
	putBitmap(t, db, "bits")
	db.HSet(b("h"), [][]byte{b("f"), b("v")}, false)
	for _, k := range []string{"str", "bits"} {
		if _, err := Add(db, b(k), elems(0, 1)); !errors.Is(err, ErrNotHLL) {
			t.Errorf("PFADD %s: %v", k, err)
		}
		if _, err := Count(db, [][]byte{b("a"), b(k)}); !errors.Is(err, ErrNotHLL) {
			t.Errorf("PFCOUNT a %s: %v", k, err)
		}
	}
	if err := Merge(db, b("h"), nil); !errors.Is(err, storage.ErrWrongType) {
		t.Errorf("PFMERGE h: %v", err)
	}
}

// BenchmarkPFCount: one dense HyperLogLog, and 16 merged.
func BenchmarkPFCount(b *testing.B) {
	db := storagetest.DB(b)
	var parts [][]byte
	for k := 0; k < 16; k++ {
		var elems [][]byte
		for i := 0; i < 5000; i++ {
			elems = append(elems, []byte(fmt.Sprint("e", k*2500+i)))
		}
		key := []byte(fmt.Sprint("part", k))
		Add(db, key, elems)
		parts = append(parts, key)
	}
	for _, keys := range [][][]byte{parts[:1], parts} {
		b.Run(fmt.Sprint(len(keys), "keys"), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Count(db, keys); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("PFAdd", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			Add(db, parts[0], [][]byte{[]byte(fmt.Sprint("x", i))})
		}
	})
}

// PFCOUNT of one key is answered from its cached cardinality until PFADD,
// PFMERGE or a replicated batch changes the key's segments.
func TestPFCountCache(t *testing.T) {
	master := storagetest.Open(t)
	replica := storagetest.Open(t)
	mdb, rdb := master.DB(metadata.DefaultNamespace), replica.DB(metadata.DefaultNamespace)
	elems := func(from, to int) [][]byte {
		var out [][]byte
		for i := from; i < to; i++ {
			out = append(out, b(fmt.Sprint("e", i)))
		}
		return out
	}
	count := func(db storage.DB, key string) int64 {
		t.Helper()
		n, err := Count(db, [][]byte{b(key)})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	near := func(n, want int64) bool { return n > want*97/100 && n < want*103/100 }
	Add(mdb, b("a"), elems(0, 1000))
	if n := count(mdb, "a"); !near(n, 1000) || count(mdb, "a") != n {
		t.Fatalf("PFCOUNT a = %d", n)
	}
	if o := mustLookup(t, mdb, "a"); !cached(mdb, o) {
		t.Fatal("the count was not cached")
	}
	Add(mdb, b("a"), elems(1000, 3000))
	if n := count(mdb, "a"); !near(n, 3000) {
		t.Fatalf("PFCOUNT a after PFADD = %d, want about 3000", n)
	}
	Add(mdb, b("b"), elems(3000, 6000))
	if err := Merge(mdb, b("a"), [][]byte{b("b")}); err != nil {
		t.Fatal(err)
	}
	if n := count(mdb, "a"); !near(n, 6000) {
		t.Fatalf("PFCOUNT a after PFMERGE = %d, want about 6000", n)
	}
	// A replica applies the master's batches as they are, without locks.
	var shipped uint64
	ship := func() {
		t.Helper()
		var err error
		shipped, err = master.ReadWALBatches(shipped, func(wb storage.WALBatch) error {
			_, err := replica.ApplyReplicated(wb.Data, nil)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	ship()
	before := count(rdb, "a")
	if !cached(rdb, mustLookup(t, rdb, "a")) {
		t.Fatal("the replica's count was not cached")
	}
	Add(mdb, b("a"), elems(6000, 9000))
	ship()
	if n := count(rdb, "a"); !near(n, 9000) || n == before {
		t.Fatalf("PFCOUNT a on the replica = %d after %d, want about 9000", n, before)
	}
}

// cached reports whether o's count is in the cache.
func cached(db storage.DB, o *storage.Object) bool {
	_, ok := cards(db).get(db, o.NSKey(), o.Meta().Version)
	return ok
}

func mustLookup(t *testing.T, db storage.DB, key string) *storage.Object {
	t.Helper()
	o, err := db.Lookup(b(key))
	if err != nil || o == nil {
		t.Fatalf("lookup %s: %v %v", key, o, err)
	}
	return o
}

// putBitmap writes a bitmap's metadata record at key, as SETBIT makes one.
func putBitmap(t *testing.T, db storage.DB, key string) {
	t.Helper()
	o := db.NewObject(b(key), metadata.TypeBitmap)
	o.Meta().Size = 1
	wb := db.NewBatch(storage.TypeLog(metadata.TypeBitmap))
	wb.Put(storage.CFMetadata, o.NSKey(), o.Meta().AppendTo(nil))
	if err := wb.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestValue: DUMP's whole value of a HyperLogLog is its registers, and
// RESTORE's of them a HyperLogLog that counts the same.
func TestValue(t *testing.T) {
	db := storagetest.DB(t)
	if _, err := Add(db, b("hll"), [][]byte{b("a"), b("b"), b("c")}); err != nil {
		t.Fatal(err)
	}
	v, _, err := db.ReadValue(b("hll"))
	if err != nil || v.Type != metadata.TypeHyperLogLog || len(v.Str) != DenseBytes {
		t.Fatalf("ReadValue(hll) = %v, %d bytes, %v", v.Type, len(v.Str), err)
	}
	if err := db.PutValue(b("hll2"), v, 0); err != nil {
		t.Fatal(err)
	}
	if n, err := Count(db, [][]byte{b("hll2")}); n != 3 || err != nil {
		t.Fatalf("PFCOUNT of the copy: %d %v", n, err)
	}
	back, _, _ := db.ReadValue(b("hll2"))
	if string(back.Str) != string(v.Str) {
		t.Fatal("the copy's registers differ")
	}
}
