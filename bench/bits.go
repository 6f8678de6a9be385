package main

import (
	"context"
	"math/rand"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// The bit and HyperLogLog steps: SETBIT on random keys (redis-benchmark's
// zero-padded __rand_int__ is no valid offset),
// BITCOUNT of a 1 MB bitmap whose bits are random (every segment of a
// Kvrocks bitmap present and whole), PFADD of random elements, PFCOUNT of
// the HyperLogLog PFADD filled and of 16 merged on the fly.
var bitCommands = [][]string{
	{"SETBIT", "bench:bit:__rand_int__", "7", "1"},
	{"BITCOUNT", "bench:1mb"},
	{"PFADD", "bench:hll", "__rand_int__"},
	{"PFCOUNT", "bench:hll"},
	append([]string{"PFCOUNT"}, hllParts()...),
}

// hllParts are the 16 HyperLogLogs of the merged PFCOUNT.
func hllParts() []string {
	out := make([]string, 16)
	for i := range out {
		out[i] = "bench:hll:" + strconv.Itoa(i)
	}
	return out
}

// prefillBits writes the 1 MB bitmap and the 16 HyperLogLogs on every
// server, the same bits and elements on each.
func prefillBits(servers []*server) {
	prefill(servers, func(ctx context.Context, pipe redis.Pipeliner, r *rand.Rand) {
		const fields = 1 << 20 / 8 // 64-bit fields of 1 MB
		for i := 0; i < fields; i += 1000 {
			cmd := []any{"BITFIELD", "bench:1mb"}
			for j := i; j < min(i+1000, fields); j++ {
				// Kvrocks takes no #n offsets.
				cmd = append(cmd, "SET", "i64", j*64, r.Int63()-r.Int63())
			}
			pipe.Do(ctx, cmd...)
		}
		for k, key := range hllParts() {
			cmd := []any{"PFADD", key}
			for j := 0; j < 5000; j++ {
				cmd = append(cmd, "e"+strconv.Itoa(k*2500+j))
			}
			pipe.Do(ctx, cmd...)
		}
	})
}

// prefill runs fill's commands on every server in one pipeline, with a
// random source seeded the same for each, so that all hold the same data.
func prefill(servers []*server, fill func(ctx context.Context, pipe redis.Pipeliner, r *rand.Rand)) {
	for _, s := range servers {
		c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(s.port), Protocol: 2, ReadTimeout: time.Minute})
		ctx := context.Background()
		pipe := c.Pipeline()
		fill(ctx, pipe, rand.New(rand.NewSource(1)))
		_, err := pipe.Exec(ctx)
		check(err)
		c.Close()
	}
}
