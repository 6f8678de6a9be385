package main

import (
	"context"
	"fmt"
	"math/rand"
	"time"

	"github.com/redis/go-redis/v9"
)

// The sortedint steps, on the servers that have sortedints (Basalt and
// Kvrocks, not redis-server): SIADD of random ids to one set (redis-
// benchmark's zero-padded __rand_int__ is a valid id), and SIRANGE of 10
// ids from a random cursor and of the first 100 ids of a set of 100,000.
// Each row is followed by the server CPU time per request.
var sortedIntCommands = [][]string{
	{"SIADD", "bench:si", "__rand_int__"},
	{"SIRANGE", "bench:sibig", "0", "10", "CURSOR", "__rand_int__"},
	{"SIRANGE", "bench:sibig", "0", "100"},
}

// prefillSortedInt writes bench:sibig, the even ids below 200,000, on
// every server.
func prefillSortedInt(servers []*server) {
	prefill(servers, func(ctx context.Context, pipe redis.Pipeliner, _ *rand.Rand) {
		for i := 0; i < 200000; i += 2000 {
			cmd := []any{"SIADD", "bench:sibig"}
			for id := i; id < i+2000; id += 2 {
				cmd = append(cmd, id)
			}
			pipe.Do(ctx, cmd...)
		}
	})
}

// benchSortedInt runs the sortedint steps at -P 1 (rounds times) and -P
// 16 on the servers other than redis-server, in a table of their own.
func benchSortedInt(l load, all []*server, rounds int) {
	var servers []*server
	for _, s := range all {
		if s.name != "redis" {
			servers = append(servers, s)
		}
	}
	prefillSortedInt(servers)
	fmt.Println()
	printHeader(names(servers))
	for _, pipeline := range []int{1, 16} {
		n := 1
		if pipeline == 1 {
			n = rounds
		}
		t := newTable(names(servers))
		cpu := map[string][][]float64{} // step -> server -> µs per request, by round
		for round := 0; round < n; round++ {
			for _, step := range sortedIntCommands {
				results := make([]result, len(servers))
				used := make([]float64, len(servers))
				for j := range servers {
					i := (j + round) % len(servers)
					ticks := servers[i].cpuTicks()
					results[i] = l.measure(step, pipeline, servers[i])
					used[i] = float64(servers[i].cpuPerRequest(ticks, l.sent(pipeline))) / float64(time.Microsecond)
				}
				t.add(step, results)
				name := stepNames(step, results)[0]
				if cpu[name] == nil {
					cpu[name] = make([][]float64, len(servers))
				}
				for i, u := range used {
					cpu[name][i] = append(cpu[name][i], u)
				}
			}
		}
		for _, name := range t.order {
			printRow(name, fmt.Sprint(pipeline), t.rows[name])
			printRow("  server CPU per request (µs)", fmt.Sprint(pipeline), cpu[name])
		}
	}
}
