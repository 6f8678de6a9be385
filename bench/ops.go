package main

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Operations on a whole dataset: RDB LOAD of a file redis-server saved,
// and BGSAVE of a gigabyte, each timed on basalt and Kvrocks alike.

// benchRDBLoad times RDB LOAD, into a fresh basalt and Kvrocks, of files
// redis-server saved after being filled with about mb MB: of keys of every
// type with small elements, and of 4 KB strings.
func benchRDBLoad(basaltBin, kvrocksBin, dir string, mb int) {
	for _, data := range []struct {
		what string
		fill func(c *redis.Client, size int64) (keys, bytes int64)
	}{
		{"keys of every type, elements of 8 to 200 bytes", fillMixed},
		{"strings of 4 KB", fillStrings},
	} {
		check(os.RemoveAll(dir))
		check(os.MkdirAll(dir, 0o755))
		file, keys, saved := saveRDB(dir, data.fill, int64(mb)<<20)
		fi, err := os.Stat(file)
		check(err)
		fileMB := float64(fi.Size()) / (1 << 20)
		fmt.Printf("RDB LOAD of a %.0f MB file of %d %s, which redis-server 7.0 saved in %v\n",
			fileMB, keys, data.what, saved.Round(time.Millisecond))
		for _, s := range peers(basaltBin, kvrocksBin, dir+"/load") {
			c := benchClient(s.port)
			start := time.Now()
			err := c.Do(context.Background(), "RDB", "LOAD", file).Err()
			took := time.Since(start)
			c.Close()
			s.stop()
			if err != nil {
				fmt.Printf("  %-8s failed: %v\n", s.name, err)
				continue
			}
			fmt.Printf("  %-8s %6.1f s  %6.1f MB/s of RDB file  %8.0f keys/s\n", s.name, took.Seconds(), fileMB/took.Seconds(), float64(keys)/took.Seconds())
		}
	}
}

// saveRDB fills a redis-server in dir with fill, SAVEs, and returns the
// file, the keys and how long the SAVE took.
func saveRDB(dir string, fill func(*redis.Client, int64) (int64, int64), size int64) (string, int64, time.Duration) {
	r := start("redis", "redis-server", "--save", "", "--appendonly", "no", "--dir", dir)
	defer r.stop()
	rc := benchClient(r.port)
	defer rc.Close()
	keys, _ := fill(rc, size)
	start := time.Now()
	check(rc.Save(context.Background()).Err())
	return filepath.Join(dir, "dump.rdb"), keys, time.Since(start)
}

// benchBackup writes about mb MB of strings into basalt and Kvrocks and
// times a BGSAVE of each, from the command to the end of the backup that
// INFO persistence reports.
func benchBackup(basaltBin, kvrocksBin, dir string, mb int) {
	fmt.Printf("\nBGSAVE of %d MB of data (strings of 4 KB), until INFO persistence shows it done\n", mb)
	for _, s := range peers(basaltBin, kvrocksBin, dir+"/backup") {
		c := benchClient(s.port)
		_, bytes := fillStrings(c, int64(mb)<<20)
		start := time.Now()
		check(c.Do(context.Background(), "BGSAVE").Err())
		for {
			info := c.Info(context.Background(), "persistence").Val()
			if strings.Contains(info, "bgsave_in_progress:0") && !strings.Contains(info, "last_bgsave_time_sec:-1") {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		took := time.Since(start)
		ok := strings.Contains(c.Info(context.Background(), "persistence").Val(), "last_bgsave_status:ok")
		c.Close()
		s.stop()
		fmt.Printf("  %-8s %6.2f s  %7.0f MB/s  (%.0f MB written; status ok: %v)\n", s.name, took.Seconds(),
			float64(bytes)/(1<<20)/took.Seconds(), float64(bytes)/(1<<20), ok)
	}
}

// peers starts a basalt and, when its binary is there, a Kvrocks, each
// with a data directory of its own under dir.
func peers(basaltBin, kvrocksBin, dir string) []*server {
	out := []*server{startBasalt("basalt", basaltBin, "--dir", dir+"/basalt", "--log-level", "warning")}
	if _, err := os.Stat(kvrocksBin); kvrocksBin != "" && err == nil {
		out = append(out, start("kvrocks", kvrocksBin, "--bind", "127.0.0.1", "--dir", dir+"/kvrocks",
			"--daemonize", "no", "--log-dir", dir+"/kvrocks", "--log-level", "warning"))
	}
	return out
}

func benchClient(port int) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), Protocol: 2,
		ReadTimeout: 10 * time.Minute, WriteTimeout: time.Minute, MaxRetries: -1})
}

