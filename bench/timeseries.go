package main

import (
	"context"
	"fmt"
	"math/rand"

	"github.com/redis/go-redis/v9"
)

// The time series steps (TS.*, issue 43): neither redis-server 7.0 nor
// Kvrocks 2.10 has them, so they run against Basalt alone, with its CPU
// per request. TS.ADD in order (server time, "*", into one series whose
// duplicate policy is LAST), TS.ADD out of order (random timestamps into
// a series whose newest sample is newer than all of them), and
// TS.RANGE aggregating a series of 1M samples (prefilled with TS.MADD
// batches) into 1000 buckets, with fewer requests: each reads every
// chunk.
var tsCommands = [][]string{
	{"TS.ADD", "bench:ts:inorder", "*", "1"},
	// redis-benchmark pads __rand_int__ with zeros, which no integer
	// argument takes: 1 in front makes it 1e12 + r.
	{"TS.ADD", "bench:ts:ooo", "1__rand_int__", "1"},
}

var tsRangeCommand = []string{"TS.RANGE", "bench:ts:1m", "-", "+", "AGGREGATION", "avg", "1000"}

const tsBigSamples = 1_000_000

// benchTimeSeries runs the TS steps against Basalt, rounds times at -P 1
// and once at -P 16, and prints ops/s and CPU per request.
func benchTimeSeries(l load, all []*server, rounds int) {
	var servers []*server
	for _, s := range all {
		if s.name == "basalt" {
			servers = append(servers, s)
		}
	}
	prefill(servers, func(ctx context.Context, pipe redis.Pipeliner, _ *rand.Rand) {
		pipe.Do(ctx, "TS.CREATE", "bench:ts:inorder", "DUPLICATE_POLICY", "LAST")
		pipe.Do(ctx, "TS.CREATE", "bench:ts:ooo", "DUPLICATE_POLICY", "LAST")
		pipe.Do(ctx, "TS.ADD", "bench:ts:ooo", 1_000_000_200_000, 1)
		pipe.Do(ctx, "TS.CREATE", "bench:ts:1m")
		for i := 0; i < tsBigSamples; i += 1000 {
			cmd := []any{"TS.MADD"}
			for j := i; j < i+1000; j++ {
				cmd = append(cmd, "bench:ts:1m", j, j%100)
			}
			pipe.Do(ctx, cmd...)
			if i%50_000 == 0 { // replies the client reads before it sends more
				_, err := pipe.Exec(ctx)
				check(err)
			}
		}
	})
	fmt.Printf("\nTime series (TS.*, Basalt alone: Kvrocks 2.10 has none): ops/s, then server CPU per request in ns\n\n")
	printHeader(names(servers))
	rangeLoad := load{clients: 4, requests: 200, minRate: 1}
	for _, pipeline := range []int{1, 16} {
		n := 1
		if pipeline == 1 {
			n = rounds
		}
		ops, cpu := newTable(names(servers)), newTable(names(servers))
		for round := 0; round < n; round++ {
			for _, step := range append(tsCommands, tsRangeCommand) {
				sl := l
				if step[0] == "TS.RANGE" {
					sl = rangeLoad
				}
				results, used := make([]result, len(servers)), make([]result, len(servers))
				for i, s := range servers {
					ticks := s.cpuTicks()
					results[i] = sl.measure(step, pipeline, s)
					used[i] = cpuResult(results[i], float64(s.cpuPerRequest(ticks, sl.sent(pipeline)).Nanoseconds()))
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
