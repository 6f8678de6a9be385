package main

import (
	"context"
	"math/rand"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// The SORT step: a numeric SORT of a 1,000-element list with LIMIT, the
// shape of a legacy "top N" query, and SORT_RO of it BY nosort (the list
// read whole, no comparison).
var sortCommands = [][]string{
	{"SORT", "bench:sort", "LIMIT", "0", "10"},
	{"SORT_RO", "bench:sort", "BY", "nosort", "LIMIT", "0", "10"},
}

// prefillSort writes the list of the SORT steps on every server.
func prefillSort(servers []*server) {
	prefill(servers, func(ctx context.Context, pipe redis.Pipeliner, r *rand.Rand) {
		cmd := []any{"RPUSH", "bench:sort"}
		for i := 0; i < 1000; i++ {
			cmd = append(cmd, strconv.Itoa(r.Intn(1000000)))
		}
		pipe.Do(ctx, cmd...)
	})
}
