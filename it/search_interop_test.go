package it

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"
)

// searchInteropWorkload builds an index of hashes with tags, numbers and
// 4-dimensional vectors, and one of JSON documents, changes some documents, and returns the writes
// and the reads whose answers both servers must agree on. EF_RUNTIME is
// large enough for KNN to be exact on so few vectors, whichever graph a
// server built (their levels are random).
func searchInteropWorkload() (writes, reads [][]any) {
	writes = append(writes, []any{"FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "d:", "SCHEMA", "t", "TAG", "n", "NUMERIC",
		"v", "VECTOR", "HNSW", "8", "TYPE", "FLOAT64", "DIM", "4", "DISTANCE_METRIC", "L2", "EF_RUNTIME", "1000"})
	writes = append(writes, []any{"FT.CREATE", "cs", "PREFIX", "2", "d:1", "e:", "SCHEMA", "t", "TAG", "CASESENSITIVE", "SEPARATOR", ";"})
	// Kvrocks 5fccd57 crashes creating an index over these documents once
	// they exist (its FT.CREATE's scan): this one comes first.
	// An index of JSON documents (paths, tag arrays, vectors as arrays),
	// created before any document exists: see "gone".
	writes = append(writes, []any{"FT.CREATE", "js", "ON", "JSON", "PREFIX", "1", "j:", "SCHEMA", "$.tags", "TAG", "$.m.n", "NUMERIC",
		"emb", "VECTOR", "HNSW", "8", "TYPE", "FLOAT64", "DIM", "3", "DISTANCE_METRIC", "COSINE", "EF_RUNTIME", "1000"})
	writes = append(writes, []any{"FT.CREATE", "gone", "PREFIX", "1", "d:2", "SCHEMA", "t", "TAG"})
	for i := 0; i < 300; i++ {
		x := float64(i)
		writes = append(writes, []any{"HSET", fmt.Sprintf("d:%d", i), "t", fmt.Sprintf("T%d;g%d,x", i%7, i%3), "n", i % 50,
			"v", vec64(x/7, float64(i%13), float64(i%5)*1.5, -x/11)})
	}
	for i := 0; i < 300; i += 17 {
		writes = append(writes, []any{"HSET", fmt.Sprintf("d:%d", i), "t", "moved", "n", 1000 + i, "v", vec64(1, 2, 3, float64(i))})
	}
	for i := 5; i < 300; i += 29 {
		writes = append(writes, []any{"DEL", fmt.Sprintf("d:%d", i)})
	}
	writes = append(writes, []any{"FT.DROPINDEX", "gone"})
	// An index of JSON documents: paths, tag arrays, vectors as arrays.
	for i := 0; i < 120; i++ {
		doc := fmt.Sprintf(`{"tags":["k%d","All"],"m":{"n":%d.5},"emb":[%d,%d,1]}`, i%5, i%40, i%9, i%4)
		writes = append(writes, []any{"JSON.SET", fmt.Sprintf("j:%d", i), "$", doc})
	}
	for i := 0; i < 120; i += 11 {
		writes = append(writes, []any{"JSON.SET", fmt.Sprintf("j:%d", i), "$.tags", `"moved"`})
	}

	reads = [][]any{
		{"FT._LIST"},
		{"FT.INFO", "idx"},
		{"FT.INFO", "cs"},
		{"FT.TAGVALS", "idx", "t"},
		{"FT.TAGVALS", "cs", "t"},
		{"FT.SEARCH", "idx", "@t:{moved}", "LIMIT", "0", "100"},
		{"FT.SEARCH", "idx", "@t:{t3;g1}", "LIMIT", "0", "100"},
		{"FT.SEARCH", "idx", "@n:[10 (12]", "LIMIT", "0", "100"},
		{"FT.SEARCH", "idx", "@n:[(1000 +inf]", "SORTBY", "n", "DESC", "LIMIT", "0", "100"},
		{"FT.SEARCH", "idx", "@t:{x} -@n:[0 48]", "LIMIT", "0", "100"},
		{"FT.SEARCH", "cs", "@t:{g1,x}", "LIMIT", "0", "100"},
		{"FT.SEARCH", "idx", "*=>[KNN 7 @v $b]", "PARAMS", "2", "b", vec64(3, 4, 1.5, -2)},
		{"FT.SEARCH", "idx", "*=>[KNN 3 @v $b]", "PARAMS", "2", "b", vec64(1, 2, 3, 100)},
		{"FT.SEARCH", "idx", "@v:[VECTOR_RANGE 3 $b]", "PARAMS", "2", "b", vec64(10, 4, 3, -7)},
		{"FT.SEARCHSQL", "select n from idx where n >= 40 and n < 42 order by n limit 20"},
		{"FT.SEARCHSQL", "select t from idx order by v <-> [2, 3, 4, -1] limit 5"},
		{"FT.EXPLAIN", "idx", "@t:{a} @n:[1 3]"},
		{"FT.INFO", "js"},
		{"FT.TAGVALS", "js", "$.tags"},
		{"FT.SEARCHSQL", "select * from js where $.tags hastag \"moved\" order by $.m.n limit 50"},
		{"FT.SEARCHSQL", "select * from js where $.m.n > 30 and $.tags hastag \"k2\" limit 50"},
		{"FT.SEARCHSQL", "select * from js order by emb <-> [3, 1, 1] limit 4"},
	}
	return writes, reads
}

