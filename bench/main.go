// Command bench measures basalt against redis-server and Apache Kvrocks in
// one run: it starts the three on free loopback ports, runs redis-benchmark
// with the same parameters against each, and prints ops/s, the ratios
// basalt/redis and basalt/kvrocks, and each server's memory. Without a
// Kvrocks binary it compares basalt with redis-server alone. Run it
// through `make bench`.
package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

func main() {
	basaltBin := flag.String("basalt", "bin/basalt", "basalt binary")
	kvrocksBin := flag.String("kvrocks", defaultKvrocks(), "Apache Kvrocks binary, started with its stock config (default $KVROCKS_BIN, else ../shared/kvrocks/kvrocks from the project root; empty: no Kvrocks column)")
	requests := flag.Int("n", 200000, "requests per test")
	clients := flag.Int("c", 50, "parallel connections")
	minRate := flag.Float64("min-rate", 5000, "ops/s below which a test is cut off and printed as timeout: each redis-benchmark run gets 10s + n/min-rate")
	tests := flag.String("t", "set,get,incr,lpush,rpop,sadd,hset,spop,zadd,lrange_100,mset", "redis-benchmark tests, run in this order")
	rounds := flag.Int("rounds", 3, "rounds of the -P 1 tests; the ratio reported is the median round's")
	bigHash := flag.Int("bighash", 1000000, "fields of the hash whose DEL is timed (0: skip)")
	clusterTests := flag.String("cluster", "set,get,lpush,hset", "tests run against a 3-node and a 1-node cluster (empty: skip)")
	migrateMB := flag.Int("migrate-mb", 1024, "MB of mixed data whose slot migration is timed in each mode (0: skip)")
	fullSyncMB := flag.Int("fullsync-mb", 1024, "MB of mixed data a new replica copies in the timed full sync (0: skip)")
	rdbMB := flag.Int("rdb-mb", 256, "MB of mixed data redis-server saves, whose RDB LOAD is timed (0: skip)")
	backupMB := flag.Int("backup-mb", 1024, "MB of data whose BGSAVE is timed (0: skip)")
	groupEntries := flag.Int("group-entries", 100000, "entries the XREADGROUP+XACK loop reads (0: skip)")
	bigStream := flag.Int("bigstream", 10000000, "entries of the stream read whole by one XRANGE (0: skip)")
	searchDocs := flag.Int("search-docs", 100000, "hashes the search steps query and FT.CREATE backfills")
	searchVectors := flag.Int("search-vectors", 5000, "64-dim vectors the KNN step searches (Kvrocks inserts about 20 a second)")
	only := flag.String("only", "", "run one group of figures only: main (the redis-benchmark table, -t), repl (the full sync and the lag under a SET load), ops (RDB LOAD and BGSAVE), streams (XADD, XRANGE, the group loop, the big XRANGE), sortedint, json, bloom or search (against Basalt and Kvrocks), tdigest or timeseries (Basalt alone), hashttl (a 1M-field hash with and without field TTLs)")
	flag.Parse()

	dir, err := os.MkdirTemp("", "basalt-bench-")
	check(err)
	workDir = dir
	defer os.RemoveAll(dir)
	l := load{clients: *clients, requests: *requests, minRate: *minRate}
	switch *only {
	case "repl":
		benchReplication(*basaltBin, dir+"/replication", *fullSyncMB, l)
		return
	case "ops":
		benchOps(*basaltBin, *kvrocksBin, dir, *rdbMB, *backupMB)
		return
	}
	servers := startServers(*basaltBin, *kvrocksBin, dir)
	defer stopAll(servers)

	fmt.Printf("redis-benchmark -c %d -n %d -r 100000 against %s; basalt %s", l.clients, l.requests, strings.Join(names(servers), ", "), *basaltBin)
	if len(servers) > 2 {
		fmt.Printf(", kvrocks %s (stock config, workers 8)", *kvrocksBin)
	}
	fmt.Printf("\nops/s unless the test says otherwise; -P 1 is the median of %d rounds (ratio range in parentheses); a run is cut off after %v\n\n", *rounds, l.limit())
	groups := map[string]func(){
		// The main table: -P 1 carries the targets; its rounds are
		// repeated because this kind of machine drifts in speed by tens
		// of percent within minutes.
		"main": func() {
			prefillBits(servers)
			prefillGeo(servers)
			prefillSort(servers)
			prefillScripts(servers)
			measureSteps(l, servers, benchSteps(*tests), *rounds, 1, 16)
			printRow("RSS after the tests (MB)", "-", perServer(servers, func(s *server) float64 { return s.memoryMB("VmRSS") }))
			printRow("peak RSS (MB)", "-", perServer(servers, func(s *server) float64 { return s.memoryMB("VmHWM") }))
			printMemoryParts(servers[0])
		},
		"streams": func() {
			measureSteps(l, servers, streamCommands, *rounds, 1)
			benchStreams(servers, *groupEntries, *bigStream)
		},
		"sortedint":  func() { benchSortedInt(l, servers, *rounds) },
		"json":       func() { benchJSON(l, servers, *rounds) },
		"bloom":      func() { benchBloom(l, servers, *rounds) },
		"search":     func() { benchSearch(l, servers, *rounds, *searchDocs, *searchVectors) },
		"tdigest":    func() { benchTDigest(l, servers, *rounds) },
		"timeseries": func() { benchTimeSeries(l, servers, *rounds) },
		"hashttl":    func() { benchHashTTL(l, servers, *rounds, *basaltBin) },
	}
	if *only != "" {
		group, ok := groups[*only]
		if !ok {
			check(fmt.Errorf("-only %q: no such group", *only))
		}
		group()
		return
	}
	groups["main"]()
	printRow("PUBLISH to 100 subscribers (msgs/s)", "-", perServer(servers, func(s *server) float64 { return benchFanOut(s.port, 20000) }))
	printRow("LPUSH -> BRPOP queue (items/s)", "-", perServer(servers, func(s *server) float64 { return benchQueue(s.port, 50000) }))
	benchStreams(servers, *groupEntries, *bigStream)
	benchSortedInt(l, servers, *rounds)
	benchJSON(l, servers, *rounds)
	benchBloom(l, servers, *rounds)
	benchSearch(l, servers, *rounds, *searchDocs, *searchVectors)
	benchTDigest(l, servers, *rounds)
	benchTimeSeries(l, servers, *rounds)
	benchHashTTL(l, servers, *rounds, *basaltBin)
	if *clusterTests != "" {
		benchCluster(*basaltBin, dir, *clusterTests, l)
	}
	if *migrateMB > 0 {
		fmt.Printf("\nslot migration of %d MB of mixed data between two nodes; latency of GET/SET on slots not migrated\n\n", *migrateMB)
		for _, mode := range []string{"redis-command", "raw-key-value"} {
			benchMigration(*basaltBin, dir+"/migrate-"+mode, mode, *migrateMB)
		}
	}
	benchReplication(*basaltBin, dir+"/replication", *fullSyncMB, l)
	if *bigHash > 0 {
		fmt.Println()
		for _, s := range servers {
			timeBigDelete(s.port, s.name, *bigHash)
		}
	}
	benchOps(*basaltBin, *kvrocksBin, dir, *rdbMB, *backupMB)
}

