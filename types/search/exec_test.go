package search

import (
	"fmt"
	"math/rand"
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
