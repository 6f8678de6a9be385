package it

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestTimeSeriesKill9 (issue 43, "Done means"): 4 writers TS.ADD in
// order to series with a compaction rule each while the server is
// killed with SIGKILL, 3 times; after each restart every acknowledged
// sample is there, and every bucket the acknowledged samples closed is
// in the rule's destination with the sum of its source samples.
func TestTimeSeriesKill9(t *testing.T) {
	const writers, rounds, perRound, bucket = 4, 3, 300, 10
	dir := t.TempDir()
	p := startBasaltIn(t, dir)
	c := p.client(t, 2)
	for w := 0; w < writers; w++ {
		for _, cmd := range [][]any{
			{"TS.CREATE", fmt.Sprint("src", w), "DUPLICATE_POLICY", "LAST"},
			{"TS.CREATE", fmt.Sprint("agg", w)},
			{"TS.CREATERULE", fmt.Sprint("src", w), fmt.Sprint("agg", w), "AGGREGATION", "sum", bucket},
		} {
			if err := c.Do(ctx, cmd...).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	acked := make([]int64, writers) // the newest acknowledged timestamp, by writer
	for w := range acked {
		acked[w] = -1
	}
	for round := 0; round < rounds; round++ {
		var wg sync.WaitGroup
		var done atomic.Int64
		stop := make(chan struct{})
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				wc := redis.NewClient(&redis.Options{Addr: p.Addr(), Protocol: 2, MaxRetries: -1, PoolSize: 1})
				defer wc.Close()
				for ts := acked[w] + 1; ; ts++ {
					select {
					case <-stop:
						return
					default:
					}
					if err := wc.Do(ctx, "TS.ADD", fmt.Sprint("src", w), ts, 1).Err(); err != nil {
						return // the server is gone: this one is not acknowledged
					}
					acked[w] = ts
					if ts%perRound == perRound-1 {
						done.Add(1)
					}
				}
			}(w)
		}
		waitFor(t, longTimeout, "each writer's samples of the round", func() bool { return done.Load() >= writers })
		p.Kill()
		close(stop)
		wg.Wait()
		p = startBasaltAt(t, dir, p.Port)
		c = p.client(t, 2)
		for w := 0; w < writers; w++ {
			checkSeriesAfterCrash(t, c, w, acked[w], bucket)
		}
	}
	p.Stop()
}

// checkSeriesAfterCrash checks writer w's series: samples 0..newest
// acknowledged all there, each closed bucket summed in the destination.
func checkSeriesAfterCrash(t *testing.T, c *redis.Client, w int, newest, bucket int64) {
	t.Helper()
	samples, err := c.Do(ctx, "TS.RANGE", fmt.Sprint("src", w), 0, newest).Slice()
	if err != nil || int64(len(samples)) != newest+1 {
		t.Fatalf("writer %d: %d samples in [0, %d] after the restart (%v)", w, len(samples), newest, err)
	}
	buckets, err := c.Do(ctx, "TS.RANGE", fmt.Sprint("agg", w), "-", "+").Slice()
	if err != nil {
		t.Fatal(err)
	}
	closed := newest / bucket // buckets 0..closed-1 are closed by acknowledged samples
	if int64(len(buckets)) < closed {
		t.Fatalf("writer %d: %d buckets in the destination, want at least %d", w, len(buckets), closed)
	}
	for i := int64(0); i < closed; i++ {
		b := buckets[i].([]any)
		if b[0].(int64) != i*bucket || b[1].(string) != fmt.Sprint(bucket) {
			t.Fatalf("writer %d: bucket %d is %v, want [%d %d]", w, i, b, i*bucket, bucket)
		}
	}
}
