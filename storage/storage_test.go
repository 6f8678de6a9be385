package storage

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/metadata"
	"github.com/linxGnu/grocksdb"
)

func openTest(t testing.TB, dir string, cluster bool) *Storage {
	t.Helper()
	overrides := [][2]string{{"dir", dir}, {"rocksdb.block_cache_size", "8"}}
	if cluster {
		overrides = append(overrides, [2]string{"cluster-enabled", "yes"})
	}
	cfg, err := config.Load("", overrides)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newTestDB(t *testing.T) DB {
	s := openTest(t, t.TempDir(), false)
	t.Cleanup(s.Close)
	return s.DB(metadata.DefaultNamespace)
}

func b(s string) []byte { return []byte(s) }

func TestSetGetPersistAcrossReopen(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir, false)
	db := s.DB(metadata.DefaultNamespace)
	if _, err := db.Set(b("k"), b("v\x00\xff"), SetArgs{}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openTest(t, dir, false)
	defer s.Close()
	v, found, err := s.DB(metadata.DefaultNamespace).Get(b("k"))
	if err != nil || !found || string(v) != "v\x00\xff" {
		t.Fatalf("after reopen: %q %v %v", v, found, err)
	}
}

func TestSetOptions(t *testing.T) {
	db := newTestDB(t)
	if r, _ := db.Set(b("k"), b("1"), SetArgs{XX: true}); r.Written {
		t.Fatal("XX on absent key wrote")
	}
	if r, _ := db.Set(b("k"), b("1"), SetArgs{NX: true}); !r.Written {
		t.Fatal("NX on absent key did not write")
	}
	if r, _ := db.Set(b("k"), b("2"), SetArgs{NX: true, Get: true}); r.Written || string(r.Old) != "1" {
		t.Fatalf("NX GET on present key: %+v", r)
	}
	at := time.Now().Add(time.Hour).UnixMilli()
	db.Set(b("k"), b("3"), SetArgs{Expire: at})
	db.Set(b("k"), b("4"), SetArgs{KeepTTL: true})
	if got, _, _ := db.ExpireAt(b("k")); got != at {
		t.Fatalf("KEEPTTL lost expiry: %d want %d", got, at)
	}
}

func TestExpiryIsExactToTheMillisecond(t *testing.T) {
	db := newTestDB(t)
	db.Set(b("k"), b("v"), SetArgs{Expire: time.Now().Add(30 * time.Millisecond).UnixMilli()})
	if _, found, _ := db.Get(b("k")); !found {
		t.Fatal("key vanished before its expiry")
	}
	time.Sleep(40 * time.Millisecond)
	if _, found, _ := db.Get(b("k")); found {
		t.Fatal("expired key still readable")
	}
	if st, _ := db.Stats(); st.Keys != 0 || st.Expired != 1 {
		t.Fatalf("expired key counted as live, or not as expired: %+v", st)
	}
	if keys, _, _ := db.Scan(ScanArgs{Count: 10}); len(keys) != 0 {
		t.Fatalf("expired key scanned: %q", keys)
	}
}

func TestIncr(t *testing.T) {
	db := newTestDB(t)
	if n, err := db.IncrBy(b("n"), 5); err != nil || n != 5 {
		t.Fatalf("IncrBy = %d %v", n, err)
	}
	db.Set(b("n"), b("9223372036854775807"), SetArgs{})
	if _, err := db.IncrBy(b("n"), 1); !errors.Is(err, ErrOverflow) {
		t.Fatalf("overflow: %v", err)
	}
	db.Set(b("s"), b("abc"), SetArgs{})
	if _, err := db.IncrBy(b("s"), 1); !errors.Is(err, ErrNotInteger) {
		t.Fatalf("not integer: %v", err)
	}
	db.Set(b("f"), b("10.5"), SetArgs{})
	if v, err := db.IncrByFloat(b("f"), b("0.1")); err != nil || string(v) != "10.6" {
		t.Fatalf("IncrByFloat = %s %v", v, err)
	}
}

func TestScanVisitsEveryKeyOnce(t *testing.T) {
	db := newTestDB(t)
	want := map[string]bool{}
	for i := 0; i < 250; i++ {
		k := fmt.Sprintf("key:%03d", i)
		want[k] = true
		db.Set(b(k), b("v"), SetArgs{})
	}
	db.Set(b("other"), b("v"), SetArgs{})
	got := map[string]bool{}
	var from []byte
	for steps := 0; ; steps++ {
		keys, next, err := db.Scan(ScanArgs{From: from, Count: 7, Match: b("key:*")})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if got[string(k)] {
				t.Fatalf("key %s returned twice", k)
			}
			got[string(k)] = true
		}
		if next == nil {
			break
		}
		from = next
	}
	if len(got) != len(want) {
		t.Fatalf("scanned %d keys, want %d", len(got), len(want))
	}
}

