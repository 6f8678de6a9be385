package storage

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/basaltdb/basalt/metadata"
)

// cachedValue is a kind of record a cache keeps: how to write a key's
// value and read it back, and the cache it goes through.
type cachedValue struct {
	name  string
	write func(db DB, key, value []byte) error
	read  func(db DB, key []byte) ([]byte, bool, error)
	cache func(s *Storage) *metaCache
}

// cachedValues are a string's value (the metadata cache) and a hash
// field's (the elements cache).
var cachedValues = []cachedValue{
	{"metadata",
		func(db DB, key, value []byte) error { _, err := db.Set(key, value, SetArgs{}); return err },
		func(db DB, key []byte) ([]byte, bool, error) { return db.Get(key) },
		func(s *Storage) *metaCache { return s.meta }},
	{"elements",
		func(db DB, key, value []byte) error {
			_, err := db.HSet(key, [][]byte{b("f"), value}, false)
			return err
		},
		func(db DB, key []byte) ([]byte, bool, error) { return db.HGet(key, b("f")) },
		func(s *Storage) *metaCache { return s.elements }},
}

// Readers racing writers never see a value older than one a write that
// returned before their read began, nor one that goes back: the cache
// holds what RocksDB holds. Writers go through the write door, a range
// deletion and raw batches (as a replica applies them) through apply.
func TestMetaCacheExactUnderRaces(t *testing.T) {
	for _, kind := range cachedValues {
		t.Run(kind.name, func(t *testing.T) { testCacheExactUnderRaces(t, kind) })
	}
}

func testCacheExactUnderRaces(t *testing.T, kind cachedValue) {
	s := openTest(t, t.TempDir(), false)
	defer s.Close()
	db := s.DB(metadata.DefaultNamespace)
	const keys, writes, readers = 4, 3000, 4
	var acked [keys]atomic.Int64 // the last value whose write returned
	for k := range acked {
		acked[k].Store(-1)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan string, readers+keys)
	for r := 0; r < readers; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			seen := [keys]int64{-1, -1, -1, -1}
			for !stop.Load() {
				for k := 0; k < keys; k++ {
					floor := acked[k].Load()
					v, found, err := kind.read(db, []byte("k"+strconv.Itoa(k)))
					if err != nil {
						errs <- err.Error()
						return
					}
					n := int64(-1)
					if found {
						n, _ = strconv.ParseInt(string(v), 10, 64)
					}
					if n < floor || n < seen[k] {
						errs <- "key " + strconv.Itoa(k) + " read " + strconv.FormatInt(n, 10) + " after " + strconv.FormatInt(max(floor, seen[k]), 10)
						return
					}
					seen[k] = n
				}
			}
		}()
	}
	setConcurrently(s, keys, writes, kind.write, errs, func(k int, i int64) { acked[k].Store(i) })
	stop.Store(true)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if hits, _ := kind.cache(s).counts(); hits == 0 {
		t.Fatal("no read was served by the cache")
	}
}

