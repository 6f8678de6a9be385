package storage

import (
	"fmt"
	"testing"
	"time"

	"github.com/basaltdb/basalt/metadata"
)

// countRecords counts the raw records of a column family.
func countRecords(t *testing.T, s *Storage, cf CF) int {
	t.Helper()
	it := s.newIterator(cf, nil, nil, nil)
	defer it.close()
	n := 0
	for it.SeekToFirst(); it.Valid(); it.Next() {
		n++
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

func fill(t *testing.T, db DB, key string, n int) {
	t.Helper()
	var pairs [][]byte
	var scores []float64
	var members [][]byte
	for i := 0; i < n; i++ {
		pairs = append(pairs, b(fmt.Sprint("f", i)), b("value"))
		scores = append(scores, float64(i))
		members = append(members, b(fmt.Sprint("m", i)))
	}
	if _, err := db.HSet(b("h:"+key), pairs, false); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ZAdd(b("z:"+key), ZAddFlags{}, scores, members); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Push(b("l:"+key), members, false, false); err != nil {
		t.Fatal(err)
	}
}

// TestCompactReclaimsOrphans deletes, overwrites, expires and re-creates
// collections, compacts, and checks that exactly the live records remain.
func TestCompactReclaimsOrphans(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	defer s.Close()
	db := s.DB(metadata.DefaultNamespace)
	const n = 500
	for _, k := range []string{"deleted", "recreated", "expired", "overwritten", "live"} {
		fill(t, db, k, n)
	}
	keys := func(k string) [][]byte { return [][]byte{b("h:" + k), b("z:" + k), b("l:" + k)} }
	db.Del(keys("deleted"))
	db.Del(keys("recreated"))
	fill(t, db, "recreated", 3)
	for _, k := range keys("expired") {
		db.Expire(k, time.Now().UnixMilli()+20, ExpireCond{})
	}
	for _, k := range keys("overwritten") {
		db.Set(k, b("now a string"), SetArgs{})
	}
	db.Set(b("string:expired"), b("x"), SetArgs{Expire: time.Now().UnixMilli() + 20})
	time.Sleep(30 * time.Millisecond)

	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	// live: n hash fields + n zset members + n list items; recreated: 3 each.
	if got, want := countRecords(t, s, CFDefault), 3*n+3*3; got != want {
		t.Errorf("default column family keeps %d records, want %d", got, want)
	}
	if got, want := countRecords(t, s, CFZSetScore), n+3; got != want {
		t.Errorf("zset_score keeps %d records, want %d", got, want)
	}
	// live and recreated: 3 keys each; overwritten: 3 strings.
	if got, want := countRecords(t, s, CFMetadata), 9; got != want {
		t.Errorf("metadata keeps %d records, want %d", got, want)
	}
	if v, found, _ := db.HGet(b("h:live"), b(fmt.Sprint("f", n-1))); !found || string(v) != "value" {
		t.Errorf("live field lost: %q %v", v, found)
	}
	if l, _ := db.Len(b("l:recreated"), metadata.TypeList); l != 3 {
		t.Errorf("re-created list has %d items", l)
	}
}
