package it

import (
	"bufio"
	"fmt"
	"io"
	"math/rand"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// A full sync broken in the middle of its file transfer resumes: the
// replica keeps the SST files it fetched whole and asks only for the
// others, whether the connection was cut or the master killed (and its
// checkpoint made again). Two replicas syncing at once share one
// checkpoint.

// fetchProxy stands between a replica and its master and passes every
// byte on, reading the full-sync file transfers that go through it: the
// names each _fetch_file asks for and the file bytes served. Once, when a
// transfer is half-way through a file after at least one SST file came
// whole, it stops passing that file on and reports where (halfway): with
// cut it then closes the connection; otherwise it holds it until the
// master closes it (the test kills the master). It follows connections
// whose first command is _fetch_file: replicas without masterauth.
type fetchProxy struct {
	ln      net.Listener
	master  string
	cut     bool
	halfway chan midTransfer

	mu       sync.Mutex
	fired    bool
	requests [][]string
	served   int64
}

// midTransfer is where a fetchProxy stopped a transfer.
type midTransfer struct {
	whole   []string // the files that came whole before it, on that connection
	partial string   // the file stopped half-way
}

func startFetchProxy(t testing.TB, master string, cut bool) *fetchProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &fetchProxy{ln: ln, master: master, cut: cut, halfway: make(chan midTransfer, 1)}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *fetchProxy) Port() int { return p.ln.Addr().(*net.TCPAddr).Port }

// Requests returns the names of every _fetch_file so far, in order.
func (p *fetchProxy) Requests() [][]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.requests)
}

// Served returns the file bytes passed on to replicas.
func (p *fetchProxy) Served() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.served
}

func (p *fetchProxy) serve(client net.Conn) {
	defer client.Close()
	rd := bufio.NewReader(client)
	args, raw, err := readProxiedCommand(rd)
	if err != nil {
		return
	}
	server, err := net.DialTimeout("tcp", p.master, 5*time.Second)
	if err != nil {
		return // the master is down: the replica sees the connection end
	}
	defer server.Close()
	if _, err := server.Write(raw); err != nil {
		return
	}
	go func() {
		io.Copy(server, rd)
		server.Close()
	}()
	if len(args) == 2 && strings.EqualFold(args[0], "_fetch_file") {
		p.relayFiles(client, server, strings.Split(args[1], ","))
		return
	}
	io.Copy(client, server)
}

// relayFiles passes on the master's answer to a _fetch_file of names:
// per file "<size>\r\n" and the bytes.
func (p *fetchProxy) relayFiles(client, server net.Conn, names []string) {
	p.mu.Lock()
	p.requests = append(p.requests, names)
	p.mu.Unlock()
	rd := bufio.NewReader(server)
	for i, name := range names {
		line, err := rd.ReadString('\n')
		if err != nil || len(line) > 32 {
			return
		}
		size, err := strconv.ParseInt(strings.TrimSuffix(line, "\r\n"), 10, 64)
		if err != nil || size < 0 {
			return
		}
		if _, err := io.WriteString(client, line); err != nil {
			return
		}
		pass := size
		if size > 1 && p.stopHere(names[:i]) {
			pass = size / 2
		}
		n, err := io.CopyN(client, rd, pass)
		p.mu.Lock()
		p.served += n
		p.mu.Unlock()
		if err != nil {
			return
		}
		if pass < size {
			p.halfway <- midTransfer{whole: slices.Clone(names[:i]), partial: name}
			if !p.cut {
				io.Copy(io.Discard, rd)
			}
			return
		}
	}
}

// stopHere reports, once, whether to stop the file after whole.
func (p *fetchProxy) stopHere(whole []string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fired || !slices.ContainsFunc(whole, isSST) {
		return false
	}
	p.fired = true
	return true
}

func isSST(name string) bool { return strings.HasSuffix(name, ".sst") }

