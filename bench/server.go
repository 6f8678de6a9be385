package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// server is one process the bench started; name heads its column.
type server struct {
	name string
	cmd  *exec.Cmd
	port int
}

// startServers starts basalt, redis-server and, when its binary is there,
// Kvrocks with its stock configuration (workers 8), each on a free port.
// basalt comes first: the ratios are basalt's ops/s over each other's.
func startServers(basaltBin, kvrocksBin, dir string) []*server {
	servers := []*server{
		startBasalt("basalt", basaltBin, "--dir", dir+"/basalt", "--log-level", "warning"),
		start("redis", "redis-server", "--save", "", "--appendonly", "no", "--dir", dir),
	}
	if kvrocksBin == "" {
		fmt.Println("note: no Kvrocks binary given (-kvrocks, KVROCKS_BIN); running without the Kvrocks column")
		return servers
	}
	if _, err := os.Stat(kvrocksBin); err != nil {
		fmt.Printf("note: %v (set KVROCKS_BIN or -kvrocks); running without the Kvrocks column\n", err)
		return servers
	}
	return append(servers, start("kvrocks", kvrocksBin, "--bind", "127.0.0.1", "--dir", dir+"/kvrocks",
		"--daemonize", "no", "--log-dir", "stdout"))
}

// defaultKvrocks is $KVROCKS_BIN, or else ../shared/kvrocks/kvrocks from
// the project root (the directory of go.mod at or above the working one).
func defaultKvrocks() string {
	if bin := os.Getenv("KVROCKS_BIN"); bin != "" {
		return bin
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "..", "shared", "kvrocks", "kvrocks")
		}
		if d == filepath.Dir(d) {
			return filepath.Join(dir, "..", "shared", "kvrocks", "kvrocks")
		}
	}
}

// startBasalt starts a basalt server with its metrics endpoint off: every
// server the bench runs at once would claim the default port, 9666.
func startBasalt(name, bin string, args ...string) *server {
	return start(name, bin, append([]string{"--metrics-port", "0"}, args...)...)
}

func start(name, bin string, args ...string) *server {
	port := freePort()
	cmd := exec.Command(bin, append([]string{"--port", strconv.Itoa(port)}, args...)...)
	cmd.Stderr = os.Stderr
	check(cmd.Start())
	s := &server{name: name, cmd: cmd, port: port}
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

// stop ends the server by its PID: SIGTERM, and SIGKILL if it is still
// there 15 seconds later.
func (s *server) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

func stopAll(nodes []*server) {
	for _, s := range nodes {
		s.stop()
	}
}

// settle waits until the server has worked off the requests a cut-off
// run had already sent (it goes on with them after the client is gone),
// so that the next run finds it, and the machine, idle.
func (s *server) settle() {
	for i := 0; i < 120; i++ {
		before := s.cpuTicks()
		time.Sleep(time.Second)
		if s.cpuTicks()-before < 5 { // under 5% of a core
			return
		}
	}
	fmt.Fprintf(os.Stderr, "bench: %s is still busy two minutes after a cut-off run\n", s.name)
}

// cpuTicks is the user plus system CPU time the process has used, in
// clock ticks (/proc/<pid>/stat fields 14 and 15).
func (s *server) cpuTicks() int64 {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	check(err)
	// The fields after the command name, which is in parentheses, start
	// with field 3.
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	utime, err := strconv.ParseInt(fields[11], 10, 64)
	check(err)
	stime, err := strconv.ParseInt(fields[12], 10, 64)
	check(err)
	return utime + stime
}

// memoryMB reads a memory field of /proc/<pid>/status, such as VmRSS.
func (s *server) memoryMB(field string) float64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	check(err)
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			check(err)
			return kb / 1024
		}
	}
	check(fmt.Errorf("%s: no %s in /proc/%d/status", s.name, field, s.cmd.Process.Pid))
	return 0
}

func freePort() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// running lists the servers started and workDir holds their data, so that
// a failure stops them and removes it too.
var (
	running []*server
	workDir string
)

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		for _, s := range running {
			s.stop()
		}
		if workDir != "" {
			os.RemoveAll(workDir)
		}
		os.Exit(1)
	}
}

// printMemoryParts prints what Basalt's INFO memory says its RSS holds:
// RocksDB's memtables and block cache, the metadata caches' rings (mapped
// outside Go's heap) and the Go runtime, and what none of them accounts
// for.
func printMemoryParts(s *server) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(s.port), Protocol: 2})
	defer c.Close()
	info, err := c.Info(context.Background(), "memory").Result()
	check(err)
	field := func(name string) float64 {
		for _, line := range strings.Split(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, name+":"); ok {
				n, err := strconv.ParseFloat(v, 64)
				check(err)
				return n / (1 << 20)
			}
		}
		check(fmt.Errorf("%s: no %s in INFO memory", s.name, name))
		return 0
	}
	rss, memtables, blocks := field("used_memory_rss"), field("used_memory_memtables"), field("used_memory_block_cache")
	goRuntime, metaCache := field("used_memory_go_runtime"), field("used_memory_metadata_cache")
	fmt.Printf("%s RSS %.0f MB: memtables %.0f, block cache %.0f, metadata caches %.0f, Go runtime %.0f, not accounted %.0f\n",
		s.name, rss, memtables, blocks, metaCache, goRuntime, rss-memtables-blocks-metaCache-goRuntime)
}
