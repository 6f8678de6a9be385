package it

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

var basaltBin string

func TestMain(m *testing.M) {
	basaltBin = os.Getenv("BASALT_BIN")
	var cleanup func()
	if basaltBin == "" {
		dir, err := os.MkdirTemp("", "basalt-it-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		cleanup = func() { os.RemoveAll(dir) }
		basaltBin = filepath.Join(dir, "basalt")
		build := exec.Command("go", "build", "-o", basaltBin, "../cmd/basalt")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			cleanup()
			fmt.Fprintln(os.Stderr, "building basalt:", err)
			os.Exit(1)
		}
	}
	code := m.Run()
	if cleanup != nil {
		cleanup()
	}
	os.Exit(code)
}

// freePort returns a loopback TCP port that is free right now.
//
// The ports come from below Linux's ephemeral range (32768-60999, where
// the kernel picks the ports of ":0" and of outgoing connections), each
// handed out once per test run: a server restarted on its port (a
// replica, a cluster node) finds it free. A port the kernel picked could
// have gone to another test's server meanwhile, which the test would then
// have taken for its own (the restarted server failing to listen).
func freePort(t testing.TB) int {
	t.Helper()
	for {
		port := int(nextPort.Add(1))
		if port >= portsEnd {
			t.Fatal("no free port left below the ephemeral range")
		}
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			continue // another process's
		}
		ln.Close()
		return port
	}
}

// nextPort is the port freePort tried last: from a random start, so that
// test runs side by side mostly try different ports.
var nextPort = func() *atomic.Int32 {
	var n atomic.Int32
	n.Store(int32(portsStart + rand.IntN(4000)))
	return &n
}()

const portsStart, portsEnd = 16000, 32000

// lockedBuffer collects a process's output safely.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// proc is a server process started by a test.
type proc struct {
	t      testing.TB
	cmd    *exec.Cmd
	Port   int
	Dir    string
	Output *lockedBuffer
	done   chan struct{}
	err    error
	// hungAfterBye is set when Stop killed a Kvrocks that hung in its exit
	// after its shutdown ended.
	hungAfterBye bool
}

// Addr returns host:port of the server.
func (p *proc) Addr() string { return "127.0.0.1:" + strconv.Itoa(p.Port) }

// startBasalt starts basalt on a free port with a fresh data dir; extra
// arguments are appended to the command line. The server is stopped when
// the test ends.
func startBasalt(t testing.TB, extra ...string) *proc {
	t.Helper()
	return startBasaltIn(t, t.TempDir(), extra...)
}

// startBasaltIn is startBasalt with a given data dir.
func startBasaltIn(t testing.TB, dir string, extra ...string) *proc {
	t.Helper()
	return startBasaltAt(t, dir, freePort(t), extra...)
}

// startBasaltAt is startBasaltIn on a given port (a restarted cluster node
// keeps its address).
func startBasaltAt(t testing.TB, dir string, port int, extra ...string) *proc {
	t.Helper()
	// Logs go to the output the tests read (by default they are files in
	// dir). RESP3 is on by default, as in Kvrocks 2.11.
	args := append([]string{"--port", strconv.Itoa(port), "--dir", dir, "--log-dir", "stdout", "--rocksdb.block_cache_size", "16", "--rocksdb.write_buffer_size", "8"}, extra...)
	p := launch(t, basaltBin, args, port)
	p.Dir = dir
	return p
}

// startRedis starts a redis-server oracle with persistence off.
func startRedis(t testing.TB, extra ...string) *proc {
	t.Helper()
	port := freePort(t)
	args := []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir()}
	return launch(t, "redis-server", append(args, extra...), port)
}

// launch starts bin with args and waits until it answers on port. Basalt
// gets its metrics endpoint off (quietMetrics).
func launch(t testing.TB, bin string, args []string, port int) *proc {
	t.Helper()
	return launchExact(t, bin, quietMetrics(bin, args), port)
}

// quietMetrics puts --metrics-port 0 before basalt's arguments: the
// built-in default serves /metrics on 9666, which the servers tests start
// side by side would all claim. A --metrics-port among args comes later
// and wins.
func quietMetrics(bin string, args []string) []string {
	if bin != basaltBin {
		return args
	}
	return append([]string{"--metrics-port", "0"}, args...)
}

// serverCommand is the command of a server a test starts: killed with the
// test binary, should that die before its cleanups run (a -timeout
// panic, a kill), so that no server outlives the run.
func serverCommand(bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd
}

// launchExact is launch with args as they are.
func launchExact(t testing.TB, bin string, args []string, port int) *proc {
	t.Helper()
	p := &proc{t: t, Port: port, Output: &lockedBuffer{}, done: make(chan struct{})}
	p.cmd = serverCommand(bin, args...)
	p.cmd.Stdout, p.cmd.Stderr = p.Output, p.Output
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(p.Stop)
	p.waitReady()
	return p
}

