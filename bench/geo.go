package main

import (
	"context"
	"math/rand"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// The GEO steps: GEOADD of random members at one place, and GEOSEARCH of
// a 5 km radius in a set of 100k points spread over 3 by 3 degrees
// (about 90 points found per search, the set read a few cells at a time).
var geoCommands = [][]string{
	{"GEOADD", "bench:geoadd", "13.361389", "38.115556", "m:__rand_int__"},
	{"GEOSEARCH", "bench:geo", "FROMLONLAT", "13.5", "38.5", "BYRADIUS", "5", "km"},
}

// prefillGeo writes the 100k points of the GEOSEARCH step on every
// server, the same points on each.
func prefillGeo(servers []*server) {
	prefill(servers, func(ctx context.Context, pipe redis.Pipeliner, r *rand.Rand) {
		for i := 0; i < 100000; i += 1000 {
			cmd := []any{"GEOADD", "bench:geo"}
			for j := i; j < i+1000; j++ {
				cmd = append(cmd, 12+3*r.Float64(), 37+3*r.Float64(), "p"+strconv.Itoa(j))
			}
			pipe.Do(ctx, cmd...)
		}
	})
}
