package it

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// tdigestCorpora are the TDIGEST.* corpora TestTDigestCommands replays:
// the package's (types/tdigest replays it on memory) and the server's.
var tdigestCorpora = []string{"testdata/tdigest_cases.txt", "testdata/tdigest_wire.txt"}

// TestTDigestCommands replays the TDIGEST.* corpora on bin/basalt, each
// from an empty database once per protocol: every reply byte for byte as
// the file says (each group of lines cites where its answer comes from:
// no server has a t-digest to diff against). Their syntax is the wire
// corpora's (new_wire_test.go), without events.
func TestTDigestCommands(t *testing.T) {
	p := startBasalt(t)
	for _, file := range tdigestCorpora {
		replayWireCorpus(t, p, file)
	}
}

// TestTDigestReplication: a replica holds its master's t-digests, byte
// for byte as reads show them. A query on the replica merges buffered
// values in memory only (its data is its master's); the master's query
// writes the merge, which the replica then has. Keyspace events: the
// master publishes "new" for a key it creates and the command's own
// event in the module class (d), none for a query's merge; the replica
// publishes "new" and "tdigest.add" for each t-digest batch of its
// master, whose LogData names the type only (a query's merge too).
// RedisBloom publishes none of its own: Basalt's choice, as for BF.*.
func TestTDigestReplication(t *testing.T) {
	p := newReplicaPair(t, "basalt", startBasalt(t), startBasalt(t))
	checkReplicaEvents(t, p, "Egdn", []replicaEventCase{
		{[]string{"TDIGEST.CREATE", "d", "COMPRESSION", "10"}, "new:d tdigest.create:d", "new:d tdigest.add:d"},
		{[]string{"TDIGEST.ADD", "d", "1", "2", "3"}, "tdigest.add:d", "tdigest.add:d"},
		{[]string{"TDIGEST.QUANTILE", "d", "0.5"}, "", "tdigest.add:d"},
		{[]string{"TDIGEST.MIN", "d"}, "", ""},
		{[]string{"TDIGEST.MERGE", "e", "1", "d"}, "new:e tdigest.merge:e", "new:e tdigest.add:e"},
		{[]string{"TDIGEST.RESET", "d"}, "tdigest.reset:d", "tdigest.add:d"},
		{[]string{"TDIGEST.ADD", "nokey", "1"}, "", ""},
		{[]string{"DEL", "e"}, "del:e", "del:e"},
	})
	data, replicaData := dial(t, p.master), dial(t, p.replica)

	for _, cmd := range [][]string{{"TDIGEST.ADD", "d", "5", "1", "4", "2", "3"}, {"TDIGEST.CREATE", "big", "COMPRESSION", "1"}} {
		data.do(cmd...)
	}
	add := []string{"TDIGEST.ADD", "big"}
	for i := 0; i < 100; i++ {
		add = append(add, strconv.Itoa(i*37%101))
	}
	data.do(add...)
	p.caughtUp(t, data, replicaData)
	reads := [][]string{
		{"TDIGEST.QUANTILE", "d", "0", "0.5", "1"}, {"TDIGEST.CDF", "d", "2.5"}, {"TDIGEST.RANK", "d", "3"},
		{"TDIGEST.INFO", "big"}, {"TDIGEST.QUANTILE", "big", "0.1", "0.5", "0.9"}, {"TDIGEST.TRIMMED_MEAN", "big", "0.1", "0.9"},
		{"TYPE", "big"},
	}
	unmerged := "+Unmerged nodes\r\n:5\r\n"
	if got := replicaData.do("TDIGEST.QUANTILE", "d", "0.5"); got != "*1\r\n$1\r\n3\r\n" {
		t.Errorf("the replica's median of d: %q", got)
	}
	if got := replicaData.do("TDIGEST.INFO", "d"); !strings.Contains(got, unmerged) {
		t.Errorf("a replica's query wrote its merge: INFO %q", got)
	}
	for _, r := range reads {
		if m, rep := data.do(r...), replicaData.do(r...); m != rep {
			t.Errorf("%v: master %q, replica %q", r, m, rep)
		}
	}
	p.caughtUp(t, data, replicaData) // the master's queries wrote d's merge
	if got := replicaData.do("TDIGEST.INFO", "d"); strings.Contains(got, unmerged) {
		t.Errorf("the replica lacks the master's merge: INFO %q", got)
	}
}

