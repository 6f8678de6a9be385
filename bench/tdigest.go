package main

import (
	"context"
	"fmt"
	"math/rand"

	"github.com/redis/go-redis/v9"
)

// The t-digest steps, Kvrocks 2.14+'s TDIGEST.* (neither redis-server
// 7.0 nor Kvrocks 2.10 has them, so Basalt alone runs them): TDIGEST.ADD
// of one random value to a digest of 100,000 values at compression 100
// (appended to the buffer, which every 610th ADD merges into the
// centroids), then TDIGEST.QUANTILE of three fractions of it (the first
// one merges what the ADDs left in the buffer). Each row is followed by
// the server CPU per request.
var tdigestCommands = [][]string{
	{"TDIGEST.ADD", "bench:td", "__rand_int__"},
	{"TDIGEST.QUANTILE", "bench:td", "0.5", "0.9", "0.99"},
}

// benchTDigest runs the t-digest steps against Basalt, rounds times at
// -P 1 and once at -P 16, and prints their ops/s and the CPU per request.
func benchTDigest(l load, all []*server, rounds int) {
	var servers []*server
	for _, s := range all {
		if s.name == "basalt" {
			servers = append(servers, s)
		}
	}
	prefill(servers, func(ctx context.Context, pipe redis.Pipeliner, r *rand.Rand) {
		pipe.Do(ctx, "TDIGEST.CREATE", "bench:td")
		for i := 0; i < 100000; i += 1000 {
			cmd := []any{"TDIGEST.ADD", "bench:td"}
			for j := 0; j < 1000; j++ {
				cmd = append(cmd, r.NormFloat64()*1000+50000)
			}
			pipe.Do(ctx, cmd...)
		}
	})
	fmt.Printf("\nt-digests (Kvrocks 2.14+'s TDIGEST.*, Basalt only): ops/s, then server CPU per request in ns\n\n")
	measureSteps(l, servers, tdigestCommands, rounds, 1, 16)
}