func TestRenameCopyAndNamespaces(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	defer s.Close()
	a, other := s.DB("tenant_a"), s.DB("tenant_b")
	a.Set(b("src"), b("v"), SetArgs{})
	if _, found, _ := other.Get(b("src")); found {
		t.Fatal("key visible from another namespace")
	}
	if ok, err := a.Rename(b("src"), b("dst"), false); !ok || err != nil {
		t.Fatalf("Rename = %v %v", ok, err)
	}
	if _, err := a.Rename(b("src"), b("x"), false); !errors.Is(err, ErrNoSuchKey) {
		t.Fatalf("Rename of absent = %v", err)
	}
	if ok, _ := a.Copy(b("dst"), b("cp"), false); !ok {
		t.Fatal("Copy failed")
	}
	if _, err := a.Copy(b("dst"), b("dst"), false); !errors.Is(err, ErrSameObject) {
		t.Fatalf("Copy to itself = %v", err)
	}
	keys, _ := a.Keys(b("*"))
	sort.Slice(keys, func(i, j int) bool { return string(keys[i]) < string(keys[j]) })
	if fmt.Sprintf("%q", keys) != `["cp" "dst"]` {
		t.Fatalf("keys = %q", keys)
	}
	other.Set(b("keep"), b("v"), SetArgs{})
	if err := a.Flush(); err != nil {
		t.Fatal(err)
	}
	if st, _ := a.Stats(); st.Keys != 0 {
		t.Fatal("flush left keys")
	}
	if st, _ := other.Stats(); st.Keys != 1 {
		t.Fatal("flush of one namespace touched another")
	}
}

func TestRenameCopiesElements(t *testing.T) {
	db := newTestDB(t)
	// A hash written directly in the FORMAT.md layout: RENAME must carry
	// its elements along with the metadata.
	m := metadata.New(metadata.TypeHash, db.s.versions.Next(time.Now()))
	m.Size = 1
	bt := db.s.newBatch(nil)
	bt.put(CFMetadata, db.nsKey(b("h")), m.AppendTo(nil))
	bt.put(CFDefault, db.s.layout.AppendInternalKey(nil, db.ns, b("h"), m.Version, b("f")), b("v"))
	if err := bt.commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Rename(b("h"), b("h2"), false); err != nil {
		t.Fatal(err)
	}
	v, found, _ := db.HGet(b("h2"), b("f"))
	if !found || string(v) != "v" {
		t.Fatal("renamed hash lost its field")
	}
	// Under a version of its own (kvrocks_diff.txt: a version reused
	// under another name brings back deleted elements).
	rec, _, _ := db.lookup(db.nsKey(b("h2")))
	if _, stale, _ := db.s.get(CFDefault, db.s.layout.AppendInternalKey(nil, db.ns, b("h2"), m.Version, b("f")), nil); stale || rec.meta.Version == m.Version {
		t.Fatalf("renamed hash kept version %d", m.Version)
	}
	if typ, _ := db.Type(b("h2")); typ != metadata.TypeHash {
		t.Fatalf("type = %v", typ)
	}
}

