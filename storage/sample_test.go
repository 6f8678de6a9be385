package storage

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/basaltdb/basalt/metadata"
)

// drawAll collects a draw, checking what every caller of RandomElements
// relies on: chunks of at most SampleChunk, the same total in every call,
// and exactly total elements in all.
func drawAll(db DB, key []byte, t metadata.Type, count int64, distinct bool) ([]Element, error) {
	var out []Element
	total := int64(-1)
	var bad error
	err := db.RandomElements(key, t, count, distinct, func(n int64, chunk []Element) bool {
		switch {
		case total != -1 && n != total:
			bad = fmt.Errorf("total changed from %d to %d", total, n)
		case len(chunk) == 0 || len(chunk) > SampleChunk:
			bad = fmt.Errorf("chunk of %d elements", len(chunk))
		}
		total = n
		out = append(out, chunk...)
		return bad == nil
	})
	if err == nil {
		err = bad
	}
	if err == nil && total != -1 && int64(len(out)) != total {
		err = fmt.Errorf("announced %d elements, handed %d", total, len(out))
	}
	return out, err
}

// makeSet makes a set of n members "m00000", "m00001", ...
func makeSet(t *testing.T, db DB, key string, n int) map[string]bool {
	t.Helper()
	members := map[string]bool{}
	var batch [][]byte
	for i := 0; i < n; i++ {
		m := fmt.Sprintf("m%05d", i)
		members[m] = true
		batch = append(batch, b(m))
	}
	if n > 0 {
		if _, err := db.SAdd(b(key), batch); err != nil {
			t.Fatal(err)
		}
	}
	return members
}

func TestRandomElementsCounts(t *testing.T) {
	db := newTestDB(t)
	for _, size := range []int{0, 1, 5, 1024, 1500, 5000} {
		key := fmt.Sprint("set", size)
		members := makeSet(t, db, key, size)
		for _, count := range []int64{0, 1, 3, int64(size) - 1, int64(size), int64(size) + 1, 1023, 1024, 1025, 2049, 3000, math.MaxInt64 / 2} {
			if count < 0 {
				continue
			}
			for _, distinct := range []bool{true, false} {
				if !distinct && count > 1<<20 {
					continue // repeats produce count elements
				}
				t.Run(fmt.Sprintf("size=%d/count=%d/distinct=%v", size, count, distinct), func(t *testing.T) {
					elems, err := drawAll(db, b(key), metadata.TypeSet, count, distinct)
					if err != nil {
						t.Fatal(err)
					}
					want := count
					if distinct || size == 0 {
						want = min(count, int64(size))
					}
					if int64(len(elems)) != want {
						t.Fatalf("%d elements, want %d", len(elems), want)
					}
					got := map[string]bool{}
					for _, e := range elems {
						if !members[string(e.Sub)] {
							t.Fatalf("drew %q, not a member", e.Sub)
						}
						if distinct && got[string(e.Sub)] {
							t.Fatalf("distinct draw repeated %q", e.Sub)
						}
						got[string(e.Sub)] = true
					}
				})
			}
		}
	}
}

// A count in the trillions is produced chunk by chunk: the draw stops as
// soon as the consumer does, having held one chunk at a time. Before
// chunking, this allocated count positions and ended the process.
func TestRandomElementsHugeCountIsStreamed(t *testing.T) {
	db := newTestDB(t)
	makeSet(t, db, "one", 1)
	makeSet(t, db, "big", 5000)
	for _, key := range []string{"one", "big"} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		chunks, elems := 0, 0
		err := db.RandomElements(b(key), metadata.TypeSet, 1<<40, false, func(total int64, chunk []Element) bool {
			if total != 1<<40 {
				t.Fatalf("total %d", total)
			}
			chunks++
			elems += len(chunk)
			return chunks < 200
		})
		runtime.ReadMemStats(&after)
		if err != nil || chunks != 200 || elems != 200*SampleChunk {
			t.Fatalf("%s: %d chunks, %d elements, %v", key, chunks, elems, err)
		}
		// The chunks are garbage once handed over; what stays allocated
		// is far below what 2^40 draws (or even 200 chunks) would need.
		if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > 64<<20 {
			t.Fatalf("%s: heap grew %d bytes", key, grew)
		}
	}
}