// benchOps times RDB LOAD and BGSAVE (ops.go).
func benchOps(basaltBin, kvrocksBin, dir string, rdbMB, backupMB int) {
	if rdbMB > 0 {
		fmt.Println()
		benchRDBLoad(basaltBin, kvrocksBin, dir+"/rdb", rdbMB)
	}
	if backupMB > 0 {
		benchBackup(basaltBin, kvrocksBin, dir, backupMB)
	}
}

// measureSteps runs every step on every server, rounds times at -P 1 and
// once at each deeper pipeline given, and prints each step's ops/s
// followed by the CPU time each server spent per request, in ns (from
// /proc: the figure a shared machine disturbs least). Each step runs on
// all servers back to back, so that all see the machine at the same
// speed; which one goes first rotates from round to round.
func measureSteps(l load, servers []*server, steps [][]string, rounds int, pipelines ...int) {
	printHeader(names(servers))
	for _, pipeline := range pipelines {
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

// benchSteps returns the redis-benchmark arguments of each step: the
// built-in tests one by one (each one's keys are left for the next, so
// the order matters), then commands redis-benchmark has no test for, on
// the keys its tests filled, and ZPOPMIN last, since it empties myzset.
func benchSteps(tests string) [][]string {
	var steps [][]string
	for _, t := range strings.Split(tests, ",") {
		steps = append(steps, []string{"-t", t})
	}
	steps = append(steps, customCommands...)
	steps = append(steps, streamCommands...)
	steps = append(steps, bitCommands...)
	steps = append(steps, geoCommands...)
	steps = append(steps, sortCommands...)
	steps = append(steps, scriptCommands...)
	return append(steps, []string{"-t", "zpopmin"})
}

// customCommands are benchmarked as given; __rand_int__ is replaced by
// redis-benchmark with a random number below -r.
var customCommands = [][]string{
	{"HGET", "myhash", "element:__rand_int__"},
	{"ZRANGEBYSCORE", "myzset", "__rand_int__", "+inf", "LIMIT", "0", "10"},
	// To no subscriber: the cost of the write each message is for
	// replicas.
	{"PUBLISH", "bench:channel", "message:__rand_int__"},
}

// timeBigDelete fills a hash with n fields, then times DEL of it against
// DEL of a one-field hash: with versioned subkeys both write one record.
func timeBigDelete(port int, name string, n int) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), Protocol: 2, ReadTimeout: time.Minute})
	defer c.Close()
	ctx := context.Background()
	start := time.Now()
	const perCommand = 1000
	pipe := c.Pipeline()
	for i := 0; i < n; i += perCommand {
		fields := make([]any, 0, 2*perCommand)
		for j := i; j < min(i+perCommand, n); j++ {
			fields = append(fields, "field:"+strconv.Itoa(j), "value")
		}
		pipe.HSet(ctx, "bighash", fields...)
		if pipe.Len() == 50 {
			_, err := pipe.Exec(ctx)
			check(err)
		}
	}
	_, err := pipe.Exec(ctx)
	check(err)
	fill := time.Since(start)
	check(c.HSet(ctx, "smallhash", "field", "value").Err())
	if got := c.HLen(ctx, "bighash").Val(); got != int64(n) {
		check(fmt.Errorf("%s: bighash has %d fields, want %d", name, got, n))
	}
	big := timed(func() { check(c.Del(ctx, "bighash").Err()) })
	small := timed(func() { check(c.Del(ctx, "smallhash").Err()) })
	fmt.Printf("%s: DEL of a %d-field hash %v, of a 1-field hash %v (filled in %v)\n", name, n, big, small, fill.Round(time.Millisecond))
}