func TestClusterModeKeysCarrySlot(t *testing.T) {
	s := openTest(t, t.TempDir(), true)
	defer s.Close()
	db := s.DB(metadata.DefaultNamespace)
	db.Set(b("foo"), b("bar"), SetArgs{})
	raw, found, _ := s.get(CFMetadata, b("\x0b__namespace\x2f\x96foo"), nil)
	if !found || string(raw[9:]) != "bar" {
		t.Fatalf("cluster key not at the FORMAT.md position: %v %x", found, raw)
	}
	if keys, _ := db.Keys(b("f*")); len(keys) != 1 {
		t.Fatalf("keys = %q", keys)
	}
}

// TestLocksExcludeSameKey runs single-key and multi-key critical sections
// on one hot key from many goroutines: none may overlap, every one must run
// exactly once, and keys of other stripes must not wait.
func TestLocksExcludeSameKey(t *testing.T) {
	var l keyLocks
	const goroutines, each = 64, 300
	var inside atomic.Int32
	var overlaps atomic.Int32
	count := 0 // guarded by the stripe of "hot"
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				keys := [][]byte{b("hot")}
				if (g+i)%3 == 0 {
					keys = append(keys, b(fmt.Sprintf("other:%d", i)), b("hot"))
				}
				l.do("ns", keys, func(*group) {
					if inside.Add(1) != 1 {
						overlaps.Add(1)
					}
					count++
					inside.Add(-1)
				})
			}
		}(g)
	}
	wg.Wait()
	if overlaps.Load() != 0 || count != goroutines*each {
		t.Fatalf("overlapping critical sections: %d, ran %d of %d", overlaps.Load(), count, goroutines*each)
	}

	held := make(chan struct{})
	release := make(chan struct{})
	go l.do("ns", [][]byte{b("hot")}, func(*group) { close(held); <-release })
	<-held
	other := make(chan struct{})
	go l.do("ns", [][]byte{b("cold")}, func(*group) { close(other) })
	select {
	case <-other:
	case <-time.After(5 * time.Second):
		t.Fatal("a key of another stripe waited for a held one")
	}
	close(release)
}

func TestConcurrentCommitsAllLand(t *testing.T) {
	db := newTestDB(t)
	const writers, each = 32, 100
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		go func(w int) {
			for i := 0; i < each; i++ {
				// Two keys per command: both or neither must land.
				pairs := [][]byte{b(fmt.Sprintf("a:%d:%d", w, i)), b("x"), b(fmt.Sprintf("b:%d:%d", w, i)), b("y")}
				if _, err := db.MSet(pairs, false); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}(w)
	}
	for w := 0; w < writers; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if st, _ := db.Stats(); st.Keys != 2*writers*each {
		t.Fatalf("%d keys, want %d", st.Keys, 2*writers*each)
	}
}

// TestWritersShareALeadersWrite queues writers behind a leader that waits
// for RocksDB's write path: none of their writes may be visible before the
// leader applies them, all must be once their commands return, and the
// queue must be left idle.
func TestWritersShareALeadersWrite(t *testing.T) {
	db := newTestDB(t)
	q := &db.s.commits
	queued := func() (leading bool, pending int) {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.leading, len(q.pending)
	}
	const writers = 8
	db.s.writeMu.Lock()
	errs := make(chan error, writers)
	set := func(i int) {
		_, err := db.Set(b(fmt.Sprintf("k%d", i)), b("v"), SetArgs{})
		errs <- err
	}
	go set(0)
	waitUntil(t, "a leader", func() bool { leading, _ := queued(); return leading })
	for i := 1; i < writers; i++ {
		go set(i)
	}
	waitUntil(t, "queued writers", func() bool { _, n := queued(); return n == writers-1 })
	for i := 0; i < writers; i++ {
		if _, found, _ := db.Get(b(fmt.Sprintf("k%d", i))); found {
			t.Fatalf("k%d visible before its write was applied", i)
		}
	}
	db.s.writeMu.Unlock()
	for i := 0; i < writers; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < writers; i++ {
		if _, found, err := db.Get(b(fmt.Sprintf("k%d", i))); err != nil || !found {
			t.Fatalf("k%d: found %v, err %v after its command returned", i, found, err)
		}
	}
	if leading, n := queued(); leading || n != 0 {
		t.Fatalf("queue left leading=%v with %d pending", leading, n)
	}
}

