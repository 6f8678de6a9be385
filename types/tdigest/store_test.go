package tdigest

import (
	"bytes"
	"errors"
	"testing"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
	"github.com/basaltdb/basalt/storage/storagetest"
)

func b(s string) []byte { return []byte(s) }

// TestStoreFormat: CREATE t COMPRESSION 1 and ADD t 1 2 write the
// records of KVROCKS-TYPES.md §5.1–5.2: the metadata record (flags 8c,
// size 0, the 72-byte extension with DBL_MAX and -DBL_MAX as the
// extremes) and the buffer record (subkey 00, the values as dbl()); a
// merge replaces the buffer by centroid records (01 | dbl(mean) | seq).
func TestStoreFormat(t *testing.T) {
	db := storagetest.DB(t)
	if err := Create(db, b("t"), 1); err != nil {
		t.Fatal(err)
	}
	o, err := db.Lookup(b("t"))
	if err != nil || o == nil {
		t.Fatalf("Lookup = %v %v", o, err)
	}
	v := o.Meta().Version
	meta := func(ext string) []byte {
		return storagetest.WithVersion(t, "8c 0000000000000000 305120c0f2000001 0000000000000000"+ext, v)
	}
	if got, want := storagetest.Record(t, db, storage.CFMetadata, o.NSKey()), meta("00000001 00000010"+
		" 0000000000000000 0000000000000000 0000000000000000 0000000000000000"+
		" ffefffffffffffff 0010000000000000 0000000000000000 0000000000000000"); !bytes.Equal(got, want) {
		t.Errorf("metadata after CREATE\n%x, want\n%x", got, want)
	}
	if err := AddValues(db, b("t"), []float64{2, 1}); err != nil {
		t.Fatal(err)
	}
	sub := func(s string) []byte {
		return storagetest.WithVersion(t, "0b5f5f6e616d657370616365 00000001 74 305120c0f2000001"+s, v)
	}
	if got, want := storagetest.Record(t, db, storage.CFDefault, sub("00")), storagetest.WithVersion(t, "c000000000000000 bff0000000000000", 0); !bytes.Equal(got, want) {
		t.Errorf("buffer %x, want %x", got, want)
	}
	if got, want := storagetest.Record(t, db, storage.CFMetadata, o.NSKey()), meta("00000001 00000010"+
		" 0000000000000002 0000000000000000 0000000000000002 0000000000000000"+
		" ffefffffffffffff 0010000000000000 0000000000000002 0000000000000000"); !bytes.Equal(got, want) {
		t.Errorf("metadata after ADD\n%x, want\n%x", got, want)
	}
	// 15 more values pass the capacity (16): all 17 merged.
	values := make([]float64, 15)
	for i := range values {
		values[i] = float64(i + 3)
	}
	if err := AddValues(db, b("t"), values); err != nil {
		t.Fatal(err)
	}
	if got, err := db.GetMany(nil, storage.CFDefault, [][]byte{sub("00")}); err != nil || got[0] != nil {
		t.Errorf("buffer after the merge: %x, %v", got[0], err)
	}
	// The first centroid holds 1 alone (KVROCKS-TYPES.md §5.3 by hand).
	if got, want := storagetest.Record(t, db, storage.CFDefault, sub("01 bff0000000000000 00000000")), storagetest.WithVersion(t, "bff0000000000000", 0); !bytes.Equal(got, want) {
		t.Errorf("centroid 0 %x, want %x", got, want)
	}
	if m, err := InfoOf(db, b("t")); err != nil || m.MergedNodes != 6 || m.UnmergedNodes != 0 || m.MergeTimes != 1 || m.Min != 1 || m.Max != 17 {
		t.Errorf("after the merge %+v, %v", m, err)
	}
}

