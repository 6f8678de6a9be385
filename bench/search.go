package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// The search steps, on the servers that have FT.* (Basalt and Kvrocks):
// FT.SEARCH by a tag and a numeric range over hashes (a tenth of them
// carry the tag, their numbers are random below 100,000 as the range's
// start is: both servers scan the tag and check the number, about 90
// documents for the first 10 on average), and
// KNN 10 over 64-dimensional vectors; then the time each server takes to
// insert the vectors, and FT.CREATE's backfill of hashes that exist with
// the 99th percentile of another client's GETs meanwhile.
//
// The issue asks for KNN over 100,000 vectors: Kvrocks inserts about 20
// a second (an HNSW insertion reads hundreds of records), so the vector
// count is a flag, 5,000 by default.

// searchSteps are the redis-benchmark steps; the KNN query's vector is
// built of bytes an argument and redis-benchmark's CSV can hold.
func searchSteps() [][]string {
	return [][]string{
		{"FT.SEARCH", "benchh", "@t:{g3} @n:[__rand_int__ +inf]", "LIMIT", "0", "10"},
		{"FT.SEARCH", "benchv", "*=>[KNN 10 @v $b]", "PARAMS", "2", "b", string(argVector(rand.New(rand.NewSource(7))))},
	}
}

// randomVector is a 64-dimensional FLOAT64 vector of uniform elements.
func randomVector(r *rand.Rand) []byte {
	b := make([]byte, 0, 64*8)
	for range 64 {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(r.Float64()))
	}
	return b
}

// argVector is randomVector with every element drawn again until none
// of its bytes is a control character (a zero ends an argument, a line
// feed a CSV row), a quote or a comma.
func argVector(r *rand.Rand) []byte {
	b := make([]byte, 0, 64*8)
	for len(b) < cap(b) {
		e := binary.LittleEndian.AppendUint64(nil, math.Float64bits(r.Float64()))
		if !slices.ContainsFunc(e, func(c byte) bool { return c < ' ' || c == '"' || c == ',' || c == 0x7f }) {
			b = append(b, e...)
		}
	}
	return b
}

// prefillSearch creates the indexes and writes their documents: docs
// hashes and vectors vectors, and returns the seconds each server took
// to insert the vectors.
func prefillSearch(servers []*server, docs, vectors int) []float64 {
	prefill(servers, func(ctx context.Context, pipe redis.Pipeliner, r *rand.Rand) {
		pipe.Do(ctx, "FT.CREATE", "benchh", "PREFIX", "1", "bsh:", "SCHEMA", "t", "TAG", "n", "NUMERIC")
		pipe.Do(ctx, "FT.CREATE", "benchv", "PREFIX", "1", "bsv:", "SCHEMA", "v", "VECTOR", "HNSW", "6",
			"TYPE", "FLOAT64", "DIM", "64", "DISTANCE_METRIC", "L2")
		for i := 0; i < docs; i++ {
			pipe.HSet(ctx, "bsh:"+strconv.Itoa(i), "t", "g"+strconv.Itoa(i%10), "n", r.Intn(100000))
		}
	})
	seconds := make([]float64, len(servers))
	for i, s := range servers {
		start := time.Now()
		prefill([]*server{s}, func(ctx context.Context, pipe redis.Pipeliner, r *rand.Rand) {
			for j := 0; j < vectors; j++ {
				pipe.HSet(ctx, "bsv:"+strconv.Itoa(j), "v", randomVector(r))
			}
		})
		seconds[i] = time.Since(start).Seconds()
	}
	return seconds
}

// timeBackfill writes docs hashes, then times FT.CREATE of an index over
// them while another client sends GETs one after the other, and returns
// the seconds FT.CREATE took and the GETs' 99th percentile and maximum
// in ms (a server that blocks its other clients for the whole backfill
// shows it in the maximum).
func timeBackfill(s *server, docs int) (seconds, p99, longest float64) {
	prefill([]*server{s}, func(ctx context.Context, pipe redis.Pipeliner, _ *rand.Rand) {
		for i := 0; i < docs; i++ {
			pipe.HSet(ctx, "bsb:"+strconv.Itoa(i), "t", "g"+strconv.Itoa(i%10), "n", i)
		}
	})
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(s.port), Protocol: 2, ReadTimeout: 10 * time.Minute})
	defer c.Close()
	other := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(s.port), Protocol: 2, ReadTimeout: 10 * time.Minute})
	defer other.Close()
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		done <- c.Do(ctx, "FT.CREATE", "benchb", "PREFIX", "1", "bsb:", "SCHEMA", "t", "TAG", "n", "NUMERIC").Err()
	}()
	var latencies []time.Duration
	for {
		select {
		case err := <-done:
			check(err)
			seconds = time.Since(start).Seconds()
			if len(latencies) == 0 {
				return seconds, 0, 0
			}
			slices.Sort(latencies)
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			return seconds, ms(latencies[len(latencies)*99/100]), ms(latencies[len(latencies)-1])
		default:
			t := time.Now()
			check(ignoreNil(other.Get(ctx, "bench:backfill:get").Err()))
			latencies = append(latencies, time.Since(t))
		}
	}
}

func ignoreNil(err error) error {
	if err == redis.Nil {
		return nil
	}
	return err
}

// benchSearch runs the search steps against the servers other than
// redis-server, in a table of their own.
func benchSearch(l load, all []*server, rounds, docs, vectors int) {
	servers := withoutRedis(all)
	// The backfill first, on its hashes alone: Kvrocks 5fccd57 crashes in
	// an FT.CREATE over a database that holds other indexes' documents.
	backfill := make([][3]float64, len(servers))
	for i, s := range servers {
		backfill[i][0], backfill[i][1], backfill[i][2] = timeBackfill(s, docs)
	}
	inserts := prefillSearch(servers, docs, vectors)
	// Queries cost milliseconds: a 40th of the requests, and a run cut
	// off below 100 a second.
	l.requests, l.minRate = max(l.requests/40, 500), 100
	fmt.Printf("\nSearch (FT.*): %d hashes with a tag and a number, %d 64-dim vectors (HNSW, L2); %d requests a run; ops/s, then server CPU per request in ns\n\n", docs, vectors, l.requests)
	measureSteps(l, servers, searchSteps(), rounds, 1, 16)
	printRow(fmt.Sprintf("insert %d vectors (vectors/s)", vectors), "-", perServer(servers, func(s *server) float64 {
		return float64(vectors) / inserts[slices.Index(servers, s)]
	}))
	printRow(fmt.Sprintf("FT.CREATE over %d hashes (s)", docs), "-", perServer(servers, func(s *server) float64 {
		return backfill[slices.Index(servers, s)][0]
	}))
	printRow("  p99 of another client's GETs meanwhile (ms)", "-", perServer(servers, func(s *server) float64 {
		return backfill[slices.Index(servers, s)][1]
	}))
	printRow("  the longest of them (ms)", "-", perServer(servers, func(s *server) float64 {
		return backfill[slices.Index(servers, s)][2]
	}))
}
