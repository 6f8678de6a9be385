package main

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Hash field expiration at size (issue 42): reads of a hash of 1,000,000
// fields, on three fresh Basalts holding it in three states and on
// Kvrocks, each a column:
//   - ttl: every tenth field (100,000) has a TTL a day away, so the hash
//     is in field-expiration mode, every field value behind its expiry;
//   - plain: the same fields, no TTL, the plain layout;
//   - expired: the TTLs of those 100,000 fields were seconds and have
//     passed; the sweep deleted their records before the reads (how long
//     it took is printed), whose tombstones no compaction has dropped yet;
//   - kvrocks: the plain hash (Kvrocks 2.10 has no field TTL).
//
// Fields are f:<12 digits>, as redis-benchmark writes __rand_int__, so
// random reads hit; -r makes them range over the whole hash. A 100-field
// hash, in the same three states, is the one HGETALL reads. The point
// reads run at -P 1 and -P 16, the others, each of which reads 10 to 100
// fields, at -P 1 only (at -P 16 they would go past the time limit).
var (
	hashTTLPointCommands = [][]string{
		{"-r", strconv.Itoa(bigFieldHash), "HGET", "bench:hfe", "f:__rand_int__"},
		{"-r", strconv.Itoa(bigFieldHash), "HEXISTS", "bench:hfe", "f:__rand_int__"},
		{"HLEN", "bench:hfe"},
	}
	hashTTLRangeCommands = [][]string{
		append([]string{"-r", strconv.Itoa(bigFieldHash), "HMGET", "bench:hfe"}, slices.Repeat([]string{"f:__rand_int__"}, 10)...),
		{"HSCAN", "bench:hfe", "0"},
		{"HGETALL", "bench:hfe:small"},
	}
	// hashTTLSampleCommands draw random fields, which Basalt does with
	// random seeks; Kvrocks 2.10 reads the whole hash for each, so it is
	// left out.
	hashTTLSampleCommands = [][]string{
		{"HRANDFIELD", "bench:hfe"},
		{"HRANDFIELD", "bench:hfe", "-5", "WITHVALUES"},
	}
)

const (
	bigFieldHash   = 1_000_000
	smallFieldHash = 100
	fieldTTLEvery  = 10 // every tenth field has a TTL
	// expiringTTL is the TTL of the expired column's fields: long enough
	// for every HPEXPIRE of the fill to find its fields still there.
	expiringTTL = 3 * time.Second
)

func fieldName(i int) string  { return fmt.Sprintf("f:%012d", i) }
func fieldValue(i int) string { return "value:" + strconv.Itoa(i) }

// hasFieldTTL reports whether field i is one of those given a TTL.
func hasFieldTTL(i int) bool { return i%fieldTTLEvery == 3 }

// benchHashTTL fills the hashes, checks that the servers agree on them,
// runs the steps rounds times at -P 1 (the point reads once more at -P
// 16), and checks the hashes again.
func benchHashTTL(l load, all []*server, rounds int, basaltBin string) {
	fmt.Printf("\nHash field expiration: a hash of %d fields, %d of them with a TTL (ttl: a day away; expired: passed and swept, not compacted), against the same hash without (plain, kvrocks): ops/s, then server CPU per request in ns\n\n",
		bigFieldHash, bigFieldHash/fieldTTLEvery)
	var servers []*server
	for _, name := range []string{"ttl", "plain", "expired"} {
		servers = append(servers, startBasalt(name, basaltBin, "--dir", workDir+"/hfe-"+name, "--log-level", "warning"))
	}
	defer stopAll(servers)
	var kvrocks []*server
	for _, s := range all {
		if s.name == "kvrocks" {
			kvrocks = append(kvrocks, s)
		}
	}
	for _, s := range kvrocks {
		fillFieldHashes(s, 0)
	}
	fillFieldHashes(servers[0], 24*time.Hour)
	fillFieldHashes(servers[1], 0)
	awaitFieldSweep(servers[2], fillFieldHashes(servers[2], expiringTTL))
	readers := append(append([]*server(nil), servers...), kvrocks...)
	for _, s := range readers {
		s.settle() // the compactions the fill started
	}
	verifyFieldHashes(readers)
	measureSteps(l, readers, hashTTLPointCommands, rounds, 1, 16)
	fmt.Println()
	measureSteps(l, readers, hashTTLRangeCommands, rounds, 1)
	fmt.Println()
	measureSteps(l, servers, hashTTLSampleCommands, rounds, 1)
	verifyFieldHashes(readers)
}