// TestTDigestSlotMigration: a t-digest moves with its slot, buffer,
// centroids and TTL, in raw-key-value mode; a redis-command migration
// has no command that rebuilds a t-digest's centroids and fails, as for
// a Bloom filter, leaving the key where it was (Kvrocks 5fccd57 has no
// t-digest).
func TestTDigestSlotMigration(t *testing.T) {
	add := []any{"TDIGEST.ADD", "{c}merged"}
	for i := 0; i < 300; i++ {
		add = append(add, i%97)
	}
	writes := [][]any{
		{"TDIGEST.CREATE", "{c}merged", "COMPRESSION", "10"}, add,
		{"TDIGEST.CREATE", "{c}buffered"}, {"TDIGEST.ADD", "{c}buffered", 3, 1, 2}, {"PEXPIRE", "{c}buffered", 600000},
	}
	read := func(c *redis.Client) string {
		var out []string
		for _, cmd := range [][]any{
			{"TDIGEST.INFO", "{c}merged"}, {"TDIGEST.INFO", "{c}buffered"},
			{"TDIGEST.QUANTILE", "{c}merged", 0.1, 0.5, 0.99},
		} {
			v, err := c.Do(ctx, cmd...).Result()
			out = append(out, fmt.Sprint(v, err))
		}
		ttl, err := c.PTTL(ctx, "{c}buffered").Result()
		return strings.Join(append(out, fmt.Sprint(ttl > 500*time.Second, err)), " | ")
	}
	migrateTypedSlot(t, writes, read, func(t *testing.T, dc *redis.Client) {
		if got, err := dc.Do(ctx, "TDIGEST.BYRANK", "{c}buffered", 0, 1, 2).Float64Slice(); err != nil || fmt.Sprint(got) != "[1 2 3]" {
			t.Errorf("the destination's buffered values: %v, %v", got, err)
		}
	})
}

// migrateTypedSlot runs writes (keys of a type Redis has no command for,
// in slot 7365, {c}) on a cluster node and migrates the slot to another in
// both modes: raw-key-value moves them, and the destination answers read
// as the source did (then more checks the destination); redis-command
// cannot recreate them, so the migration fails and the source keeps them.
func migrateTypedSlot(t *testing.T, writes [][]any, read func(*redis.Client) string, more func(*testing.T, *redis.Client)) {
	for _, mode := range []string{"raw-key-value", "redis-command"} {
		t.Run(mode, func(t *testing.T) {
			args := []string{"--cluster-enabled", "yes", "--migrate-type", mode, "--migrate-speed", "0"}
			src, dst := startBasalt(t, args...), startBasalt(t, args...)
			text := shardIDs[0] + " 127.0.0.1 " + strconv.Itoa(src.Port) + " master - 0-8191\n" +
				shardIDs[1] + " 127.0.0.1 " + strconv.Itoa(dst.Port) + " master - 8192-16383\n"
			pushTopology(t, []*proc{src, dst}, text, 1)
			sc := src.longClient(t, 2)
			for _, cmd := range writes {
				must(t, sc.Do(ctx, cmd...).Err())
			}
			want := read(sc)
			must(t, sc.Do(ctx, "CLUSTERX", "MIGRATE", "7365", shardIDs[1]).Err())
			state := waitMigration(t, sc, time.Minute)
			if mode == "redis-command" {
				if state != "fail" {
					t.Fatalf("redis-command migration: %s", state)
				}
				if got := read(sc); got != want {
					t.Errorf("the source after a failed migration:\n%s\nwant:\n%s", got, want)
				}
				return
			}
			if state != "success" {
				t.Fatalf("raw-key-value migration: %s", state)
			}
			dc := dst.longClient(t, 2)
			if got := read(dc); got != want {
				t.Errorf("on the destination:\n%s\nwant (the source's):\n%s", got, want)
			}
			more(t, dc)
		})
	}
}