// A range deletion and a write of another namespace's key are seen at
// once; a disabled cache serves nothing.
func TestMetaCacheFlushAndBudget(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	defer s.Close()
	db := s.DB(metadata.DefaultNamespace)
	if _, err := db.Set(b("k"), b("v"), SetArgs{}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if v, found, _ := db.Get(b("k")); !found || string(v) != "v" {
			t.Fatalf("read %d: %q %v", i, v, found)
		}
	}
	// The write stored what it wrote: both reads are served by the cache.
	if hits, _ := s.meta.counts(); hits != 2 || s.meta.size() == 0 {
		t.Fatalf("hits %d, size %d after two reads", hits, s.meta.size())
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := db.Get(b("k")); found {
		t.Fatal("a flushed key is still read")
	}
	s.meta.setBudget(0)
	db.Set(b("k"), b("w"), SetArgs{})
	db.Get(b("k"))
	if v, _, _ := db.Get(b("k")); string(v) != "w" || s.meta.size() != 0 {
		t.Fatalf("with no budget: read %q, cache holds %d bytes", v, s.meta.size())
	}
}

// The cache stays within its budget, evicting as it fills.
func TestMetaCacheEvicts(t *testing.T) {
	c := newMetaCache(metaShards*1024, CFMetadata, true, true)
	for i := 0; i < 10000; i++ {
		key := []byte("key:" + strconv.Itoa(i))
		_, _, hit, gen := c.get(key, nil)
		if hit {
			t.Fatal("hit on a key never stored")
		}
		c.fill(key, make([]byte, 100), true, gen)
	}
	if n := c.size(); n > metaShards*1024 || n == 0 {
		t.Fatalf("cache holds %d bytes, budget %d", n, metaShards*1024)
	}
}

// A write stores what it wrote once applied, unless another write of its
// shard was in flight at any time meanwhile: which of the two RocksDB
// applied last is then not known here. A failed write stores nothing.
func TestMetaCacheWritesThrough(t *testing.T) {
	c := newMetaCache(metaShards*1024, CFMetadata, true, true)
	k := []byte("k")
	hit := func() (string, bool) {
		v, found, ok, _ := c.get(k, nil)
		if ok && !found {
			return "<none>", true
		}
		return string(v), ok
	}
	write := func(v string) {
		c.writeOps([]op{{kind: opPut, cf: CFMetadata, key: k, value: []byte(v)}}, writeBegins)
		c.writeOps([]op{{kind: opPut, cf: CFMetadata, key: k, value: []byte(v)}}, writeApplied)
	}
	write("v1")
	if v, ok := hit(); !ok || v != "v1" {
		t.Fatalf("after a lone write: %q hit %v", v, ok)
	}
	c.writeOps([]op{{kind: opDelete, cf: CFMetadata, key: k}}, writeBegins)
	if _, ok := hit(); ok {
		t.Fatal("a record being written is still served")
	}
	c.writeOps([]op{{kind: opDelete, cf: CFMetadata, key: k}}, writeApplied)
	if v, ok := hit(); !ok || v != "<none>" {
		t.Fatalf("after a delete: %q hit %v", v, ok)
	}

	// Two writes of the same shard in flight together: neither stores,
	// whichever order they end in, nor does the next one that begins
	// before both ended.
	for _, order := range [][2]int{{0, 1}, {1, 0}} {
		ops := [2][]op{
			{{kind: opPut, cf: CFMetadata, key: k, value: []byte("a")}},
			{{kind: opPut, cf: CFMetadata, key: k, value: []byte("b")}},
		}
		c.writeOps(ops[0], writeBegins)
		c.writeOps(ops[1], writeBegins)
		c.writeOps(ops[order[0]], writeApplied)
		c.writeOps(ops[order[1]], writeApplied)
		if v, ok := hit(); ok {
			t.Fatalf("order %v: overlapping writes stored %q", order, v)
		}
	}
	c.writeOps([]op{{kind: opPut, cf: CFMetadata, key: k, value: []byte("x")}}, writeBegins)
	c.writeOps([]op{{kind: opPut, cf: CFMetadata, key: k, value: []byte("y")}}, writeBegins)
	c.writeOps([]op{{kind: opPut, cf: CFMetadata, key: k, value: []byte("x")}}, writeApplied)
	c.writeOps([]op{{kind: opPut, cf: CFMetadata, key: k, value: []byte("z")}}, writeBegins)
	c.writeOps([]op{{kind: opPut, cf: CFMetadata, key: k, value: []byte("y")}}, writeApplied)
	c.writeOps([]op{{kind: opPut, cf: CFMetadata, key: k, value: []byte("z")}}, writeApplied)
	if v, ok := hit(); ok {
		t.Fatalf("a write that began while others were in flight stored %q", v)
	}

	// A refused write stores nothing, and a lone write after it does.
	c.writeOps([]op{{kind: opPut, cf: CFMetadata, key: k, value: []byte("f")}}, writeBegins)
	c.writeOps([]op{{kind: opPut, cf: CFMetadata, key: k, value: []byte("f")}}, writeFailed)
	if v, ok := hit(); ok {
		t.Fatalf("a failed write stored %q", v)
	}
	write("v2")
	if v, ok := hit(); !ok || v != "v2" {
		t.Fatalf("after the overlaps: %q hit %v", v, ok)
	}
}

// The records cache keeps stream group records: what readers read and
// what writes of cached records wrote, not the records a write adds.
func TestRecordsCacheStoresOnlyCached(t *testing.T) {
	c := newMetaCache(metaShards*1024, CFStream, false, true)
	k := []byte("group")
	write := func(v string) {
		ops := []op{{kind: opPut, cf: CFStream, key: k, value: []byte(v)}}
		c.writeOps(ops, writeBegins)
		c.writeOps(ops, writeApplied)
	}
	write("new")
	if _, _, hit, _ := c.get(k, nil); hit {
		t.Fatal("a record no reader read was stored")
	}
	_, _, _, gen := c.get(k, nil)
	c.fill(k, []byte("new"), true, gen)
	write("rewritten")
	if v, found, hit, _ := c.get(k, nil); !hit || !found || string(v) != "rewritten" {
		t.Fatalf("a cached record rewritten: %q %v %v", v, found, hit)
	}
	// Metadata ops are not its column family's.
	c.writeOps([]op{{kind: opDelete, cf: CFMetadata, key: k}}, writeBegins)
	if _, _, hit, _ := c.get(k, nil); !hit {
		t.Fatal("a write of another column family made it forget")
	}
	c.writeOps([]op{{kind: opDelete, cf: CFMetadata, key: k}}, writeApplied)
}

// snapshotMeta's record is the one its snapshot holds, whether it came
// from the cache or from RocksDB, while writers keep changing the keys.
func TestMetaCacheSnapshotMeta(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	defer s.Close()
	db := s.DB(metadata.DefaultNamespace)
	const keys, writes, readers = 4, 10000, 3
	var stop atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan string, readers+keys)
	var hit atomic.Int64 // calls during which the cache had a hit
	for r := 0; r < readers; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				for k := 0; k < keys; k++ {
					nsKey := db.nsKey([]byte("k" + strconv.Itoa(k)))
					before, _ := s.meta.counts()
					snap, raw, found, err := db.snapshotMeta(nsKey)
					if err != nil {
						errs <- err.Error()
						return
					}
					if after, _ := s.meta.counts(); after > before {
						hit.Add(1)
					}
					want, wantFound, err := s.getAt(snap, CFMetadata, nsKey)
					s.db.ReleaseSnapshot(snap)
					if err != nil {
						errs <- err.Error()
						return
					}
					if found != wantFound || !bytes.Equal(raw, want) {
						errs <- fmt.Sprintf("key %d: %q (%v), the snapshot holds %q (%v)", k, raw, found, want, wantFound)
						return
					}
				}
			}
		}()
	}
	writeWhileReading(t, s, keys, writes, cachedValues[0].write, &stop, &wg, errs, &hit)
}