// fillMixed writes about size bytes of elements into strings, hashes,
// lists, sets and sorted sets of 1 to 200 elements of 8 to 200 bytes,
// made of words so that RDB's LZF compresses them as it would text.
func fillMixed(c *redis.Client, size int64) (keys, bytes int64) {
	return fill(c, size, func(rnd *rand.Rand, pipe redis.Pipeliner, k string) int64 {
		n := 1 + rnd.Intn(200)
		elems := make([]any, n)
		var written int64
		for i := range elems {
			e := words(rnd, 8+rnd.Intn(192))
			elems[i], written = e, written+int64(len(e))
		}
		ctx := context.Background()
		switch rnd.Intn(5) {
		case 0:
			pipe.Set(ctx, "s:"+k, elems[0], 0)
			return int64(len(elems[0].(string)))
		case 1:
			if n%2 == 1 {
				elems = append(elems, "last")
			}
			pipe.HSet(ctx, "h:"+k, elems...)
		case 2:
			pipe.RPush(ctx, "l:"+k, elems...)
		case 3:
			pipe.SAdd(ctx, "t:"+k, elems...)
		case 4:
			zs := make([]redis.Z, n)
			for i, e := range elems {
				zs[i] = redis.Z{Score: rnd.Float64() * 1000, Member: e}
			}
			pipe.ZAdd(ctx, "z:"+k, zs...)
		}
		return written
	})
}

// fillStrings writes about size bytes as strings of 4 KB.
func fillStrings(c *redis.Client, size int64) (keys, bytes int64) {
	return fill(c, size, func(rnd *rand.Rand, pipe redis.Pipeliner, k string) int64 {
		v := words(rnd, 4096)
		pipe.Set(context.Background(), "s:"+k, v, 0)
		return int64(len(v))
	})
}

// fill runs add from 4 writers, in pipelines, until size bytes are
// written.
func fill(c *redis.Client, size int64, add func(rnd *rand.Rand, pipe redis.Pipeliner, key string) int64) (keys, bytes int64) {
	const writers = 4
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rnd := rand.New(rand.NewSource(int64(w)))
			pipe := c.Pipeline()
			var n, written int64
			for ; written < size/writers; n++ {
				written += add(rnd, pipe, strconv.Itoa(w)+":"+strconv.Itoa(int(n)))
				if pipe.Len() == 100 {
					_, err := pipe.Exec(context.Background())
					check(err)
				}
			}
			_, err := pipe.Exec(context.Background())
			check(err)
			mu.Lock()
			keys, bytes = keys+n, bytes+written
			mu.Unlock()
		}()
	}
	wg.Wait()
	return keys, bytes
}

var benchWords = strings.Fields("the of and to in is was that for on as with by he at from his it an were are which this be or has had not but first one their its new after who they have her she two been other when there all during into school time may years more most only over city some world would where later up such used many can state about national out known university united then made")

// words returns about n bytes of words and digits.
func words(rnd *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		if rnd.Intn(4) == 0 {
			b.WriteString(strconv.Itoa(rnd.Intn(100000)))
		} else {
			b.WriteString(benchWords[rnd.Intn(len(benchWords))])
		}
		b.WriteByte(' ')
	}
	return b.String()[:n]
}