// readProxiedCommand reads one RESP array of bulk strings, returning its
// arguments and its bytes.
func readProxiedCommand(rd *bufio.Reader) ([]string, []byte, error) {
	var raw []byte
	readLine := func() (string, error) {
		line, err := rd.ReadString('\n')
		raw = append(raw, line...)
		if err != nil || len(line) < 3 || len(line) > 32 || line[len(line)-2] != '\r' {
			return "", fmt.Errorf("bad line %q: %v", line, err)
		}
		return line[:len(line)-2], nil
	}
	head, err := readLine()
	if err != nil {
		return nil, nil, err
	}
	n, err := strconv.Atoi(strings.TrimPrefix(head, "*"))
	if err != nil || head[0] != '*' || n < 1 || n > 16 {
		return nil, nil, fmt.Errorf("not a command: %q", head)
	}
	args := make([]string, 0, n)
	for i := 0; i < n; i++ {
		line, err := readLine()
		if err != nil {
			return nil, nil, err
		}
		size, err := strconv.Atoi(strings.TrimPrefix(line, "$"))
		if err != nil || line[0] != '$' || size < 0 || size > 1<<20 {
			return nil, nil, fmt.Errorf("not a bulk string: %q", line)
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(rd, buf); err != nil {
			return nil, nil, err
		}
		raw = append(raw, buf...)
		args = append(args, string(buf[:size]))
	}
	return args, raw, nil
}

// waitHalfway waits until the proxy stopped a transfer half-way.
func waitHalfway(t *testing.T, p *fetchProxy) midTransfer {
	t.Helper()
	select {
	case mid := <-p.halfway:
		t.Logf("stopped half-way through %s, after %v", mid.partial, mid.whole)
		return mid
	case <-time.After(replWait):
		t.Fatalf("no transfer reached half-way through a file after an SST file; requests %v", p.Requests())
		return midTransfer{}
	}
}

// checkResumed checks that the requests after the stop asked again for
// the file stopped half-way and for none of the SST files that had come
// whole.
func checkResumed(t *testing.T, p *fetchProxy, mid midTransfer) {
	t.Helper()
	reqs := p.Requests()
	t.Logf("requests: %v; %d file bytes served", reqs, p.Served())
	if len(reqs) < 2 {
		t.Fatalf("no _fetch_file after the stop: %v", reqs)
	}
	var again []string
	for _, r := range reqs[1:] {
		again = append(again, r...)
	}
	if !slices.Contains(again, mid.partial) {
		t.Errorf("%s, stopped half-way, was not asked for again: %v", mid.partial, again)
	}
	for _, name := range mid.whole {
		if isSST(name) && slices.Contains(again, name) {
			t.Errorf("%s, fetched whole before the stop, was fetched again: %v", name, again)
		}
	}
}

// fillRandom sets n keys to values of size random bytes, which no
// compression shrinks.
func fillRandom(t *testing.T, c *redis.Client, prefix string, n, size int) {
	t.Helper()
	rnd := rand.New(rand.NewSource(int64(n)))
	pipe := c.Pipeline()
	for i := 0; i < n; i++ {
		value := make([]byte, size)
		rnd.Read(value)
		pipe.Set(ctx, prefix+strconv.Itoa(i), value, 0)
		if pipe.Len() == 100 || i == n-1 {
			if _, err := pipe.Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestReplicationFullSyncResumes(t *testing.T) {
	t.Parallel()
	keys, ops := replicationSizes()
	// SST files of 1 MB: a checkpoint of several.
	args := append(slices.Clone(purgedWAL), "--rocksdb.target_file_size_base", "1")
	m := startBasalt(t, args...)
	mc := m.client(t, 2)
	replicationLoad(t, m, 51, keys, ops)
	fillRandom(t, mc, "big:", 4000, 1000)
	flushWAL(t, m)
	want := dumpServer(t, m, interopCase{})

	follow := func(t *testing.T, r *proc, cut bool) *fetchProxy {
		proxy := startFetchProxy(t, m.Addr(), cut)
		c := newClient(t, longOptions(r.Addr(), 2))
		if err := c.Do(ctx, "SLAVEOF", "127.0.0.1", proxy.Port()).Err(); err != nil {
			t.Fatalf("SLAVEOF: %v", err)
		}
		return proxy
	}
	synced := func(t *testing.T, r *proc) {
		waitCaughtUp(t, mc, newClient(t, longOptions(r.Addr(), 2)))
		compareDumps(t, "the replica after a resumed full sync", want, dumpServer(t, r, interopCase{}))
	}

	t.Run("ConnectionCut", func(t *testing.T) {
		r := startBasalt(t)
		proxy := follow(t, r, true)
		mid := waitHalfway(t, proxy)
		synced(t, r)
		checkResumed(t, proxy, mid)
	})
	// Kvrocks's replica keeps what it fetched too (every file but
	// CURRENT), and asks a Basalt master for the rest after 10 s.
	t.Run("KvrocksReplica", func(t *testing.T) {
		kvrocksBin(t)
		r := startKvrocks(t)
		proxy := follow(t, r, true)
		mid := waitHalfway(t, proxy)
		synced(t, r)
		checkResumed(t, proxy, mid)
	})
	// The master restarted makes a new checkpoint: the same SST files,
	// a new MANIFEST.
	t.Run("MasterKilled", func(t *testing.T) {
		r := startBasalt(t)
		proxy := follow(t, r, false)
		mid := waitHalfway(t, proxy)
		m.Kill()
		m = startBasaltAt(t, m.Dir, m.Port, args...)
		mc = m.client(t, 2)
		synced(t, r)
		checkResumed(t, proxy, mid)
	})
}

// TestReplicationFullSyncSharedCheckpoint: two replicas that full-sync at
// once are served from one checkpoint, as Kvrocks serves them while it is
// young and its sequence still in the WAL, and both end with the master's
// data.
func TestReplicationFullSyncSharedCheckpoint(t *testing.T) {
	t.Parallel()
	keys, ops := replicationSizes()
	m := startBasalt(t, purgedWAL...)
	mc := m.client(t, 2)
	replicationLoad(t, m, 52, keys, ops)
	flushWAL(t, m)
	want := dumpServer(t, m, interopCase{})
	// A second per file: the two fetches overlap.
	replicas := []*proc{
		startBasalt(t, "--fullsync-recv-file-delay", "1"),
		startBasalt(t, "--fullsync-recv-file-delay", "1"),
	}
	var wg sync.WaitGroup
	var failed atomic.Value
	for _, r := range replicas {
		wg.Add(1)
		go func(c *redis.Client) {
			defer wg.Done()
			if err := c.Do(ctx, "SLAVEOF", "127.0.0.1", m.Port).Err(); err != nil {
				failed.Store(err)
			}
		}(r.client(t, 2))
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		t.Fatalf("SLAVEOF: %v", err)
	}
	for i, r := range replicas {
		waitCaughtUp(t, mc, r.client(t, 2))
		compareDumps(t, fmt.Sprintf("replica %d", i), want, dumpServer(t, r, interopCase{}))
	}
	if st := infoFields(t, mc, "stats"); st["sync_full"] != "2" {
		t.Errorf("sync_full:%s, want 2", st["sync_full"])
	}
	if n := strings.Count(m.Output.String(), "checkpoint created for a full sync"); n != 1 {
		t.Errorf("%d checkpoints made for two replicas, want 1", n)
	}
}
