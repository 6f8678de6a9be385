// Command bench measures basalt against redis-server in one run: it starts
// both on free loopback ports, runs redis-benchmark with the same
// parameters against each, and prints ops/s and the ratio basalt/redis.
// Run it through `make bench`.
package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

func main() {
	basaltBin := flag.String("basalt", "bin/basalt", "basalt binary")
	requests := flag.Int("n", 200000, "requests per test")
	clients := flag.Int("c", 50, "parallel connections")
	tests := flag.String("t", "set,get,incr,mset", "redis-benchmark tests")
	flag.Parse()

	dir, err := os.MkdirTemp("", "basalt-bench-")
	check(err)
	defer os.RemoveAll(dir)

	basalt := start(*basaltBin, "--dir", dir+"/basalt", "--log-level", "warning")
	defer basalt.stop()
	redis := start("redis-server", "--save", "", "--appendonly", "no", "--dir", dir)
	defer redis.stop()

	fmt.Printf("redis-benchmark -c %d -n %d -r 100000, basalt %s vs redis-server\n\n", *clients, *requests, *basaltBin)
	fmt.Printf("%-22s %-4s %14s %14s %8s\n", "test", "-P", "basalt ops/s", "redis ops/s", "ratio")
	for _, pipeline := range []int{1, 16} {
		b := run(basalt.port, *tests, *clients, *requests, pipeline)
		r := run(redis.port, *tests, *clients, *requests, pipeline)
		for _, name := range b.order {
			ratio := b.rps[name] / r.rps[name]
			fmt.Printf("%-22s %-4d %14.0f %14.0f %8.2f\n", name, pipeline, b.rps[name], r.rps[name], ratio)
		}
	}
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
	for i := 0; i < 200; i++ {
		if c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
			c.Close()
			return s
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.stop()
	fmt.Fprintf(os.Stderr, "%s did not start\n", bin)
	os.Exit(1)
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
func run(port int, tests string, clients, requests, pipeline int) result {
	out, err := exec.Command("redis-benchmark", "-p", strconv.Itoa(port), "-t", tests,
		"-c", strconv.Itoa(clients), "-n", strconv.Itoa(requests*pipeline/min(pipeline, 4)),
		"-P", strconv.Itoa(pipeline), "-r", "100000", "--csv").Output()
	check(err)
	rows, err := csv.NewReader(strings.NewReader(string(out))).ReadAll()
	check(err)
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

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