// fillFieldHashes writes the big and the small hash on s, in pipelines
// of 50 commands of 1000 fields; unless ttl is 0, it then gives every
// tenth field a TTL of ttl with HPEXPIRE, and returns when that passes.
// The first TTL turns a hash into field-expiration mode, which rewrites
// its fields (at 1M fields, a command of seconds).
func fillFieldHashes(s *server, ttl time.Duration) time.Time {
	c := benchClient(s.port)
	defer c.Close()
	ctx := context.Background()
	// batches sends command name on key, with args' arguments for each
	// step fields of from to n, and checks the replies.
	batches := func(name, key string, from, n, step int, args func(from, to int) []any) {
		pipe := c.Pipeline()
		for i := from; i < n; i += step {
			pipe.Do(ctx, append([]any{name, key}, args(i, min(i+step, n))...)...)
			if pipe.Len() == 50 || i+step >= n {
				cmds, err := pipe.Exec(ctx)
				check(err)
				for _, done := range cmds {
					check(fieldReplyOK(s.name, done))
				}
			}
		}
	}
	pairs := func(from, to int) []any {
		var args []any
		for i := from; i < to; i++ {
			args = append(args, fieldName(i), fieldValue(i))
		}
		return args
	}
	withTTL := func(ms int64) func(from, to int) []any {
		return func(from, to int) []any {
			var fields []any
			for i := from; i < to; i++ {
				if hasFieldTTL(i) {
					fields = append(fields, fieldName(i))
				}
			}
			return append([]any{ms, "FIELDS", len(fields)}, fields...)
		}
	}
	// Each hash is turned into field-expiration mode once it holds its
	// first fields (1000, a tenth of the small one), by a TTL a day away (which the fill finds
	// live to give it ttl): the rest is written once, in the layout it
	// keeps, as in the plain hash.
	for key, n := range map[string]int{"bench:hfe": bigFieldHash, "bench:hfe:small": smallFieldHash} {
		first, step := min(n/fieldTTLEvery, 1000), min(n, 1000)
		batches("HSET", key, 0, first, step, pairs)
		if ttl != 0 {
			batches("HPEXPIRE", key, 0, first, first, withTTL(24*time.Hour.Milliseconds()))
		}
		batches("HSET", key, first, n, step, pairs)
	}
	if ttl == 0 {
		return time.Now()
	}
	batches("HPEXPIRE", "bench:hfe", 0, bigFieldHash, 1000*fieldTTLEvery, withTTL(ttl.Milliseconds()))
	batches("HPEXPIRE", "bench:hfe:small", 0, smallFieldHash, smallFieldHash, withTTL(ttl.Milliseconds()))
	return time.Now().Add(ttl)
}

// fieldReplyOK checks a reply of the fill: HSET's count, or HPEXPIRE's
// 1 for every field.
func fieldReplyOK(name string, cmd redis.Cmder) error {
	if err := cmd.Err(); err != nil {
		return fmt.Errorf("%s: %v: %w", name, cmd.Args()[:2], err)
	}
	if cmd.Args()[0] != "HPEXPIRE" {
		return nil
	}
	replies, _ := cmd.(*redis.Cmd).Val().([]any)
	for _, r := range replies {
		if r != int64(1) {
			return fmt.Errorf("%s: HPEXPIRE of %d fields replied %v for one", name, len(replies), r)
		}
	}
	return nil
}

// awaitFieldSweep waits for the TTLs given to s to pass, then until the
// sweep deleted the expired fields (KMETADATA counts the records), and
// prints how long that took and the CPU s spent on it (the sweep's, and
// KMETADATA's).
func awaitFieldSweep(s *server, passed time.Time) {
	time.Sleep(time.Until(passed))
	c := benchClient(s.port)
	defer c.Close()
	start, ticks := time.Now(), s.cpuTicks()
	want := int64(bigFieldHash - bigFieldHash/fieldTTLEvery)
	for time.Since(start) < 10*time.Minute {
		meta, err := c.Do(context.Background(), "KMETADATA", "bench:hfe").Slice()
		check(err)
		if size := metadataSize(meta); size == want {
			took := time.Since(start)
			cpu := time.Duration(s.cpuTicks()-ticks) * 10 * time.Millisecond
			fmt.Printf("%s: the sweep deleted the %d expired fields within %v of their expiry, with %v of CPU\n", s.name, bigFieldHash/fieldTTLEvery, took.Round(100*time.Millisecond), cpu)
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	fmt.Fprintf(os.Stderr, "bench: %s: the sweep did not delete the expired fields in 10 minutes; reading with them still there\n", s.name)
}

// metadataSize is the size in a KMETADATA reply (a flat list in RESP2).
func metadataSize(meta []any) int64 {
	for i := 0; i+1 < len(meta); i += 2 {
		if meta[i] == "size" {
			n, _ := meta[i+1].(int64)
			return n
		}
	}
	return -1
}

// verifyFieldHashes checks, on each server, the fields HLEN counts and
// the values of 2,000 fields drawn at random, against what the fill
// wrote: the expired column lacks the fields with a TTL. It ends the
// bench when one differs.
func verifyFieldHashes(servers []*server) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(42))
	sample := []string{}
	var indexes []int
	for range 2000 {
		i := r.Intn(bigFieldHash)
		indexes = append(indexes, i)
		sample = append(sample, fieldName(i))
	}
	for _, s := range servers {
		expired := s.name == "expired"
		c := benchClient(s.port)
		for key, n := range map[string]int{"bench:hfe": bigFieldHash, "bench:hfe:small": smallFieldHash} {
			want := int64(n)
			if expired {
				want -= int64(n / fieldTTLEvery)
			}
			got, err := c.HLen(ctx, key).Result()
			check(err)
			if got != want {
				check(fmt.Errorf("%s: HLEN %s is %d, want %d", s.name, key, got, want))
			}
		}
		values, err := c.HMGet(ctx, "bench:hfe", sample...).Result()
		check(err)
		for j, i := range indexes {
			var want any = fieldValue(i)
			if expired && hasFieldTTL(i) {
				want = nil
			}
			if values[j] != want {
				check(fmt.Errorf("%s: HGET bench:hfe %s is %v, want %v", s.name, sample[j], values[j], want))
			}
		}
		c.Close()
	}
	fmt.Printf("checked: HLEN and %d random fields agree on %s\n", len(sample), strings.Join(names(servers), ", "))
}
