// Command bench measures basalt against redis-server in one run: it starts
// both on free loopback ports, runs redis-benchmark with the same
// parameters against each, and prints ops/s and the ratio basalt/redis.
// Run it through `make bench`.
package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

func main() {
	basaltBin := flag.String("basalt", "bin/basalt", "basalt binary")
	requests := flag.Int("n", 200000, "requests per test")
	clients := flag.Int("c", 50, "parallel connections")
	tests := flag.String("t", "set,get,incr,lpush,rpop,sadd,hset,spop,zadd,lrange_100,mset", "redis-benchmark tests, run in this order")
	rounds := flag.Int("rounds", 3, "rounds of the -P 1 tests; the ratio reported is the median round's")
	bigHash := flag.Int("bighash", 1000000, "fields of the hash whose DEL is timed (0: skip)")
	clusterTests := flag.String("cluster", "set,get,lpush,hset", "tests run against a 3-node and a 1-node cluster (empty: skip)")
	migrateMB := flag.Int("migrate-mb", 1024, "MB of mixed data whose slot migration is timed in each mode (0: skip)")
	flag.Parse()

	dir, err := os.MkdirTemp("", "basalt-bench-")
	check(err)
	defer os.RemoveAll(dir)

	basalt := start(*basaltBin, "--dir", dir+"/basalt", "--log-level", "warning")
	defer basalt.stop()
	redis := start("redis-server", "--save", "", "--appendonly", "no", "--dir", dir)
	defer redis.stop()

	fmt.Printf("redis-benchmark -c %d -n %d -r 100000, basalt %s vs redis-server\n\n", *clients, *requests, *basaltBin)
	fmt.Printf("%-40s %-4s %14s %14s %8s  %s\n", "test", "-P", "basalt ops/s", "redis ops/s", "ratio", "(range over rounds)")
	for _, pipeline := range []int{1, 16} {
		// -P 1 carries the targets; its rounds are repeated because this
		// kind of machine drifts in speed by tens of percent within minutes.
		n := 1
		if pipeline == 1 {
			n = *rounds
		}
		var t ratioTable
		for round := 0; round < n; round++ {
			for _, step := range benchSteps(*tests) {
				// Each test runs on both servers back to back, so that
				// both see the machine at the same speed; which one goes
				// first alternates between rounds.
				servers := []*server{basalt, redis}
				if round%2 == 1 {
					slices.Reverse(servers)
				}
				got := map[*server]result{}
				for _, s := range servers {
					got[s] = run(s.port, step, *clients, *requests, pipeline)
				}
				for _, name := range got[basalt].order {
					t.add(name, got[basalt].rps[name], got[redis].rps[name])
				}
			}
		}
		t.print(pipeline)
	}
	fmt.Println()
	fanB, fanR := benchFanOut(basalt.port, 20000), benchFanOut(redis.port, 20000)
	fmt.Printf("%-40s %-4s %14.0f %14.0f %8.2f\n", "PUBLISH to 100 subscribers (msgs/s)", "-", fanB, fanR, fanB/fanR)
	queueB, queueR := benchQueue(basalt.port, 50000), benchQueue(redis.port, 50000)
	fmt.Printf("%-40s %-4s %14.0f %14.0f %8.2f\n", "LPUSH -> BRPOP queue (items/s)", "-", queueB, queueR, queueB/queueR)
	if *clusterTests != "" {
		benchCluster(*basaltBin, dir, *clusterTests, *clients, *requests)
	}
	if *migrateMB > 0 {
		fmt.Printf("\nslot migration of %d MB of mixed data between two nodes; latency of GET/SET on slots not migrated\n\n", *migrateMB)
		for _, mode := range []string{"redis-command", "raw-key-value"} {
			benchMigration(*basaltBin, dir+"/migrate-"+mode, mode, *migrateMB)
		}
	}
	if *bigHash > 0 {
		fmt.Println()
		timeBigDelete(basalt.port, "basalt", *bigHash)
		timeBigDelete(redis.port, "redis-server", *bigHash)
	}
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
	return append(steps, []string{"-t", "zpopmin"})
}

// ratioTable collects the ops/s of each test over the rounds.
type ratioTable struct {
	order []string
	rows  map[string]*ratioRow
}

type ratioRow struct{ basalt, redis []float64 }

func (t *ratioTable) add(name string, basalt, redis float64) {
	if t.rows == nil {
		t.rows = map[string]*ratioRow{}
	}
	r, ok := t.rows[name]
	if !ok {
		r = &ratioRow{}
		t.rows[name] = r
		t.order = append(t.order, name)
	}
	r.basalt = append(r.basalt, basalt)
	r.redis = append(r.redis, redis)
}

