package timeseries

import (
	"bytes"
	"math"
	"testing"

	"github.com/basaltdb/basalt/reply"
)

// FuzzStored decodes arbitrary bytes as every stored record of a series
// (metadata extension, chunk, rule, label index key) and walks a series
// whose chunks are those bytes: nothing may panic, and what decodes
// must encode back to the same bytes.
func FuzzStored(f *testing.F) {
	m := NewMeta()
	f.Add(m.AppendTo(nil))
	f.Add(AppendChunk(nil, []Sample{{1, 2}, {3, 4}}))
	r := NewRule([]byte("d"), AggAvg, 10, 0)
	f.Add(r.AppendValue(nil))
	f.Add(AppendIndexKey(nil, "ns", []byte("l"), []byte("v"), []byte("k")))
	f.Fuzz(func(t *testing.T, b []byte) {
		if m, err := DecodeMeta(b); err == nil {
			if got := m.AppendTo(nil); !bytes.Equal(got, b) && !(m.HasLast && m.IgnoreTime == 0 && m.IgnoreValue == 0 && len(b) > len(got)) {
				t.Fatalf("meta %x re-encoded as %x", b, got)
			}
		}
		if ch, err := ParseChunk(b); err == nil {
			if got := AppendChunk(nil, ch.Samples()); !bytes.Equal(got, b) {
				t.Fatalf("chunk %x re-encoded as %x", b, got)
			}
		}
		if r, err := DecodeRule([]byte{kindDownstream, 'd'}, b); err == nil {
			r.Latest()
			r.AppendValue(nil)
		}
		if e, err := ParseIndexKey(b); err == nil && len(e.NS) < 256 {
			if got := AppendIndexKey(nil, string(e.NS), e.Label, e.Value, e.Key); !bytes.Equal(got, b) {
				t.Fatalf("index key %x re-encoded as %x", b, got)
			}
		}
		ChunkPastRetention(&Meta{Retention: 10, LastTimestamp: 100, HasLast: true}, b)
		// A series whose two chunks hold these bytes.
		mem := newMemChunks()
		mem.vals[0], mem.vals[50] = b, b
		meta := NewMeta()
		meta.ChunkSize = 2
		for _, q := range []Query{
			{From: 0, To: math.MaxInt64},
			{From: 0, To: math.MaxInt64, Reverse: true, Agg: AggTWA, Bucket: 7, Empty: true},
		} {
			n := 0 // EMPTY over a huge gap is long: a client's output limit ends it
			q.Run(Source{Chunks: mem, Meta: &meta}, func(Sample) bool { n++; return n < 1000 })
		}
		s := OpenSeries([]byte("k"), meta, 2, []Rule{NewRule([]byte("d"), AggSum, 5, 0)}, mem)
		s.Add(Sample{TS: 25, V: 1}, PolicyLast)
		s.Add(Sample{TS: 60, V: 1}, PolicySum)
		s.Delete(0, 30)
		s.Changes()
	})
}

// FuzzCommand parses arbitrary arguments as every TS command and runs
// the parsed ones on a small database: nothing may panic.
func FuzzCommand(f *testing.F) {
	for _, line := range []string{
		"TS.ADD k 10 1 RETENTION 5 LABELS a b",
		"TS.RANGE k - + ALIGN start AGGREGATION twa 10 BUCKETTIMESTAMP mid EMPTY",
		"TS.MRANGE - + WITHLABELS FILTER a=(b,c) x!= GROUPBY a REDUCE std.s",
		"TS.MADD k 1 2 k 3 4",
		"TS.CREATERULE k d AGGREGATION avg 10 3",
		"TS.DEL k 0 5",
		"TS.MGET SELECTED_LABELS a FILTER a=b",
		"TS.INCRBY k 1 TIMESTAMP 20",
	} {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words := bytes.Fields([]byte(line))
		if len(words) == 0 || len(words) > 40 {
			return
		}
		db := newMemDB(t)
		setup := [][][]byte{
			fields("TS.CREATE k CHUNK_SIZE 48 LABELS a b"),
			fields("TS.CREATE d"),
			fields("TS.CREATERULE k d AGGREGATION sum 10"),
			fields("TS.MADD k 1 1 k 2 2 k 30 3"),
		}
		for _, args := range setup {
			db.exec(reply.NewCapture(3), args)
		}
		name := bytes.ToUpper(words[0])
		if !bytes.HasPrefix(name, []byte("TS.")) || !knownCommand(string(name)) {
			return
		}
		for _, proto := range []int{2, 3} {
			db.exec(reply.NewCapture(proto), words)
		}
	})
}

func fields(s string) [][]byte { return bytes.Fields([]byte(s)) }

func knownCommand(name string) bool {
	switch name {
	case "TS.CREATE", "TS.ALTER", "TS.ADD", "TS.MADD", "TS.INCRBY", "TS.DECRBY", "TS.DEL", "TS.GET",
		"TS.RANGE", "TS.REVRANGE", "TS.MGET", "TS.MRANGE", "TS.MREVRANGE", "TS.QUERYINDEX", "TS.INFO",
		"TS.CREATERULE", "TS.DELETERULE":
		return true
	}
	return false
}