func TestOpensEveryExistingColumnFamily(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/db"
	opts := grocksdb.NewDefaultOptions()
	defer opts.Destroy()
	opts.SetCreateIfMissing(true)
	opts.SetCreateIfMissingColumnFamilies(true)
	names := []string{"default", "metadata", "from_the_future"}
	db, handles, err := grocksdb.OpenDbColumnFamilies(opts, path, names, []*grocksdb.Options{opts, opts, opts})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range handles {
		h.Destroy()
	}
	db.Close()
	s := openTest(t, dir, false)
	defer s.Close()
	if len(s.foreign) != 1 || s.cfs[CFZSetScore].Load() == nil || s.cfs[CFSearch].Load() == nil {
		t.Fatalf("foreign %d, zset_score %v, search %v", len(s.foreign), s.cfs[CFZSetScore].Load(), s.cfs[CFSearch].Load())
	}
}

func TestSamplingLargeCollections(t *testing.T) {
	db := newTestDB(t)
	var members [][]byte
	for i := 0; i < 5000; i++ {
		members = append(members, b(fmt.Sprintf("member:%05d", i)))
	}
	if _, err := db.SAdd(b("big"), members); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i := 0; i < 50; i++ {
		elems, err := drawAll(db, b("big"), metadata.TypeSet, 10, true)
		if err != nil || len(elems) != 10 {
			t.Fatalf("draw %d: %d elements, %v", i, len(elems), err)
		}
		distinct := map[string]bool{}
		for _, e := range elems {
			distinct[string(e.Sub)] = true
			seen[string(e.Sub)] = true
		}
		if len(distinct) != 10 {
			t.Fatal("distinct draw repeated an element")
		}
	}
	if len(seen) < 200 {
		t.Fatalf("500 draws hit only %d different members", len(seen))
	}
	popped, err := db.SPop(b("big"), 100)
	if err != nil || len(popped) != 100 {
		t.Fatalf("SPOP 100 = %d, %v", len(popped), err)
	}
	if n, _ := db.Len(b("big"), metadata.TypeSet); n != 4900 {
		t.Fatalf("SCARD after SPOP = %d", n)
	}
}

func TestPopHintsNeverHideElements(t *testing.T) {
	db := newTestDB(t)
	for i := 0; i < 100; i++ {
		db.ZAdd(b("z"), ZAddFlags{}, []float64{float64(i)}, [][]byte{b(fmt.Sprint("m", i))})
	}
	popped, _ := db.ZPop(b("z"), false, 50)
	if len(popped) != 50 || popped[49].Score != 49 {
		t.Fatalf("popped %d, last %v", len(popped), popped[len(popped)-1])
	}
	// An element added below the hint must be the next one popped.
	db.ZAdd(b("z"), ZAddFlags{}, []float64{-1}, [][]byte{b("low")})
	if next, _ := db.ZPop(b("z"), false, 1); len(next) != 1 || string(next[0].Member) != "low" {
		t.Fatalf("after adding below the hint, ZPOPMIN = %v", next)
	}
	// A high element added above the back hint must be the next ZPOPMAX.
	db.ZPop(b("z"), true, 10)
	db.ZAdd(b("z"), ZAddFlags{}, []float64{1000}, [][]byte{b("high")})
	if next, _ := db.ZPop(b("z"), true, 1); len(next) != 1 || string(next[0].Member) != "high" {
		t.Fatalf("after adding above the hint, ZPOPMAX = %v", next)
	}
	// RENAME away, add below the old hint there, and RENAME back.
	db.Rename(b("z"), b("z2"), false)
	db.ZAdd(b("z2"), ZAddFlags{}, []float64{-5}, [][]byte{b("lower")})
	db.Rename(b("z2"), b("z"), false)
	if next, _ := db.ZPop(b("z"), false, 1); len(next) != 1 || string(next[0].Member) != "lower" {
		t.Fatalf("after a round-trip RENAME, ZPOPMIN = %v", next)
	}
	var all int
	db.ZRangeWalk(b("z"), ZRange{By: ByRank, Start: 0, Stop: -1, Count: -1}, func(int64, []byte, float64) bool {
		all++
		return true
	})
	if n, _ := db.Len(b("z"), metadata.TypeZSet); int64(all) != n {
		t.Fatalf("ZRANGE sees %d members, ZCARD %d", all, n)
	}
}