func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start).Round(time.Microsecond)
}

// load is the redis-benchmark workload every test runs with.
type load struct {
	clients, requests int
	minRate           float64 // ops/s below which a run is cut off
}

// limit is the time a redis-benchmark run gets. A -P 16 run sends four
// times the requests, but also goes at least four times as fast.
func (l load) limit() time.Duration {
	return 10*time.Second + time.Duration(float64(l.requests)/l.minRate*float64(time.Second))
}

type result struct {
	timedOut bool
	// refused is the error a server answered the step with, which ends a
	// redis-benchmark run (Kvrocks's SORT_LENGTH_LIMIT, say).
	refused string
	order   []string
	rps     map[string]float64
}

// measure runs a step against nodes[0]. When the run is cut off, it
// waits until every node has worked off the requests already sent.
func (l load) measure(step []string, pipeline int, nodes ...*server) result {
	r := l.run(nodes[0].port, step, pipeline)
	if r.refused != "" {
		// Kvrocks lacks some of what Redis has: its column shows it.
		// Basalt and redis-server must run every step.
		if nodes[0].name != "kvrocks" {
			check(fmt.Errorf("%s refused redis-benchmark %s -P %d: %s", nodes[0].name, strings.Join(step, " "), pipeline, r.refused))
		}
		fmt.Fprintf(os.Stderr, "bench: %s refuses %s: %s\n", nodes[0].name, strings.Join(step, " "), r.refused)
	}
	if r.timedOut {
		fmt.Fprintf(os.Stderr, "bench: redis-benchmark %s -P %d against %s cut off after %v\n", strings.Join(step, " "), pipeline, nodes[0].name, l.limit())
		for _, s := range nodes {
			s.settle()
		}
	}
	return r
}

// sent is the requests of a run at the pipeline given: four times as
// many past -P 4, which goes four times as fast.
func (l load) sent(pipeline int) int { return l.requests * pipeline / min(pipeline, 4) }

