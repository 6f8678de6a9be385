package timeseries

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/basaltdb/basalt/reply"

	"github.com/basaltdb/basalt/storage"
	"github.com/basaltdb/basalt/storage/storagetest"
)

func words(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i, w := range s {
		out[i] = []byte(w)
	}
	return out
}

// chunkIDs are the chunk subkeys the series at key holds as stored,
// retention aside.
func chunkIDs(t *testing.T, db storage.DB, key string) []int64 {
	t.Helper()
	s, err := mustLoad(db, nil, []byte(key))
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	if err := (stored{o: s.o}).Forward(0, func(id int64, _ []byte) bool { ids = append(ids, id); return true }); err != nil {
		t.Fatal(err)
	}
	return ids
}

func indexEntries(t *testing.T, db storage.DB) []string {
	t.Helper()
	var out []string
	err := db.ScanRange(nil, storage.CFIndex, nil, nil, func(k, _ []byte) bool {
		e, err := ParseIndexKey(k)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s=%s:%s", e.Label, e.Value, e.Key))
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCompactionFilter: a compaction drops the chunks past a series's
// retention (KVROCKS-TYPES.md §6.5), the rule of a source whose
// destination was deleted, and the index entries of a deleted series and
// of a label value changed, and keeps everything else.
func TestCompactionFilter(t *testing.T) {
	db := storagetest.DB(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	create := func(key string, args ...string) {
		o, err := ParseCreate(words(args...))
		must(err)
		must(Create(db, []byte(key), &o))
	}
	create("r", "RETENTION", "100", "CHUNK_SIZE", "48", "LABELS", "a", "1")
	for ts := int64(0); ts < 200; ts++ {
		_, err := AddSample(db, []byte("r"), &Add{TS: ts, Value: 1, OnDup: PolicyNone})
		must(err)
	}
	create("src", "LABELS", "a", "1")
	create("dst")
	create("gone", "LABELS", "a", "1")
	create("moved", "LABELS", "a", "1")
	src, r, err := ParseCreateRule(words("src", "dst", "AGGREGATION", "sum", "10"))
	must(err)
	must(CreateRule(db, src, &r))
	o, err := ParseAlter(words("LABELS", "a", "2"))
	must(err)
	must(Alter(db, []byte("moved"), &o))
	_, err = db.Del(words("dst", "gone"))
	must(err)
	if got := fmt.Sprint(chunkIDs(t, db, "r")); got != "[0 48 96 144 192]" {
		t.Fatalf("chunks before compacting: %s", got)
	}
	// LabelChanges dropped moved's old entry itself; put one back, as a
	// write that died half-way might leave it.
	b := db.NewBatch(nil)
	b.Put(storage.CFIndex, AppendIndexKey(nil, db.Namespace(), []byte("a"), []byte("1"), []byte("moved")), []byte{})
	must(b.Commit())
	must(db.Storage().Compact())
	if got := fmt.Sprint(chunkIDs(t, db, "r")); got != "[96 144 192]" {
		t.Errorf("chunks after compacting, newest 199 and retention 100: %s", got)
	}
	s, err := mustLoad(db, nil, []byte("src"))
	must(err)
	if len(s.rules) != 0 {
		t.Errorf("the rule to the deleted dst is still there: %q", s.rules[0].Dest)
	}
	if got := fmt.Sprint(indexEntries(t, db)); got != "[a=1:r a=1:src a=2:moved]" {
		t.Errorf("index entries after compacting: %s", got)
	}
}

// TestStoredMatchesMemory: random TS.ADD (in and out of order), TS.MADD
// and TS.DEL on a source with a rule leave the same chunk records and
// chunk counts, source and destination, in RocksDB (through stored, its
// tail and near runs) as in memory (memChunks).
func TestStoredMatchesMemory(t *testing.T) {
	db := storagetest.DB(t)
	mem := newMemDB(t)
	r := rand.New(rand.NewPCG(7, 43))
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	both := func(args ...string) {
		t.Helper()
		mem.exec(reply.NewCapture(2), words(args...))
		a := words(args...)
		var err error
		switch args[0] {
		case "ts.create":
			o, perr := ParseCreate(a[2:])
			must(perr)
			err = Create(db, a[1], &o)
		case "ts.createrule":
			src, rule, perr := ParseCreateRule(a[1:])
			must(perr)
			err = CreateRule(db, src, &rule)
		case "ts.add":
			add, perr := ParseAdd(a[2:])
			must(perr)
			_, err = AddSample(db, a[1], &add)
		case "ts.madd":
			samples, perr := ParseMAdd(a[1:])
			must(perr)
			_, err = MAdd(db, samples, clock)
		case "ts.del":
			d, perr := ParseDel(a[2:])
			must(perr)
			_, err = DeleteRange(db, a[1], &d)
		}
		if err != nil && !isRefusal(err) {
			t.Fatalf("%q: %v", args, err)
		}
	}
	both("ts.create", "src", "CHUNK_SIZE", "48", "DUPLICATE_POLICY", "SUM")
	both("ts.create", "dst", "CHUNK_SIZE", "48")
	both("ts.createrule", "src", "dst", "AGGREGATION", "sum", "10")
	newest := 1000
	ts := func() string {
		if r.IntN(4) == 0 {
			newest += r.IntN(8)
			return fmt.Sprint(newest)
		}
		return fmt.Sprint(r.IntN(newest + 1))
	}
	for step := 0; step < 600; step++ {
		var args []string
		switch k := r.IntN(10); {
		case k < 6:
			args = []string{"ts.add", "src", ts(), fmt.Sprint(r.IntN(5))}
		case k < 9:
			args = []string{"ts.madd"}
			for n := 1 + r.IntN(6); n > 0; n-- {
				args = append(args, "src", ts(), fmt.Sprint(r.IntN(5)))
			}
		default:
			from := r.IntN(newest + 1)
			args = []string{"ts.del", "src", fmt.Sprint(from), fmt.Sprint(from + r.IntN(30))}
		}
		both(args...)
		for _, key := range []string{"src", "dst"} {
			s, err := mustLoad(db, nil, []byte(key))
			must(err)
			var got []string
			must((stored{o: s.o}).Forward(0, func(id int64, v []byte) bool {
				got = append(got, fmt.Sprintf("%d:%x", id, v))
				return true
			}))
			m := mem.series[key]
			var want []string
			for _, id := range m.chunks.ids() {
				want = append(want, fmt.Sprintf("%d:%x", id, m.chunks.vals[id]))
			}
			if !slices.Equal(got, want) || s.o.Meta().Size != m.size {
				t.Fatalf("step %d %q: %s holds %d chunks (size %d), memory %d (size %d)\n%q\n%q",
					step, args, key, len(got), s.o.Meta().Size, len(want), m.size, got, want)
			}
		}
	}
}