// Two keys of one hash share a slot: each sees only its own entry, the
// last stored wins, and the bytes counted stay those of what is held.
func TestMetaCacheHashCollision(t *testing.T) {
	sh := &metaShard{m: map[uint64]uint32{}}
	sh.remap(1 << 20)
	defer sh.release()
	const h = 7
	a, b := []byte("key-a"), []byte("key-b-longer")
	sh.storeLocked(h, a, []byte("va"), true)
	if _, ok := sh.entry(h, b); ok {
		t.Fatal("b found a's entry")
	}
	if off, ok := sh.entry(h, a); !ok || string(sh.value(off)) != "va" || !sh.found(off) {
		t.Fatalf("a: %d %v", off, ok)
	}
	sh.storeLocked(h, b, nil, false)
	if _, ok := sh.entry(h, a); ok {
		t.Fatal("a still found after b took its slot")
	}
	off, ok := sh.entry(h, b)
	if !ok || len(sh.value(off)) != 0 || sh.found(off) {
		t.Fatalf("b: %d %v", off, ok)
	}
	if want := entrySize(len(b)); sh.bytes != want || len(sh.m) != 1 {
		t.Fatalf("%d bytes in %d entries, want %d in 1", sh.bytes, len(sh.m), want)
	}
	sh.forget(h, off)
	if sh.bytes != 0 || len(sh.m) != 0 {
		t.Fatalf("%d bytes in %d entries after forget", sh.bytes, len(sh.m))
	}
}