// TestTDigestNamespaces: the same key name in two namespaces holds two
// t-digests; MEMORY USAGE counts a t-digest's records, all of them (the
// metadata's size is 0).
func TestTDigestNamespaces(t *testing.T) {
	p := startBasalt(t, "--requirepass", adminPass, "--repl-namespace-enabled", "yes")
	admin := interopClient(t, p, adminPass, longTimeout)
	must(t, admin.Do(ctx, "NAMESPACE", "ADD", "ns1", "token1").Err())
	tenant := interopClient(t, p, "token1", longTimeout)
	for i, c := range []*redis.Client{admin, tenant} {
		must(t, c.Do(ctx, "TDIGEST.CREATE", "d").Err())
		must(t, c.Do(ctx, "TDIGEST.ADD", "d", i*10, i*10+1).Err())
	}
	for i, c := range []*redis.Client{admin, tenant} {
		if got, err := c.Do(ctx, "TDIGEST.MIN", "d").Text(); err != nil || got != strconv.Itoa(i*10) {
			t.Errorf("namespace %d: MIN %q, %v", i, got, err)
		}
	}
	must(t, tenant.Del(ctx, "d").Err())
	if got, err := admin.Do(ctx, "TDIGEST.MAX", "d").Text(); err != nil || got != "1" {
		t.Errorf("the admin's d after the tenant's DEL: %q, %v", got, err)
	}
	small := admin.MemoryUsage(ctx, "d").Val()
	values := []any{"TDIGEST.ADD", "d"}
	for i := 0; i < 1000; i++ {
		values = append(values, i)
	}
	must(t, admin.Do(ctx, values...).Err())
	must(t, admin.Do(ctx, "TDIGEST.MIN", "d").Err()) // merged: centroid records
	if big := admin.MemoryUsage(ctx, "d").Val(); small < 100 || big < small+50*20 {
		t.Errorf("MEMORY USAGE %d bytes for 2 values, %d for about 100 centroids", small, big)
	}
}

// TestTDigestQuantilesOverServer: 20,000 values of each distribution of
// the package's property test, added through the server 500 at a time at
// compression 100: every probed quantile within 1% rank error of the
// exact answer.
func TestTDigestQuantilesOverServer(t *testing.T) {
	c := startBasalt(t).longClient(t, 2)
	r := rand.New(rand.NewPCG(43, 20))
	probes := []any{0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999}
	for name, draw := range map[string]func() float64{
		"uniform":     func() float64 { return r.Float64() * 1000 },
		"normal":      func() float64 { return 50 + 10*r.NormFloat64() },
		"exponential": func() float64 { return r.ExpFloat64() / 2 },
	} {
		must(t, c.Do(ctx, "TDIGEST.CREATE", name).Err())
		var all []float64
		for range 40 {
			args := []any{"TDIGEST.ADD", name}
			for range 500 {
				v := draw()
				all = append(all, v)
				args = append(args, strconv.FormatFloat(v, 'g', -1, 64))
			}
			must(t, c.Do(ctx, args...).Err())
		}
		slices.Sort(all)
		got, err := c.Do(ctx, append([]any{"TDIGEST.QUANTILE", name}, probes...)...).Float64Slice()
		if err != nil {
			t.Fatal(err)
		}
		for i, q := range probes {
			below := float64(sort.SearchFloat64s(all, got[i])) / float64(len(all))
			atOrBelow := float64(sort.Search(len(all), func(j int) bool { return all[j] > got[i] })) / float64(len(all))
			if e := max(below-q.(float64), q.(float64)-atOrBelow); e > 0.01 {
				t.Errorf("%s: quantile %v = %v, rank error %.4f", name, q, got[i], e)
			}
		}
	}
}

// TestCompactDropsTDigestRecords: COMPACT reclaims the records of deleted
// and expired t-digests and the centroids every merge replaced, and keeps
// the live ones' buffer and centroids: RocksDB then holds exactly those
// in the default column family, and the live digest answers as before.
func TestCompactDropsTDigestRecords(t *testing.T) {
	c := startBasalt(t).longClient(t, 2)
	fill := func(key string, merges int) {
		must(t, c.Do(ctx, "TDIGEST.CREATE", key, "COMPRESSION", 1).Err())
		for m := 0; m < merges; m++ {
			args := []any{"TDIGEST.ADD", key}
			for i := 0; i < 17; i++ { // past the buffer's 16: a merge
				args = append(args, m*17+i)
			}
			must(t, c.Do(ctx, args...).Err())
		}
	}
	fill("live", 20)
	must(t, c.Do(ctx, "TDIGEST.ADD", "live", 1000).Err()) // buffered
	fill("deleted", 5)
	fill("expiring", 5)
	must(t, c.Del(ctx, "deleted").Err())
	must(t, c.PExpire(ctx, "expiring", 50*time.Millisecond).Err())
	waitFor(t, time.Minute, "expiring expires", func() bool { return c.Exists(ctx, "expiring").Val() == 0 })
	info, err := c.Do(ctx, "TDIGEST.INFO", "live").Slice()
	if err != nil || len(info) != 16 {
		t.Fatalf("TDIGEST.INFO live: %v, %v", info, err)
	}
	centroids := info[5].(int64) // Merged nodes
	before := c.Do(ctx, "TDIGEST.INFO", "live").String()
	must(t, c.Do(ctx, "COMPACT").Err())
	waitFor(t, time.Minute, "the live digest's records left alone", func() bool {
		return infoInt(t, c, "rocksdb", "estimate_keys[default]") == centroids+1
	})
	if after := c.Do(ctx, "TDIGEST.INFO", "live").String(); after != before {
		t.Errorf("INFO after COMPACT %s, before %s", after, before)
	}
	if got, err := c.Do(ctx, "TDIGEST.MAX", "live").Text(); err != nil || got != "1000" {
		t.Errorf("MAX live after COMPACT: %q, %v", got, err)
	}
}

