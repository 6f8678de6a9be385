package it

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// sstBytes sums the sizes of the live SST files under a data directory.
func sstBytes(t *testing.T, dir string) int64 {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "db", "*.sst"))
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			total += st.Size()
		}
	}
	return total
}

func randomBytes(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return string(b)
}

// TestCompactReclaimsDiskSpace fills a 200,000-field hash with 256-byte
// values, a 200,000-item list, a 200,000-member sorted set and 200,000
// small hashes that expire, deletes the big ones, and checks that COMPACT
// brings the live SST bytes down by at least 90% while the keys that stay
// read back intact.
func TestCompactReclaimsDiskSpace(t *testing.T) {
	t.Parallel()
	p := startBasalt(t)
	// Pipelines of 5,000 writes and COMPACT of 150 MB take longer than
	// go-redis's default 3 s on a loaded machine.
	c := p.longClient(t, 2)
	const n, per = 200000, 1000
	value := randomBytes(256)
	for i := 0; i < n; i += per {
		fields := make([]any, 0, 2*per)
		items := make([]any, 0, per)
		members := make([]redis.Z, 0, per)
		for j := i; j < i+per; j++ {
			id := strconv.Itoa(j)
			fields = append(fields, "field:"+id, value)
			items = append(items, "item:"+id+":"+value[:32])
			members = append(members, redis.Z{Score: float64(j), Member: "member:" + id})
		}
		pipe := c.Pipeline()
		pipe.HSet(ctx, "big:hash", fields...)
		pipe.RPush(ctx, "big:list", items...)
		pipe.ZAdd(ctx, "big:zset", members...)
		for j := i; j < i+per; j++ {
			key := "expiring:" + strconv.Itoa(j)
			pipe.HSet(ctx, key, "a", value[:64], "b", value[64:128])
			pipe.PExpire(ctx, key, 3*time.Second)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	live := map[string]string{}
	for i := 0; i < 100; i++ {
		key := "live:" + strconv.Itoa(i)
		live[key] = randomBytes(100)
		c.Set(ctx, key, live[key], 0)
		c.HSet(ctx, "live:hash", key, live[key])
	}
	if err := c.Do(ctx, "COMPACT").Err(); err != nil {
		t.Fatal(err)
	}
	before := liveSSTBytes(t, c, p.Dir)

	if n := c.Del(ctx, "big:hash", "big:list", "big:zset").Val(); n != 3 {
		t.Fatalf("DEL removed %d keys", n)
	}
	// The last expiring key got its TTL last.
	last := "expiring:" + strconv.Itoa(n-1)
	waitFor(t, time.Minute, last+" expires", func() bool { return c.Exists(ctx, last).Val() == 0 })
	if err := c.Do(ctx, "COMPACT").Err(); err != nil {
		t.Fatal(err)
	}
	after := liveSSTBytes(t, c, p.Dir)
	t.Logf("live SST bytes: %d before, %d after COMPACT (%.2f%%)", before, after, 100*float64(after)/float64(before))
	if after*10 > before {
		t.Errorf("COMPACT left %d of %d SST bytes, more than 10%%", after, before)
	}
	for key, v := range live {
		if got := c.Get(ctx, key).Val(); got != v {
			t.Fatalf("%s lost after COMPACT", key)
		}
		if got := c.HGet(ctx, "live:hash", key).Val(); got != v {
			t.Fatalf("live:hash %s lost after COMPACT", key)
		}
	}
	if n := c.DBSize(ctx).Val(); n != 101 {
		t.Errorf("DBSIZE after COMPACT = %d, want 101", n)
	}
	info := c.Info(ctx, "keyspace").Val()
	if !strings.Contains(info, "db0:keys=101,") {
		t.Errorf("INFO keyspace after COMPACT:\n%s", info)
	}
}

// liveSSTBytes returns the size of the SST files in dir once it equals
// what INFO rocksdb reports as live: RocksDB may delete the files a
// compaction made obsolete just after COMPACT replies.
func liveSSTBytes(t *testing.T, c *redis.Client, dir string) int64 {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var live int64
		for _, cf := range []string{"default", "metadata", "zset_score", "pubsub", "propagate", "stream", "search"} {
			live += infoInt(t, c, "rocksdb", "live_sst_files_size["+cf+"]")
		}
		onDisk := sstBytes(t, dir)
		if live == onDisk {
			return onDisk
		}
		if time.Now().After(deadline) {
			t.Fatalf("INFO rocksdb live_sst_files_size sums to %d, the SST files to %d", live, onDisk)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// infoInt reads one integer field of an INFO section.
func infoInt(t *testing.T, c *redis.Client, section, field string) int64 {
	t.Helper()
	v := infoText(t, c, section, field)
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatalf("INFO %s %s = %q", section, field, v)
	}
	return n
}

// infoText reads one field of an INFO section.
func infoText(t *testing.T, c *redis.Client, section, field string) string {
	t.Helper()
	for _, line := range strings.Split(c.Info(ctx, section).Val(), "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	t.Fatalf("INFO %s has no %s", section, field)
	return ""
}

// loadModel is what one client's keys must hold: it writes only its own
// keys, so the model does not depend on how clients interleave.
type loadModel struct {
	hashes map[string]map[string]string
	sets   map[string]map[string]bool
	lists  map[string][]string
	zsets  map[string]map[string]float64
}

// TestCompactUnderLoad runs COMPACT over and over while 20 clients write,
// delete and re-create collections, then checks every key against the
// clients' models, before and after a final COMPACT.
func TestCompactUnderLoad(t *testing.T) {
	p := startBasalt(t)
	const clients, keysPer = 20, 4
	rounds := 24
	if raceBuild() {
		rounds = 8
	}
	stop := make(chan struct{})
	compactions := make(chan int)
	go func() {
		c := p.longClient(t, 2)
		n := 0
		defer func() { compactions <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := c.Do(ctx, "COMPACT").Err(); err != nil {
				t.Error(err)
				return
			}
			n++
		}
	}()
	models := make([]*loadModel, clients)
	done := make(chan struct{})
	for w := 0; w < clients; w++ {
		models[w] = &loadModel{map[string]map[string]string{}, map[string]map[string]bool{}, map[string][]string{}, map[string]map[string]float64{}}
		go func(w int, m *loadModel) {
			defer func() { done <- struct{}{} }()
			// A client that retried a pipeline whose reply timed out
			// would run its RPUSHes twice: see longOptions.
			opts := longOptions(p.Addr(), 2)
			opts.PoolSize = 1
			c := redis.NewClient(opts)
			defer c.Close()
			for r := 0; r < rounds; r++ {
				if err := loadRound(c, w, r, keysPer, m); err != nil {
					t.Errorf("client %d round %d: %v", w, r, err)
					return
				}
			}
		}(w, models[w])
	}
	sawCompacting := false
	watcher := p.longClient(t, 2)
	for w := 0; w < clients; {
		select {
		case <-done:
			w++
		case <-time.After(20 * time.Millisecond):
			if infoText(t, watcher, "rocksdb", "is_compacting") == "yes" {
				sawCompacting = true
			}
		}
	}
	close(stop)
	if !sawCompacting {
		t.Error("INFO rocksdb never showed is_compacting:yes while COMPACT ran")
	}
	t.Logf("%d COMPACT runs during the load", <-compactions)
	c := p.longClient(t, 2)
	checkModels(t, c, models)
	if err := c.Do(ctx, "COMPACT").Err(); err != nil {
		t.Fatal(err)
	}
	checkModels(t, c, models)
}

// loadRound writes one round of client w: every key gets 50 new elements,
// and one key of each type is deleted (and so re-created next round).
func loadRound(c *redis.Client, w, r, keysPer int, m *loadModel) error {
	pipe := c.Pipeline()
	for k := 0; k < keysPer; k++ {
		suffix := strconv.Itoa(w) + ":" + strconv.Itoa(k)
		h, s, l, z := "load:h:"+suffix, "load:s:"+suffix, "load:l:"+suffix, "load:z:"+suffix
		if m.hashes[h] == nil {
			m.hashes[h], m.sets[s], m.zsets[z] = map[string]string{}, map[string]bool{}, map[string]float64{}
		}
		for e := 0; e < 50; e++ {
			id := strconv.Itoa(r*50 + e)
			pipe.HSet(ctx, h, "f"+id, "v"+id)
			m.hashes[h]["f"+id] = "v" + id
			pipe.SAdd(ctx, s, "m"+id)
			m.sets[s]["m"+id] = true
			pipe.RPush(ctx, l, "i"+id)
			m.lists[l] = append(m.lists[l], "i"+id)
			pipe.ZAdd(ctx, z, redis.Z{Score: float64(r*50 + e), Member: "z" + id})
			m.zsets[z]["z"+id] = float64(r*50 + e)
		}
		if (r+k)%3 == 0 {
			pipe.Del(ctx, h, s, l, z)
			delete(m.hashes, h)
			delete(m.sets, s)
			delete(m.lists, l)
			delete(m.zsets, z)
		}
	}
	_, err := pipe.Exec(ctx)
	return err
}

func checkModels(t *testing.T, c *redis.Client, models []*loadModel) {
	t.Helper()
	keys := 0
	for _, m := range models {
		for k, want := range m.hashes {
			if got := c.HGetAll(ctx, k).Val(); !equalMaps(got, want) {
				t.Fatalf("%s has %d fields, want %d", k, len(got), len(want))
			}
		}
		for k, want := range m.sets {
			if got := c.SMembers(ctx, k).Val(); len(got) != len(want) || !allIn(got, want) {
				t.Fatalf("%s has %d members, want %d", k, len(got), len(want))
			}
		}
		for k, want := range m.lists {
			if got := c.LRange(ctx, k, 0, -1).Val(); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("%s has %d items, want %d", k, len(got), len(want))
			}
		}
		for k, want := range m.zsets {
			got := c.ZRangeWithScores(ctx, k, 0, -1).Val()
			if len(got) != len(want) {
				t.Fatalf("%s has %d members, want %d", k, len(got), len(want))
			}
			for _, z := range got {
				if s, ok := want[z.Member.(string)]; !ok || s != z.Score {
					t.Fatalf("%s member %v score %v, want %v (%v)", k, z.Member, z.Score, s, ok)
				}
			}
		}
		keys += len(m.hashes) + len(m.sets) + len(m.lists) + len(m.zsets)
	}
	if n := c.DBSize(ctx).Val(); n != int64(keys) {
		t.Fatalf("DBSIZE %d, models hold %d keys", n, keys)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func allIn(members []string, want map[string]bool) bool {
	for _, m := range members {
		if !want[m] {
			return false
		}
	}
	return true
}

// TestCompactionCrons sets compact-cron and compaction-checker-cron to run
// every minute after deleting a hash that fills the SST files, and waits
// for each to reclaim the space on its own.
func TestCompactionCrons(t *testing.T) {
	t.Parallel()
	for _, option := range []string{"compact-cron", "compaction-checker-cron"} {
		t.Run(option, func(t *testing.T) {
			t.Parallel()
			p := startBasalt(t)
			c := p.longClient(t, 2)
			value := randomBytes(100)
			for i := 0; i < 20000; i += 1000 {
				fields := make([]any, 0, 2000)
				for j := i; j < i+1000; j++ {
					fields = append(fields, "field:"+strconv.Itoa(j), value)
				}
				must(t, c.HSet(ctx, "big", fields...).Err())
			}
			must(t, c.Set(ctx, "live", "kept", 0).Err())
			if err := c.Do(ctx, "COMPACT").Err(); err != nil {
				t.Fatal(err)
			}
			before := sstBytes(t, p.Dir)
			must(t, c.Del(ctx, "big").Err())
			if err := c.ConfigSet(ctx, option, "* * * * *").Err(); err != nil {
				t.Fatal(err)
			}
			// The crons are checked every 10 s and run at most once a
			// minute; under load a run may take a while.
			waitFor(t, 2*time.Minute, option+" reclaims the deleted hash", func() bool { return sstBytes(t, p.Dir)*10 <= before })
			if got := c.Get(ctx, "live").Val(); got != "kept" {
				t.Fatalf("live key lost: %q", got)
			}
		})
	}
}
