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
	var servers []*server
	for _, s := range all {
		if s.name != "redis" {
			servers = append(servers, s)
		}
	}
	prefill(servers, func(ctx context.Context, pipe redis.Pipeliner, _ *rand.Rand) {
		pipe.Do(ctx, "BF.RESERVE", "bench:bf", "0.01", 10000)
	})
	fmt.Printf("\nBloom filters (Kvrocks's BF.*): ops/s, then server CPU per request in ns (the ratio: basalt's over kvrocks's)\n\n")
	printHeader(names(servers))
	benchWithCPU(l, servers, bloomCommands, rounds)
}

// benchWithCPU runs steps against servers, rounds times at -P 1 and once
// at -P 16, and prints each step's ops/s and then the CPU each server
// used per request.
func benchWithCPU(l load, servers []*server, steps [][]string, rounds int) {
	for _, pipeline := range []int{1, 16} {
		n := 1
		if pipeline == 1 {
			n = rounds
		}
		ops, cpu := newTable(names(servers)), newTable(names(servers))
		for round := 0; round < n; round++ {
			for _, step := range steps {
				results, used := make([]result, len(servers)), make([]result, len(servers))
				for j := range servers {
					i := (j + round) % len(servers)
					ticks := servers[i].cpuTicks()
					results[i] = l.measure(step, pipeline, servers[i])
					perRequest := servers[i].cpuPerRequest(ticks, l.sent(pipeline))
					used[i] = cpuResult(results[i], float64(perRequest.Nanoseconds()))
				}
				ops.add(step, results)
				cpu.add(step, used)
			}
		}
		for _, name := range ops.order {
			printRow(name, fmt.Sprint(pipeline), ops.rows[name])
			printRow("  CPU ns/request", fmt.Sprint(pipeline), cpu.rows[name])
		}
	}
}

// cpuResult is r with its figure replaced by cpu, for a table of CPU
// per request.
func cpuResult(r result, cpu float64) result {
	out := r
	out.rps = map[string]float64{}
	for _, name := range r.order {
		out.rps[name] = cpu
	}
	return out
}
