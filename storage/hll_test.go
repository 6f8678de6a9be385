package storage

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/basaltdb/basalt/metadata"
)

// TestPFAddFormat: PFADD on an absent key writes exactly FORMAT.md §10's
// metadata and one 768-byte segment per segment its elements touch, with
// the registers Kvrocks writes for them.
func TestPFAddFormat(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	defer s.Close()
	db := s.DB(metadata.DefaultNamespace)
	if changed, err := db.PFAdd(b("p"), [][]byte{b("a"), b("hello")}); err != nil || !changed {
		t.Fatalf("PFAdd = %v %v", changed, err)
	}
	m, _, err := metadata.Decode(rawRecord(t, s, CFMetadata, db.nsKey(b("p"))))
	if err != nil || m.Type != metadata.TypeHyperLogLog {
		t.Fatalf("metadata %+v %v", m, err)
	}
	meta := rawRecord(t, s, CFMetadata, db.nsKey(b("p")))
	if want := withVersion(t, "8b 0000000000000000 305120c0f2000001 0000000000000000 00", m.Version); !bytes.Equal(meta, want) {
		t.Errorf("metadata %x, want %x", meta, want)
	}
	// "a" sets register 423 of segment 12 to 2 (byte 317 = 0x08); "hello"
	// register 0 of segment 9 to 1.
	for seg, byteAt := range map[string]int{"12": 317, "9": 0} {
		v := rawRecord(t, s, CFDefault, append(withVersion(t, "0b5f5f6e616d657370616365 00000001 70 305120c0f2000001", m.Version), seg...))
		want := make([]byte, metadata.HLLSegmentBytes)
		want[byteAt] = map[string]byte{"12": 0x08, "9": 0x01}[seg]
		if !bytes.Equal(v, want) {
			t.Errorf("segment %s: %x", seg, v)
		}
	}
	if n := countRecords(t, s, CFDefault); n != 2 {
		t.Errorf("%d segments written, want 2", n)
	}
	// Adding an element whose register is already as high changes nothing
	// and writes nothing.
	writes := s.writes.Load()
	if changed, err := db.PFAdd(b("p"), [][]byte{b("a")}); err != nil || changed || s.writes.Load() != writes {
		t.Errorf("PFAdd of a known element: changed %v, %v, %d writes", changed, err, s.writes.Load()-writes)
	}
	// No elements: a new key is created (metadata only), an existing one
	// left alone.
	if changed, _ := db.PFAdd(b("empty"), nil); !changed {
		t.Error("PFAdd of no element on an absent key did not create it")
	}
	if changed, _ := db.PFAdd(b("empty"), nil); changed {
		t.Error("PFAdd of no element on an existing key changed it")
	}
	if n, _ := db.PFCount([][]byte{b("empty")}); n != 0 {
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
	db := newTestDB(t)
	elems := func(from, to int) [][]byte {
		var out [][]byte
		for i := from; i < to; i++ {
			out = append(out, b(fmt.Sprint("e", i)))
		}
		return out
	}
	db.PFAdd(b("a"), elems(0, 3000))
	db.PFAdd(b("b"), elems(2000, 5000))
	union, err := db.PFCount([][]byte{b("a"), b("b"), b("none")})
	if err != nil || union < 4900 || union > 5100 {
		t.Fatalf("PFCOUNT a b = %d %v", union, err)
	}
	at := time.Now().Add(time.Hour).UnixMilli()
	db.Expire(b("a"), at, ExpireCond{})
	m1, _, _ := db.lookup(db.nsKey(b("a")))
	if err := db.PFMerge(b("a"), [][]byte{b("b")}); err != nil {
		t.Fatal(err)
	}
	m2, _, _ := db.lookup(db.nsKey(b("a")))
	if m2.meta.Version != m1.meta.Version || m2.meta.Expire != at {
		t.Errorf("PFMERGE changed the destination: %+v, was %+v", m2.meta, m1.meta)
	}
	if n, _ := db.PFCount([][]byte{b("a")}); n != union {
		t.Errorf("PFCOUNT of the merge = %d, union was %d", n, union)
	}
	if err := db.PFMerge(b("c"), [][]byte{b("a"), b("none")}); err != nil {
		t.Fatal(err)
	}
	if n, _ := db.PFCount([][]byte{b("c")}); n != union {
		t.Errorf("PFCOUNT of a new merge = %d, want %d", n, union)
	}
	db.Set(b("str"), b("x"), SetArgs{})
	db.SetBit(b("bits"), 1, true)
	db.HSet(b("h"), [][]byte{b("f"), b("v")}, false)
	for _, k := range []string{"str", "bits"} {
		if _, err := db.PFAdd(b(k), elems(0, 1)); !errors.Is(err, ErrNotHLL) {
			t.Errorf("PFADD %s: %v", k, err)
		}
		if _, err := db.PFCount([][]byte{b("a"), b(k)}); !errors.Is(err, ErrNotHLL) {
			t.Errorf("PFCOUNT a %s: %v", k, err)
		}
	}
	if err := db.PFMerge(b("h"), nil); !errors.Is(err, ErrWrongType) {
		t.Errorf("PFMERGE h: %v", err)
	}
}

// BenchmarkPFCount: one dense HyperLogLog, and 16 merged.
func BenchmarkPFCount(b *testing.B) {
	s := openTest(b, b.TempDir(), false)
	defer s.Close()
	db := s.DB(metadata.DefaultNamespace)
	var parts [][]byte
	for k := 0; k < 16; k++ {
		var elems [][]byte
		for i := 0; i < 5000; i++ {
			elems = append(elems, []byte(fmt.Sprint("e", k*2500+i)))
		}
		key := []byte(fmt.Sprint("part", k))
		db.PFAdd(key, elems)
		parts = append(parts, key)
	}
	for _, keys := range [][][]byte{parts[:1], parts} {
		b.Run(fmt.Sprint(len(keys), "keys"), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := db.PFCount(keys); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("PFAdd", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			db.PFAdd(parts[0], [][]byte{[]byte(fmt.Sprint("x", i))})
		}
	})
}

// PFCOUNT of one key is answered from its cached cardinality until PFADD,
// PFMERGE or a replicated batch changes the key's segments.
func TestPFCountCache(t *testing.T) {
	master := openTest(t, t.TempDir(), false)
	defer master.Close()
	replica := openTest(t, t.TempDir(), false)
	defer replica.Close()
	mdb, rdb := master.DB(metadata.DefaultNamespace), replica.DB(metadata.DefaultNamespace)
	elems := func(from, to int) [][]byte {
		var out [][]byte
		for i := from; i < to; i++ {
			out = append(out, b(fmt.Sprint("e", i)))
		}
		return out
	}
	count := func(db DB, key string) int64 {
		t.Helper()
		n, err := db.PFCount([][]byte{b(key)})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	near := func(n, want int64) bool { return n > want*97/100 && n < want*103/100 }
	mdb.PFAdd(b("a"), elems(0, 1000))
	if n := count(mdb, "a"); !near(n, 1000) || count(mdb, "a") != n {
		t.Fatalf("PFCOUNT a = %d", n)
	}
	if _, ok := master.hllCards.get(mdb.nsKey(b("a")), mustVersion(t, mdb, "a")); !ok {
		t.Fatal("the count was not cached")
	}
	mdb.PFAdd(b("a"), elems(1000, 3000))
	if n := count(mdb, "a"); !near(n, 3000) {
		t.Fatalf("PFCOUNT a after PFADD = %d, want about 3000", n)
	}
	mdb.PFAdd(b("b"), elems(3000, 6000))
	if err := mdb.PFMerge(b("a"), [][]byte{b("b")}); err != nil {
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
		shipped, err = master.ReadWALBatches(shipped, func(wb WALBatch) error {
			_, err := replica.ApplyReplicated(wb.Data, nil)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	ship()
	before := count(rdb, "a")
	mdb.PFAdd(b("a"), elems(6000, 9000))
	ship()
	if n := count(rdb, "a"); !near(n, 9000) || n == before {
		t.Fatalf("PFCOUNT a on the replica = %d after %d, want about 9000", n, before)
	}
}

func mustVersion(t *testing.T, db DB, key string) uint64 {
	t.Helper()
	rec, found, err := db.lookup(db.nsKey(b(key)))
	if err != nil || !found {
		t.Fatalf("lookup %s: %v %v", key, found, err)
	}
	return rec.meta.Version
}
