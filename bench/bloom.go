package main

import (
	"context"
	"fmt"
	"math/rand"

	"github.com/redis/go-redis/v9"
)

// The Bloom filter steps, Kvrocks's BF.* (redis-server has none): BF.ADD
// of random items to a filter reserved for 10k items at 1% (a 16 KiB
// sub-filter, then a 32 KiB one once full, which each BF.ADD that sets
// bits rewrites whole, as Kvrocks does), then BF.EXISTS of random items
// in it; and both on random filters of the default size (128 bytes),
// created by the first BF.ADD of each. Each row is followed by the server
// CPU per request.
var bloomCommands = [][]string{
	{"BF.ADD", "bench:bf", "item:__rand_int__"},
	{"BF.EXISTS", "bench:bf", "item:__rand_int__"},
	{"BF.ADD", "bench:bf:__rand_int__", "item"},
	{"BF.EXISTS", "bench:bf:__rand_int__", "item"},
}

// benchBloom runs the Bloom steps against the servers that have them,
// rounds times at -P 1 and once at -P 16, and prints their ops/s and the
// CPU each server used per request.
func benchBloom(l load, all []*server, rounds int) {
	servers := withoutRedis(all)
	prefill(servers, func(ctx context.Context, pipe redis.Pipeliner, _ *rand.Rand) {
		pipe.Do(ctx, "BF.RESERVE", "bench:bf", "0.01", 10000)
	})
	fmt.Printf("\nBloom filters (Kvrocks's BF.*): ops/s, then server CPU per request in ns (the ratio: basalt's over kvrocks's)\n\n")
	measureSteps(l, servers, bloomCommands, rounds, 1, 16)
}