// TestWriterWalksStartAtTheHints pops sets and zsets through the paths
// that walk from the front (exact sampling, lex ranges) and checks that
// the hints they leave never hide an element added afterwards.
func TestWriterWalksStartAtTheHints(t *testing.T) {
	db := newTestDB(t)
	const n = 3000
	for i := 0; i < n; i += 500 {
		var members [][]byte
		for j := i; j < i+500; j++ {
			members = append(members, b(fmt.Sprintf("m%05d", j)))
		}
		db.SAdd(b("s"), members)
	}
	seen := map[string]bool{}
	for i := 0; i <= n; i++ {
		popped, err := db.SPop(b("s"), 1)
		if err != nil || len(popped) != 1 || seen[string(popped[0])] {
			t.Fatalf("pop %d: %q %v (seen before: %v)", i, popped, err, len(popped) == 1 && seen[string(popped[0])])
		}
		seen[string(popped[0])] = true
		if i == n-10 {
			db.SAdd(b("s"), [][]byte{b("a-low")}) // below every hint
		}
	}
	if rest, _ := db.SPop(b("s"), 5); len(rest) != 0 || !seen["a-low"] {
		t.Fatalf("left after popping every member: %q; popped the late one: %v", rest, seen["a-low"])
	}

	all := ZRange{By: ByLex, LexMin: LexBound{Inf: -1}, LexMax: LexBound{Inf: 1}, Count: -1}
	for i := 0; i < 10; i++ {
		db.ZAdd(b("z"), ZAddFlags{}, []float64{0}, [][]byte{b(fmt.Sprint("m", i))})
	}
	firstFive := all
	firstFive.LexMax = LexBound{Value: b("m4")}
	if n, _ := db.ZRemRange(b("z"), firstFive); n != 5 {
		t.Fatalf("ZREMRANGEBYLEX - [m4 removed %d", n)
	}
	db.ZAdd(b("z"), ZAddFlags{}, []float64{0}, [][]byte{b("a")})
	if n, _ := db.ZRemRange(b("z"), all); n != 6 {
		t.Fatalf("ZREMRANGEBYLEX - + removed %d, want 6 (a and m5..m9)", n)
	}
}

