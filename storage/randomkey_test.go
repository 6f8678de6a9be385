package storage

import (
	"fmt"
	"testing"
	"time"
)

// RANDOMKEY over keys spread unevenly over the key space (numbers without
// padding: "k1" is followed by "k10", "k100", ..., and "k199" by "k2"):
// every key comes up, none far more often than the others.
func TestRandomKeyUniform(t *testing.T) {
	db := newTestDB(t)
	const n = 500
	for i := 0; i < n; i++ {
		if _, err := db.Set(b(fmt.Sprintf("k%d", i)), b("v"), SetArgs{}); err != nil {
			t.Fatal(err)
		}
	}
	// Expired keys in between are never drawn.
	for i := 0; i < 100; i++ {
		if _, err := db.Set(b(fmt.Sprintf("k%dx", i*5)), b("v"), SetArgs{Expire: time.Now().UnixMilli() - 1}); err != nil {
			t.Fatal(err)
		}
	}
	const draws = 20 * n
	counts := map[string]int{}
	for i := 0; i < draws; i++ {
		k, err := db.RandomKey()
		if err != nil || k == nil {
			t.Fatalf("RandomKey = %q, %v", k, err)
		}
		counts[string(k)]++
	}
	if len(counts) != n {
		for i := 0; i < n; i++ {
			if counts[fmt.Sprintf("k%d", i)] == 0 {
				t.Logf("never: k%d", i)
			}
		}
		t.Fatalf("%d distinct keys drawn of %d (or an expired one)", len(counts), n)
	}
	lo, hi := draws, 0
	for _, c := range counts {
		lo, hi = min(lo, c), max(hi, c)
	}
	// 20 draws per key on average: a uniform draw stays well within 3..50.
	if lo < 3 || hi > 50 {
		t.Fatalf("draws per key from %d to %d, want about 20 each", lo, hi)
	}
}

func TestRandomKeyEmptyAndExpired(t *testing.T) {
	db := newTestDB(t)
	if k, err := db.RandomKey(); k != nil || err != nil {
		t.Fatalf("empty: %q, %v", k, err)
	}
	for i := 0; i < 50; i++ {
		db.Set(b(fmt.Sprintf("gone%d", i)), b("v"), SetArgs{Expire: time.Now().UnixMilli() - 1})
	}
	if k, err := db.RandomKey(); k != nil || err != nil {
		t.Fatalf("only expired keys: %q, %v", k, err)
	}
	db.Set(b("live"), b("v"), SetArgs{})
	for i := 0; i < 20; i++ {
		if k, err := db.RandomKey(); string(k) != "live" || err != nil {
			t.Fatalf("one live key among expired ones: %q, %v", k, err)
		}
	}
}
