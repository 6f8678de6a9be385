package timeseries

import (
	"math/rand"
	"testing"

	"github.com/basaltdb/basalt/storage"
	"github.com/basaltdb/basalt/storage/storagetest"
)

// BenchmarkAddOutOfOrder is bench/'s out-of-order TS.ADD over the engine:
// random timestamps in 100000 ms below a series's newest sample, policy
// LAST, as many as b.N (the first 100000 fill it).
func BenchmarkAddOutOfOrder(b *testing.B) {
	db, key := lastSeries(b)
	const base = 1_000_000_000_000
	if _, err := AddSample(db, key, &Add{TS: base + 200_000, Value: 1, OnDup: PolicyNone}); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewSource(1))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := AddSample(db, key, &Add{TS: base + r.Int63n(100_000), Value: 1, OnDup: PolicyNone}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAddInOrder appends samples at increasing timestamps.
func BenchmarkAddInOrder(b *testing.B) {
	db, key := lastSeries(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := AddSample(db, key, &Add{TS: int64(i), Value: 1, OnDup: PolicyNone}); err != nil {
			b.Fatal(err)
		}
	}
}

// lastSeries creates a series of DUPLICATE_POLICY LAST in a new database.
func lastSeries(b *testing.B) (storage.DB, []byte) {
	db := storagetest.DB(b)
	key := []byte("series")
	o, err := ParseCreate(words("DUPLICATE_POLICY", "LAST"))
	if err != nil {
		b.Fatal(err)
	}
	if err := Create(db, key, &o); err != nil {
		b.Fatal(err)
	}
	return db, key
}