func TestAlgebraAcrossChunks(t *testing.T) {
	db := newTestDB(t)
	var a, c [][]byte
	for i := 0; i < 1000; i++ {
		a = append(a, b(fmt.Sprint("m", i)))
		c = append(c, b(fmt.Sprint("m", i+500)))
	}
	db.SAdd(b("a"), a)
	db.SAdd(b("c"), c)
	count := func(op SetOp) (n int) {
		if err := db.SetCombine(op, [][]byte{b("a"), b("c")}, func([]byte) bool { n++; return true }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if inter, diff, union := count(SetInter), count(SetDiff), count(SetUnion); inter != 500 || diff != 500 || union != 1500 {
		t.Fatalf("SINTER %d SDIFF %d SUNION %d, want 500 500 1500", inter, diff, union)
	}
	zinter, err := db.ZCombine(SetInter, [][]byte{b("a"), b("c")}, []float64{2, 3}, AggSum, 0)
	if err != nil || len(zinter) != 500 || zinter[0].Score != 5 {
		t.Fatalf("ZINTER over sets: %d members, first %+v, %v", len(zinter), zinter[0], err)
	}
	limited, _ := db.ZCombine(SetInter, [][]byte{b("a"), b("c")}, nil, AggSum, 300)
	if len(limited) != 300 {
		t.Fatalf("ZINTERCARD LIMIT 300 = %d", len(limited))
	}
	zdiff, _ := db.ZCombine(SetDiff, [][]byte{b("a"), b("c")}, nil, AggSum, 0)
	if len(zdiff) != 500 {
		t.Fatalf("ZDIFF = %d", len(zdiff))
	}
}

func TestRocksDBStatsCountWork(t *testing.T) {
	db := newTestDB(t)
	for i := 0; i < 100; i++ {
		if _, err := db.Set([]byte(fmt.Sprint("k", i)), []byte("v"), SetArgs{}); err != nil {
			t.Fatal(err)
		}
	}
	// A key never written: the writes stored theirs in the metadata cache.
	if _, _, err := db.Get([]byte("absent")); err != nil {
		t.Fatal(err)
	}
	tickers := db.s.Tickers()
	if tickers["rocksdb.number.keys.written"] < 100 || tickers["rocksdb.number.keys.read"] < 1 {
		t.Fatalf("tickers after 100 writes and a read: written %d, read %d", tickers["rocksdb.number.keys.written"], tickers["rocksdb.number.keys.read"])
	}
	if _, ok := tickers["rocksdb.db.get.micros.sum"]; !ok {
		t.Fatalf("no histogram sum parsed")
	}
	stats := map[string]uint64{}
	for _, st := range db.s.RocksDBStats() {
		stats[st.Name] = st.Value
	}
	for _, name := range []string{"block_cache_hit", "flush_count", "compaction_write_bytes", "write_stall_micros", "is_write_stopped", "total_sst_files_size"} {
		if _, ok := stats[name]; !ok {
			t.Errorf("RocksDBStats lacks %s", name)
		}
	}
}

// TestIndexColumnFamily: a new database has no index column family
// (Kvrocks before 2.15 refuses a directory with one), the first time
// series's write makes it, and a directory that has it, or one more
// unknown, opens with its records.
func TestIndexColumnFamily(t *testing.T) {
	dir := t.TempDir()
	listed := func() []string {
		opts := grocksdb.NewDefaultOptions()
		defer opts.Destroy()
		names, err := grocksdb.ListColumnFamilies(opts, dir+"/db")
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	s := openTest(t, dir, false)
	if slices.Contains(listed(), "index") || s.cfs[CFIndex].Load() != nil {
		t.Fatal("a new database has the index column family")
	}
	db := s.DB(metadata.DefaultNamespace)
	if err := db.ScanRange(nil, CFIndex, nil, nil, func(_, _ []byte) bool { return true }); err != nil {
		t.Fatalf("scanning the index column family before it exists: %v", err)
	}
	if err := s.EnsureIndexCF(); err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch(nil)
	b.Put(CFIndex, []byte("entry"), nil)
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if !slices.Contains(listed(), "index") {
		t.Fatalf("column families %v after EnsureIndexCF", listed())
	}
	// One more column family, of a version still to come.
	opts := grocksdb.NewDefaultOptions()
	defer opts.Destroy()
	names := listed()
	raw, handles, err := grocksdb.OpenDbColumnFamilies(opts, dir+"/db", names, slices.Repeat([]*grocksdb.Options{opts}, len(names)))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range handles {
		h.Destroy()
	}
	h, err := raw.CreateColumnFamily(opts, "from_the_future")
	if err != nil {
		t.Fatal(err)
	}
	h.Destroy()
	raw.Close()
	s = openTest(t, dir, false)
	defer s.Close()
	var keys []string
	err = s.DB(metadata.DefaultNamespace).ScanRange(nil, CFIndex, nil, nil, func(k, _ []byte) bool {
		keys = append(keys, string(k))
		return true
	})
	if err != nil || len(keys) != 1 || keys[0] != "entry" || len(s.foreign) != 1 {
		t.Fatalf("index column family after reopening: %q (%v), %d foreign", keys, err, len(s.foreign))
	}
}
