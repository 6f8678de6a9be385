package it

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Replication between real processes, in Kvrocks's protocol: a replica
// follows its master through SLAVEOF (or the slaveof setting), applies
// the WAL batches the master streams, and ends with the master's data
// exactly, which a full type-aware dump of both shows. Waits are on
// conditions with generous deadlines: the machine is shared.

// replWait bounds how long a replica may take to catch up.
const replWait = 3 * time.Minute

// infoFields returns the key:value lines of INFO section.
func infoFields(t testing.TB, c *redis.Client, section string) map[string]string {
	t.Helper()
	text, err := c.Info(ctx, section).Result()
	if err != nil {
		t.Fatalf("INFO %s: %v", section, err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(text, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, "#") {
			out[k] = v
		}
	}
	return out
}

// sequenceOf returns the latest sequence number of a Basalt or Kvrocks
// node (INFO keyspace's sequence).
func sequenceOf(t testing.TB, c *redis.Client) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(infoFields(t, c, "keyspace")["sequence"], 10, 64)
	if err != nil {
		t.Fatalf("INFO keyspace sequence: %v", err)
	}
	return n
}

// waitCaughtUp waits until the replica's link is up and its sequence
// number is the master's, which must not move meanwhile.
func waitCaughtUp(t testing.TB, master, replica *redis.Client) {
	t.Helper()
	want := sequenceOf(t, master)
	waitFor(t, replWait, fmt.Sprintf("the replica reaching the master's sequence %d", want), func() bool {
		f := infoFields(t, replica, "replication")
		return f["master_link_status"] == "up" && sequenceOf(t, replica) == want
	})
}

// slaveOf makes replica follow master.
func slaveOf(t testing.TB, replica *redis.Client, master *proc) {
	t.Helper()
	if err := replica.Do(ctx, "SLAVEOF", "127.0.0.1", master.Port).Err(); err != nil {
		t.Fatalf("SLAVEOF: %v", err)
	}
}

// writeLoad runs clients goroutines, each sending ops random writes of
// every kind (several keys per command, deletions, expiries) to c, and
// returns once they are done; any error reply fails the test.
func writeLoad(t testing.TB, addr string, clients, ops int, seed int64) {
	t.Helper()
	if err := runWriteLoad(addr, clients, ops, seed); err != nil {
		t.Fatal(err)
	}
}

// runWriteLoad is writeLoad, returning the first error.
func runWriteLoad(addr string, clients, ops int, seed int64) error {
	return runWriteLoadAs(addr, "", clients, ops, seed)
}

