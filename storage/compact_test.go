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

// TestCompactDropsExpiredFields: compaction drops the records of expired
// hash fields at once (KVROCKS-TYPES.md §7.4), keeps the others and the
// fields of a plain hash, and drops the metadata of a hash whose every
// field expired; the counts of a hash left with ghost fields still read
// exact.
func TestCompactDropsExpiredFields(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	defer s.Close()
	db := s.DB(metadata.DefaultNamespace)
	const n = 100
	var fields [][]byte
	for _, k := range []string{"some", "all", "plain"} {
		var pairs [][]byte
		fields = nil
		for i := range n {
			pairs, fields = append(pairs, b(fmt.Sprint("f", i)), b("12345678value")), append(fields, b(fmt.Sprint("f", i)))
		}
		if _, err := db.HSet(b(k), pairs, false); err != nil {
			t.Fatal(err)
		}
	}
	soon := time.Now().UnixMilli() + 20
	if _, err := db.HExpire(b("some"), fields[:40], soon, ExpireCond{}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.HExpire(b("all"), fields, soon, ExpireCond{}); err != nil {
		t.Fatal(err)
	}
	waitUntil := time.Now().Add(10 * time.Second)
	for time.Now().UnixMilli() <= soon+1 && time.Now().Before(waitUntil) {
		time.Sleep(time.Millisecond)
	}
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	if got, want := countRecords(t, s, CFDefault), 2*n-40; got != want {
		t.Errorf("default column family keeps %d records, want %d", got, want)
	}
	if got, want := countRecords(t, s, CFMetadata), 2; got != want {
		t.Errorf("metadata keeps %d records, want %d", got, want)
	}
	if l, _ := db.Len(b("some"), metadata.TypeHash); l != n-40 {
		t.Errorf("HLEN of the hash with ghost fields = %d", l)
	}
	if v, found, _ := db.HGet(b("plain"), b("f1")); !found || string(v) != "12345678value" {
		t.Errorf("plain field %q %v", v, found)
	}
}
