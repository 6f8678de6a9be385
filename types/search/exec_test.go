package search

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/basaltdb/basalt/storage/storagetest"
)

// TestChunkSize: the keys a filter reads next, from what its consumer
// wants and what held so far.
func TestChunkSize(t *testing.T) {
	cases := []struct {
		want, read, held uint64
		last, size       int
	}{
		{0, 0, 0, 0, 8},         // no limit: small first
		{0, 8, 3, 8, 16},        // then doubling
		{0, 600, 3, 128, 128},   // up to 128
		{10, 0, 0, 0, 10},       // a limit: what it wants first
		{1000, 0, 0, 0, 128},    // at most 128
		{10, 10, 5, 10, 12},     // half held: 5 more need 10, and a quarter
		{10, 10, 0, 10, 125},    // none held: as if one had
		{10, 12, 10, 12, 8},     // all there: the consumer stops
		{100, 100, 99, 100, 8},  // one more at that rate: the least
		{100, 128, 1, 128, 128}, // rare: the most
	}
	for _, c := range cases {
		if got := chunkSize(c.want, c.read, c.held, c.last); got != c.size {
			t.Errorf("chunkSize(want %d, read %d, held %d, last %d) = %d, want %d", c.want, c.read, c.held, c.last, got, c.size)
		}
	}
}

// TestFilterNarrowsToRange: a tag scan filtered by a narrow numeric range
// under a LIMIT answers what reading every document would, and reads
// the documents of the range's keys only, once the first chunk showed
// that few hold; a wide range reads on document by document.
func TestFilterNarrowsToRange(t *testing.T) {
	s := storagetest.Open(t)
	ix := mustCreate(t, s, "", "f PREFIX 1 d: SCHEMA t TAG n NUMERIC")
	rng := rand.New(rand.NewSource(3))
	nums := map[string]int{}
	var tagged []string // in key order, as the tag scan gives them
	for i := 0; i < 3000; i++ {
		k := fmt.Sprintf("d:%05d", i)
		nums[k] = rng.Intn(10000)
		tag := "other"
		if i%3 == 0 {
			tag, tagged = "x", append(tagged, k)
		}
		hset(t, s, "", []string{k}, "t", tag, "n", fmt.Sprint(nums[k]))
	}
	db := s.DB("")
	for _, c := range []struct {
		from, to  float64
		mostReads int
	}{
		{9950, 10000, 60},  // ~5 of 1,000 tagged hold: the range's ~25 documents and the first chunk
		{9000, 9100, 60},   // ~10 hold, all in the range
		{0, 10000, 10},     // all hold: the first chunk
		{5000, 10000, 40},  // half: a few chunks, no narrowing worth its entries
		{20000, 30000, 10}, // none: an empty range
	} {
		q := &Query{Index: "f", Where: &And{Inners: []Expr{&TagContain{"t", "x"}, &NumericCompare{"n", OpGE, c.from}, &NumericCompare{"n", OpLT, c.to}}},
			Limit: &Limit{Offset: 0, Count: 10}, NoContent: true}
		rv := db.ReadView()
		r := &runner{db: db, rv: &rv, ix: ix, docs: map[string]*loaded{}}
		var got []string
		err := r.run(Optimize(q, ix.Schema).Root, func(k []byte) (bool, error) {
			got = append(got, string(k))
			return true, nil
		})
		rv.Release()
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, k := range tagged {
			if n := float64(nums[k]); n >= c.from && n < c.to && len(want) < 10 {
				want = append(want, k)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("[%v, %v): %q, want %q", c.from, c.to, got, want)
		}
		if len(r.docs) > c.mostReads {
			t.Errorf("[%v, %v): read %d documents, at most %d expected", c.from, c.to, len(r.docs), c.mostReads)
		}
	}
}

// A KNN query over a graph whose cache is empty (a restarted server)
// brings the cache what it read, so that the next query reads nothing
// from the database, with the same answer; a write applied meanwhile
// keeps a query's fill out of the cache.
func TestKNNFillsGraphCache(t *testing.T) {
	s := storagetest.Open(t)
	ix := mustCreate(t, s, "", "v PREFIX 1 v: SCHEMA v VECTOR HNSW 6 TYPE FLOAT64 DIM 4 DISTANCE_METRIC L2")
	rng := rand.New(rand.NewSource(5))
	var qv []float64 // the last vector made
	vector := func() string {
		var b []byte
		qv = qv[:0]
		for range 4 {
			x := rng.Float64()
			qv, b = append(qv, x), binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
		return string(b)
	}
	for i := 0; i < 300; i++ {
		hset(t, s, "", []string{fmt.Sprint("v:", i)}, "v", vector())
	}
	reg := registryOf(s)
	emptyCache := func() {
		reg.graph.Lock()
		reg.graphs.reset(0)
		reg.graph.Unlock()
	}
	q, err := ParseSearch([][]byte{[]byte("v"), []byte("*=>[KNN 5 @v $b]"), []byte("PARAMS"), []byte("2"), []byte("b"), []byte(vector())})
	if err == nil {
		err = Check(q, ix.Schema)
	}
	if err != nil {
		t.Fatal(err)
	}
	knn := func(h *HNSWIndex) ([]Neighbour, error) { return h.KNN(qv, 5, beam(5)) }
	db := s.DB("")
	search := func() []string {
		docs, err := Search(db, ix, q)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, d := range docs {
			keys = append(keys, string(d.Key))
		}
		return keys
	}
	cached := func() int {
		reg.graph.RLock()
		defer reg.graph.RUnlock()
		return len(reg.graphs.nodes)
	}

	emptyCache()
	want := search()
	if len(want) != 5 || cached() == 0 {
		t.Fatalf("first query: %q, %d nodes cached", want, cached())
	}
	// Every record the second query reads is in the cache now.
	f := ix.Schema.Field("v")
	g, err := func() (*storeGraph, error) {
		reg.graph.RLock()
		defer reg.graph.RUnlock()
		_, g, err := (&runner{db: db, ix: ix}).searchGraph(reg, f, s.LocklessWrites(), knn)
		return g, err
	}()
	if err != nil || len(g.fetched) != 0 || len(g.stored) != 0 {
		t.Fatalf("second query read %d nodes and %d edge lists from the database (%v)", len(g.fetched), len(g.stored), err)
	}
	if got := search(); !slices.Equal(got, want) {
		t.Fatalf("from the cache: %q, want %q", got, want)
	}

	// A query noting the cache before a write applied does not fill it.
	emptyCache()
	reg.graph.RLock()
	gen, lockless := reg.graphs.gen, s.LocklessWrites()
	_, g, err = (&runner{db: db, ix: ix}).searchGraph(reg, f, lockless, knn)
	reg.graph.RUnlock()
	if err != nil || len(g.fetched) == 0 {
		t.Fatalf("a query of an empty cache read %d nodes (%v)", len(g.fetched), err)
	}
	saved := slices.Clone(qv)
	hset(t, s, "", []string{"v:new"}, "v", vector())
	qv = saved
	reg.graph.Lock()
	before := len(reg.graphs.nodes)
	reg.graphs.fillFrom(g, gen, lockless, s.LocklessWrites())
	after := len(reg.graphs.nodes)
	reg.graph.Unlock()
	if after != before {
		t.Fatalf("a stale query's fill changed the cache: %d nodes, then %d", before, after)
	}
}