// print shows, per test, the median ops/s of each server and the median
// ratio, with the ratio's range when there was more than one round.
func (t *ratioTable) print(pipeline int) {
	for _, name := range t.order {
		r := t.rows[name]
		ratios := make([]float64, len(r.basalt))
		for i := range ratios {
			ratios[i] = r.basalt[i] / r.redis[i]
		}
		spread := ""
		if len(ratios) > 1 {
			spread = fmt.Sprintf("  (%.2f-%.2f)", slices.Min(ratios), slices.Max(ratios))
		}
		fmt.Printf("%-40s %-4d %14.0f %14.0f %8.2f%s\n", name, pipeline, median(r.basalt), median(r.redis), median(ratios), spread)
	}
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

// customCommands are benchmarked as given; __rand_int__ is replaced by
// redis-benchmark with a random number below -r.
var customCommands = [][]string{
	{"HGET", "myhash", "element:__rand_int__"},
	{"ZRANGEBYSCORE", "myzset", "__rand_int__", "+inf", "LIMIT", "0", "10"},
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

type server struct {
	cmd  *exec.Cmd
	port int
}

func start(bin string, args ...string) *server {
	port := freePort()
	cmd := exec.Command(bin, append([]string{"--port", strconv.Itoa(port)}, args...)...)
	cmd.Stderr = os.Stderr
	check(cmd.Start())
	s := &server{cmd: cmd, port: port}
	running = append(running, s)
	for i := 0; i < 200; i++ {
		if c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
			c.Close()
			return s
		}
		time.Sleep(50 * time.Millisecond)
	}
	check(fmt.Errorf("%s did not start", bin))
	return nil
}

func (s *server) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		s.cmd.Process.Kill()
	}
}

type result struct {
	order []string
	rps   map[string]float64
}

// run executes redis-benchmark in CSV mode and returns ops/s per test.
func run(port int, step []string, clients, requests, pipeline int) result {
	args := []string{"-p", strconv.Itoa(port), "-c", strconv.Itoa(clients),
		"-n", strconv.Itoa(requests * pipeline / min(pipeline, 4)), "-P", strconv.Itoa(pipeline), "-r", "100000", "--csv"}
	out, err := exec.Command("redis-benchmark", append(args, step...)...).Output()
	check(err)
	// With --cluster, redis-benchmark lists the masters before the CSV.
	var table strings.Builder
	for _, line := range strings.Split(string(out), "\n") {
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
		res.order = append(res.order, row[0])
		res.rps[row[0]] = rps
	}
	return res
}

func freePort() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// running lists the servers started, so that a failure stops them too.
var running []*server

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		for _, s := range running {
			s.stop()
		}
		os.Exit(1)
	}
}

// benchCluster runs redis-benchmark --cluster against a 3-node cluster and
// a 1-node cluster of basalt on this machine, and prints the ratio.
func benchCluster(bin, dir, tests string, clients, requests int) {
	three := startCluster(bin, dir+"/cluster3", 3)
	one := startCluster(bin, dir+"/cluster1", 1)
	defer stopAll(three)
	defer stopAll(one)
	fmt.Printf("\ncluster: redis-benchmark --cluster -c %d, 3 basalt nodes vs 1 (same machine)\n\n", clients)
	fmt.Printf("%-40s %-4s %14s %14s %8s\n", "test", "-P", "3 nodes ops/s", "1 node ops/s", "ratio")
	for _, pipeline := range []int{1, 16} {
		// redis-benchmark --cluster refuses a one-node cluster; the node
		// owns every slot, so plain requests are the same workload.
		r3 := run(three[0].port, []string{"--cluster", "-t", tests}, clients, requests, pipeline)
		r1 := run(one[0].port, []string{"-t", tests}, clients, requests, pipeline)
		for _, name := range r3.order {
			fmt.Printf("%-40s %-4d %14.0f %14.0f %8.2f\n", name, pipeline, r3.rps[name], r1.rps[name], r3.rps[name]/r1.rps[name])
		}
	}
}

// startCluster starts n cluster-mode nodes and pushes a topology that
// splits the slots evenly between them.
func startCluster(bin, dir string, n int, extra ...string) []*server {
	var nodes []*server
	var text strings.Builder
	for i := 0; i < n; i++ {
		s := start(bin, append([]string{"--cluster-enabled", "yes", "--dir", dir + "/" + strconv.Itoa(i), "--log-level", "warning"}, extra...)...)
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

func stopAll(nodes []*server) {
	for _, s := range nodes {
		s.stop()
	}
}
