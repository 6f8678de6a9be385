package it

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestAuth(t *testing.T) {
	p := startBasalt(t, "--requirepass", "s3cret")
	c := p.client(t, 2)
	wantErr(t, c.Set(ctx, "k", "v", 0).Err(), "NOAUTH Authentication required.")
	wantErr(t, c.Do(ctx, "AUTH", "wrong").Err(), "WRONGPASS invalid username-password pair or user is disabled.")

	good := redis.NewClient(&redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Addr: p.Addr(), Password: "s3cret", Protocol: 2})
	defer good.Close()
	must(t, good.Set(ctx, "k", "v", 0).Err())

	resp3 := redis.NewClient(&redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Addr: p.Addr(), Password: "s3cret", Protocol: 3})
	defer resp3.Close()
	if v := resp3.Get(ctx, "k").Val(); v != "v" {
		t.Fatalf("HELLO 3 AUTH client: GET = %q", v)
	}
	raw := dial(t, p)
	if got := raw.do("HELLO", "3"); !strings.HasPrefix(got, "-NOAUTH HELLO must be called") {
		t.Fatalf("HELLO without auth = %q", got)
	}
	if got := raw.do("HELLO", "3", "AUTH", "default", "s3cret"); !strings.HasPrefix(got, "%6") {
		t.Fatalf("HELLO 3 AUTH = %q", got)
	}
	if out := p.cli(t, "-a", "s3cret", "--no-auth-warning", "get", "k"); out != "v" {
		t.Fatalf("redis-cli -a: %q", out)
	}
	open := startBasalt(t)
	wantErr(t, open.client(t, 2).Do(ctx, "AUTH", "x").Err(), "ERR Client sent AUTH, but no password is set")
}