// runWriteLoadAs is runWriteLoad with a password.
func runWriteLoadAs(addr, password string, clients, ops int, seed int64) error {
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			opts := longOptions(addr, 2)
			opts.Password = password
			c := redis.NewClient(opts)
			defer c.Close()
			rnd := rand.New(rand.NewSource(seed + int64(i)))
			for n := 0; n < ops; n += 20 {
				pipe := c.Pipeline()
				for j := 0; j < 20; j++ {
					k := strconv.Itoa(rnd.Intn(300))
					v := strconv.Itoa(rnd.Int())
					switch rnd.Intn(9) {
					case 0:
						pipe.Set(ctx, "load:s:"+k, v, 0)
					case 1:
						pipe.IncrBy(ctx, "load:n:"+k, int64(rnd.Intn(100)))
					case 2:
						pipe.HSet(ctx, "load:h:"+k, "f"+v[:1], v)
					case 3:
						pipe.RPush(ctx, "load:l:"+k, v)
					case 4:
						pipe.LPop(ctx, "load:l:"+k)
					case 5:
						pipe.ZAdd(ctx, "load:z:"+k, redis.Z{Score: float64(rnd.Intn(1000)), Member: v[:2]})
					case 6:
						pipe.SAdd(ctx, "load:t:"+k, v[:2])
					case 7:
						pipe.Del(ctx, "load:s:"+k, "load:h:"+k)
					case 8:
						pipe.Expire(ctx, "load:z:"+k, time.Hour)
					}
				}
				if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
					errs <- fmt.Errorf("load client %d: %w", i, err)
					return
				}
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// replicationLoad writes the interop workload and a concurrent random
// load through master.
func replicationLoad(t *testing.T, master *proc, seed int64, keys, ops int) {
	t.Helper()
	loaded := make(chan error, 1)
	go func() { loaded <- runWriteLoad(master.Addr(), 4, ops, seed) }()
	w := newWorkload(seed)
	w.phaseMain(keys)
	runCommands(t, interopClient(t, master, "", 60*time.Second), "master workload", w.take())
	if err := <-loaded; err != nil {
		t.Fatal(err)
	}
}

func replicationSizes() (keys, ops int) {
	if raceBuild() {
		return 20, 400
	}
	return 60, 2000
}

// TestReplication: a Basalt replica of a Basalt master under a write
// load, INFO and ROLE on both, a replica that refuses writes, a replica
// restart that resumes incrementally, and SLAVEOF NO ONE.
func TestReplication(t *testing.T) {
	t.Parallel()
	keys, ops := replicationSizes()
	m := startBasalt(t)
	dir := t.TempDir()
	r := startBasaltIn(t, dir)
	mc, rc := m.client(t, 2), r.client(t, 2)

	// Some data before the replica attaches, the rest while it streams.
	writeLoad(t, m.Addr(), 2, ops/4, 1)
	slaveOf(t, rc, m)
	replicationLoad(t, m, 2, keys, ops)
	waitCaughtUp(t, mc, rc)
	want := dumpServer(t, m, interopCase{})
	if want.keys() < 100 {
		t.Fatalf("the load left only %d keys", want.keys())
	}
	compareDumps(t, "the replica", want, dumpServer(t, r, interopCase{}))
	t.Logf("%d keys, %d elements alike at sequence %d", want.keys(), want.elements(), sequenceOf(t, rc))

	seq := strconv.FormatUint(sequenceOf(t, mc), 10)
	t.Run("Info", func(t *testing.T) {
		mi := infoFields(t, mc, "replication")
		if mi["role"] != "master" || mi["connected_slaves"] != "1" || mi["master_repl_offset"] != seq {
			t.Errorf("master INFO replication: %v", mi)
		}
		if want := fmt.Sprintf("ip=127.0.0.1,port=%d,offset=%s,lag=0", r.Port, seq); mi["slave0"] != want {
			t.Errorf("master slave0:%s, want %s", mi["slave0"], want)
		}
		ri := infoFields(t, rc, "replication")
		for k, v := range map[string]string{"role": "slave", "master_host": "127.0.0.1", "master_port": strconv.Itoa(m.Port),
			"master_link_status": "up", "master_sync_unrecoverable_error": "no", "master_sync_in_progress": "0",
			"slave_repl_offset": seq, "slave_priority": "100", "connected_slaves": "0", "master_repl_offset": seq} {
			if ri[k] != v {
				t.Errorf("replica INFO %s:%s, want %s", k, ri[k], v)
			}
		}
		if ago, err := strconv.Atoi(ri["master_last_io_seconds_ago"]); err != nil || ago > 60 {
			t.Errorf("replica master_last_io_seconds_ago:%s", ri["master_last_io_seconds_ago"])
		}
		if st := infoFields(t, mc, "stats"); st["sync_partial_ok"] != "1" || st["sync_full"] != "0" {
			t.Errorf("master INFO stats: sync_partial_ok %s, sync_full %s", st["sync_partial_ok"], st["sync_full"])
		}
	})
	t.Run("Role", func(t *testing.T) {
		got, err := rc.Do(ctx, "ROLE").Slice()
		if err != nil || fmt.Sprint(got) != fmt.Sprintf("[slave 127.0.0.1 %d connected %s]", m.Port, seq) {
			t.Errorf("replica ROLE = %v, %v", got, err)
		}
		got, err = mc.Do(ctx, "ROLE").Slice()
		if err != nil || fmt.Sprint(got) != fmt.Sprintf("[master %s [[127.0.0.1 %d %s]]]", seq, r.Port, seq) {
			t.Errorf("master ROLE = %v, %v", got, err)
		}
	})
	t.Run("ReadOnly", func(t *testing.T) {
		if err := rc.Set(ctx, "k", "v", 0).Err(); err == nil || err.Error() != "READONLY You can't write against a read only replica." {
			t.Errorf("SET on the replica: %v", err)
		}
		if err := rc.Get(ctx, "load:s:1").Err(); err != nil && err != redis.Nil {
			t.Errorf("GET on the replica: %v", err)
		}
		// In MULTI the write is refused when queued.
		if _, err := rc.TxPipelined(ctx, func(p redis.Pipeliner) error { p.Set(ctx, "k", "v", 0); return nil }); err == nil {
			t.Error("a transaction wrote on the replica")
		}
		if got := r.cli(t, "CLIENT", "LIST", "TYPE", "replica"); got != "" {
			t.Errorf("the replica lists replicas: %q", got)
		}
		if got := m.cli(t, "CLIENT", "LIST", "TYPE", "replica"); !strings.Contains(got, "flags=S") {
			t.Errorf("the master's CLIENT LIST TYPE replica: %q", got)
		}
	})

	// A restarted replica resumes where it was, without a full sync.
	stopClean(t, r)
	writeLoad(t, m.Addr(), 2, ops/2, 3)
	r = startBasaltAt(t, dir, r.Port, "--slaveof", "127.0.0.1 "+strconv.Itoa(m.Port))
	rc = r.client(t, 2)
	writeLoad(t, m.Addr(), 2, ops/4, 4)
	waitCaughtUp(t, mc, rc)
	compareDumps(t, "the restarted replica", dumpServer(t, m, interopCase{}), dumpServer(t, r, interopCase{}))
	if st := infoFields(t, mc, "stats"); st["sync_partial_ok"] != "2" || st["sync_full"] != "0" {
		t.Errorf("after the replica's restart, master INFO stats: sync_partial_ok %s, sync_full %s", st["sync_partial_ok"], st["sync_full"])
	}
	if got := rc.ConfigGet(ctx, "slaveof").Val()["slaveof"]; got != "127.0.0.1 "+strconv.Itoa(m.Port) {
		t.Errorf("CONFIG GET slaveof = %q", got)
	}

	// Promoted, it takes writes; the master no longer feeds it.
	if err := rc.Do(ctx, "SLAVEOF", "NO", "ONE").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rc.Set(ctx, "promoted", "yes", 0).Err(); err != nil {
		t.Errorf("SET after SLAVEOF NO ONE: %v", err)
	}
	if got := infoFields(t, rc, "replication")["role"]; got != "master" {
		t.Errorf("role after SLAVEOF NO ONE: %s", got)
	}
	if got := rc.ConfigGet(ctx, "slaveof").Val()["slaveof"]; got != "no one" {
		t.Errorf("CONFIG GET slaveof after SLAVEOF NO ONE = %q", got)
	}
	waitFor(t, time.Minute, "the master dropping its replica", func() bool {
		return infoFields(t, mc, "replication")["connected_slaves"] == "0"
	})
}

// TestReplicationMasterRestart: the replica reconnects to a restarted
// master and resumes incrementally.
func TestReplicationMasterRestart(t *testing.T) {
	_, ops := replicationSizes()
	dir := t.TempDir()
	m := startBasaltIn(t, dir)
	r := startBasalt(t, "--slaveof", "127.0.0.1 "+strconv.Itoa(m.Port))
	rc := r.client(t, 2)
	writeLoad(t, m.Addr(), 2, ops/2, 5)
	waitCaughtUp(t, m.client(t, 2), rc)
	// kill -9 in the middle of a write load: the replica keeps the prefix
	// it applied, which the master's WAL holds too (a batch is streamed
	// only once it is in the WAL file).
	loading := make(chan error, 1)
	go func() { loading <- runWriteLoad(m.Addr(), 4, 50*ops, 7) }()
	before := sequenceOf(t, rc)
	waitFor(t, replWait, "the replica applying the load", func() bool { return sequenceOf(t, rc) > before+100 })
	m.Kill()
	if err := <-loading; err == nil {
		t.Fatal("the load outlived its master")
	}
	waitFor(t, time.Minute, "the replica noticing the master is gone", func() bool {
		return infoFields(t, rc, "replication")["master_link_status"] == "down"
	})
	m = startBasaltAt(t, dir, m.Port)
	mc := m.client(t, 2)
	writeLoad(t, m.Addr(), 2, ops/2, 6)
	waitCaughtUp(t, mc, rc)
	compareDumps(t, "the replica of the restarted master", dumpServer(t, m, interopCase{}), dumpServer(t, r, interopCase{}))
	if st := infoFields(t, mc, "stats"); st["sync_full"] != "0" {
		t.Errorf("sync_full %s after the master's restart", st["sync_full"])
	}
}

// rawCommand sends one RESP command on a fresh connection and returns
// the first line of the reply.
func rawCommand(t testing.TB, p *proc, args ...string) string {
	t.Helper()
	nc, err := net.DialTimeout("tcp", p.Addr(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := nc.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(nc).ReadString('\n')
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return strings.TrimSuffix(line, "\r\n")
}

// TestReplicationBadInput: the replication commands refuse what they
// cannot use with Kvrocks's errors, and a hostile master cannot take a
// replica down.
func TestReplicationBadInput(t *testing.T) {
	t.Parallel()
	p := startBasalt(t, "-c", writeConf(t, "requirepass admin", "db-name bad.input.db", "namespace.tenant tenant-token"))
	c := newClient(t, &redis.Options{Addr: p.Addr(), Password: "admin", Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	tenant := newClient(t, &redis.Options{Addr: p.Addr(), Password: "tenant-token", Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	own := strconv.Itoa(p.Port)
	for _, tc := range []struct {
		c    *redis.Client
		args []any
		want string
	}{
		{c, []any{"SLAVEOF", "127.0.0.1"}, "ERR wrong number of arguments"},
		{c, []any{"SLAVEOF", "127.0.0.1", "1", "2"}, "ERR wrong number of arguments"},
		{c, []any{"REPLICAOF", "127.0.0.1"}, "ERR wrong number of arguments for 'replicaof' command"},
		{c, []any{"SLAVEOF", "127.0.0.1", "abc"}, "ERR port should be number"},
		{c, []any{"SLAVEOF", "127.0.0.1", "-1"}, "ERR port should be number"},
		{c, []any{"SLAVEOF", "127.0.0.1", "99999999999"}, "ERR port should be number"},
		{c, []any{"SLAVEOF", "127.0.0.1", own}, "ERR can't replicate itself"},
		{c, []any{"SLAVEOF", "no-such-host.invalid", "6666"}, "ERR Can not resolve hostname: no-such-host.invalid"},
		{tenant, []any{"SLAVEOF", "127.0.0.1", "6666"}, "ERR admin permission required to perform the command"},
		{tenant, []any{"SLAVEOF", "NO", "ONE"}, "ERR admin permission required to perform the command"},
		{c, []any{"ROLE", "x"}, "ERR wrong number of arguments for 'role' command"},
		{c, []any{"PSYNC"}, "ERR wrong number of arguments"},
		{c, []any{"PSYNC", "abc"}, "ERR value is not an unsigned long long or out of range"},
		{c, []any{"PSYNC", "-1"}, "ERR sequence out of range, please use fullsync"},
		{tenant, []any{"PSYNC", "1"}, "ERR admin permission required to perform the command"},
		{c, []any{"PSYNC", "18446744073709551616"}, "ERR value is not an unsigned long long or out of range"},
		{c, []any{"PSYNC", "short", "1"}, "ERR Wrong replication id length"},
		{c, []any{"PSYNC", "0"}, "ERR sequence out of range, please use fullsync"},
		{c, []any{"PSYNC", "1000000"}, "ERR sequence out of range, please use fullsync"},
		{c, []any{"REPLCONF", "listening-port"}, "ERR wrong number of arguments"},
		{c, []any{"REPLCONF", "listening-port", "1", "ip-address"}, "ERR wrong number of arguments"},
		{c, []any{"REPLCONF", "listening-port", "0"}, "ERR listening-port should be number or out of range"},
		{c, []any{"REPLCONF", "listening-port", "65535"}, "ERR listening-port should be number or out of range"},
		{c, []any{"REPLCONF", "listening-port", "x"}, "ERR listening-port should be number or out of range"},
		{c, []any{"REPLCONF", "ip-address", ""}, "ERR ip-address should not be empty"},
		{c, []any{"REPLCONF", "capa", "eof"}, "ERR unknown option"},
		{c, []any{"_db_name", "x"}, "ERR wrong number of arguments"},
		{c, []any{"_fetch_meta", "x"}, "ERR wrong number of arguments"},
		{c, []any{"_fetch_file"}, "ERR wrong number of arguments"},
		{c, []any{"_fetch_file", "a", "b"}, "ERR wrong number of arguments"},
		{tenant, []any{"_fetch_meta"}, "ERR admin permission required to perform the command"},
		{tenant, []any{"_fetch_file", "CURRENT"}, "ERR admin permission required to perform the command"},
	} {
		err := tc.c.Do(ctx, tc.args...).Err()
		if err == nil || err.Error() != tc.want {
			t.Errorf("%v: %v, want %s", tc.args, err, tc.want)
		}
	}
	if got := c.Do(ctx, "REPLCONF", "capa", "ACK").Val(); got != "OK" {
		t.Errorf("REPLCONF capa ack (Basalt's replicas, for WAIT): %v", got)
	}
	if got := c.Do(ctx, "REPLCONF", "LISTENING-PORT", "7000", "ip-address", "10.0.0.1").Val(); got != "OK" {
		t.Errorf("REPLCONF: %v", got)
	}
	// _db_name answers a raw line; the replication commands need AUTH.
	if got := rawCommand(t, p, "_db_name"); got != "-NOAUTH Authentication required." {
		t.Errorf("_db_name without AUTH: %q", got)
	}
	nc, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	nc.Write([]byte("*2\r\n$4\r\nAUTH\r\n$5\r\nadmin\r\n*2\r\n$4\r\nAUTH\r\n$5\r\nadmin\r\n*1\r\n$8\r\n_db_name\r\n"))
	rd := bufio.NewReader(nc)
	for _, want := range []string{"+OK\r\n", "+OK\r\n", "bad.input.db\r\n"} {
		if line, err := rd.ReadString('\n'); err != nil || line != want {
			t.Errorf("AUTH, AUTH, _db_name: %q %v, want %q", line, err, want)
		}
	}

	// _fetch_file sends nothing but the files of the checkpoint: a path
	// ends the connection before any byte.
	for _, names := range []string{"../../../etc/passwd", "CURRENT,../db/CURRENT", "/etc/passwd", "..", ".", "no-such-file"} {
		nc, err := net.Dial("tcp", p.Addr())
		if err != nil {
			t.Fatal(err)
		}
		nc.SetDeadline(time.Now().Add(30 * time.Second))
		fmt.Fprintf(nc, "*2\r\n$4\r\nAUTH\r\n$5\r\nadmin\r\n*2\r\n$11\r\n_fetch_file\r\n$%d\r\n%s\r\n", len(names), names)
		rd := bufio.NewReader(nc)
		if line, err := rd.ReadString('\n'); err != nil || line != "+OK\r\n" {
			t.Fatalf("AUTH: %q %v", line, err)
		}
		rest, err := io.ReadAll(rd)
		nc.Close()
		if err != nil || len(rest) != 0 {
			t.Errorf("_fetch_file %s: %q %v, want the connection closed", names, rest, err)
		}
	}

	t.Run("HostileMaster", func(t *testing.T) { hostileMaster(t) })
}

// hostileMaster points a replica at a fake master that answers the
// handshake and then streams garbage: the replica must stay up, report
// its link down and keep its data.
func hostileMaster(t *testing.T) {
	// Each refused stream costs the replica a 10 s pause, as in Kvrocks;
	// each dropped connection 1 s.
	streams := []string{
		"$-5\r\n",
		"$abc\r\n",
		"$1099511627776\r\n", // 1 TiB announced, then the connection ends
		"$12\r\nshortbatch!!\r\n",
		"$4\r\nping\r\n$20\r\n" + strings.Repeat("\xff", 20) + "\r\n",
		strings.Repeat("x", 1<<16), // a line that never ends
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex
	served := 0
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			stream := streams[served%len(streams)]
			served++
			mu.Unlock()
			go func() {
				defer nc.Close()
				rd := bufio.NewReader(nc)
				for _, reply := range []string{"change.me.db\r\n", "+OK\r\n", "+OK\r\n"} {
					// One command per reply: skip its RESP lines.
					line, err := rd.ReadString('\n')
					if err != nil {
						return
					}
					n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
					for i := 0; i < 2*n; i++ {
						if _, err := rd.ReadString('\n'); err != nil {
							return
						}
					}
					nc.Write([]byte(reply))
				}
				nc.Write([]byte(stream))
				time.Sleep(200 * time.Millisecond)
			}()
		}
	}()
	r := startBasalt(t)
	rc := r.client(t, 2)
	port := ln.Addr().(*net.TCPAddr).Port
	if err := rc.Do(ctx, "SLAVEOF", "127.0.0.1", port).Err(); err != nil {
		t.Fatal(err)
	}
	// Every stream is tried once (a refusal waits 10 s before the next).
	waitFor(t, time.Duration(len(streams)+2)*15*time.Second, "the replica trying every hostile stream", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return served > len(streams)
	})
	ln.Close()
	waitFor(t, time.Minute, "the replica's link down", func() bool {
		got := infoFields(t, rc, "replication")
		return got["role"] == "slave" && got["master_link_status"] == "down"
	})
	if n := sequenceOf(t, rc); n != 0 {
		t.Errorf("the replica applied %d records of garbage", n)
	}
	if err := rc.Do(ctx, "SLAVEOF", "NO", "ONE").Err(); err != nil {
		t.Fatal(err)
	}
}

// TestReplicationNamespaces: with repl-namespace-enabled the master's
// NAMESPACE commands replicate as data, and the replica serves the new
// tokens at once; its own NAMESPACE changes are refused, as Kvrocks's.
func TestReplicationNamespaces(t *testing.T) {
	args := []string{"--requirepass", "admin", "--repl-namespace-enabled", "yes", "--masterauth", "admin"}
	m := startBasalt(t, args...)
	r := startBasalt(t, args...)
	mc := newClient(t, &redis.Options{Addr: m.Addr(), Password: "admin", Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	rc := newClient(t, &redis.Options{Addr: r.Addr(), Password: "admin", Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	slaveOf(t, rc, m)
	if err := mc.Do(ctx, "NAMESPACE", "ADD", "ns1", "token-1").Err(); err != nil {
		t.Fatal(err)
	}
	tenant := newClient(t, &redis.Options{Addr: m.Addr(), Password: "token-1", Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	if err := tenant.Set(ctx, "tk", "tv", 0).Err(); err != nil {
		t.Fatal(err)
	}
	waitCaughtUp(t, mc, rc)
	rt := newClient(t, &redis.Options{Addr: r.Addr(), Password: "token-1", Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	if got, err := rt.Get(ctx, "tk").Result(); err != nil || got != "tv" {
		t.Errorf("GET tk in ns1 on the replica: %q %v", got, err)
	}
	if err := rc.Do(ctx, "NAMESPACE", "ADD", "ns2", "token-2").Err(); err == nil || err.Error() != "ERR namespace is read-only for slave" {
		t.Errorf("NAMESPACE ADD on the replica: %v", err)
	}
	if err := mc.Do(ctx, "NAMESPACE", "DEL", "ns1").Err(); err != nil {
		t.Fatal(err)
	}
	waitCaughtUp(t, mc, rc)
	if got := rc.Do(ctx, "NAMESPACE", "GET", "ns1").Val(); got != nil {
		t.Errorf("NAMESPACE GET ns1 on the replica after DEL on the master: %v", got)
	}
}

// TestReplicationNamespacesTurnedOn: a master whose tokens are in its
// config file turns repl-namespace-enabled on; the tokens move into its
// database and its replicas follow. A replica that has it on (Basalt or
// Kvrocks) serves them at once; a Basalt replica that has it off keeps
// streaming (Kvrocks's fails every batch that holds tokens then, with
// "cannot switch off repl_namespace_enabled ...") and serves them once
// it turns it on, without a write of its own that would put its sequence
// past its master's.
func TestReplicationNamespacesTurnedOn(t *testing.T) {
	m := startBasalt(t, "-c", writeConf(t, "requirepass admin", "namespace.ns1 tok1"))
	on := []string{"--requirepass", "admin", "--masterauth", "admin", "--repl-namespace-enabled", "yes"}
	replicas := map[string]*proc{
		"Basalt, on":  startBasalt(t, on...),
		"Basalt, off": startBasalt(t, "--requirepass", "admin", "--masterauth", "admin"),
		"Kvrocks, on": startKvrocks(t, on...),
	}
	admin := func(p *proc) *redis.Client {
		return newClient(t, &redis.Options{Addr: p.Addr(), Password: "admin", Protocol: 2, DisableIdentity: true, MaxRetries: -1, ReadTimeout: longTimeout})
	}
	authWorks := func(p *proc, token string) bool {
		c := redis.NewClient(&redis.Options{Addr: p.Addr(), Password: token, Protocol: 2, DisableIdentity: true, MaxRetries: -1, PoolSize: 1})
		defer c.Close()
		return c.Ping(ctx).Err() == nil
	}
	mc := admin(m)
	must(t, tenant(t, m, "tok1").Set(ctx, "tk", "tv", 0).Err())
	for _, r := range replicas {
		slaveOf(t, admin(r), m)
	}
	must(t, mc.ConfigSet(ctx, "repl-namespace-enabled", "yes").Err())
	must(t, mc.Do(ctx, "NAMESPACE", "ADD", "ns2", "tok2").Err())
	for name, r := range replicas {
		waitCaughtUp(t, mc, admin(r))
		follows := strings.HasSuffix(name, "on")
		for _, token := range []string{"tok1", "tok2"} {
			if got := authWorks(r, token); got != follows {
				t.Errorf("%s replica: AUTH %s works: %v, want %v", name, token, got, follows)
			}
		}
	}
	off := replicas["Basalt, off"]
	oc := admin(off)
	must(t, oc.ConfigSet(ctx, "repl-namespace-enabled", "yes").Err())
	if sm, sr := sequenceOf(t, mc), sequenceOf(t, oc); sm != sr {
		t.Errorf("turning it on, the replica moved its sequence to %d; its master's is %d", sr, sm)
	}
	if got, err := tenant(t, off, "tok1").Get(ctx, "tk").Result(); err != nil || got != "tv" {
		t.Errorf("GET tk as ns1 on the replica that turned it on: %q %v", got, err)
	}
	wantErr(t, oc.ConfigSet(ctx, "repl-namespace-enabled", "no").Err(),
		"ERR CONFIG SET 'repl-namespace-enabled' error: cannot switch off repl_namespace_enabled when namespaces exist in db")
	// From then on it follows its master's changes.
	must(t, mc.Do(ctx, "NAMESPACE", "DEL", "ns2").Err())
	for name, r := range replicas {
		waitCaughtUp(t, mc, admin(r))
		if authWorks(r, "tok2") || !authWorks(r, "tok1") {
			t.Errorf("%s replica after NAMESPACE DEL ns2 on the master: tok1 %v, tok2 %v", name, authWorks(r, "tok1"), authWorks(r, "tok2"))
		}
	}
}
