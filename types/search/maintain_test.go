package search

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/basaltdb/basalt/storage"
	"github.com/basaltdb/basalt/storage/storagetest"
)

func mustCreate(t testing.TB, s *storage.Storage, ns, line string) *Index {
	t.Helper()
	schema, err := ParseCreate(splitWords(t, line))
	if err != nil {
		t.Fatal(err)
	}
	ix, err := Create(s, ns, schema)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func hset(t testing.TB, s *storage.Storage, ns string, keys []string, pairs ...string) {
	t.Helper()
	args := make([][]byte, len(pairs))
	for i, p := range pairs {
		args[i] = []byte(p)
	}
	bkeys := make([][]byte, len(keys))
	for i, k := range keys {
		bkeys[i] = []byte(k)
	}
	var werr error
	err := s.Update(&storage.Write{NS: ns, Keys: bkeys}, func(db storage.DB) {
		for _, k := range bkeys {
			if _, werr = db.HSet(k, args, false); werr != nil {
				return
			}
		}
	})
	if err = firstError(werr, err); err != nil {
		t.Fatal(err)
	}
}

func tagKeys(t *testing.T, db storage.DB, ix *Index, tag string) []string {
	t.Helper()
	docs, err := Search(db, ix, &Query{Index: ix.Schema.Name, Where: &TagContain{"t", tag}, NoContent: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range docs {
		out = append(out, string(d.Key))
	}
	slices.Sort(out)
	return out
}

// TestMaintainLongestPrefix: a key's records go to the index with the
// longest prefix of it only, as in Kvrocks, and one write of many keys
// (a group of writes under one lock, as MULTI makes) indexes each.
func TestMaintainLongestPrefix(t *testing.T) {
	s := storagetest.Open(t)
	const ns = "__namespace"
	all := mustCreate(t, s, ns, "all SCHEMA t TAG")
	docs := mustCreate(t, s, ns, "docs PREFIX 1 d: SCHEMA t TAG")
	var keys []string
	for i := 0; i < 20; i++ {
		keys = append(keys, fmt.Sprintf("d:%02d", i), fmt.Sprintf("e:%02d", i))
	}
	hset(t, s, ns, keys, "t", "x")
	db := s.DB(ns)
	var dKeys, eKeys []string
	for _, k := range keys {
		if k[0] == 'd' {
			dKeys = append(dKeys, k)
		} else {
			eKeys = append(eKeys, k)
		}
	}
	slices.Sort(dKeys)
	if got := tagKeys(t, db, docs, "x"); !slices.Equal(got, dKeys) {
		t.Errorf("docs: %q, want %q", got, dKeys)
	}
	if got := tagKeys(t, db, all, "x"); !slices.Equal(got, eKeys) {
		t.Errorf("all: %q, want %q", got, eKeys)
	}
}

// TestUnreadableIndexIgnored: an index whose records do not decode (a
// newer Kvrocks's field kind) is left out, and writes go on.
func TestUnreadableIndexIgnored(t *testing.T) {
	s := storagetest.Open(t)
	const ns = "__namespace"
	nsb := []byte(ns)
	err := s.Update(&storage.Write{NS: ns}, func(db storage.DB) {
		b := db.NewBatch(nil)
		b.Put(storage.CFSearch, IndexMetaKey(nsb, "odd"), EncodeIndexMeta(OnHash))
		b.Put(storage.CFSearch, PrefixesKey(nsb, "odd"), EncodePrefixes(nil))
		b.Put(storage.CFSearch, FieldMetaKey(nsb, "odd", "f"), []byte{0x1e})
		if err := b.Commit(); err != nil {
			t.Error(err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	// The indexes are read again after a reopening.
	if err := s.Reopen(); err != nil {
		t.Fatal(err)
	}
	hset(t, s, ns, []string{"k"}, "f", "v")
	if names, err := List(s.DB(ns)); err != nil || len(names) != 0 {
		t.Fatalf("FT._LIST: %q %v", names, err)
	}
}

// TestGraphCacheMatchesRecords: after inserts, moves and deletions of
// vectors, several keys to a write, every record the graph cache holds is
// the column family's.
func TestGraphCacheMatchesRecords(t *testing.T) {
	s := storagetest.Open(t)
	mustCreate(t, s, "", "g PREFIX 1 v: SCHEMA v VECTOR HNSW 10 TYPE FLOAT64 DIM 2 DISTANCE_METRIC L2 M 4 EF_CONSTRUCTION 20")
	vec := func(i int) string {
		b := make([]byte, 0, 16)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(i%17)))
		return string(binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(i%23)/3)))
	}
	for i := 0; i < 240; i += 3 {
		hset(t, s, "", []string{fmt.Sprint("v:", i), fmt.Sprint("v:", i+1), fmt.Sprint("v:", i+2)}, "v", vec(i))
	}
	for i := 0; i < 240; i += 7 {
		hset(t, s, "", []string{fmt.Sprint("v:", i)}, "v", vec(i*5+1))
	}
	for i := 0; i < 240; i += 11 {
		err := s.Update(&storage.Write{Keys: [][]byte{[]byte(fmt.Sprint("v:", i))}}, func(db storage.DB) {
			_, err := db.Del([][]byte{[]byte(fmt.Sprint("v:", i))})
			if err != nil {
				t.Error(err)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	c := &registryOf(s).graphs
	if len(c.nodes) == 0 || len(c.edges) == 0 {
		t.Fatalf("the cache holds %d nodes and %d edge lists", len(c.nodes), len(c.edges))
	}
	db := s.DB("")
	for key, n := range c.nodes {
		vals, err := db.GetMany(nil, storage.CFSearch, [][]byte{[]byte(key)})
		if err != nil {
			t.Fatal(err)
		}
		if (vals[0] != nil) != n.ok || (n.ok && !slices.Equal(vals[0], EncodeNode(n.n))) {
			t.Fatalf("node %q: cached %v %v, stored %x", key, n.ok, n.n, vals[0])
		}
	}
	for prefix, to := range c.edges {
		var stored [][]byte
		err := db.ScanRange(nil, storage.CFSearch, []byte(prefix), successor([]byte(prefix)), func(k, _ []byte) bool {
			target, _ := ParseSizedKey(k[len(prefix):])
			stored = append(stored, append([]byte(nil), target...))
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(stored, to, slices.Equal) {
			t.Fatalf("edges %q: cached %q, stored %q", prefix, to, stored)
		}
	}
}