func TestHelloAndRESP3Shapes(t *testing.T) {
	p := startBasalt(t)
	raw := dial(t, p)
	if got := raw.do("HELLO", "4"); got != "-NOPROTO unsupported protocol version\r\n" {
		t.Fatalf("HELLO 4 = %q", got)
	}
	if got := raw.do("GET", "missing"); got != "$-1\r\n" {
		t.Fatalf("RESP2 null = %q", got)
	}
	if got := raw.do("HELLO", "3", "SETNAME", "me"); !strings.HasPrefix(got, "%6\r\n$6\r\nserver\r\n$5\r\nredis\r\n") {
		t.Fatalf("HELLO 3 = %q", got)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"GET", "missing"}, "_\r\n"},
		{[]string{"CONFIG", "GET", "maxclients"}, "%1\r\n$10\r\nmaxclients\r\n$5\r\n10240\r\n"},
		{[]string{"CLIENT", "GETNAME"}, "$2\r\nme\r\n"},
		{[]string{"SETNX", "a", "1"}, ":1\r\n"},
		{[]string{"INFO", "cluster"}, "=34\r\ntxt:# Cluster\r\ncluster_enabled:0\r\n\r\n"},
	} {
		if got := raw.do(tc.args...); got != tc.want {
			t.Errorf("%v = %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestConfigCommands(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "basalt.conf")
	must(t, os.WriteFile(conf, []byte("# test config\ntimeout 0 # idle\nmaxclients 100\n"), 0o644))
	p := startBasalt(t, "-c", conf)
	c := p.client(t, 2)
	got := c.ConfigGet(ctx, "max*").Val()
	if got["maxclients"] != "100" {
		t.Fatalf("CONFIG GET max* = %v", got)
	}
	if all := c.ConfigGet(ctx, "*").Val(); len(all) < 30 {
		t.Fatalf("CONFIG GET * returned %d options", len(all))
	}
	must(t, c.ConfigSet(ctx, "maxclients", "50").Err())
	if v := c.ConfigGet(ctx, "maxclients").Val()["maxclients"]; v != "50" {
		t.Fatalf("after CONFIG SET: %v", v)
	}
	// Kvrocks's wording (TestKvrocksDiff compares the rest).
	wantErr(t, c.ConfigSet(ctx, "port", "1").Err(), "ERR CONFIG SET 'port' error: Unsupported CONFIG parameter: port")
	wantErr(t, c.ConfigSet(ctx, "nosuch", "1").Err(), "ERR CONFIG SET 'nosuch' error: Unsupported CONFIG parameter: nosuch")
	wantErr(t, c.ConfigSet(ctx, "maxclients", "x").Err(), "ERR CONFIG SET 'maxclients' error: failed to set new value: not started as an integer")
	must(t, c.ConfigSet(ctx, "slowlog-log-slower-than", "0").Err())
	must(t, c.Set(ctx, "slow", "v", 0).Err())
	if n := c.Do(ctx, "SLOWLOG", "LEN").Val().(int64); n < 1 {
		t.Fatalf("SLOWLOG LEN = %d with threshold 0", n)
	}
	must(t, c.ConfigRewrite(ctx).Err())
	text, _ := os.ReadFile(conf)
	if !strings.Contains(string(text), "# test config\n") || !strings.Contains(string(text), "maxclients 50\n") || !strings.Contains(string(text), "slowlog-log-slower-than 0\n") {
		t.Fatalf("rewritten config:\n%s", text)
	}
	must(t, c.ConfigResetStat(ctx).Err())
	noFile := startBasalt(t)
	wantErr(t, noFile.client(t, 2).ConfigRewrite(ctx).Err(), "ERR the server is running without a config file")
}

func TestClientCommands(t *testing.T) {
	p := startBasalt(t)
	a, b := p.client(t, 2), p.client(t, 2)
	must(t, a.Do(ctx, "CLIENT", "SETNAME", "alpha").Err())
	if v := a.ClientGetName(ctx).Val(); v != "alpha" {
		t.Fatalf("CLIENT GETNAME = %q", v)
	}
	wantErr(t, a.Do(ctx, "CLIENT", "SETNAME", "has space").Err(), "ERR Client names cannot contain spaces")
	idB := b.ClientID(ctx).Val()
	list := a.ClientList(ctx).Val()
	if !strings.Contains(list, "name=alpha") || !strings.Contains(list, "id="+strconv.FormatInt(idB, 10)+" ") || !strings.Contains(list, "cmd=client") {
		t.Fatalf("CLIENT LIST = %q", list)
	}
	if info := a.ClientInfo(ctx).Val(); info.Name != "alpha" {
		t.Fatalf("CLIENT INFO = %+v", info)
	}
	if n := a.ClientKillByFilter(ctx, "ID", strconv.FormatInt(idB, 10)).Val(); n != 1 {
		t.Fatalf("CLIENT KILL ID = %d", n)
	}
	time.Sleep(50 * time.Millisecond)
	if strings.Contains(a.ClientList(ctx).Val(), "id="+strconv.FormatInt(idB, 10)+" ") {
		t.Fatal("killed client still listed")
	}
	wantErr(t, a.Do(ctx, "CLIENT", "KILL", "1.2.3.4:5").Err(), "ERR No such client")
}

func TestCommandCommand(t *testing.T) {
	p := startBasalt(t)
	c := p.client(t, 2)
	if n := c.Do(ctx, "COMMAND", "COUNT").Val().(int64); n < 55 {
		t.Fatalf("COMMAND COUNT = %d", n)
	}
	info := c.CommandList(ctx, nil).Val()
	if len(info) < 55 {
		t.Fatalf("COMMAND LIST = %d", len(info))
	}
	cmds, err := c.Command(ctx).Result()
	must(t, err)
	get := cmds["get"]
	if get == nil || get.Arity != 2 || get.FirstKeyPos != 1 || !get.ReadOnly {
		t.Fatalf("COMMAND get = %+v", get)
	}
	keys := c.CommandGetKeys(ctx, "MSET", "a", "1", "b", "2").Val()
	if strings.Join(keys, ",") != "a,b" {
		t.Fatalf("COMMAND GETKEYS = %v", keys)
	}
	wantErr(t, c.CommandGetKeys(ctx, "PING", "x").Err(), "ERR The command has no key arguments")
	// As in Redis 7.0: COMMAND GETKEYS takes a command and at least one
	// argument.
	wantErr(t, c.CommandGetKeys(ctx, "PING").Err(), "ERR wrong number of arguments for 'command|getkeys' command")
}

func TestRedisCli(t *testing.T) {
	p := startBasalt(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ping"}, "PONG"},
		{[]string{"set", "greeting", "hello world"}, "OK"},
		{[]string{"get", "greeting"}, "hello world"},
		{[]string{"--no-raw", "get", "nothing"}, "(nil)"},
		{[]string{"--no-raw", "incr", "counter"}, "(integer) 1"},
		{[]string{"--no-raw", "mget", "greeting", "nothing"}, "1) \"hello world\"\n2) (nil)"},
		{[]string{"--no-raw", "nosuch"}, "(error) ERR unknown command 'nosuch', with args beginning with: "},
		{[]string{"dbsize"}, "2"},
	} {
		if got := p.cli(t, tc.args...); got != tc.want {
			t.Errorf("redis-cli %v = %q, want %q", tc.args, got, tc.want)
		}
	}
	if got := p.cli(t, "-3", "--no-raw", "get", "nothing"); got != "(nil)" {
		t.Errorf("redis-cli -3 get nothing = %q", got)
	}
}

func TestInfo(t *testing.T) {
	p := startBasalt(t)
	c := p.client(t, 2)
	must(t, c.Set(ctx, "a", "1", time.Hour).Err())
	must(t, c.Set(ctx, "b", "1", 0).Err())
	c.Get(ctx, "a")
	c.Get(ctx, "missing")
	info := c.Info(ctx).Val()
	for _, want := range []string{"# Server\r\n", "redis_version:", "tcp_port:" + strconv.Itoa(p.Port), "# Clients\r\n", "connected_clients:1",
		"# Memory\r\n", "used_memory_rss:", "# Persistence\r\n", "# Stats\r\n", "keyspace_hits:1", "keyspace_misses:1",
		"# Keyspace\r\n", "db0:keys=2,expires=1,", "sequence:", "rocksdb_version:7.8.3"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO lacks %q", want)
		}
	}
	// As Kvrocks, INFO without arguments shows every section; Redis 7's
	// "default" leaves commandstats out.
	if !strings.Contains(info, "cmdstat_set:calls=2,") {
		t.Error("INFO lacks commandstats")
	}
	if strings.Contains(c.Info(ctx, "default").Val(), "cmdstat_") {
		t.Error("INFO default includes commandstats")
	}
	if s := c.Info(ctx, "commandstats").Val(); !strings.Contains(s, "cmdstat_set:calls=2,") {
		t.Errorf("INFO commandstats = %q", s)
	}
}

// rawConn is a plain TCP connection for byte-exact protocol checks.
type rawConn struct {
	t  *testing.T
	c  net.Conn
	rd *bufio.Reader
}

func dial(t *testing.T, p *proc) *rawConn {
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{t: t, c: c, rd: bufio.NewReader(c)}
}

func (r *rawConn) send(s string) {
	r.c.SetWriteDeadline(time.Now().Add(longTimeout))
	if _, err := r.c.Write([]byte(s)); err != nil {
		r.t.Fatal(err)
	}
}

// do sends a command and returns the whole raw reply.
func (r *rawConn) do(args ...string) string {
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b.WriteString("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")
	}
	r.send(b.String())
	return r.reply()
}

