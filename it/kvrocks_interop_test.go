package it

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Data-directory interoperability with the real Kvrocks: one server writes
// a seeded workload, stops, the other opens the same directory and its
// full type-aware dump must equal the writer's; then it compacts the
// directory (its compaction filters on the other's records) and dumps
// again; then the writer reopens what the reader compacted and dumps once
// more. Kvrocks writes with RocksDB 9.3, Basalt with Debian's 7.8.

// server is one of the two implementations.
type server int

const (
	kvrocksServer server = iota
	basaltServer
)

func (s server) String() string { return [...]string{"kvrocks", "basalt"}[s] }

// start starts s on dir and port with the given arguments.
func (s server) start(t *testing.T, dir string, port int, args ...string) *proc {
	t.Helper()
	if s == kvrocksServer {
		return startKvrocksAt(t, dir, port, args...)
	}
	return startBasaltAt(t, dir, port, args...)
}

// interopCase is one configuration the two servers share.
type interopCase struct {
	seed       int64
	conf       []string // config file lines (none: no config file)
	args       []string // extra command-line settings, for both servers
	namespaces bool     // the interopTenants beside the default namespace
	cluster    bool     // cluster-enabled: the node owns all 16384 slots
	keys       int      // keys of each type per namespace
	big        int      // members of each big collection (0: none)
}

const adminPass = "admin"