// readSearch runs the reads and renders their replies, each document's
// fields and FT.TAGVALS's tags sorted: Kvrocks returns them in no defined
// order.
func readSearch(t *testing.T, p *proc, reads [][]any) []string {
	t.Helper()
	c := interopClient(t, p, "", 30*time.Second)
	out := make([]string, len(reads))
	for i, r := range reads {
		v, err := c.Do(ctx, r...).Result()
		switch name := fmt.Sprint(r[0]); {
		case strings.HasPrefix(name, "FT.SEARCH"):
			v = sortedDocFields(v)
		case name == "FT.TAGVALS":
			if tags, ok := v.([]any); ok {
				sort.Slice(tags, func(i, j int) bool { return fmt.Sprint(tags[i]) < fmt.Sprint(tags[j]) })
			}
		}
		out[i] = fmt.Sprintf("%q => %v %v", fmt.Sprint(r...), v, err)
	}
	return out
}

func sortedDocFields(v any) any {
	docs, ok := v.([]any)
	if !ok {
		return v
	}
	out := []any{}
	for _, d := range docs {
		fields, ok := d.([]any)
		if !ok {
			out = append(out, d)
			continue
		}
		var pairs []string
		for i := 0; i+1 < len(fields); i += 2 {
			pairs = append(pairs, fmt.Sprintf("%v=%v", fields[i], fields[i+1]))
		}
		sort.Strings(pairs)
		out = append(out, pairs)
	}
	return out
}

// TestKvrocksSearchInterop: Kvrocks builds indexes of hashes (tags,
// numbers, HNSW vectors) and changes their documents; Basalt, on the same
// directory, answers every query as Kvrocks did, and the other way round.
func TestKvrocksSearchInterop(t *testing.T) {
	kvrocksBin(t)
	writes, reads := searchInteropWorkload()
	servers := []server{kvrocksServer, basaltServer}
	dirs := map[server]string{}
	own := map[server][]string{}
	for _, s := range servers {
		dir := t.TempDir()
		explainOnFailure(t, dir)
		p := s.start(t, dir, freePort(t))
		runCommands(t, interopClient(t, p, "", 30*time.Second), s.String(), writes)
		own[s] = readSearch(t, p, reads)
		stopClean(t, p)
		dirs[s] = dir
	}
	for i := range reads {
		if own[kvrocksServer][i] != own[basaltServer][i] {
			t.Errorf("on their own directories:\n  kvrocks: %s\n  basalt:  %s", own[kvrocksServer][i], own[basaltServer][i])
		}
	}
	for _, s := range servers {
		other := servers[1-int(s)]
		t.Run(fmt.Sprintf("%sReads%s", title(s), title(other)), func(t *testing.T) {
			p := s.start(t, dirs[other], freePort(t))
			got := readSearch(t, p, reads)
			stopClean(t, p)
			for i := range got {
				if got[i] != own[other][i] {
					t.Errorf("%s on %s's directory:\n  %s\n%s on it:\n  %s", s, other, got[i], other, own[other][i])
				}
			}
		})
	}
}
