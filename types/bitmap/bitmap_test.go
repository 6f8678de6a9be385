package bitmap

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
	"github.com/basaltdb/basalt/storage/storagetest"
)

func b(s string) []byte { return []byte(s) }

// mustLookup returns the live key's Object.
func mustLookup(t testing.TB, db storage.DB, key string) *storage.Object {
	t.Helper()
	o, err := db.Lookup(b(key))
	if err != nil || o == nil {
		t.Fatalf("lookup %s: %v %v", key, o, err)
	}
	return o
}

// countSegments counts the records of keys' segments as stored.
func countSegments(t testing.TB, db storage.DB, keys ...string) int {
	t.Helper()
	n := 0
	for _, k := range keys {
		if err := mustLookup(t, db, k).Each(nil, storage.CFDefault, nil, 0, func(_, _ []byte) bool { n++; return true }); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// bitmapVersion returns the version in key's bitmap metadata.
func bitmapVersion(t testing.TB, db storage.DB, key string) uint64 {
	t.Helper()
	m, _, err := metadata.Decode(storagetest.Record(t, db, storage.CFMetadata, mustLookup(t, db, key).NSKey()))
	if err != nil || m.Type != metadata.TypeBitmap {
		t.Fatalf("metadata of %s: %+v %v", key, m, err)
	}
	return m.Version
}

// TestSetBitFormat: SETBIT on an absent key writes exactly FORMAT.md §10's
// records, and segments grow as Kvrocks grows them (the lengths its WAL
// shows for the same commands).
func TestSetBitFormat(t *testing.T) {
	s := storagetest.Open(t)
	db := s.DB(metadata.DefaultNamespace)
	if old, err := SetBit(db, b("b"), 10, true); err != nil || old != 0 {
		t.Fatalf("SetBit = %d %v", old, err)
	}
	v := bitmapVersion(t, db, "b")
	meta := storagetest.Record(t, db, storage.CFMetadata, storagetest.WithVersion(t, "0b5f5f6e616d657370616365 62", v))
	if want := storagetest.WithVersion(t, "86 0000000000000000 305120c0f2000001 0000000000000002", v); !bytes.Equal(meta, want) {
		t.Errorf("metadata %x, want %x", meta, want)
	}
	seg := storagetest.Record(t, db, storage.CFDefault, storagetest.WithVersion(t, "0b5f5f6e616d657370616365 00000001 62 305120c0f2000001 30", v))
	if want := []byte{0x00, 0x04}; !bytes.Equal(seg, want) {
		t.Errorf("segment %x, want %x", seg, want)
	}

	// Growth: bytes 0, 1, 2 make a segment of 1, 2 then 4 bytes; a first
	// write at byte 452 of a segment makes it 453; 2^32-1 is segment
	// "536869888"'s last bit.
	for _, tt := range []struct {
		offset  uint64
		segment string
		length  int
		size    uint64
	}{
		{0, "0", 1, 1}, {8, "0", 2, 2}, {16, "0", 4, 3}, {24, "0", 4, 4}, {40, "0", 8, 6},
		{20000, "2048", 453, 2501}, {2748 * 8, "2048", 906, 2749}, {3048 * 8, "2048", 1024, 3049}, {1<<32 - 1, "536869888", 1024, 1 << 29},
	} {
		if _, err := SetBit(db, b("g"), tt.offset, true); err != nil {
			t.Fatal(err)
		}
		v := bitmapVersion(t, db, "g")
		sub := metadata.Layout{}.AppendInternalKey(nil, metadata.DefaultNamespace, b("g"), v, b(tt.segment))
		if got := storagetest.Record(t, db, storage.CFDefault, sub); len(got) != tt.length {
			t.Errorf("after SETBIT g %d: segment %s has %d bytes, want %d", tt.offset, tt.segment, len(got), tt.length)
		}
		if m := mustLookup(t, db, "g").Meta(); m.Size != tt.size {
			t.Errorf("after SETBIT g %d: size %d, want %d", tt.offset, m.Size, tt.size)
		}
	}
}

// TestBitsOnStringsAndBitmaps: the same writes through a string and a
// bitmap read back as the same Redis string, and a string stays a string.
func TestBitsOnStringsAndBitmaps(t *testing.T) {
	db := storagetest.DB(t)
	db.Set(b("s"), b(""), storage.SetArgs{})
	offsets := []uint64{3, 9, 8191, 8192, 8200, 70000, 5}
	for _, k := range []string{"s", "m"} {
		for _, off := range offsets {
			if _, err := SetBit(db, b(k), off, true); err != nil {
				t.Fatal(err)
			}
		}
		if old, _ := SetBit(db, b(k), 9, false); old != 1 {
			t.Fatalf("%s: SetBit 9 returned %d", k, old)
		}
	}
	if typ, _ := db.Type(b("s")); typ != metadata.TypeString {
		t.Errorf("s became %v", typ)
	}
	if typ, _ := db.Type(b("m")); typ != metadata.TypeBitmap {
		t.Errorf("m is %v, want a bitmap", typ)
	}
	sv, _, err1 := db.Get(b("s"))
	mv, _, err2 := db.Get(b("m"))
	if err1 != nil || err2 != nil || !bytes.Equal(sv, mv) || len(sv) != 70000/8+1 {
		t.Fatalf("GET differs: %v %v, %d and %d bytes", err1, err2, len(sv), len(mv))
	}
	if sv[0] != 0x10|0x04 || sv[1] != 0 {
		t.Errorf("string bytes %x", sv[:2])
	}
	for _, k := range []string{"s", "m"} {
		r, err := Read(db, b(k))
		if err != nil {
			t.Fatal(err)
		}
		n, _ := r.Count(0, r.Len()-1, 0, 0)
		p, _ := r.Pos(1, 2, r.Len()-1, 0, 0)
		bit, _ := r.Bit(8192)
		r.Close()
		if n != 6 || p != 8191 || bit != 1 {
			t.Errorf("%s: count %d, first set bit from byte 2 %d, bit 8192 %d", k, n, p, bit)
		}
	}
	if _, err := SetBit(db, b("h"), 1, true); err != nil {
		t.Fatal(err)
	}
	db.HSet(b("hash"), [][]byte{b("f"), b("v")}, false)
	if _, err := SetBit(db, b("hash"), 1, true); !errors.Is(err, storage.ErrWrongType) {
		t.Errorf("SetBit on a hash: %v", err)
	}
	if _, err := Read(db, b("hash")); !errors.Is(err, storage.ErrWrongType) {
		t.Errorf("ReadBits of a hash: %v", err)
	}
}

// TestBitmapTooLargeForGet: GET renders a bitmap up to
// max-bitmap-to-string-mb and refuses a longer one, as Kvrocks.
func TestBitmapTooLargeForGet(t *testing.T) {
	s := storagetest.Open(t)
	db := s.DB(metadata.DefaultNamespace)
	if err := s.Config().Set("max-bitmap-to-string-mb", "1"); err != nil {
		t.Fatal(err)
	}
	SetBit(db, b("fits"), 8<<20-1, true)
	SetBit(db, b("over"), 8<<20, true)
	if v, found, err := db.Get(b("fits")); err != nil || !found || len(v) != 1<<20 || v[len(v)-1] != 1 {
		t.Fatalf("GET of a 1 MB bitmap: %d bytes, %v %v", len(v), found, err)
	}
	if _, _, err := db.Get(b("over")); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("GET of a bitmap over the limit: %v", err)
	}
	// StrLen reads no segment: it has no limit.
	for k, want := range map[string]int64{"fits": 1 << 20, "over": 1<<20 + 1, "none": 0} {
		if n, err := db.StrLen(b(k)); err != nil || n != want {
			t.Errorf("StrLen(%s) = %d %v, want %d", k, n, err, want)
		}
	}
	db.HSet(b("h"), [][]byte{b("f"), b("v")}, false)
	if _, err := db.StrLen(b("h")); !errors.Is(err, storage.ErrWrongType) {
		t.Errorf("StrLen of a hash: %v", err)
	}
}

// TestBigBitmapReadsBySegment: BITCOUNT and BITPOS over a 100 MB bitmap
// read it one segment at a time: they allocate a small fraction of it.
func TestBigBitmapReadsBySegment(t *testing.T) {
	s := storagetest.Open(t)
	db := s.DB(metadata.DefaultNamespace)
	const size = 100 << 20
	if _, err := SetBit(db, b("big"), size*8-1, true); err != nil {
		t.Fatal(err)
	}
	bm := &bitmap{Object: mustLookup(t, db, "big"), db: db}
	seg := bytes.Repeat([]byte{0xff}, metadata.BitmapSegmentBytes)
	start := time.Now()
	for from := uint64(0); from < size/metadata.BitmapSegmentBytes-1; from += 4096 {
		wb := db.NewBatch(nil)
		for i := from; i < min(from+4096, size/metadata.BitmapSegmentBytes-1); i++ {
			wb.Put(storage.CFDefault, bm.segKey(i), seg)
		}
		if err := wb.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	// A clear bit in the middle, and the last segment as SETBIT made it.
	mid := uint64(size / 2 * 8)
	SetBit(db, b("big"), mid+3, false)
	t.Logf("wrote 100 MB in %s", time.Since(start).Round(time.Millisecond))

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := Read(db, b("big"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n, err := r.Count(0, r.Len()-1, 0, 0)
	// Every segment but the last full, less the cleared bit, plus the
	// last segment's one bit.
	if err != nil || n != (size-metadata.BitmapSegmentBytes)*8 {
		t.Errorf("BITCOUNT = %d %v", n, err)
	}
	p, err := r.Pos(0, 0, r.Len()-1, 0, 0)
	if err != nil || uint64(p) != mid+3 {
		t.Errorf("BITPOS 0 = %d %v, want %d", p, err, mid+3)
	}
	p, err = r.Pos(1, size-metadata.BitmapSegmentBytes, r.Len()-1, 0, 0)
	if err != nil || p != size*8-1 {
		t.Errorf("BITPOS 1 in the last segment = %d %v", p, err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("BITCOUNT and BITPOS over 100 MB allocated %d MB", alloc>>20)
	}
}

// TestBitmapZeroSegmentsCompacted: a segment whose bits were all cleared
// is dropped by compaction (FORMAT.md §6), and nothing a client reads
// changes.
func TestBitmapZeroSegmentsCompacted(t *testing.T) {
	s := storagetest.Open(t)
	db := s.DB(metadata.DefaultNamespace)
	SetBit(db, b("z"), 5, true)
	SetBit(db, b("z"), 9000, true)
	SetBit(db, b("z"), 20000, true)
	SetBit(db, b("z"), 9000, false) // segment "1024" is all zeros now
	SetBit(db, b("keep"), 9000, true)
	SetBit(db, b("keep"), 9000, false)
	SetBit(db, b("keep"), 9001, true)
	read := func() string {
		v, _, err := db.Get(b("z"))
		if err != nil {
			t.Fatal(err)
		}
		r, _ := Read(db, b("z"))
		defer r.Close()
		n, _ := r.Count(0, r.Len()-1, 0, 0)
		p, _ := r.Pos(1, 1, r.Len()-1, 0, 0)
		return fmt.Sprintf("%x count %d first %d", v, n, p)
	}
	before := read()
	if got := countSegments(t, db, "z", "keep"); got != 4 {
		t.Fatalf("%d segments before compaction", got)
	}
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	if got := countSegments(t, db, "z", "keep"); got != 3 {
		t.Errorf("%d segments after compaction, want 3 (the zero one dropped)", got)
	}
	if after := read(); after != before {
		t.Errorf("read %s after compaction, %s before", after, before)
	}
}

// TestValue: DUMP's whole value of a bitmap is the Redis string of its
// bits.
func TestValue(t *testing.T) {
	db := storagetest.DB(t)
	if _, err := SetBit(db, b("bm"), 9, true); err != nil {
		t.Fatal(err)
	}
	v, _, err := db.ReadValue(b("bm"))
	if err != nil || v.Type != metadata.TypeString || string(v.Str) != "\x00\x40" {
		t.Fatalf("ReadValue(bitmap) = %+v, %v", v, err)
	}
}

// TestSetBitReadsCached: a SETBIT of a segment read before finds its
// metadata and its segment in the caches.
func TestSetBitReadsCached(t *testing.T) {
	s := storagetest.Open(t)
	db := s.DB(metadata.DefaultNamespace)
	misses := func() uint64 {
		for _, st := range s.MemoryStats() {
			if st.Name == "metadata_cache_misses" {
				return st.Value
			}
		}
		t.Fatal("no metadata_cache_misses")
		return 0
	}
	for i, want := range []int{0, 1} {
		if old, err := SetBit(db, b("bits"), 7, true); err != nil || old != want {
			t.Fatalf("SETBIT %d: %d %v", i, old, err)
		}
	}
	before := misses()
	if old, err := SetBit(db, b("bits"), 6, true); err != nil || old != 0 {
		t.Fatalf("SETBIT: %d %v", old, err)
	}
	if n := misses() - before; n != 0 {
		t.Fatalf("SETBIT missed the caches %d times", n)
	}
}

// BenchmarkBits: SETBIT and GETBIT on one bitmap of 64 KB, at offsets
// spread over its segments, and BITCOUNT of the whole of it.
func BenchmarkBits(b *testing.B) {
	s := storagetest.Open(b)
	db := s.DB(metadata.DefaultNamespace)
	const bits = 64 << 13
	for off := uint64(0); off < bits; off += 4099 {
		if _, err := SetBit(db, []byte("bm"), off, true); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("SetBit", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := SetBit(db, []byte("bm"), uint64(i*7919)%bits, i&1 == 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("SetBitNewKey", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := SetBit(db, []byte("new:"+strconv.Itoa(i)), 7, true); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("GetBit", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			r, err := Read(db, []byte("bm"))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := r.Bit(uint64(i*7919) % bits); err != nil {
				b.Fatal(err)
			}
			r.Close()
		}
	})
	b.Run("BitCount", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			r, err := Read(db, []byte("bm"))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := r.Count(0, r.Len()-1, 0, 0); err != nil {
				b.Fatal(err)
			}
			r.Close()
		}
	})
}

// TestBitOpRedis82: REDIS-NEW.md §4's worked bytes, X = f0 and Y = 0f 55,
// on strings and on bitmaps (whose segments follow the ops' own rules).
func TestBitOpRedis82(t *testing.T) {
	db := storagetest.DB(t)
	db.Set(b("x"), []byte{0xf0}, storage.SetArgs{})
	db.Set(b("y"), []byte{0x0f, 0x55}, storage.SetArgs{})
	for i := uint64(0); i < 16; i++ {
		if i < 8 && 0xf0&(0x80>>i) != 0 {
			SetBit(db, b("bx"), i, true)
		}
		if (uint16(0x0f55)<<i)&0x8000 != 0 {
			SetBit(db, b("by"), i, true)
		}
	}
	for _, tt := range []struct {
		op   OpKind
		want []byte
	}{{Diff, []byte{0xf0, 0}}, {Diff1, []byte{0x0f, 0x55}}, {AndOr, []byte{0, 0}}, {One, []byte{0xff, 0x55}}} {
		for _, src := range [][]string{{"x", "y"}, {"bx", "by"}, {"x", "by"}} {
			n, err := Op(db, tt.op, b("op"), b("d"), [][]byte{b(src[0]), b(src[1])})
			got, _, _ := db.Get(b("d"))
			if n != 2 || err != nil || !bytes.Equal(got, tt.want) {
				t.Errorf("op %d on %v: %d %v %x, want %x", tt.op, src, n, err, got, tt.want)
			}
		}
	}
	if n, _ := Op(db, One, b("one"), b("d"), [][]byte{b("y")}); n != 2 {
		t.Fatalf("ONE of one source: %d", n)
	}
	if got, _, _ := db.Get(b("d")); !bytes.Equal(got, []byte{0x0f, 0x55}) {
		t.Fatalf("ONE of one source: %x", got)
	}
}