func TestRandomElementsLookUniform(t *testing.T) {
	db := newTestDB(t)
	makeSet(t, db, "three", 3)
	makeSet(t, db, "ten", 10)
	hits := map[string]int{}
	elems, err := drawAll(db, b("three"), metadata.TypeSet, 30000, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range elems {
		hits[string(e.Sub)]++
	}
	for m, n := range hits {
		if n < 9000 || n > 11000 {
			t.Fatalf("30000 draws from 3 members: %s drawn %d times (%v)", m, n, hits)
		}
	}
	// Distinct draws of 3 out of 10, 5000 times: every member about 1500
	// times, and the draw is in random order.
	hits = map[string]int{}
	firsts := map[string]int{}
	for i := 0; i < 5000; i++ {
		elems, err := drawAll(db, b("ten"), metadata.TypeSet, 3, true)
		if err != nil || len(elems) != 3 {
			t.Fatalf("%d elements, %v", len(elems), err)
		}
		firsts[string(elems[0].Sub)]++
		for _, e := range elems {
			hits[string(e.Sub)]++
		}
	}
	for m, n := range hits {
		if n < 1200 || n > 1800 || firsts[m] < 350 || firsts[m] > 650 {
			t.Fatalf("member %s drawn %d times, %d times first (%v %v)", m, n, firsts[m], hits, firsts)
		}
	}
}

// inflateSize makes a set's metadata count size elements whatever it
// holds, as a corrupt record would.
func inflateSize(t *testing.T, db DB, key string, size uint64) {
	t.Helper()
	c, err := db.forWrite(b(key), metadata.TypeSet)
	if err != nil || !c.exists {
		t.Fatal(err)
	}
	c.meta.Size = size
	bt := db.newBatch(nil)
	c.saveMeta(bt)
	if err := bt.commit(); err != nil {
		t.Fatal(err)
	}
}

// A collection holding fewer elements than its metadata counts never makes
// a draw announce a total it does not hand over, nor loop for ever looking
// for elements that are not there.
func TestRandomElementsWithInflatedMetadata(t *testing.T) {
	db := newTestDB(t)
	makeSet(t, db, "few", 3)
	inflateSize(t, db, "few", 3000)
	makeSet(t, db, "some", 1100)
	inflateSize(t, db, "some", 100000)
	tests := []struct {
		key      string
		count    int64
		distinct bool
		short    bool // more than one chunk was promised
	}{
		{"few", 5000, false, false},
		{"few", 2000, true, false},
		{"few", math.MaxInt64 / 2, true, false},
		{"some", 2000, true, true},   // seeks, and runs out of new elements
		{"some", 100000, true, true}, // walks, and runs out of elements
		{"some", 3000, false, false}, // seeks with repeats: always finds some
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d/%v", tt.key, tt.count, tt.distinct), func(t *testing.T) {
			elems, err := drawAll(db, b(tt.key), metadata.TypeSet, tt.count, tt.distinct)
			if tt.short {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("draw of %d: %d elements, err %v; want ErrCorrupt", tt.count, len(elems), err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Ranges by rank announce their length before the first element; one that
// finds fewer elements than its metadata counts says so instead of
// handing over fewer than it announced.
func TestRangesAnnounceTheirLength(t *testing.T) {
	db := newTestDB(t)
	var elems, members [][]byte
	var scores []float64
	for i := 0; i < 3000; i++ {
		elems = append(elems, b(fmt.Sprint(i)))
		members = append(members, b(fmt.Sprintf("m%05d", i)))
		scores = append(scores, float64(i))
	}
	if _, err := db.Push(b("l"), elems, false, false); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ZAdd(b("z"), ZAddFlags{}, scores, members); err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]int64{{0, -1}, {-10, math.MaxInt64}, {math.MinInt64, 4}, {2999, 2999}, {5, 4}} {
		want := int64(0)
		if from, to, ok := listRange(3000, r[0], r[1]); ok {
			want = to - from + 1
		}
		n := int64(0)
		err := db.LRange(b("l"), r[0], r[1], func(total int64, elem []byte) bool {
			if total != want {
				t.Fatalf("LRANGE %v: total %d, want %d", r, total, want)
			}
			n++
			return true
		})
		if err != nil || n != want {
			t.Fatalf("LRANGE %v: %d elements, %v", r, n, err)
		}
		n = 0
		err = db.ZRangeWalk(b("z"), ZRange{By: ByRank, Start: r[0], Stop: r[1], Count: -1}, func(total int64, m []byte, s float64) bool {
			if total != want {
				t.Fatalf("ZRANGE %v: total %d, want %d", r, total, want)
			}
			n++
			return true
		})
		if err != nil || n != want {
			t.Fatalf("ZRANGE %v: %d members, %v", r, n, err)
		}
	}
	// A list whose metadata counts more elements than it holds.
	c, err := db.forWrite(b("l"), metadata.TypeList)
	if err != nil {
		t.Fatal(err)
	}
	c.meta.Size, c.meta.Tail = 5000, c.meta.Head+5000
	bt := db.newBatch(nil)
	c.saveMeta(bt)
	if err := bt.commit(); err != nil {
		t.Fatal(err)
	}
	n := 0
	err = db.LRange(b("l"), 0, -1, func(total int64, elem []byte) bool {
		n++
		return total == 5000
	})
	if !errors.Is(err, ErrCorrupt) || n != 3000 {
		t.Fatalf("LRANGE of a list holding fewer elements than counted: %d elements, %v", n, err)
	}
	// Stopping early is not a shortfall.
	if err := db.LRange(b("l"), 0, -1, func(int64, []byte) bool { return false }); err != nil {
		t.Fatal(err)
	}
}