// TestQueryPersist: a query of a sketch with buffered values answers
// from a merge in memory without persist, is sent to a write with it
// (ErrLockNeeded, not answered), and in a write writes the merge; once
// merged, queries need no write.
func TestQueryPersist(t *testing.T) {
	s := storagetest.Open(t)
	db := s.DB(metadata.DefaultNamespace)
	if err := Create(db, b("t"), 100); err != nil {
		t.Fatal(err)
	}
	if err := AddValues(db, b("t"), []float64{3, 1, 2}); err != nil {
		t.Fatal(err)
	}
	median := func(want float64) func(*Sketch) error {
		return func(sk *Sketch) error {
			q, err := sk.Quantiles([]float64{0.5})
			if err == nil && q[0] != want {
				t.Errorf("median %v, want %v", q[0], want)
			}
			return err
		}
	}
	writes := s.LatestSequence()
	if err := Query(db, b("t"), false, median(2)); err != nil || s.LatestSequence() != writes {
		t.Errorf("Query in memory: %v, %d writes", err, s.LatestSequence()-writes)
	}
	if m, _ := InfoOf(db, b("t")); m.UnmergedNodes != 3 {
		t.Errorf("unmerged %d after a query in memory", m.UnmergedNodes)
	}
	err := Query(db, b("t"), true, func(*Sketch) error { t.Error("answered outside a write"); return nil })
	if !errors.Is(err, ErrLockNeeded) {
		t.Errorf("Query to persist outside a write: %v", err)
	}
	uerr := s.Update(&storage.Write{NS: metadata.DefaultNamespace, Keys: [][]byte{b("t")}}, func(in storage.DB) {
		err = Query(in, b("t"), true, median(2))
	})
	if err != nil || uerr != nil {
		t.Fatalf("Query in a write: %v, %v", err, uerr)
	}
	if m, _ := InfoOf(db, b("t")); m.UnmergedNodes != 0 || m.MergedNodes != 3 || m.MergeTimes != 1 {
		t.Errorf("after the persisted merge %+v", m)
	}
	if err := Query(db, b("t"), true, median(2)); err != nil {
		t.Errorf("Query of a merged sketch whose centroids the write cached: %v", err)
	}
	// A write forgets the cached centroids: the next query to persist
	// reads them again under the lock.
	if err := Create(db, b("o"), 100); err != nil {
		t.Fatal(err)
	}
	if err := AddValues(db, b("o"), []float64{10, 20, 30}); err != nil {
		t.Fatal(err)
	}
	if err := MergeInto(db, b("t"), MergeArgs{Sources: [][]byte{b("o")}, Override: true}); err != nil {
		t.Fatal(err)
	}
	if err := Query(db, b("t"), true, median(20)); !errors.Is(err, ErrLockNeeded) {
		t.Errorf("Query to persist after a MERGE: %v", err)
	}
	if err := Query(db, b("t"), false, median(20)); err != nil {
		t.Errorf("Query in memory after a MERGE: %v", err)
	}
}

// TestStoreErrors: missing keys, keys of another type, and MERGE's
// order of checks.
func TestStoreErrors(t *testing.T) {
	db := storagetest.DB(t)
	if _, err := db.Set(b("s"), b("x"), storage.SetArgs{}); err != nil {
		t.Fatal(err)
	}
	if err := Create(db, b("t"), 100); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"Create t":    Create(db, b("t"), 100),
		"Create s":    Create(db, b("s"), 100),
		"AddValues n": AddValues(db, b("n"), []float64{1}),
		"AddValues s": AddValues(db, b("s"), []float64{1}),
		"Clear n":     Clear(db, b("n")),
		"Query n":     Query(db, b("n"), false, nil),
		"Query s":     Query(db, b("s"), false, nil),
		"Merge s<-t":  MergeInto(db, b("s"), MergeArgs{Sources: [][]byte{b("t")}}),
		"Merge s<-n":  MergeInto(db, b("s"), MergeArgs{Sources: [][]byte{b("n")}}),
		"Merge u<-n":  MergeInto(db, b("u"), MergeArgs{Sources: [][]byte{b("t"), b("n")}}),
		"Merge u<-s":  MergeInto(db, b("u"), MergeArgs{Sources: [][]byte{b("s")}}),
		"Merge u<-u":  MergeInto(db, b("u"), MergeArgs{Sources: [][]byte{b("u")}}),
	} {
		want := map[string]error{
			"Create t": ErrKeyExists, "Create s": storage.ErrWrongType, "AddValues s": storage.ErrWrongType,
			"Query s": storage.ErrWrongType, "Merge s<-t": storage.ErrWrongType, "Merge s<-n": storage.ErrWrongType,
			"Merge u<-s": storage.ErrWrongType,
		}[name]
		if want == nil {
			want = ErrNoKey
		}
		if !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", name, err, want)
		}
	}
	if o, err := db.Lookup(b("u")); o != nil || err != nil {
		t.Errorf("a failed MERGE created its destination: %v %v", o, err)
	}
}

// TestCacheBounds: the cache holds at most maxCachedDigests entries and
// maxCachedCentroids centroids, whatever it is given.
func TestCacheBounds(t *testing.T) {
	s := storagetest.Open(t)
	db := s.DB(metadata.DefaultNamespace)
	c := centroidsOf(db)
	gen := s.LocklessWrites()
	for i := range 2 * maxCachedDigests {
		n := 0 // past the centroids' bound first, then the entries'
		if i < 1500 {
			n = maxCachedCentroids / 1000
		}
		o := db.NewObject([]byte{byte(i), byte(i >> 8)}, metadata.TypeTDigest)
		c.put(db, o, nil, make([]Centroid, n), gen)
		if len(c.m) > maxCachedDigests || c.count > maxCachedCentroids {
			t.Fatalf("after %d puts: %d entries, %d centroids", i+1, len(c.m), c.count)
		}
	}
	if len(c.m) != maxCachedDigests {
		t.Errorf("%d entries", len(c.m))
	}
	sum := 0
	for _, e := range c.m {
		sum += len(e.centroids)
	}
	if sum != c.count {
		t.Errorf("count %d, entries hold %d", c.count, sum)
	}
	o := db.NewObject(b("huge"), metadata.TypeTDigest)
	c.put(db, o, nil, make([]Centroid, maxCachedCentroids+1), gen)
	if _, ok := c.m[string(o.NSKey())]; ok {
		t.Error("an entry past the bound was cached")
	}
}
