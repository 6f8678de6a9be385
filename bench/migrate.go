package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/basaltdb/basalt/metadata"
	"github.com/redis/go-redis/v9"
)

// benchMigration fills node 0 of a two-node cluster with mb MB of strings,
// hashes, lists, sets and sorted sets, migrates all its slots to node 1 in
// the given mode, and prints keys/s, MB/s and the latency a client sees on
// node 1's own slots before and during the migration.
func benchMigration(bin, dir, mode string, mb int) {
	nodes := startCluster(bin, dir, 2, "--migrate-type", mode, "--migrate-speed", "0", "--migrate-batch-rate-limit-mb", "0")
	defer stopAll(nodes)
	src, dst := nodeClient(nodes[0]), nodeClient(nodes[1])
	defer src.Close()
	defer dst.Close()
	keys, bytes := fillSlots(src, 0, 8191, int64(mb)<<20)

	before := probeLatency(dst, time.Second, nil)
	done := make(chan struct{})
	var during []time.Duration
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		during = probeLatency(dst, 0, done)
	}()
	start := time.Now()
	err := src.Do(context.Background(), "CLUSTERX", "MIGRATE", "0-8191", fmt.Sprintf("%040d", 2), "SYNC").Err()
	took := time.Since(start)
	close(done)
	wg.Wait()
	check(err)
	if n := keysInSlots(dst, 0, 8191); n != keys {
		check(fmt.Errorf("%s: the destination has %d keys of the migrated slots, want %d", mode, n, keys))
	}
	fmt.Printf("%-14s %d keys, %.0f MB in %v: %.0f keys/s, %.1f MB/s; other slots p50/p99 %v/%v before, %v/%v during\n",
		mode, keys, float64(bytes)/(1<<20), took.Round(time.Millisecond), float64(keys)/took.Seconds(),
		float64(bytes)/(1<<20)/took.Seconds(), percentile(before, 50), percentile(before, 99),
		percentile(during, 50), percentile(during, 99))
}

// keysInSlots sums CLUSTER COUNTKEYSINSLOT over [from, to].
func keysInSlots(c *redis.Client, from, to int) int64 {
	pipe := c.Pipeline()
	var counts []*redis.IntCmd
	for s := from; s <= to; s++ {
		counts = append(counts, pipe.ClusterCountKeysInSlot(context.Background(), s))
	}
	_, err := pipe.Exec(context.Background())
	check(err)
	total := int64(0)
	for _, c := range counts {
		total += c.Val()
	}
	return total
}

func nodeClient(s *server) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(s.port), Protocol: 2, ReadTimeout: time.Minute})
}

// fillSlots writes keys of slots [from, to] until about size bytes of
// values are stored, from 4 connections; it returns the keys and bytes.
func fillSlots(c *redis.Client, from, to uint16, size int64) (keys, bytes int64) {
	const writers, elems = 4, 8
	value := strings.Repeat("v", 1000)
	perWriter := size / writers
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			pipe := c.Pipeline()
			var n, written int64
			for i := 0; written < perWriter; i++ {
				k := "mig:" + strconv.Itoa(w) + ":" + strconv.Itoa(i)
				if s := metadata.HashSlot([]byte(k)); s < from || s > to {
					continue
				}
				var args []any
				for e := 0; e < elems; e++ {
					args = append(args, strconv.Itoa(e)+value)
				}
				switch i % 5 {
				case 0:
					pipe.Set(ctx, k, value, 0)
					written += int64(len(value))
				case 1:
					pipe.HSet(ctx, k, args...) // field = value pairs
					written += int64(elems * len(value))
				case 2:
					pipe.RPush(ctx, k, args...)
					written += int64(elems * len(value))
				case 3:
					pipe.SAdd(ctx, k, args...)
					written += int64(elems * len(value))
				case 4:
					var zs []redis.Z
					for e, m := range args {
						zs = append(zs, redis.Z{Score: float64(e), Member: m})
					}
					pipe.ZAdd(ctx, k, zs...)
					written += int64(elems * len(value))
				}
				n++
				if pipe.Len() == 50 {
					_, err := pipe.Exec(ctx)
					check(err)
				}
			}
			_, err := pipe.Exec(ctx)
			check(err)
			mu.Lock()
			keys, bytes = keys+n, bytes+written
			mu.Unlock()
		}()
	}
	wg.Wait()
	return keys, bytes
}

// probeLatency runs GET and SET on keys of the node's own slots, one at a
// time, for d (or until stop is closed), and returns each latency.
func probeLatency(c *redis.Client, d time.Duration, stop <-chan struct{}) []time.Duration {
	ctx := context.Background()
	var out []time.Duration
	deadline := time.Now().Add(d)
	for i := 0; ; i++ {
		if stop == nil && time.Now().After(deadline) {
			return out
		}
		select {
		case <-stop:
			return out
		default:
		}
		k := "probe:" + strconv.Itoa(i%1000)
		if metadata.HashSlot([]byte(k)) < 8192 {
			continue
		}
		start := time.Now()
		if i%2 == 0 {
			check(c.Set(ctx, k, i, 0).Err())
		} else if err := c.Get(ctx, k).Err(); err != nil && err != redis.Nil {
			check(err)
		}
		out = append(out, time.Since(start))
	}
}

func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)].Round(time.Microsecond)
}