// reply reads one complete RESP2/RESP3 reply.
func (r *rawConn) reply() string {
	// As every test client: a loaded machine (CI beside other builds)
	// may take seconds for a reply redis-server gives in microseconds.
	r.c.SetReadDeadline(time.Now().Add(longTimeout))
	var out strings.Builder
	r.readValue(&out)
	return out.String()
}

func (r *rawConn) readValue(out *strings.Builder) {
	line, err := r.rd.ReadString('\n')
	if err != nil {
		r.t.Fatalf("read reply: %v (so far %q)", err, out.String())
	}
	out.WriteString(line)
	n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
	switch line[0] {
	case '$', '=':
		if n >= 0 {
			buf := make([]byte, n+2)
			if _, err := readFull(r.rd, buf); err != nil {
				r.t.Fatal(err)
			}
			out.Write(buf)
		}
	case '*', '~', '>':
		for i := 0; i < n; i++ {
			r.readValue(out)
		}
	case '%':
		for i := 0; i < 2*n; i++ {
			r.readValue(out)
		}
	}
}

func readFull(rd *bufio.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := rd.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// closed reports whether the server closed the connection.
func (r *rawConn) closed() bool {
	r.c.SetReadDeadline(time.Now().Add(longTimeout))
	_, err := r.rd.ReadByte()
	return err != nil
}

func TestProtocolErrors(t *testing.T) {
	p := startBasalt(t, "--proto-max-bulk-len", "1M")
	healthy := p.client(t, 2)
	must(t, healthy.Set(ctx, "k", "v", 0).Err())

	cases := []struct{ name, send, want string }{
		{"bad multibulk length", "*abc\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"expected dollar", "*1\r\n+PING\r\n", "-ERR Protocol error: expected '$', got '+'\r\n"},
		{"bad bulk length", "*1\r\n$x\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{"bulk over proto-max-bulk-len", "*2\r\n$3\r\nSET\r\n$2000000\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{"huge multibulk", "*3000000000\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"unbalanced quotes", "SET \"a b\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := dial(t, p)
			r.send(tc.send)
			r.c.SetReadDeadline(time.Now().Add(longTimeout))
			line, err := r.rd.ReadString('\n')
			if err != nil || line != tc.want {
				t.Fatalf("reply = %q, %v; want %q", line, err, tc.want)
			}
			if !r.closed() {
				t.Fatal("connection left open after a protocol error")
			}
		})
	}
	t.Run("inline commands work", func(t *testing.T) {
		r := dial(t, p)
		r.send("SET inline \"with space\"\r\nGET inline\r\n")
		if a, b := r.reply(), r.reply(); a != "+OK\r\n" || b != "$10\r\nwith space\r\n" {
			t.Fatalf("inline replies %q %q", a, b)
		}
	})
	t.Run("pipelined requests", func(t *testing.T) {
		r := dial(t, p)
		var b strings.Builder
		for i := 0; i < 100; i++ {
			b.WriteString("*2\r\n$4\r\nINCR\r\n$4\r\npipe\r\n")
		}
		r.send(b.String())
		for i := 1; i <= 100; i++ {
			if got := r.reply(); got != ":"+strconv.Itoa(i)+"\r\n" {
				t.Fatalf("reply %d = %q", i, got)
			}
		}
	})
	t.Run("bulk within the limit", func(t *testing.T) {
		val := strings.Repeat("z", 1<<20-10)
		must(t, healthy.Set(ctx, "big", val, 0).Err())
		if v := healthy.Get(ctx, "big").Val(); v != val {
			t.Fatal("value under proto-max-bulk-len not stored")
		}
	})
	if v := healthy.Get(ctx, "k").Val(); v != "v" {
		t.Fatalf("other connection broken by protocol errors: %q", v)
	}
}

func TestMaxClients(t *testing.T) {
	p := startBasalt(t, "--maxclients", "2")
	a := dial(t, p)
	// Wait until the readiness probe's connection is gone and a is alone.
	for !strings.Contains(a.do("INFO", "clients"), "connected_clients:1\r\n") {
		time.Sleep(10 * time.Millisecond)
	}
	b := dial(t, p)
	if a.do("PING") != "+PONG\r\n" || b.do("PING") != "+PONG\r\n" {
		t.Fatal("first two clients refused")
	}
	third := dial(t, p)
	third.c.SetReadDeadline(time.Now().Add(longTimeout))
	line, _ := third.rd.ReadString('\n')
	if line != "-ERR max number of clients reached\r\n" {
		t.Fatalf("third client got %q", line)
	}
	if info := a.do("INFO", "stats"); !strings.Contains(info, "rejected_connections:1") {
		t.Fatalf("rejected connection not counted: %q", info)
	}
}

func TestIdleTimeout(t *testing.T) {
	p := startBasalt(t, "--timeout", "1")
	r := dial(t, p)
	if r.do("PING") != "+PONG\r\n" {
		t.Fatal("no PONG")
	}
	r.c.SetReadDeadline(time.Now().Add(longTimeout))
	if _, err := r.rd.ReadByte(); err == nil {
		t.Fatal("idle client not closed")
	}
}

func TestStartupErrors(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "bad.conf")
	must(t, os.WriteFile(conf, []byte("port 7000\n\nmaxclients many\n"), 0o644))
	out, code := runBasaltCommand(t, "-c", conf, "--dir", dir)
	if code == 0 || !strings.Contains(out, "line 3") || !strings.Contains(out, "maxclients") {
		t.Fatalf("bad value in the file: exit %d, output %q", code, out)
	}
	// As Kvrocks, a key nobody knows is a warning naming it and its line.
	unknown := filepath.Join(dir, "unknown.conf")
	must(t, os.WriteFile(unknown, []byte("# comment\nbogus-key yes\n"), 0o644))
	p := startBasalt(t, "-c", unknown)
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(p.Output.String(), "'bogus-key' at line 2 of "); {
		if time.Now().After(deadline) {
			t.Fatalf("unknown key: no warning naming it:\n%s", p.Output)
		}
		time.Sleep(20 * time.Millisecond)
	}
	out, code = runBasaltCommand(t, "--port", "notaport", "--dir", dir)
	if code == 0 || !strings.Contains(out, "port") {
		t.Fatalf("bad value: exit %d, output %q", code, out)
	}
	busy := startBasalt(t)
	out, code = runBasaltCommand(t, "--port", strconv.Itoa(busy.Port), "--dir", t.TempDir())
	if code == 0 || !strings.Contains(out, "cannot listen on 127.0.0.1:"+strconv.Itoa(busy.Port)) {
		t.Fatalf("port in use: exit %d, output %q", code, out)
	}
	// bind empty is 127.0.0.1, as in Kvrocks, unless there is a unix
	// socket: then the metrics endpoint has no address.
	out, code = runBasaltCommand(t, "--bind", "", "--unixsocket", filepath.Join(t.TempDir(), "s.sock"), "--metrics-port", strconv.Itoa(freePort(t)), "--dir", t.TempDir())
	if code != 1 || !strings.Contains(out, "no bind address") {
		t.Fatalf("no bind address: exit %d, output %q", code, out)
	}
	out, code = runBasaltCommand(t, "--metrics-port", strconv.Itoa(busy.Port), "--port", strconv.Itoa(freePort(t)), "--dir", t.TempDir())
	if code != 1 || !strings.Contains(out, "metrics: listen on 127.0.0.1:"+strconv.Itoa(busy.Port)) {
		t.Fatalf("metrics port in use: exit %d, output %q", code, out)
	}
	file := filepath.Join(dir, "afile")
	must(t, os.WriteFile(file, nil, 0o644))
	out, code = runBasaltCommand(t, "--dir", filepath.Join(file, "sub"), "--port", strconv.Itoa(freePort(t)))
	if code == 0 || !strings.Contains(out, "data directory") {
		t.Fatalf("unwritable dir: exit %d, output %q", code, out)
	}
	out, code = runBasaltCommand(t, "version")
	if code != 0 || !strings.HasPrefix(out, "basalt ") {
		t.Fatalf("basalt version: exit %d, output %q", code, out)
	}
	out, code = runBasaltCommand(t, "--help")
	if code != 0 || !strings.Contains(out, "--maxclients") || !strings.Contains(out, "--rocksdb.block_cache_size") {
		t.Fatalf("basalt --help: exit %d, output %q", code, out)
	}
}

func TestShutdown(t *testing.T) {
	p := startBasalt(t)
	c := p.client(t, 2)
	must(t, c.Set(ctx, "k", "v", 0).Err())
	c.Shutdown(ctx)
	if code := p.Wait(15 * time.Second); code != 0 {
		t.Fatalf("SHUTDOWN exit code %d\n%s", code, p.Output)
	}
	if !strings.Contains(p.Output.String(), "basalt stopped") {
		t.Fatalf("no clean stop in log:\n%s", p.Output)
	}
	again := startBasaltIn(t, p.Dir)
	if v := again.client(t, 2).Get(ctx, "k").Val(); v != "v" {
		t.Fatalf("after restart GET = %q", v)
	}
	again.Stop()
	if !strings.Contains(again.Output.String(), "signal received") || !strings.Contains(again.Output.String(), "basalt stopped") {
		t.Fatalf("SIGTERM did not stop cleanly:\n%s", again.Output)
	}
}

// TestKill9KeepsAcknowledgedWrites kills the server while clients write,
// after enough data for several memtable (and so WAL) switches, and checks
// that every write acknowledged before the kill is there after restart.
func TestKill9KeepsAcknowledgedWrites(t *testing.T) {
	p := startBasalt(t)
	const writers, before = 4, 2400
	value := strings.Repeat("v", 16<<10)
	acked := make([]atomic.Int64, writers) // per writer: how many writes were acknowledged
	var total atomic.Int64
	killed := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			opts := longOptions(p.Addr(), 2) // a loaded machine is not a failure
			opts.PoolSize = 1
			c := redis.NewClient(opts)
			defer c.Close()
			for i := 0; ; i++ {
				key := "durable:" + strconv.Itoa(w) + ":" + strconv.Itoa(i)
				_, err := c.Pipelined(ctx, func(pipe redis.Pipeliner) error {
					pipe.Set(ctx, key, value, 0)
					pipe.HSet(ctx, "durable:hash:"+strconv.Itoa(w), strconv.Itoa(i), i)
					return nil
				})
				if err != nil {
					select {
					case <-killed:
					default:
						t.Errorf("writer %d: %v", w, err)
					}
					return
				}
				acked[w].Store(int64(i + 1))
				if total.Add(1) == before {
					close(killed)
					p.Kill()
				}
			}
		}(w)
	}
	wg.Wait()
	again := startBasaltIn(t, p.Dir)
	c := again.client(t, 2)
	for w := 0; w < writers; w++ {
		n := acked[w].Load()
		for i := int64(0); i < n; i++ {
			key := "durable:" + strconv.Itoa(w) + ":" + strconv.FormatInt(i, 10)
			if v := c.Get(ctx, key).Val(); v != value {
				t.Fatalf("acknowledged SET %s lost after kill -9 (got %d bytes)", key, len(v))
			}
			field := strconv.FormatInt(i, 10)
			if v := c.HGet(ctx, "durable:hash:"+strconv.Itoa(w), field).Val(); v != field {
				t.Fatalf("acknowledged HSET durable:hash:%d %s lost after kill -9 (got %q)", w, field, v)
			}
		}
	}
}

func TestConcurrentIncrLosesNothing(t *testing.T) {
	p := startBasalt(t)
	const clients, each = 50, 200
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// No retries: an INCR re-sent after a timeout would count twice.
			opts := longOptions(p.Addr(), 2)
			opts.PoolSize = 1
			c := redis.NewClient(opts)
			defer c.Close()
			for j := 0; j < each; j++ {
				if err := c.Incr(ctx, "counter").Err(); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if v := p.client(t, 2).Get(ctx, "counter").Val(); v != strconv.Itoa(clients*each) {
		t.Fatalf("counter = %s, want %d", v, clients*each)
	}
}