// The second tenant's name is not ASCII and its token needs quoting in a
// config file and escaping in JSON. (A name with a space cannot be kept in a
// config file, by Kvrocks or Basalt: `namespace.<name> <token>`.)
var interopTenants = map[string]string{"ns1": "tenant-token-1", "ns-ü2": `t#2 "q" <&>'\`}

// TestKvrocksInterop: both directions with each server's defaults and a
// config file (namespace tokens in it), with big collections.
func TestKvrocksInterop(t *testing.T) {
	kvrocksBin(t)
	c := interopCase{seed: 28, conf: []string{"requirepass " + adminPass}, namespaces: true, keys: 60, big: 100000}
	if raceBuild() {
		c.keys, c.big = 30, 10000
	}
	for _, dir := range [][2]server{{kvrocksServer, basaltServer}, {basaltServer, kvrocksServer}} {
		w, r := dir[0], dir[1]
		t.Run(fmt.Sprintf("%sTo%s", title(w), title(r)), func(t *testing.T) {
			_, conf := runInterop(t, c, w, r)
			// The tokens travelled in the config file (each server opened
			// the directory with repl-namespace-enabled no, so it held none).
			text, _ := os.ReadFile(conf)
			for ns := range interopTenants {
				if !strings.Contains(string(text), "\nnamespace."+ns+" ") {
					t.Errorf("the config file lacks namespace.%s:\n%s", ns, text)
				}
			}
		})
	}
}

// TestKvrocksInteropReplNamespace: with repl-namespace-enabled yes the
// tokens live in the database (propagate CF) and move with it; a server
// started without the option then refuses the directory, Kvrocks and
// Basalt alike.
func TestKvrocksInteropReplNamespace(t *testing.T) {
	kvrocksBin(t)
	c := interopCase{seed: 29, conf: []string{"requirepass " + adminPass, "repl-namespace-enabled yes"}, namespaces: true, keys: 20}
	for _, dir := range [][2]server{{kvrocksServer, basaltServer}, {basaltServer, kvrocksServer}} {
		w, r := dir[0], dir[1]
		t.Run(fmt.Sprintf("%sTo%s", title(w), title(r)), func(t *testing.T) {
			data, conf := runInterop(t, c, w, r)
			if text, _ := os.ReadFile(conf); strings.Contains(string(text), "namespace.") {
				t.Errorf("namespace lines in the config file with repl-namespace-enabled yes:\n%s", text)
			}
			refusals := map[server]string{
				kvrocksServer: "cannot switch off repl_namespace_enabled when namespaces exist in db",
				basaltServer:  "repl-namespace-enabled is no",
			}
			for s, want := range refusals {
				if out := runToExit(t, s, data, "--requirepass", adminPass); !strings.Contains(out, want) {
					t.Errorf("%s without repl-namespace-enabled on a directory holding tokens: want %q in\n%s", s, want, out)
				}
			}
		})
	}
}

// TestKvrocksInteropCluster: cluster mode, where every key carries its
// slot; the node owns all slots and the reader takes over its address and
// nodes.conf.
func TestKvrocksInteropCluster(t *testing.T) {
	kvrocksBin(t)
	c := interopCase{seed: 30, args: []string{"--cluster-enabled", "yes"}, cluster: true, keys: 30}
	t.Run("KvrocksToBasalt", func(t *testing.T) { runInterop(t, c, kvrocksServer, basaltServer) })
	t.Run("BasaltToKvrocks", func(t *testing.T) { runInterop(t, c, basaltServer, kvrocksServer) })
}

// TestKvrocksInteropRocksDBFeatures: the RocksDB features Kvrocks can be
// configured to use on disk, ZSTD/LZ4/zlib-compressed SST blocks at every
// level, blob files and a ZSTD-compressed WAL, written by Kvrocks's
// RocksDB 9.3 and read by the RocksDB Basalt links (Basalt accepts these
// keys and ignores the ones it does not implement).
func TestKvrocksInteropRocksDBFeatures(t *testing.T) {
	kvrocksBin(t)
	for _, compression := range []string{"zstd", "lz4", "zlib"} {
		c := interopCase{seed: 31, keys: 20, args: []string{"--rocksdb.compression", compression,
			"--rocksdb.compression_start_level", "0", "--rocksdb.wal_compression", "zstd"}}
		if compression == "zstd" {
			c.args = append(c.args, "--rocksdb.enable_blob_files", "yes", "--rocksdb.min_blob_size", "16")
		}
		t.Run(compression, func(t *testing.T) { runInterop(t, c, kvrocksServer, basaltServer) })
	}
}

// TestKvrocksNamespaceWithoutConfigFile: with neither a config file nor
// repl-namespace-enabled there is nowhere to keep tokens: both servers
// refuse NAMESPACE ADD with the same error, so no directory holds tokens
// a default Kvrocks would refuse.
func TestKvrocksNamespaceWithoutConfigFile(t *testing.T) {
	kvrocksBin(t)
	var replies []string
	for _, s := range []server{kvrocksServer, basaltServer} {
		p := s.start(t, t.TempDir(), freePort(t), "--requirepass", adminPass)
		c := redis.NewClient(&redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Addr: p.Addr(), Password: adminPass, Protocol: 2, DisableIdentity: true})
		err := c.Do(ctx, "NAMESPACE", "ADD", "ns", "tok").Err()
		c.Close()
		replies = append(replies, fmt.Sprint(err))
	}
	if replies[0] != replies[1] || !strings.Contains(replies[0], "configuration file") {
		t.Errorf("NAMESPACE ADD without a config file: kvrocks %q, basalt %q", replies[0], replies[1])
	}
}

func title(s server) string { return strings.ToUpper(s.String()[:1]) + s.String()[1:] }

// runInterop writes c's workload through writer, then checks the dumps of
// reader, of reader after COMPACT and of writer reopened; it returns the
// data dir and the config file ("" for none).
func runInterop(t *testing.T, c interopCase, writer, reader server) (dir, conf string) {
	start := time.Now()
	dir = t.TempDir()
	explainOnFailure(t, dir)
	port := freePort(t) // one address throughout: a cluster node keeps it
	var args []string
	if len(c.conf) > 0 {
		// One file for both, as when a Kvrocks is swapped for Basalt: each
		// rewrites it (NAMESPACE ADD, and Kvrocks writes its
		// command-line settings into it) and the other reads it back.
		conf = writeConf(t, c.conf...)
		args = append(args, "-c", conf)
	}
	args = append(args, c.args...)

	w := writer.start(t, dir, port, args...)
	if c.cluster {
		setupSingleNodeCluster(t, w)
	}
	if c.namespaces {
		admin := interopClient(t, w, adminPass, 5*time.Second)
		for _, ns := range sortedKeys(interopTenants) {
			if err := admin.Do(ctx, "NAMESPACE", "ADD", ns, interopTenants[ns]).Err(); err != nil {
				t.Fatalf("%s: NAMESPACE ADD %s: %v", writer, ns, err)
			}
		}
	}
	writeWorkload(t, c, w, writer)
	want := dumpServer(t, w, c)
	checkDumpCoversWorkload(t, want, c)
	t.Logf("%s wrote %d keys in %d namespaces (%s)", writer, want.keys(), len(want.ns), time.Since(start).Round(time.Millisecond))
	stopClean(t, w)

	r := reader.start(t, dir, port, args...)
	compareDumps(t, fmt.Sprintf("%s opening the directory %s wrote", reader, writer), want, dumpServer(t, r, c))
	// The reader changes records the writer wrote; from here on its dump
	// is the reference.
	editEveryNamespace(t, c, r, reader, want)
	want = dumpServer(t, r, c)
	compactServer(t, r, c.passwords()["__namespace"])
	compareDumps(t, fmt.Sprintf("%s after its COMPACT of the directory %s wrote", reader, writer), want, dumpServer(t, r, c))
	stopClean(t, r)

	w2 := writer.start(t, dir, port, args...)
	compareDumps(t, fmt.Sprintf("%s reopening its directory after %s compacted it", writer, reader), want, dumpServer(t, w2, c))
	stopClean(t, w2)
	t.Logf("%s -> %s: %d keys, %d elements compared four times (the last three after the reader's edits) in %s", writer, reader, want.keys(), want.elements(), time.Since(start).Round(time.Millisecond))
	return dir, conf
}

// interopClient connects with password ("" for none) and a read timeout.
func interopClient(t *testing.T, p *proc, password string, timeout time.Duration) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: p.Addr(), Password: password, Protocol: 2, DisableIdentity: true,
		MaxRetries: -1, PoolSize: 2, ReadTimeout: timeout, WriteTimeout: timeout})
	t.Cleanup(func() { c.Close() })
	return c
}

// setupSingleNodeCluster makes p the only node, owning every slot.
func setupSingleNodeCluster(t *testing.T, p *proc) {
	t.Helper()
	c := interopClient(t, p, "", 5*time.Second)
	id := strings.Repeat("b", 40)
	if err := c.Do(ctx, "CLUSTERX", "SETNODEID", id).Err(); err != nil {
		t.Fatalf("CLUSTERX SETNODEID: %v", err)
	}
	nodes := fmt.Sprintf("%s 127.0.0.1 %d master - 0-16383", id, p.Port)
	if err := c.Do(ctx, "CLUSTERX", "SETNODES", nodes, 1).Err(); err != nil {
		t.Fatalf("CLUSTERX SETNODES: %v", err)
	}
}

// passwords returns namespace -> the password that opens it; the default
// namespace opens with requirepass (or no password).
func (c interopCase) passwords() map[string]string {
	out := map[string]string{"__namespace": ""}
	for _, line := range c.conf {
		if strings.HasPrefix(line, "requirepass ") {
			out["__namespace"] = strings.TrimPrefix(line, "requirepass ")
		}
	}
	if c.namespaces {
		for ns, token := range interopTenants {
			out[ns] = token
		}
	}
	return out
}

// writeWorkload runs c's workload in every namespace of p: the bulk (and
// the big collections in the default namespace), then a COMPACT, so that the
// directory holds SST files the writer's RocksDB wrote, then into the WAL
// short-lived keys, a wait until they expired, the re-creation of half of
// them, and emptied collections: the dead records of the others stay on
// disk for the reader.
func writeWorkload(t *testing.T, c interopCase, p *proc, who server) {
	t.Helper()
	type tenant struct {
		name   string
		client *redis.Client
		w      *workload
	}
	var tenants []tenant
	for i, ns := range sortedKeys(c.passwords()) {
		tn := tenant{ns, interopClient(t, p, c.passwords()[ns], 30*time.Second), newWorkload(c.seed*100 + int64(i))}
		tn.w.phaseMain(c.keys)
		if ns == "__namespace" && c.big > 0 {
			tn.w.phaseBig(c.big)
		}
		runCommands(t, tn.client, fmt.Sprintf("%s %s", who, ns), tn.w.take())
		tenants = append(tenants, tn)
	}
	compactServer(t, p, c.passwords()["__namespace"])
	for _, tn := range tenants {
		tn.w.phaseShortLived(c.keys / 2)
		runCommands(t, tn.client, fmt.Sprintf("%s %s", who, tn.name), tn.w.take())
	}
	for _, tn := range tenants {
		waitExpired(t, tn.client, tn.w.shortLived)
		tn.w.phaseRecreate()
		tn.w.phaseEmptied()
		runCommands(t, tn.client, fmt.Sprintf("%s %s", who, tn.name), tn.w.take())
	}
}

// editEveryNamespace runs phaseEdits on the keys of d through p.
func editEveryNamespace(t *testing.T, c interopCase, p *proc, who server, d dump) {
	t.Helper()
	for i, ns := range sortedKeys(c.passwords()) {
		w := newWorkload(c.seed*1000 + int64(i))
		w.phaseEdits(d.ns[ns], c.keys/2)
		runCommands(t, interopClient(t, p, c.passwords()[ns], 30*time.Second), fmt.Sprintf("%s %s editing", who, ns), w.take())
	}
}

// waitExpired waits until none of keys exists.
func waitExpired(t *testing.T, c *redis.Client, keys []string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		pipe := c.Pipeline()
		for _, k := range keys { // one key a command: cluster mode refuses several slots
			pipe.Exists(ctx, k)
		}
		replies, err := pipe.Exec(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range replies {
			n += int(r.(*redis.IntCmd).Val())
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d keys with a TTL under 300 ms still exist after 10 s", n, len(keys))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// compactServer runs COMPACT (as the admin, with password) with a client
// timeout of its own, then waits until the server reports no compaction
// running (Kvrocks's COMPACT replies at once and compacts in the
// background).
func compactServer(t *testing.T, p *proc, password string) {
	t.Helper()
	c := interopClient(t, p, password, 90*time.Second)
	if err := c.Do(ctx, "COMPACT").Err(); err != nil {
		t.Fatalf("COMPACT: %v\n%s", err, p.Output)
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		info, err := c.Info(ctx, "rocksdb").Result()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(info, "is_compacting:no") || strings.Contains(info, "is_compacting:0") {
			return
		}
		if !strings.Contains(info, "is_compacting:") {
			t.Fatalf("INFO rocksdb has no is_compacting field:\n%s", info)
		}
		if time.Now().After(deadline) {
			t.Fatal("COMPACT still running after 90 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// runToExit starts s on dir with args, expecting it to refuse to start,
// and returns its output.
func runToExit(t *testing.T, s server, dir string, args ...string) string {
	t.Helper()
	port := strconv.Itoa(freePort(t))
	if s == basaltServer {
		out, code := runBasaltCommand(t, append([]string{"--port", port, "--dir", dir}, args...)...)
		if code == 0 {
			t.Errorf("basalt exited 0")
		}
		return out
	}
	p := launchNoWait(t, kvrocksBin(t), append([]string{"--bind", "127.0.0.1", "--port", port, "--dir", dir, "--daemonize", "no", "--log-dir", "stdout"}, args...))
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		t.Errorf("kvrocks did not exit:\n%s", p.Output)
		p.Stop()
	}
	return p.Output.String()
}

// launchNoWait starts bin without waiting for it to serve.
func launchNoWait(t *testing.T, bin string, args []string) *proc {
	t.Helper()
	p := &proc{t: t, Output: &lockedBuffer{}, done: make(chan struct{})}
	p.cmd = serverCommand(bin, quietMetrics(bin, args)...)
	p.cmd.Stdout, p.cmd.Stderr = p.Output, p.Output
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(p.Stop)
	return p
}

// TestKvrocksInteropForeignTypes: a Kvrocks directory holding the types
// Basalt does not serve (bloom filter, JSON) or not wholly (bitmap,
// HyperLogLog, a stream with a consumer group: Basalt has no XGROUP yet),
// and a sortedint, opens in Basalt, which lists them and leaves them alone; after Basalt's COMPACT (its compaction filters on
// records it cannot decode) Kvrocks reads every one of them back unchanged.
func TestKvrocksInteropForeignTypes(t *testing.T) {
	kvrocksBin(t)
	dir := t.TempDir()
	explainOnFailure(t, dir)
	port := freePort(t)
	k := startKvrocksAt(t, dir, port)
	runCommands(t, interopClient(t, k, "", 5*time.Second), "kvrocks", [][]any{
		{"SETBIT", "bm", 100, 1}, {"SETBIT", "bm", 9000, 1}, {"SETBIT", "bm", 70000, 1},
		{"XADD", "st", "1-1", "a", "1"}, {"XADD", "st", "2-1", "b", "2"}, {"XADD", "st", "3-1", "c", "3"},
		{"XGROUP", "CREATE", "st", "g", "0"}, {"XREADGROUP", "GROUP", "g", "c1", "COUNT", 2, "STREAMS", "st", ">"},
		{"PFADD", "hll", "a", "b", "c", "d"},
		{"SIADD", "si", 5, 7, 9},
		{"BF.ADD", "bf", "item1"}, {"BF.ADD", "bf", "item2"},
		{"JSON.SET", "j", "$", `{"a":[1,2],"b":"x"}`},
		{"SETBIT", "bm:ttl", 1, 1}, {"PEXPIRE", "bm:ttl", int64(3 * time.Hour / time.Millisecond)},
		{"SET", "plain", "v"},
	})
	reads := [][]any{
		{"BITCOUNT", "bm"}, {"GETBIT", "bm", 9000}, {"BITPOS", "bm", 1},
		{"XRANGE", "st", "-", "+"}, {"XPENDING", "st", "g"}, {"XLEN", "st"},
		{"PFCOUNT", "hll"}, {"SIRANGE", "si", 0, -1}, {"BF.EXISTS", "bf", "item2"}, {"BF.CARD", "bf"},
		{"JSON.GET", "j"}, {"BITCOUNT", "bm:ttl"}, {"PEXPIRETIME", "bm:ttl"}, {"GET", "plain"},
	}
	read := func(p *proc) []string {
		c := interopClient(t, p, "", 5*time.Second)
		out := make([]string, len(reads))
		for i, r := range reads {
			v, err := c.Do(ctx, r...).Result()
			out[i] = fmt.Sprintf("%v => %v %v", r, v, err)
		}
		return out
	}
	before := read(k)
	stopClean(t, k)

	b := startBasaltAt(t, dir, port)
	keys, err := interopClient(t, b, "", 5*time.Second).Do(ctx, "KEYS", "*").StringSlice()
	if sort.Strings(keys); err != nil || strings.Join(keys, " ") != "bf bm bm:ttl hll j plain si st" {
		t.Errorf("basalt lists %q, %v", keys, err)
	}
	compactServer(t, b, "")
	stopClean(t, b)

	after := read(startKvrocksAt(t, dir, port))
	for i := range before {
		if before[i] != after[i] {
			t.Errorf("after basalt's COMPACT: %s\nbefore it:               %s", after[i], before[i])
		}
	}
}
