package sortedint

import (
	"math/rand"
	"testing"

	"github.com/basaltdb/basalt/storage/storagetest"
)

// BenchmarkRange is SIRANGE big 0 10 CURSOR <random> on a set of 100,000
// ids, as bench/sortedint.go runs it.
func BenchmarkRange(b *testing.B) {
	db := storagetest.DB(b)
	for i := 0; i < 100000; i += 1000 {
		ids := make([]uint64, 0, 1000)
		for id := i; id < i+1000; id++ {
			ids = append(ids, uint64(2*id))
		}
		if _, err := Add(db, []byte("big"), ids); err != nil {
			b.Fatal(err)
		}
	}
	r := rand.New(rand.NewSource(1))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := Range{Limit: 10, Cursor: uint64(r.Intn(100000))}
		n := 0
		if err := q.Each(db, []byte("big"), func(uint64) bool { n++; return true }); err != nil || n != 10 {
			b.Fatal(n, err)
		}
	}
}

// BenchmarkAdd is SIADD s <random id>, as bench/sortedint.go runs it.
func BenchmarkAdd(b *testing.B) {
	db := storagetest.DB(b)
	r := rand.New(rand.NewSource(1))
	for i := 0; i < b.N; i++ {
		if _, err := Add(db, []byte("s"), []uint64{uint64(r.Intn(100000))}); err != nil {
			b.Fatal(err)
		}
	}
}