// setConcurrently has a writer per key k0, k1, ... write it to 0, 1, ...,
// writes-1 through the write door, calling acked after each write returned,
// and returns once they are all done. Errors go to errs.
func setConcurrently(s *Storage, keys, writes int, write func(db DB, key, value []byte) error, errs chan<- string, acked func(k int, i int64)) {
	var writers sync.WaitGroup
	for k := 0; k < keys; k++ {
		writers.Add(1)
		go func() {
			defer writers.Done()
			key := []byte("k" + strconv.Itoa(k))
			for i := int64(0); i < int64(writes); i++ {
				err := s.Update(&Write{NS: metadata.DefaultNamespace, Keys: [][]byte{key}}, func(in DB) {
					if err := write(in, key, []byte(strconv.FormatInt(i, 10))); err != nil {
						errs <- err.Error()
					}
				})
				if err != nil {
					errs <- err.Error()
					return
				}
				acked(k, i)
			}
		}()
	}
	writers.Wait()
}

// The elements cache serves hash fields and bitmap segments read again,
// rewritten and deleted; a list trim leaves it alone; a flush empties it.
func TestElementsCache(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	defer s.Close()
	db := s.DB(metadata.DefaultNamespace)
	hits := func() int64 { h, _ := s.elements.counts(); return h }
	// hget reads the field, which the cache serves when hit.
	hget := func(want string, wantFound, hit bool) {
		t.Helper()
		before := hits()
		v, found, err := db.HGet(b("h"), b("f"))
		if err != nil || found != wantFound || string(v) != want {
			t.Fatalf("HGET: %q %v %v, want %q %v", v, found, err, want, wantFound)
		}
		if got := hits() - before; got != map[bool]int64{true: 1}[hit] {
			t.Fatalf("HGET hit the cache %d times, want %v", got, hit)
		}
	}
	if _, err := db.HSet(b("h"), [][]byte{b("f"), b("v1")}, false); err != nil {
		t.Fatal(err)
	}
	hget("v1", true, false) // a new element is not stored by its write
	hget("v1", true, true)
	db.HSet(b("h"), [][]byte{b("f"), b("v2")}, false)
	hget("v2", true, true) // a write of a cached element writes through
	db.HSet(b("h"), [][]byte{b("f"), b("")}, false)
	hget("", true, true)
	if _, err := db.Push(b("l"), [][]byte{b("a"), b("b"), b("c")}, false, false); err != nil {
		t.Fatal(err)
	}
	if err := db.LTrim(b("l"), 1, 1); err != nil {
		t.Fatal(err)
	}
	hget("", true, true)
	if n, err := db.HDel(b("h"), [][]byte{b("f")}); n != 1 || err != nil {
		t.Fatalf("HDEL: %d %v", n, err)
	}
	hget("", false, false) // the hash is gone: no element is read
	db.HSet(b("h"), [][]byte{b("f"), b("v3")}, false)
	hget("v3", true, false)
	// Absent elements are not stored: both reads miss.
	_, missesBefore := s.elements.counts()
	for range 2 {
		if _, found, err := db.HGet(b("h"), b("absent")); found || err != nil {
			t.Fatalf("HGET of an absent field: %v %v", found, err)
		}
	}
	if _, misses := s.elements.counts(); misses != missesBefore+2 {
		t.Fatalf("%d misses for two reads of an absent field, want 2", misses-missesBefore)
	}
	hget("v3", true, true)

	// A type package's reads by name (Object.GetElements) go through
	// the cache, and its batches write through it.
	o := db.NewObject(b("bits"), metadata.TypeBitmap)
	seg := o.Subkey(b("0"))
	put := func(value string) {
		t.Helper()
		wb := db.NewBatch(TypeLog(metadata.TypeBitmap))
		wb.Put(CFDefault, seg, b(value))
		wb.Put(CFMetadata, o.NSKey(), o.Meta().AppendTo(nil))
		if err := wb.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	get := func(want string, hit bool) {
		t.Helper()
		before := hits()
		vs, err := o.GetElements([][]byte{seg})
		if err != nil || string(vs[0]) != want {
			t.Fatalf("GetElements: %q %v, want %q", vs[0], err, want)
		}
		if got := hits() - before; got != map[bool]int64{true: 1}[hit] {
			t.Fatalf("GetElements hit the cache %d times, want %v", got, hit)
		}
	}
	put("\x01")
	get("\x01", false)
	get("\x01", true)
	put("\x03")
	get("\x03", true)

	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	if s.elements.size() != 0 {
		t.Fatalf("the cache holds %d bytes after a flush", s.elements.size())
	}
}

// The ring (metaring.go) under random stores, rewrites, forgets and
// resets, over few hashes so that keys collide: every entry the map
// points at holds the last value stored for its key, the entries chain
// from 0 to end without overlapping, and the bytes counted are those of
// the entries mapped.
func TestMetaRingModel(t *testing.T) {
	sh := &metaShard{m: map[uint64]uint32{}}
	const ring = 4096
	sh.remap(ring)
	defer sh.release()
	rnd := rand.New(rand.NewPCG(1, 2))
	last := map[string]string{} // the last value stored per key
	evicted := 0
	for i := 0; i < 200000; i++ {
		key := "key:" + strconv.Itoa(rnd.IntN(60))
		h := uint64(len(key))*7919 + uint64(key[len(key)-1])%5 // 10 hashes for 60 keys
		switch op := rnd.IntN(10); {
		case op < 7:
			value := strings.Repeat(string(rune('a'+rnd.IntN(26))), rnd.IntN(300))
			sh.storeLocked(h, []byte(key), []byte(value), true)
			last[key] = value
		case op < 9:
			if off, ok := sh.entry(h, []byte(key)); ok {
				sh.forget(h, off)
			}
		default:
			if rnd.IntN(100) == 0 {
				sh.reset()
			}
		}
		checkRing(t, sh, last)
		if len(sh.m) < len(last) {
			evicted++
		}
	}
	if evicted == 0 {
		t.Fatal("the ring never evicted")
	}
}

func checkRing(t *testing.T, sh *metaShard, last map[string]string) {
	t.Helper()
	var bytes int64
	at := map[uint32]bool{}
	for p := uint32(0); p < sh.end; p += sh.size(p) {
		if sh.size(p) < entryHeader || sh.size(p)%8 != 0 || p+sh.size(p) > uint32(len(sh.ring)) {
			t.Fatalf("entry at %d of size %d, ring %d, end %d", p, sh.size(p), len(sh.ring), sh.end)
		}
		at[p] = true
	}
	if sh.head > sh.end || !at[sh.head] && sh.head != sh.end {
		t.Fatalf("head %d not at an entry's start (end %d)", sh.head, sh.end)
	}
	for h, off := range sh.m {
		if !at[off] {
			t.Fatalf("hash %d maps to %d, not an entry's start", h, off)
		}
		if sh.hash(off) != h {
			t.Fatalf("entry at %d has hash %d, mapped by %d", off, sh.hash(off), h)
		}
		key := string(sh.key(off))
		if got, want := string(sh.value(off)), last[key]; got != want {
			t.Fatalf("%s holds %d bytes, last stored %d", key, len(got), len(want))
		}
		bytes += int64(sh.size(off))
	}
	if bytes != sh.bytes {
		t.Fatalf("bytes counted %d, entries mapped hold %d", sh.bytes, bytes)
	}
}

// A shard's ring is its share of the budget, whole entries' alignment,
// and never past what 32-bit offsets reach (metadata-cache-size goes up
// to 1 TB).
func TestRingShare(t *testing.T) {
	for _, c := range []struct{ budget, want int64 }{
		{0, 0},
		{32 << 20, 128 << 10},
		{metaShards*100 + 5, 96},
		{1 << 40, maxRing},
	} {
		if got := ringShare(c.budget); got != c.want {
			t.Errorf("ringShare(%d) = %d, want %d", c.budget, got, c.want)
		}
	}
}

// A ReadView's reads through the caches (LookupMany, GetElementsAt) give
// what its snapshot holds, while writers keep changing the keys, and some
// of them come from the caches.
func TestMetaCacheReadView(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	defer s.Close()
	db := s.DB(metadata.DefaultNamespace)
	const keys, writes, readers = 4, 5000, 3
	keyNames := make([][]byte, keys)
	for k := range keyNames {
		keyNames[k] = []byte("k" + strconv.Itoa(k))
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan string, readers+keys)
	hits := func() int64 {
		m, _ := s.meta.counts()
		e, _ := s.elements.counts()
		return m + e
	}
	var hit atomic.Int64 // views during which a cache had a hit
	check := func(rv *ReadView) string {
		before := hits()
		nsKeys := make([][]byte, keys)
		for k, key := range keyNames {
			nsKeys[k] = db.nsKey(key)
		}
		metas, err := db.getMetaMany(rv, nsKeys)
		if err != nil {
			return err.Error()
		}
		var subs [][]byte
		err = db.LookupMany(rv, keyNames, func(_ int, o *Object) error {
			if o != nil {
				subs = append(subs, o.Subkey(b("f")))
			}
			return nil
		})
		if err != nil {
			return err.Error()
		}
		fields, err := db.GetElementsAt(rv, subs)
		if err != nil {
			return err.Error()
		}
		if hits() > before {
			hit.Add(1)
		}
		for k, nsKey := range nsKeys {
			want, _, err := s.getAt(rv.snap, CFMetadata, nsKey)
			if err != nil || !bytes.Equal(metas[k], want) {
				return fmt.Sprintf("key %d: metadata %q, the snapshot holds %q (%v)", k, metas[k], want, err)
			}
		}
		for i, sub := range subs {
			want, _, err := s.getAt(rv.snap, CFDefault, sub)
			if err != nil || !bytes.Equal(fields[i], want) {
				return fmt.Sprintf("field %d: %q, the snapshot holds %q (%v)", i, fields[i], want, err)
			}
		}
		return ""
	}
	for r := 0; r < readers; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				rv := db.ReadView()
				msg := check(&rv)
				rv.Release()
				if msg != "" {
					errs <- msg
					return
				}
			}
		}()
	}
	write := func(db DB, key, value []byte) error {
		_, err := db.HSet(key, [][]byte{b("f"), value, b("g" + string(value[len(value)-1:])), value}, false)
		return err
	}
	writeWhileReading(t, s, keys, writes, write, &stop, &wg, errs, &hit)
}

