package storage

import (
	"math/rand"
	"strconv"
	"testing"

	"github.com/basaltdb/basalt/metadata"
)

func BenchmarkGet(b *testing.B) {
	s := openTest(b, b.TempDir(), false)
	defer s.Close()
	db := s.DB("__namespace")
	const n = 100000
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = []byte("key:" + strconv.Itoa(i))
	}
	for i := 0; i < n; i += 1000 {
		pairs := make([][]byte, 0, 2000)
		for _, k := range keys[i : i+1000] {
			pairs = append(pairs, k, []byte("xxx"))
		}
		if _, err := db.MSet(pairs, false); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, found, err := db.Get(keys[i%n]); err != nil || !found {
			b.Fatalf("get: found %v, err %v", found, err)
		}
	}
}

func BenchmarkSet(b *testing.B) {
	s := openTest(b, b.TempDir(), false)
	defer s.Close()
	db := s.DB("__namespace")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := db.Set([]byte("key:"+strconv.Itoa(i%100000)), []byte("xxx"), SetArgs{}); err != nil {
			b.Fatal(err)
		}
	}
}

func fillSet(b *testing.B, db DB, key string, n int) {
	for i := 0; i < n; i += 1000 {
		var ms [][]byte
		for j := i; j < i+1000 && j < n; j++ {
			ms = append(ms, []byte("element:"+strconv.Itoa(j)))
		}
		if _, err := db.SAdd([]byte(key), ms); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSPop(b *testing.B) {
	s := openTest(b, b.TempDir(), false)
	defer s.Close()
	db := s.DB("__namespace")
	fillSet(b, db, "s", 20000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := db.SPop([]byte("s"), 1); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkZPopMin(b *testing.B) {
	s := openTest(b, b.TempDir(), false)
	defer s.Close()
	db := s.DB("__namespace")
	for i := 0; i < 20000; i++ {
		if _, err := db.ZAdd([]byte("z"), ZAddFlags{}, []float64{float64(i)}, [][]byte{[]byte("element:" + strconv.Itoa(i))}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := db.ZPop([]byte("z"), false, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkZAdd adds or rescores one member of a growing zset, as
// redis-benchmark's ZADD test does.
func BenchmarkZAdd(b *testing.B) {
	s := openTest(b, b.TempDir(), false)
	defer s.Close()
	db := s.DB("__namespace")
	members := make([][]byte, 100000)
	for i := range members {
		members[i] = []byte("element:" + strconv.Itoa(i))
	}
	scores := []float64{0}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		scores[0] = float64(i)
		if _, err := db.ZAdd([]byte("z"), ZAddFlags{}, scores, members[(i*7919)%len(members):][:1]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMetaCacheGet is a hit of the metadata cache over 200k keys in
// random order, more than the CPU caches hold: what a GET of a hot key
// costs there. The keys are read in sequence, so that finding the next
// key costs no cache miss of its own.
func BenchmarkMetaCacheGet(b *testing.B) {
	const n = 200000
	c := newMetaCache(1<<30, CFMetadata, true, true)
	keys := make([][]byte, n)
	for i, k := range rand.Perm(n) {
		keys[i] = []byte("\x00\x00\x00\x00\x00\x00\x00\x00key:" + strconv.Itoa(k))
		c.fill(keys[i], []byte("\x00\x00\x00\x00\x00\x00\x00\x00\x00value"), true, 0)
	}
	var all []byte // the keys, one after the other, in a fresh order
	var at []int
	for _, i := range rand.Perm(n) {
		at = append(at, len(all))
		all = append(all, keys[i]...)
	}
	at = append(at, len(all))
	var dst []byte
	i := 0
	for b.Loop() {
		j := i % n
		var ok bool
		dst, _, ok, _ = c.get(all[at[j]:at[j+1]], dst[:0])
		if !ok {
			b.Fatal("miss")
		}
		i++
	}
}

// BenchmarkGetAbsent reads, past the metadata cache, keys absent from a
// memtable of 300k records, each between two present ones: what a new
// key's first lookup costs in RocksDB.
func BenchmarkGetAbsent(b *testing.B) {
	s := openTest(b, b.TempDir(), false)
	defer s.Close()
	db := s.DB("__namespace")
	const n = 300000
	for i := 0; i < n; i += 1000 {
		var pairs [][]byte
		for j := i; j < i+1000; j++ {
			pairs = append(pairs, []byte("key:"+strconv.Itoa(j)), []byte("xxx"))
		}
		if _, err := db.MSet(pairs, false); err != nil {
			b.Fatal(err)
		}
	}
	keys := make([][]byte, 100000)
	for i := range keys {
		keys[i] = db.nsKey([]byte("key:" + strconv.Itoa(i*7919%n) + "x"))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, found, err := s.getWith(s.readOpts, CFMetadata, keys[i%len(keys)], nil); err != nil || found {
			b.Fatalf("get: found %v, err %v", found, err)
		}
	}
}

// BenchmarkGroupLoop is a consumer group's work loop, one client: each
// iteration reads the next entry for one of 50 consumers (XREADGROUP
// COUNT 1) and acknowledges it (XACK). Dense streams have 50 entries per
// millisecond, sparse ones one.
func BenchmarkGroupLoop(b *testing.B) {
	for _, perMs := range []int{50, 1} {
		name := map[int]string{50: "dense", 1: "sparse"}[perMs]
		b.Run(name, func(b *testing.B) {
			s := openTest(b, b.TempDir(), false)
			defer s.Close()
			db := s.DB("__namespace")
			key := []byte("groupstream")
			for i := 0; i < b.N; i++ {
				id := metadata.StreamID{Ms: uint64(1000 + i/perMs), Seq: uint64(i % perMs)}
				if _, _, err := db.XAdd(key, &XAddArgs{ID: id}, [][]byte{[]byte("job"), []byte(strconv.Itoa(i))}); err != nil {
					b.Fatal(err)
				}
			}
			if err := db.XGroupCreate(key, []byte("workers"), XGroupCreateArgs{}); err != nil {
				b.Fatal(err)
			}
			consumers := make([][]byte, 50)
			for i := range consumers {
				consumers[i] = []byte("c" + strconv.Itoa(i))
			}
			b.ResetTimer()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				entries, _, err := db.XReadGroup(key, &XReadGroupArgs{Group: []byte("workers"), Consumer: consumers[i%50], Count: 1})
				if err != nil || len(entries) != 1 {
					b.Fatalf("XReadGroup: %v, %d entries", err, len(entries))
				}
				if n, err := db.XAck(key, []byte("workers"), []metadata.StreamID{entries[0].ID}); err != nil || n != 1 {
					b.Fatalf("XAck: %v, %d", err, n)
				}
			}
		})
	}
}

// fillHash writes n fields into hash key, with a TTL of an hour on every
// tenth when ttls is set.
func fillHash(b *testing.B, db DB, key string, n int, ttls bool) [][]byte {
	fields := make([][]byte, n)
	for i := 0; i < n; i += 1000 {
		var pairs [][]byte
		for j := i; j < i+1000 && j < n; j++ {
			fields[j] = []byte("field:" + strconv.Itoa(j))
			pairs = append(pairs, fields[j], []byte("xxx"))
		}
		if _, err := db.HSet([]byte(key), pairs, false); err != nil {
			b.Fatal(err)
		}
	}
	if ttls {
		var some [][]byte
		for j := 0; j < n; j += 10 {
			some = append(some, fields[j])
		}
		if _, err := db.HExpire([]byte(key), some, nowMs()+3600_000, ExpireCond{}); err != nil {
			b.Fatal(err)
		}
	}
	return fields
}

// BenchmarkHGet reads fields of a hash without field TTLs (Plain) and of
// one with a TTL on a tenth of its fields (FieldTTLs): a hash without
// field TTL must cost what it did before field expiration existed.
func BenchmarkHGet(b *testing.B) {
	for _, ttls := range []bool{false, true} {
		b.Run(map[bool]string{false: "Plain", true: "FieldTTLs"}[ttls], func(b *testing.B) {
			s := openTest(b, b.TempDir(), false)
			defer s.Close()
			db := s.DB("__namespace")
			fields := fillHash(b, db, "h", 10000, ttls)
			b.ResetTimer()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, found, err := db.HGet([]byte("h"), fields[i%len(fields)]); err != nil || !found {
					b.Fatalf("hget: found %v, err %v", found, err)
				}
			}
		})
	}
}

// BenchmarkHashReads runs the other reads of a hash on one without field
// TTLs (Plain) and on one with a TTL on a tenth of its fields
// (FieldTTLs), after a compaction, so that both read one version of each
// field: HMGET of 10 fields, HLEN, a 10-field HSCAN page, HGETALL of a
// 100-field hash, HRANDFIELD of one field.
func BenchmarkHashReads(b *testing.B) {
	reads := []struct {
		name string
		read func(db DB, key []byte, fields [][]byte, i int) error
	}{
		{"HMGet10", func(db DB, key []byte, fields [][]byte, i int) error {
			at := i * 10 % (len(fields) - 10)
			_, err := db.HMGet(key, fields[at:at+10])
			return err
		}},
		{"HLen", func(db DB, key []byte, _ [][]byte, _ int) error {
			_, err := db.Len(key, metadata.TypeHash)
			return err
		}},
		{"HScan10", func(db DB, key []byte, fields [][]byte, i int) error {
			_, _, err := db.ScanElements(key, metadata.TypeHash, fields[i%len(fields)], nil, 10)
			return err
		}},
		{"HGetAllSmall", func(db DB, _ []byte, _ [][]byte, _ int) error {
			_, err := db.Walk([]byte("small"), metadata.TypeHash, func(_, _ []byte) {})
			return err
		}},
		{"HRandField", func(db DB, key []byte, _ [][]byte, _ int) error {
			return db.RandomElements(key, metadata.TypeHash, 1, true, func(int64, []Element) bool { return true })
		}},
	}
	for _, ttls := range []bool{false, true} {
		s := openTest(b, b.TempDir(), false)
		db := s.DB("__namespace")
		fields := fillHash(b, db, "h", 10000, ttls)
		fillHash(b, db, "small", 100, ttls)
		if err := s.Compact(); err != nil {
			b.Fatal(err)
		}
		for _, r := range reads {
			b.Run(r.name+"/"+map[bool]string{false: "Plain", true: "FieldTTLs"}[ttls], func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if err := r.read(db, []byte("h"), fields, i); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		s.Close()
	}
}

// BenchmarkHSet overwrites fields of a hash without field TTLs.
func BenchmarkHSet(b *testing.B) {
	s := openTest(b, b.TempDir(), false)
	defer s.Close()
	db := s.DB("__namespace")
	fields := fillHash(b, db, "h", 10000, false)
	v := []byte("yyy")
	b.ResetTimer()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := db.HSet([]byte("h"), [][]byte{fields[i%len(fields)], v}, false); err != nil {
			b.Fatal(err)
		}
	}
}
