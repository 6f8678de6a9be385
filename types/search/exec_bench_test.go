package search

import (
	"fmt"
	"math/rand"
	"syscall"
	"testing"

	"github.com/basaltdb/basalt/storage/storagetest"
)

// BenchmarkFilterTagNumeric runs the bench's tag+numeric query shape
// (make bench's FT.SEARCH row): a tag scan whose documents are filtered
// by a number, here over 2,000 tagged documents of 20,000.
func BenchmarkFilterTagNumeric(b *testing.B) {
	s := storagetest.Open(b)
	ix := mustCreate(b, s, "", "b PREFIX 1 h: SCHEMA t TAG n NUMERIC")
	rng := rand.New(rand.NewSource(1))
	const docs = 20000
	for i := 0; i < docs; i += 100 {
		keys := make([]string, 0, 100)
		for j := i; j < i+100; j++ {
			keys = append(keys, fmt.Sprint("h:", j))
		}
		for _, k := range keys {
			hset(b, s, "", []string{k}, "t", fmt.Sprint("g", rng.Intn(10)), "n", fmt.Sprint(rng.Intn(100000)), "x", "payload")
		}
	}
	// As in a server of 100k documents, the reads go to table files
	// through the block cache, not to the memtable.
	if err := s.Compact(); err != nil {
		b.Fatal(err)
	}
	db := s.DB("")
	// from: the range's start; 100,001 reads the whole tag, 0 the first
	// 10 documents (a query's own cost).
	for _, from := range []float64{100001, 0, 90000, 99000} {
		q := &Query{Index: "b", Where: &And{Inners: []Expr{&TagContain{"t", "g3"}, &NumericCompare{Field: "n", Op: OpGE, Value: from}}},
			Limit: &Limit{Offset: 0, Count: 10}}
		b.Run(fmt.Sprint("from=", from), func(b *testing.B) {
			start := cpuTime()
			for i := 0; i < b.N; i++ {
				if _, err := Search(db, ix, q); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the process's CPU time so far, in nanoseconds: on a machine
// shared with other work, the figure its wall time is not.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
