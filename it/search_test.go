package it

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// searchKeys returns the keys FT.SEARCH finds for query, sorted.
func searchKeys(t *testing.T, c *redis.Client, index, query string, args ...any) []string {
	t.Helper()
	r, err := c.Do(ctx, append([]any{"FT.SEARCH", index, query, "NOCONTENT"}, args...)...).Slice()
	if err != nil {
		t.Fatalf("FT.SEARCH %s %q: %v", index, query, err)
	}
	var keys []string
	for _, k := range r[1:] {
		keys = append(keys, k.(string))
	}
	sort.Strings(keys)
	return keys
}

// tagVals returns FT.TAGVALS sorted.
func tagVals(t *testing.T, c *redis.Client, index, field string) []string {
	t.Helper()
	r, err := c.Do(ctx, "FT.TAGVALS", index, field).StringSlice()
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(r)
	return r
}

func vec64(xs ...float64) string {
	b := make([]byte, 8*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return string(b)
}

func same(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("%s: %q, want %q", what, got, want)
	}
}

// TestSearchWritePaths: every way a hash changes keeps its index records
// in step, so that searches and FT.TAGVALS see exactly the documents'
// current values: the hash commands, DEL, RENAME, COPY, MULTI/EXEC, a
// script, RESTORE, expiry, a type change and HDEL of a vector.
func TestSearchWritePaths(t *testing.T) {
	b := startBasalt(t)
	c := b.client(t, 2)
	do := func(args ...any) any {
		t.Helper()
		v, err := c.Do(ctx, args...).Result()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return v
	}
	do("FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "d:", "SCHEMA", "t", "TAG", "n", "NUMERIC", "v", "VECTOR", "HNSW", "6", "TYPE", "FLOAT64", "DIM", "2", "DISTANCE_METRIC", "L2")

	do("HSET", "d:1", "t", "a", "n", "1")
	same(t, "HSET", searchKeys(t, c, "idx", "@t:{a}"), "d:1")
	do("HSET", "d:1", "t", "b")
	same(t, "HSET again", searchKeys(t, c, "idx", "@t:{a}"))
	same(t, "HSET again", searchKeys(t, c, "idx", "@t:{b}"), "d:1")
	do("HINCRBY", "d:1", "n", "5")
	same(t, "HINCRBY", searchKeys(t, c, "idx", "@n:[6 6]"), "d:1")
	do("HINCRBYFLOAT", "d:1", "n", "0.5")
	same(t, "HINCRBYFLOAT", searchKeys(t, c, "idx", "@n:[6.5 6.5]"), "d:1")
	same(t, "HINCRBYFLOAT", searchKeys(t, c, "idx", "@n:[6 6]"))
	do("HSETNX", "d:1", "t", "c")
	same(t, "HSETNX", tagVals(t, c, "idx", "t"), "b")
	do("HDEL", "d:1", "t")
	same(t, "HDEL", tagVals(t, c, "idx", "t"))

	do("HSET", "d:2", "t", "a")
	do("RENAME", "d:2", "d:3")
	same(t, "RENAME", searchKeys(t, c, "idx", "@t:{a}"), "d:3")
	do("RENAME", "d:3", "x:3")
	same(t, "RENAME out of the prefix", searchKeys(t, c, "idx", "@t:{a}"))
	do("COPY", "x:3", "d:4")
	same(t, "COPY", searchKeys(t, c, "idx", "@t:{a}"), "d:4")

	pipe := c.TxPipeline()
	pipe.HSet(ctx, "d:5", "t", "m")
	pipe.Del(ctx, "d:4")
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	same(t, "MULTI", searchKeys(t, c, "idx", "@t:{m}"), "d:5")
	same(t, "MULTI", searchKeys(t, c, "idx", "@t:{a}"))

	do("EVAL", "redis.call('HSET', KEYS[1], 't', 'q') return 1", "1", "d:6")
	same(t, "EVAL", searchKeys(t, c, "idx", "@t:{q}"), "d:6")
	dump := do("DUMP", "d:6")
	do("DEL", "d:6")
	same(t, "DEL", tagVals(t, c, "idx", "t"), "m")
	do("RESTORE", "d:7", "0", dump)
	same(t, "RESTORE", searchKeys(t, c, "idx", "@t:{q}"), "d:7")

	// An expired document is no result; rewritten, its old tags go.
	do("PEXPIRE", "d:7", "1")
	deadline := time.Now().Add(20 * time.Second)
	for do("EXISTS", "d:7").(int64) != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	same(t, "expired", searchKeys(t, c, "idx", "@t:{q}"))
	do("HSET", "d:7", "t", "r")
	same(t, "rewritten after expiry", tagVals(t, c, "idx", "t"), "m", "r")

	do("HSET", "d:8", "t", "s")
	do("SET", "d:8", "string now")
	same(t, "SET over a hash", tagVals(t, c, "idx", "t"), "m", "r")

	do("HSET", "d:9", "v", vec64(1, 2))
	knn := func() []string {
		return searchKeys(t, c, "idx", "*=>[KNN 3 @v $b]", "PARAMS", "2", "b", vec64(0, 0))
	}
	same(t, "vector", knn(), "d:9")
	do("HSET", "d:10", "v", vec64(3, 4))
	same(t, "vectors", knn(), "d:10", "d:9")
	do("HDEL", "d:9", "v")
	same(t, "HDEL of a vector", knn(), "d:10")
	do("HSET", "d:10", "v", "short")
	same(t, "a vector of the wrong size", knn())

	// FLUSHALL leaves the index, as Kvrocks's does, and its documents go.
	do("FLUSHALL")
	same(t, "FLUSHALL", searchKeys(t, c, "idx", "*"))
	if l := do("FT._LIST").([]any); len(l) != 1 {
		t.Fatalf("FT._LIST after FLUSHALL: %v", l)
	}
}

// TestSearchBackfill: FT.CREATE indexes the documents that exist, a few
// at a time: other clients' commands run meanwhile, and FT.INFO shows its
// progress until it ends.
func TestSearchBackfill(t *testing.T) {
	const n = 3000
	b := startBasalt(t)
	c := b.client(t, 2)
	pipe := c.Pipeline()
	for i := 0; i < n; i++ {
		fields := []any{"t", fmt.Sprintf("g%d", i%4), "n", i}
		if i%10 == 5 {
			fields = append(fields, "v", vec64(float64(i%97), float64(i%89)))
		}
		pipe.HSet(ctx, fmt.Sprintf("doc:%05d", i), fields...)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	created := make(chan error, 1)
	go func() {
		created <- b.client(t, 2).Do(ctx, "FT.CREATE", "idx", "PREFIX", "1", "doc:", "SCHEMA", "t", "TAG", "n", "NUMERIC",
			"v", "VECTOR", "HNSW", "6", "TYPE", "FLOAT64", "DIM", "2", "DISTANCE_METRIC", "L2").Err()
	}()
	other := b.client(t, 2)
	var during atomic.Int64
	var slowest time.Duration
	sawProgress := false
	for done := false; !done; {
		select {
		case err := <-created:
			if err != nil {
				t.Fatal(err)
			}
			done = true
		default:
			start := time.Now()
			if err := other.Get(ctx, "doc:00001").Err(); err == nil || !strings.Contains(err.Error(), "WRONGTYPE") {
				t.Fatalf("GET during the backfill: %v", err)
			}
			slowest = max(slowest, time.Since(start))
			during.Add(1)
			if info, err := other.Do(ctx, "FT.INFO", "idx").Slice(); err == nil && len(info) == 10 && info[6] == "indexing" {
				sawProgress = true
			}
		}
	}
	t.Logf("%d GETs answered during the backfill, the slowest in %v; progress seen: %v", during.Load(), slowest, sawProgress)
	if during.Load() < 2 || !sawProgress {
		t.Fatalf("FT.CREATE blocked the other client (%d GETs) or showed no progress (%v)", during.Load(), sawProgress)
	}
	if info, err := other.Do(ctx, "FT.INFO", "idx").Slice(); err != nil || len(info) != 6 {
		t.Fatalf("FT.INFO once done: %v %v", info, err)
	}
	same(t, "tag g1 count", []string{fmt.Sprint(len(searchKeys(t, c, "idx", "@t:{g1}", "LIMIT", "0", "10000")))}, fmt.Sprint(n/4))
	same(t, "numeric", searchKeys(t, c, "idx", "@n:[10 12]"), "doc:00010", "doc:00011", "doc:00012")
	same(t, "knn", searchKeys(t, c, "idx", "*=>[KNN 1 @v $b]", "PARAMS", "2", "b", vec64(5, 5)), "doc:00005")
}

// TestSearchNamespacesAndReplica: an index belongs to its namespace (a
// tenant sees neither another's indexes nor its documents), and a
// replica's indexes answer as its master's, before and after it caught
// up with new writes.
func TestSearchNamespacesAndReplica(t *testing.T) {
	conf := writeConf(t, "requirepass admin", "masterauth admin", "namespace.ns1 token1", "namespace.ns2 token2")
	master := startBasalt(t, "-c", conf)
	one, two := tenant(t, master, "token1"), tenant(t, master, "token2")
	create := []any{"FT.CREATE", "idx", "PREFIX", "1", "d:", "SCHEMA", "t", "TAG"}
	if err := one.Do(ctx, create...).Err(); err != nil {
		t.Fatal(err)
	}
	one.HSet(ctx, "d:1", "t", "x")
	if l, err := two.Do(ctx, "FT._LIST").Slice(); err != nil || len(l) != 0 {
		t.Fatalf("another tenant's FT._LIST: %v %v", l, err)
	}
	if err := two.Do(ctx, "FT.SEARCH", "idx", "*").Err(); err == nil || err.Error() != "ERR index `idx` not found" {
		t.Fatalf("another tenant's FT.SEARCH: %v", err)
	}
	if err := two.Do(ctx, create...).Err(); err != nil {
		t.Fatal(err)
	}
	two.HSet(ctx, "d:1", "t", "y")
	same(t, "ns1's x", searchKeys(t, one, "idx", "@t:{x}"), "d:1")
	same(t, "ns1's y", searchKeys(t, one, "idx", "@t:{y}"))
	same(t, "ns2's x", searchKeys(t, two, "idx", "@t:{x}"))
	same(t, "ns2's y", searchKeys(t, two, "idx", "@t:{y}"), "d:1")

	replica := startBasalt(t, "-c", conf)
	admin, radmin := tenant(t, master, "admin"), tenant(t, replica, "admin")
	slaveOf(t, radmin, master)
	waitCaughtUp(t, admin, radmin)
	rone := tenant(t, replica, "token1")
	same(t, "replica", searchKeys(t, rone, "idx", "@t:{x}"), "d:1")
	one.HSet(ctx, "d:2", "t", "x")
	one.Del(ctx, "d:1")
	waitCaughtUp(t, admin, radmin)
	same(t, "replica after new writes", searchKeys(t, rone, "idx", "@t:{x}"), "d:2")
	same(t, "replica's other tenant", searchKeys(t, tenant(t, replica, "token2"), "idx", "@t:{y}"), "d:1")
}

// TestSearchJSONDocuments: an index ON JSON created over documents that
// exist, in both storage formats and next to hashes, indexes them (the
// backfill), follows writes below a document's root, and leaves out the
// documents whose values do not fit its fields. Kvrocks 5fccd57 crashes
// on this FT.CREATE (an index ON JSON created once other keys exist: its
// scan), see TestKvrocksSearchInterop's "gone".
func TestSearchJSONDocuments(t *testing.T) {
	const n = 200
	c := startBasalt(t).client(t, 2)
	c.HSet(ctx, "j:hash", "t", "a")
	pipe := c.Pipeline()
	for i := 0; i < n; i++ {
		if i == n/2 {
			pipe.ConfigSet(ctx, "json-storage-format", "cbor")
		}
		doc := fmt.Sprintf(`{"t":["g%d","All"],"n":%d,"v":[%d,%d]}`, i%4, i, i%10, i/10)
		pipe.Do(ctx, "JSON.SET", fmt.Sprintf("j:%03d", i), "$", doc)
	}
	pipe.Do(ctx, "JSON.SET", "j:badnum", "$", `{"t":"a","n":"7"}`)
	pipe.Do(ctx, "JSON.SET", "j:badtag", "$", `{"t":[1],"n":7}`)
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, "FT.CREATE", "js", "ON", "JSON", "PREFIX", "1", "j:", "SCHEMA", "$.t", "AS", "t", "TAG",
		"$.n", "AS", "n", "NUMERIC", "v", "VECTOR", "HNSW", "6", "TYPE", "FLOAT64", "DIM", "2", "DISTANCE_METRIC", "L2").Err(); err != nil {
		t.Fatal(err)
	}
	same(t, "all", []string{fmt.Sprint(len(searchKeys(t, c, "js", "@t:{all}", "LIMIT", "0", "1000")))}, fmt.Sprint(n))
	same(t, "numeric across formats", searchKeys(t, c, "js", "@n:[99 (101]"), "j:099", "j:100")
	same(t, "knn", searchKeys(t, c, "js", "*=>[KNN 1 @v $b]", "PARAMS", "2", "b", vec64(3, 15)), "j:153")
	same(t, "tags", tagVals(t, c, "js", "t"), "all", "g0", "g1", "g2", "g3")

	c.Do(ctx, "JSON.SET", "j:007", "$.t", `"moved,Here"`)
	c.Do(ctx, "JSON.NUMINCRBY", "j:008", "$.n", 1000)
	c.Do(ctx, "JSON.DEL", "j:009")
	c.Do(ctx, "JSON.SET", "j:010", "$.v", "[1]")
	same(t, "tag of a subpath write", searchKeys(t, c, "js", "@t:{here}"), "j:007")
	same(t, "number of a subpath write", searchKeys(t, c, "js", "@n:[1000 +inf]"), "j:008")
	same(t, "deleted", searchKeys(t, c, "js", "@n:[9 9]"))
	same(t, "a vector of the wrong size unindexes the document", searchKeys(t, c, "js", "@n:[10 10]"))
	r, err := c.Do(ctx, "FT.SEARCH", "js", "@n:[8 8]").Slice()
	if err != nil || len(r) != 1 || r[0] != int64(0) {
		t.Fatalf("the old number of a changed document: %v %v", r, err)
	}
	r, err = c.Do(ctx, "FT.SEARCH", "js", "@t:{here}").Slice()
	if err != nil || len(r) != 3 || fmt.Sprint(sortedDocFields(r[2:])) != "[[n=7 t=moved,Here v=7.000000, 0.000000]]" {
		t.Fatalf("a document's fields: %v %v", r, err)
	}
}