// run executes redis-benchmark in CSV mode and returns ops/s per test; a
// run still going at the limit is killed (by its PID) and reported so.
func (l load) run(port int, step []string, pipeline int) result {
	args := []string{"-p", strconv.Itoa(port), "-c", strconv.Itoa(l.clients),
		"-n", strconv.Itoa(l.sent(pipeline)), "-P", strconv.Itoa(pipeline), "-r", "100000", "--csv"}
	ctx, cancel := context.WithTimeout(context.Background(), l.limit())
	defer cancel()
	var out, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "redis-benchmark", append(args, step...)...)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return result{timedOut: true}
	}
	if refused, ok := serverError(stderr.String()); err != nil && ok {
		return result{refused: refused}
	}
	if err != nil {
		// What redis-benchmark said, not only its exit status: which
		// server refused which step, and with what.
		check(fmt.Errorf("redis-benchmark %v against port %d: %w\n%s%s", step, port, err, lastBytes(stderr.Bytes(), 2000), lastBytes(out.Bytes(), 2000)))
	}
	return parseCSV(out.String(), step)
}

// serverError finds the error reply that made redis-benchmark stop in
// what it printed.
func serverError(stderr string) (string, bool) {
	const mark = "Error from server: "
	i := strings.Index(stderr, mark)
	if i < 0 {
		return "", false
	}
	line, _, _ := strings.Cut(stderr[i+len(mark):], "\n")
	return line, true
}

// lastBytes returns the end of b, at most n bytes of it.
func lastBytes(b []byte, n int) []byte {
	return b[max(0, len(b)-n):]
}

// label is a test's name as a row shows it: up to its first byte that is
// not printable ASCII (a binary argument's), then an ellipsis.
func label(name string) string {
	for i := 0; i < len(name); i++ {
		if name[i] < ' ' || name[i] > '~' {
			return name[:i] + "…"
		}
	}
	return name
}

func parseCSV(out string, step []string) result {
	// With --cluster, redis-benchmark lists the masters before the CSV.
	var table strings.Builder
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, `"`) {
			table.WriteString(line + "\n")
		}
	}
	rows, err := csv.NewReader(strings.NewReader(table.String())).ReadAll()
	check(err)
	if len(rows) < 2 {
		check(fmt.Errorf("redis-benchmark %v printed no results", step))
	}
	res := result{rps: map[string]float64{}}
	for _, row := range rows[1:] {
		rps, err := strconv.ParseFloat(row[1], 64)
		check(err)
		name := label(row[0])
		res.order = append(res.order, name)
		res.rps[name] = rps
	}
	return res
}

// benchCluster runs redis-benchmark --cluster against a 3-node cluster and
// a 1-node cluster of basalt on this machine, and prints the ratio.
func benchCluster(bin, dir, tests string, l load) {
	three := startCluster(bin, dir+"/cluster3", 3)
	one := startCluster(bin, dir+"/cluster1", 1)
	defer stopAll(three)
	defer stopAll(one)
	fmt.Printf("\ncluster: redis-benchmark --cluster -c %d, 3 basalt nodes vs 1 (same machine), ops/s\n\n", l.clients)
	cols := []string{"3 nodes", "1 node"}
	printHeader(cols)
	for _, pipeline := range []int{1, 16} {
		// redis-benchmark --cluster refuses a one-node cluster; the node
		// owns every slot, so plain requests are the same workload.
		t := newTable(cols)
		t.add([]string{"-t", tests}, []result{
			l.measure([]string{"--cluster", "-t", tests}, pipeline, three...),
			l.measure([]string{"-t", tests}, pipeline, one...),
		})
		t.print(pipeline)
	}
}

// startCluster starts n cluster-mode nodes and pushes a topology that
// splits the slots evenly between them.
func startCluster(bin, dir string, n int, extra ...string) []*server {
	var nodes []*server
	var text strings.Builder
	for i := 0; i < n; i++ {
		s := startBasalt("basalt node "+strconv.Itoa(i), bin, append([]string{"--cluster-enabled", "yes", "--dir", dir + "/" + strconv.Itoa(i), "--log-level", "warning"}, extra...)...)
		nodes = append(nodes, s)
		from, to := i*16384/n, (i+1)*16384/n-1
		fmt.Fprintf(&text, "%040d 127.0.0.1 %d master - %d-%d\n", i+1, s.port, from, to)
	}
	for _, s := range nodes {
		c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(s.port), Protocol: 2})
		check(c.Do(context.Background(), "CLUSTERX", "SETNODES", text.String(), 1).Err())
		c.Close()
	}
	return nodes
}