// waitReady waits until the server answers PING.
func (p *proc) waitReady() {
	p.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			p.t.Fatalf("server exited early: %v\n%s", p.err, p.Output)
		default:
		}
		c, err := net.DialTimeout("tcp", p.Addr(), 200*time.Millisecond)
		if err == nil {
			c.SetDeadline(time.Now().Add(time.Second))
			c.Write([]byte("PING\r\n"))
			buf := make([]byte, 64)
			n, _ := c.Read(buf)
			c.Close()
			if n > 0 && (strings.HasPrefix(string(buf[:n]), "+PONG") || strings.HasPrefix(string(buf[:n]), "-NOAUTH")) {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.t.Fatalf("server did not become ready\n%s", p.Output)
}

// Stop ends the server with SIGTERM (if it does not exit within a minute,
// SIGQUIT for its goroutines' stacks, then SIGKILL: closing RocksDB
// flushes memtables, slow on a loaded machine) and waits.
// A server built with -race that reported a data race fails the test.
func (p *proc) Stop() {
	defer func() {
		if strings.Contains(p.Output.String(), "WARNING: DATA RACE") {
			p.t.Errorf("data race in the server:\n%s", p.Output)
		}
	}()
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if p.exitsWithin(60 * time.Second) {
		return
	}
	// Kvrocks at times hangs in its exit after its shutdown ended ("Bye
	// Bye", its data closed), on a loaded machine: not a failure of
	// Basalt's, and no reason to wait longer.
	if p.keptKvrocksBye() {
		p.hungAfterBye = true
		p.Kill()
		return
	}
	// A Go server prints every goroutine's stack on SIGQUIT: where the
	// shutdown hangs.
	p.cmd.Process.Signal(syscall.SIGQUIT)
	if !p.exitsWithin(10 * time.Second) {
		p.Kill()
	}
	p.t.Errorf("server did not stop on SIGTERM\n%s", p.Output)
}

// exitsWithin waits up to d for the server to exit, or less once Kvrocks
// said goodbye and lingered 5 s more.
func (p *proc) exitsWithin(d time.Duration) bool {
	deadline := time.Now().Add(d)
	var bye time.Time
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return true
		case <-time.After(100 * time.Millisecond):
		}
		switch {
		case bye.IsZero() && p.keptKvrocksBye():
			bye = time.Now()
		case !bye.IsZero() && time.Since(bye) > 5*time.Second:
			return false
		}
	}
	return false
}

// keptKvrocksBye reports whether the server is a Kvrocks that ended its
// shutdown ("Bye Bye") and is still running.
func (p *proc) keptKvrocksBye() bool {
	select {
	case <-p.done:
		return false
	default:
	}
	return strings.Contains(p.Output.String(), "Bye Bye")
}

// Kill ends the server with SIGKILL and waits.
func (p *proc) Kill() {
	p.cmd.Process.Kill()
	<-p.done
}

// Wait waits for the server to exit by itself and returns its exit code.
func (p *proc) Wait(timeout time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.t.Fatalf("server did not exit\n%s", p.Output)
	}
	return p.cmd.ProcessState.ExitCode()
}

// client returns a go-redis client speaking RESP2 or RESP3, closed with the
// test.
func (p *proc) client(t testing.TB, protocol int) *redis.Client {
	c := redis.NewClient(&redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Addr: p.Addr(), Protocol: protocol, DisableIdentity: true, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	return c
}

// cli runs redis-cli against the server and returns its trimmed output.
func (p *proc) cli(t testing.TB, args ...string) string {
	t.Helper()
	out, err := exec.Command("redis-cli", append([]string{"-p", strconv.Itoa(p.Port)}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli %v: %v\n%s", args, err, out)
	}
	return strings.TrimRight(string(out), "\n")
}

var ctx = context.Background()

// protocols runs a subtest for RESP2 and RESP3.
func protocols(t *testing.T, p *proc, f func(t *testing.T, c *redis.Client)) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			c := p.client(t, proto)
			if err := c.FlushAll(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			f(t, c)
		})
	}
}

// runBasaltCommand runs the binary to completion (for start-up failures).
// A server's command line (one that starts with a flag, not a subcommand)
// gets the metrics endpoint off, as launch gives it.
func runBasaltCommand(t testing.TB, args ...string) (string, int) {
	t.Helper()
	if len(args) > 0 && strings.HasPrefix(args[0], "-") {
		args = quietMetrics(basaltBin, args)
	}
	cmd := exec.Command(basaltBin, args...)
	done := make(chan struct{})
	var out []byte
	go func() {
		out, _ = cmd.CombinedOutput()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("basalt %v did not exit\n%s", args, out)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// longTimeout bounds one command of a client made for long commands or
// load: far above what COMPACT, a slot migration or a pipeline of
// thousands of writes take on two cores shared with other test runs and
// a -race server, yet bounded, so that a server that hangs still fails
// the test rather than the whole run.
const longTimeout = 5 * time.Minute

// longOptions are the options of a client for long commands and load:
// reads and writes wait up to longTimeout, and nothing is retried, so
// that a command reaches the server exactly once (go-redis re-sends a
// pipeline whose reply timed out, running non-idempotent writes such as
// RPUSH twice).
func longOptions(addr string, protocol int) *redis.Options {
	return &redis.Options{Addr: addr, Protocol: protocol, DisableIdentity: true, MaxRetries: -1,
		DialTimeout: time.Minute, ReadTimeout: longTimeout, WriteTimeout: longTimeout, PoolTimeout: longTimeout}
}

// longClient returns a client with longOptions, closed with the test.
func (p *proc) longClient(t testing.TB, protocol int) *redis.Client {
	return newClient(t, longOptions(p.Addr(), protocol))
}

// newClient returns a client with opts, closed with the test.
func newClient(t testing.TB, opts *redis.Options) *redis.Client {
	c := redis.NewClient(opts)
	t.Cleanup(func() { c.Close() })
	return c
}

// waitFor calls cond until it returns true, failing the test with what
// when it has not by the deadline. Under load a condition may take far
// longer than on an idle machine: give it a generous timeout.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
