package main

import (
	"context"
	"fmt"
	"math/rand"

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
	servers := withoutRedis(all)
	prefillSortedInt(servers)
	fmt.Printf("\nSorted ints (Kvrocks's SI*): ops/s, then server CPU per request in ns\n\n")
	measureSteps(l, servers, sortedIntCommands, rounds, 1, 16)
}
