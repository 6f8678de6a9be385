package main

import (
	"context"
	"fmt"
	"math/rand"
	"strings"

	"github.com/redis/go-redis/v9"
)

// The JSON steps, against the servers that have JSON.* (not
// redis-server): JSON.SET and JSON.GET of one member deep in a 1 KB
// document, which reads (and for SET rewrites) the whole stored document
// on every call.
// Besides ops/s, each server's CPU time per request (user and system,
// from /proc) is reported: the goal is Basalt ≥ 1.5× Kvrocks's
// throughput at no more CPU per request.

// jsonDoc1KB is a document of about 1 KB: an object of a dozen items,
// each an object of a name, numbers and tags.
var jsonDoc1KB = func() string {
	var items []string
	for i := 0; len(strings.Join(items, ",")) < 950; i++ {
		items = append(items, fmt.Sprintf(`{"id":%d,"name":"item %d","price":%d.%02d,"tags":["a","b%d"],"stock":true}`, i, i, 10+i, i, i))
	}
	return `{"items":[` + strings.Join(items, ",") + `]}`
}()

// jsonCommands are the steps. redis-benchmark's __rand_int__ is a
// zero-padded number, no JSON number: a 1 before it makes one. No
// argument has a double quote, which redis-benchmark's CSV output would
// carry unescaped in the test's name.
var jsonCommands = [][]string{
	{"JSON.SET", "bench:json", "$.items[3].price", "1__rand_int__"},
	{"JSON.GET", "bench:json", "$.items[3]"},
}

// benchJSON runs the JSON steps on the servers that have them, rounds
// times at -P 1, and prints ops/s and CPU per request.
func benchJSON(l load, all []*server, rounds int) {
	servers := withoutRedis(all)
	prefill(servers, func(ctx context.Context, pipe redis.Pipeliner, _ *rand.Rand) {
		pipe.Do(ctx, "JSON.SET", "bench:json", "$", jsonDoc1KB)
	})
	fmt.Printf("\nJSON, a %d-byte document: ops/s, then server CPU per request in ns\n\n", len(jsonDoc1KB))
	measureSteps(l, servers, jsonCommands, rounds, 1)
}