// TestKvrocksOlderOpensTDigests: Kvrocks 5fccd57, which predates the
// t-digest, opens a directory where Basalt wrote t-digests: it answers
// for the other keys and takes the t-digests for absent (TYPE none, SCAN
// skips them), and Basalt reopening the directory answers for them as
// before. Kvrocks's COMPACT, though, drops them (its metadata filter
// cannot decode type 12): a directory holding t-digests must not go back
// to a Kvrocks older than 2.14, as for any type an older Kvrocks lacks.
func TestKvrocksOlderOpensTDigests(t *testing.T) {
	kvrocksBin(t)
	dir, port := t.TempDir(), freePort(t)
	explainOnFailure(t, dir)
	b := startBasaltAt(t, dir, port)
	runCommands(t, interopClient(t, b, "", 5*time.Second), "basalt", [][]any{
		{"TDIGEST.CREATE", "td", "COMPRESSION", 1}, {"TDIGEST.ADD", "td", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17},
		{"TDIGEST.ADD", "td", 100}, {"PEXPIRE", "td", int64(3 * time.Hour / time.Millisecond)}, {"SET", "plain", "v"},
	})
	reads := [][]any{{"TDIGEST.INFO", "td"}, {"TDIGEST.BYRANK", "td", 0, 5, 17}, {"PEXPIRETIME", "td"}, {"GET", "plain"}}
	read := func(p *proc) string {
		c := interopClient(t, p, "", 5*time.Second)
		var out []string
		for _, r := range reads {
			v, err := c.Do(ctx, r...).Result()
			out = append(out, fmt.Sprintf("%v => %v %v", r, v, err))
		}
		return strings.Join(out, "\n")
	}
	unmerged := read(b) // BYRANK writes the merge of the buffer
	before := read(b)
	if before == unmerged || !strings.Contains(before, "Unmerged nodes 0") {
		t.Fatalf("the first read did not merge the buffer:\n%s", before)
	}
	stopClean(t, b)

	k := startKvrocksAt(t, dir, port)
	kc := interopClient(t, k, "", 5*time.Second)
	for _, c := range []struct {
		args []any
		want string
	}{
		{[]any{"GET", "plain"}, "v <nil>"},
		{[]any{"TYPE", "td"}, "none <nil>"},
		{[]any{"SCAN", 0, "COUNT", 100}, "[0 [plain]] <nil>"},
	} {
		v, err := kc.Do(ctx, c.args...).Result()
		if got := fmt.Sprint(v, " ", err); got != c.want {
			t.Errorf("kvrocks %v: %s, want %s", c.args, got, c.want)
		}
	}
	stopClean(t, k)
	b = startBasaltAt(t, dir, port)
	if after := read(b); after != before {
		t.Errorf("basalt after kvrocks opened the directory:\n%s\nbefore:\n%s", after, before)
	}
	stopClean(t, b)

	k = startKvrocksAt(t, dir, port)
	compactServer(t, k, "")
	stopClean(t, k)
	bc := interopClient(t, startBasaltAt(t, dir, port), "", 5*time.Second)
	if n, err := bc.Exists(ctx, "td", "plain").Result(); err != nil || n != 1 || bc.Get(ctx, "plain").Val() != "v" {
		t.Errorf("after kvrocks's COMPACT: %d of td and plain exist (%v), want plain alone", n, err)
	}
}