// An empty hash field read at a view is there, empty, whether it comes
// from RocksDB or from the elements cache (which the first read fills).
func TestMetaCacheReadViewEmptyValue(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	defer s.Close()
	db := s.DB(metadata.DefaultNamespace)
	if err := s.Update(&Write{NS: metadata.DefaultNamespace, Keys: [][]byte{b("h")}}, func(in DB) {
		if _, err := in.HSet(b("h"), [][]byte{b("f"), {}}, false); err != nil {
			t.Error(err)
		}
	}); err != nil {
		t.Fatal(err)
	}
	o, err := db.Lookup(b("h"))
	if err != nil || o == nil {
		t.Fatal(o, err)
	}
	sub := o.Subkey(b("f"))
	for _, read := range []string{"from RocksDB", "from the cache"} {
		rv := db.ReadView()
		vals, err := db.GetElementsAt(&rv, [][]byte{sub})
		rv.Release()
		if err != nil || vals[0] == nil || len(vals[0]) != 0 {
			t.Fatalf("%s: %q (nil: %v), %v", read, vals[0], vals[0] == nil, err)
		}
	}
}

// writeWhileReading has writers rewrite keys while the readers counted in
// readers run, then stops them and fails t with the first error they
// reported, or when none of their reads hit a cache (hits).
func writeWhileReading(t *testing.T, s *Storage, keys, writes int, write func(db DB, key, value []byte) error, stop *atomic.Bool, readers *sync.WaitGroup, errs chan string, hits *atomic.Int64) {
	t.Helper()
	setConcurrently(s, keys, writes, write, errs, func(int, int64) {})
	stop.Store(true)
	readers.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if hits.Load() == 0 {
		t.Fatal("no read hit a cache")
	}
}
