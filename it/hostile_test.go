package it

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The hostile-client test replays, against the real binary, what a hostile
// or careless client can send: malformed and oversized requests before
// AUTH, requests and backlogs that would make the server hold memory
// without bound, tenants reaching for what is not theirs, and protocol
// edges real clients run into. After all of it the server must answer,
// the data written before must be intact, and its RSS stay bounded.

const (
	hostileAdminPass = "admin-secret-pw"
	hostileToken     = "tenant-secret-token"
)

func TestHostileClients(t *testing.T) {
	p := startBasalt(t, "--requirepass", hostileAdminPass, "--repl-namespace-enabled", "yes")
	admin := adminClient(t, p)
	must(t, admin.Set(ctx, "sentinel", "intact", 0).Err())
	must(t, admin.RPush(ctx, "sentinel:list", "a", "b", "c").Err())
	must(t, admin.Do(ctx, "NAMESPACE", "ADD", "tenant", hostileToken).Err())

	t.Run("protocol", func(t *testing.T) { hostileProtocol(t, p) })
	t.Run("length line without CRLF", func(t *testing.T) { hostileEndlessLine(t, p) })
	t.Run("AUTH pipelined with a large command", func(t *testing.T) { hostileAuthPipelined(t, p, admin) })
	t.Run("client-query-buffer-limit", func(t *testing.T) { hostileQueryBufferLimit(t, p, admin) })
	t.Run("maxmemory-clients", func(t *testing.T) { hostileMaxMemoryClients(t, p, admin) })
	t.Run("subscriber that stops reading", func(t *testing.T) { hostileSlowSubscriber(t, p, admin) })
	t.Run("tenants", func(t *testing.T) { hostileTenants(t, p, admin) })
	t.Run("secrets", func(t *testing.T) { hostileSecrets(t, p, admin) })
	t.Run("failed AUTH", func(t *testing.T) { hostileFailedAuth(t, p, admin) })
	t.Run("pipelined PING and BLPOP", func(t *testing.T) { hostileBlockingPipeline(t, p, admin) })
	t.Run("QUIT then SET", func(t *testing.T) { hostileQuit(t, p, admin) })
	t.Run("clients that do not read hold up no one", func(t *testing.T) { hostileStuckReaders(t, p, admin) })
	t.Run("pipelined replies of a subscriber keep their order", func(t *testing.T) { hostileSubscriberPipeline(t, p) })
	t.Run("a subscriber reading late gets every message", func(t *testing.T) { hostileLateReader(t, p, admin) })
	t.Run("AUTH while others list clients", func(t *testing.T) { hostileAuthRace(t, p, admin) })

	if v, err := admin.Ping(ctx).Result(); err != nil || v != "PONG" {
		t.Fatalf("server stopped answering: %q %v\n%s", v, err, p.Output)
	}
	if v := admin.Get(ctx, "sentinel").Val(); v != "intact" {
		t.Fatalf("sentinel = %q", v)
	}
	if v := admin.LRange(ctx, "sentinel:list", 0, -1).Val(); strings.Join(v, ",") != "a,b,c" {
		t.Fatalf("sentinel:list = %q", v)
	}
	limit := hostileRSSLimitMB()
	waitFor(t, 30*time.Second, fmt.Sprintf("RSS under %d MB", limit), func() bool {
		return rssMB(t, p) < limit
	})
}

// hostileRSSLimitMB bounds the server's RSS at the end: memory any case
// made it hold must have been given back. The race detector's shadow
// memory, several times the heap the cases touched, stays mapped after
// the heap is given back, so a -race build gets twice the room.
func hostileRSSLimitMB() int64 {
	if raceBuild() {
		return 500
	}
	return 250
}

func adminClient(t *testing.T, p *proc) *redis.Client {
	c := redis.NewClient(&redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Addr: p.Addr(), Password: hostileAdminPass, Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	return c
}

// rssMB reads the server's resident set size.
func rssMB(t *testing.T, p *proc) int64 { return rss(t, p.cmd.Process.Pid) >> 20 }

// closedByServer reads what the server still sends until it closes the
// connection (true) or stays silent for quiet (false).
func closedByServer(r *rawConn, quiet time.Duration) bool {
	buf := make([]byte, 64<<10)
	for read := 0; read < 256<<20; {
		r.c.SetReadDeadline(time.Now().Add(quiet))
		n, err := r.rd.Read(buf)
		read += n
		if err != nil {
			var ne net.Error
			return !(errors.As(err, &ne) && ne.Timeout())
		}
	}
	return false
}

// unescape decodes \r, \n and \\ of a testdata field; other backslashes
// are sent as they are (the server decodes inline escapes itself).
func unescape(s string) string {
	return strings.NewReplacer(`\r`, "\r", `\n`, "\n", `\\`, `\`).Replace(s)
}

func hostileProtocol(t *testing.T, p *proc) {
	data, err := os.ReadFile("testdata/hostile_protocol.txt")
	must(t, err)
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, " | ")
		if len(f) != 4 {
			t.Fatalf("bad testdata line %q", line)
		}
		name, send, want, state := strings.TrimSpace(f[0]), unescape(f[1]), unescape(f[2]), strings.TrimSpace(f[3])
		t.Run(name, func(t *testing.T) {
			r := dial(t, p)
			r.send(send)
			r.c.SetReadDeadline(time.Now().Add(longTimeout))
			got := make([]byte, len(want))
			if _, err := readFull(r.rd, got); err != nil || string(got) != want {
				t.Fatalf("reply %q, %v; want %q", got, err, want)
			}
			if state == "closed" {
				if !closedByServer(r, 3*time.Second) {
					t.Fatal("connection left open")
				}
				return
			}
			if got := r.do("PING"); got != "-NOAUTH Authentication required.\r\n" {
				t.Fatalf("connection not serving: PING got %q", got)
			}
		})
	}
}

// hostileEndlessLine sends digits after '*' without a CRLF: the server
// must refuse the line past 64 KB instead of buffering it.
func hostileEndlessLine(t *testing.T, p *proc) {
	for _, prefix := range []string{"*", "*1\r\n$"} {
		r := dial(t, p)
		if prefix != "*" {
			r.send("AUTH " + hostileAdminPass + "\r\n")
			if got := r.reply(); got != "+OK\r\n" {
				t.Fatal(got)
			}
		}
		chunk := []byte(strings.Repeat("1", 1<<20))
		r.c.SetWriteDeadline(time.Now().Add(30 * time.Second))
		r.c.Write([]byte(prefix))
		sent := 0
		for ; sent < 100; sent++ {
			if _, err := r.c.Write(chunk); err != nil {
				break // refused and closed, as it must be
			}
		}
		if sent == 100 {
			t.Fatalf("%q: the server took 100 MB of a length line", prefix)
		}
		if rss := rssMB(t, p); rss > hostileRSSLimitMB() {
			t.Fatalf("RSS %d MB after an endless length line", rss)
		}
	}
	r := dial(t, p)
	r.send("*" + strings.Repeat("1", 70000))
	want := "-ERR Protocol error: too big mbulk count string\r\n"
	r.c.SetReadDeadline(time.Now().Add(longTimeout))
	if line, err := r.rd.ReadString('\n'); line != want {
		t.Fatalf("reply %q, %v; want %q", line, err, want)
	}
}

// hostileAuthPipelined checks that the pre-AUTH limits apply to what is
// parsed before AUTH ran, not to what came in the same write after it.
func hostileAuthPipelined(t *testing.T, p *proc, admin *redis.Client) {
	r := dial(t, p)
	big := strings.Repeat("v", 100000)
	r.send("AUTH " + hostileAdminPass + "\r\n*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$100000\r\n" + big + "\r\n")
	if a, b := r.reply(), r.reply(); a != "+OK\r\n" || b != "+OK\r\n" {
		t.Fatalf("replies %q %q", a, b)
	}
	if v := admin.StrLen(ctx, "big").Val(); v != 100000 {
		t.Fatalf("big has %d bytes", v)
	}
}

func configSet(t *testing.T, c *redis.Client, key, value string) {
	t.Helper()
	must(t, c.ConfigSet(ctx, key, value).Err())
}

// authedConn dials and authenticates as the admin.
func authedConn(t *testing.T, p *proc) *rawConn {
	r := dial(t, p)
	if got := r.do("AUTH", hostileAdminPass); got != "+OK\r\n" {
		t.Fatalf("AUTH: %q", got)
	}
	return r
}

// hostileQueryBufferLimit sends one request bigger than
// client-query-buffer-limit: the client is closed, the server serves on.
func hostileQueryBufferLimit(t *testing.T, p *proc, admin *redis.Client) {
	configSet(t, admin, "client-query-buffer-limit", "1mb")
	defer configSet(t, admin, "client-query-buffer-limit", "1gb")
	r := authedConn(t, p)
	r.c.SetWriteDeadline(time.Now().Add(30 * time.Second))
	r.c.Write([]byte("*3\r\n$3\r\nSET\r\n$4\r\nhuge\r\n$3000000\r\n"))
	r.c.Write([]byte(strings.Repeat("x", 3000000)))
	if !r.closed() {
		t.Fatal("a client over client-query-buffer-limit was not closed")
	}
	if n := admin.Exists(ctx, "huge").Val(); n != 0 {
		t.Fatal("the refused request was executed")
	}
}

// hostileMaxMemoryClients opens clients that each hold an unfinished
// 1 MB bulk until maxmemory-clients refuses them.
func hostileMaxMemoryClients(t *testing.T, p *proc, admin *redis.Client) {
	configSet(t, admin, "maxmemory-clients", "8mb")
	defer configSet(t, admin, "maxmemory-clients", "0")
	before := infoField(t, admin, "stats", "evicted_clients")
	var conns []*rawConn
	for i := 0; i < 30; i++ {
		r := authedConn(t, p)
		r.send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1048576\r\n" + strings.Repeat("x", 512<<10))
		conns = append(conns, r)
	}
	waitFor(t, 30*time.Second, "clients evicted", func() bool {
		return infoField(t, admin, "stats", "evicted_clients") > before
	})
	open := 0
	for _, r := range conns {
		if !closedByServer(r, 500*time.Millisecond) {
			open++
		}
	}
	if open == 0 || open > 8 {
		t.Fatalf("%d of 30 clients with 1 MB requests left open under maxmemory-clients 8mb", open)
	}
}

// infoField reads an integer field of an INFO section.
func infoField(t *testing.T, c *redis.Client, section, field string) int64 {
	t.Helper()
	text, err := c.Info(ctx, section).Result()
	must(t, err)
	for _, line := range strings.Split(text, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			must(t, err)
			return n
		}
	}
	t.Fatalf("INFO %s has no %s", section, field)
	return 0
}

// hostileSlowSubscriber subscribes and stops reading: once its backlog
// stays above the soft limit of the pubsub class of
// client-output-buffer-limit for its seconds, it is disconnected
// (TestSlowSubscriberIsDisconnected covers the hard limit).
func hostileSlowSubscriber(t *testing.T, p *proc, admin *redis.Client) {
	configSet(t, admin, "client-output-buffer-limit", "pubsub 0 256kb 1")
	defer configSet(t, admin, "client-output-buffer-limit", "pubsub 0 0 0")
	sub := authedConn(t, p)
	sub.send("*2\r\n$9\r\nSUBSCRIBE\r\n$4\r\nslow\r\n")
	sub.reply()
	msg := strings.Repeat("m", 1<<10)
	gone := false
	for deadline := time.Now().Add(60 * time.Second); !gone && time.Now().Before(deadline); {
		n, err := admin.Publish(ctx, "slow", msg).Result()
		must(t, err)
		gone = n == 0
	}
	if !gone {
		t.Fatal("a subscriber that does not read was never disconnected")
	}
	if !closedByServer(sub, 3*time.Second) {
		t.Fatal("the slow subscriber's connection is still open")
	}
}

// hostileTenants checks a namespace user sees and touches only its own.
func hostileTenants(t *testing.T, p *proc, admin *redis.Client) {
	tenant := redis.NewClient(&redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Addr: p.Addr(), Password: hostileToken, Protocol: 2, DisableIdentity: true, MaxRetries: -1, PoolSize: 1})
	defer tenant.Close()
	adminID := admin.ClientID(ctx).Val()
	if v, err := admin.Do(ctx, "NAMESPACE", "GET", "__namespace").Result(); err != redis.Nil {
		t.Fatalf("NAMESPACE GET __namespace = %v, %v; want nil", v, err)
	}
	refused := [][]any{
		{"NAMESPACE", "GET", "__namespace"}, {"NAMESPACE", "GET", "tenant"}, {"NAMESPACE", "GET", "*"},
		{"CONFIG", "GET", "requirepass"}, {"CONFIG", "GET", "*"}, {"CLIENT", "PAUSE", "10"}, {"CLIENT", "UNPAUSE"},
		{"MONITOR"}, {"FLUSHALL"}, {"SHUTDOWN"}, {"SLOWLOG", "GET"},
	}
	for _, args := range refused {
		err := tenant.Do(ctx, args...).Err()
		if err == nil || err.Error() != "ERR admin permission required to perform the command" {
			t.Errorf("tenant %v: %v", args, err)
		}
	}
	list := tenant.ClientList(ctx).Val()
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		if !strings.Contains(line, " namespace=tenant") {
			t.Errorf("tenant's CLIENT LIST shows %q", line)
		}
	}
	if strings.Contains(list, hostileAdminPass) || strings.Contains(list, hostileToken) {
		t.Error("CLIENT LIST shows a secret")
	}
	if n, err := tenant.Do(ctx, "CLIENT", "KILL", "ID", adminID).Int(); err != nil || n != 0 {
		t.Errorf("tenant killed %d admin clients (%v)", n, err)
	}
	if n, err := tenant.Do(ctx, "CLIENT", "UNBLOCK", adminID).Int(); err != nil || n != 0 {
		t.Errorf("tenant CLIENT UNBLOCK of the admin: %d, %v", n, err)
	}
	if v := admin.Ping(ctx).Val(); v != "PONG" {
		t.Fatal("the admin connection was killed by a tenant")
	}
}

// hostileSecrets runs commands that carry passwords and tokens, and checks
// that SLOWLOG, MONITOR, CLIENT LIST and the log show none of them.
func hostileSecrets(t *testing.T, p *proc, admin *redis.Client) {
	const masterSecret, newToken = "master-secret-pw", "second-tenant-token"
	secrets := []string{hostileAdminPass, hostileToken, masterSecret, newToken}
	configSet(t, admin, "slowlog-log-slower-than", "0")
	defer configSet(t, admin, "slowlog-log-slower-than", "200000")
	must(t, admin.SlowLogReset(ctx).Err())

	mon := authedConn(t, p)
	mon.send("MONITOR\r\n")
	if got := mon.reply(); got != "+OK\r\n" {
		t.Fatal(got)
	}
	other := dial(t, p)
	other.do("AUTH", hostileToken)
	other.do("HELLO", "2", "AUTH", "default", hostileAdminPass)
	other.do("MOVEX", "nokey", hostileAdminPass)
	must(t, admin.ConfigSet(ctx, "masterauth", masterSecret).Err())
	must(t, admin.ConfigSet(ctx, "masterauth", "").Err())
	must(t, admin.ConfigSet(ctx, "requirepass", hostileAdminPass).Err())
	must(t, admin.Do(ctx, "NAMESPACE", "ADD", "second", newToken).Err())
	must(t, admin.Set(ctx, "monitor:end", "1", 0).Err())

	var fed strings.Builder
	mon.c.SetReadDeadline(time.Now().Add(30 * time.Second))
	sc := bufio.NewScanner(mon.rd)
	for sc.Scan() && !strings.Contains(sc.Text(), "monitor:end") {
		fed.WriteString(sc.Text() + "\n")
	}
	slowlog := fmt.Sprint(admin.Do(ctx, "SLOWLOG", "GET", "100").Val())
	list := admin.ClientList(ctx).Val()
	for _, s := range secrets {
		for where, text := range map[string]string{"MONITOR": fed.String(), "SLOWLOG": slowlog, "CLIENT LIST": list, "the log": p.Output.String()} {
			if strings.Contains(text, s) {
				t.Errorf("%s shows the secret %q:\n%s", where, s, text)
			}
		}
	}
	// MONITOR shows no admin command (CONFIG, NAMESPACE), as in Redis.
	for where, want := range map[string]int{"MONITOR": 4, "SLOWLOG": 9} {
		text := map[string]string{"MONITOR": fed.String(), "SLOWLOG": slowlog}[where]
		if n := strings.Count(text, "(redacted)"); n != want {
			t.Errorf("%s redacts %d secrets, want %d:\n%s", where, n, want, text)
		}
	}
}

// hostileFailedAuth floods bad passwords: each is counted, and the log
// gets a few rate-limited lines naming the peer, not one per attempt.
func hostileFailedAuth(t *testing.T, p *proc, admin *redis.Client) {
	before := infoField(t, admin, "stats", "acl_access_denied_auth")
	logBefore := strings.Count(p.Output.String(), "authentication failed")
	r := dial(t, p)
	r.send(strings.Repeat("AUTH wrong-password\r\n", 300))
	for i := 0; i < 300; i++ {
		if got := r.reply(); !strings.HasPrefix(got, "-") {
			t.Fatalf("bad password accepted: %q", got)
		}
	}
	if n := infoField(t, admin, "stats", "acl_access_denied_auth") - before; n != 300 {
		t.Fatalf("acl_access_denied_auth grew by %d, want 300", n)
	}
	// A warning another subtest's bad password caused holds the next one
	// back for up to a second: the flood may all fall within it. Failing
	// on, slowly, gets the warning out.
	waitFor(t, longTimeout, "a warning of the failed AUTH", func() bool {
		if strings.Count(p.Output.String(), "authentication failed") > logBefore {
			return true
		}
		r.send("AUTH wrong-password\r\n")
		r.reply()
		return false
	})
	logged := strings.Count(p.Output.String(), "authentication failed") - logBefore
	if logged < 1 || logged > 10 {
		t.Fatalf("%d log lines for 300 failed AUTH", logged)
	}
	if !strings.Contains(p.Output.String(), r.c.LocalAddr().String()) {
		t.Fatal("the failed AUTH warning does not name the peer")
	}
}

// hostileBlockingPipeline sends PING and BLPOP in one write: PONG goes out
// before the client blocks.
func hostileBlockingPipeline(t *testing.T, p *proc, admin *redis.Client) {
	r := authedConn(t, p)
	r.send("PING\r\nBLPOP hostile:nothing 30\r\nPING\r\n")
	if got := r.reply(); got != "+PONG\r\n" {
		t.Fatalf("first reply %q", got)
	}
	// BLPOP is still waiting: PONG did not wait for it.
	if n := infoField(t, admin, "clients", "blocked_clients"); n != 1 {
		t.Fatalf("blocked_clients = %d after PONG", n)
	}
	must(t, admin.RPush(ctx, "hostile:nothing", "x").Err())
	if got := r.reply(); got != "*2\r\n$15\r\nhostile:nothing\r\n$1\r\nx\r\n" {
		t.Fatalf("BLPOP reply %q", got)
	}
	if got := r.reply(); got != "+PONG\r\n" {
		t.Fatalf("last reply %q", got)
	}
}

// hostileQuit sends QUIT and SET in one write: nothing after QUIT runs.
func hostileQuit(t *testing.T, p *proc, admin *redis.Client) {
	r := dial(t, p)
	r.send("AUTH " + hostileAdminPass + "\r\nQUIT\r\nSET hostile:afterquit 1\r\n")
	if a, b := r.reply(), r.reply(); a != "+OK\r\n" || b != "+OK\r\n" {
		t.Fatalf("replies %q %q", a, b)
	}
	if !r.closed() {
		t.Fatal("connection open after QUIT")
	}
	if n := admin.Exists(ctx, "hostile:afterquit").Val(); n != 0 {
		t.Fatal("a command sent after QUIT ran")
	}
}

// hostileStuckReaders leaves clients with replies they do not read, one of
// them subscribing and one unsubscribing from thousands of channels, and
// checks that a transaction and a publish from another client are still
// answered: no client's socket is written while a lock others need is
// held.
func hostileStuckReaders(t *testing.T, p *proc, admin *redis.Client) {
	must(t, admin.Set(ctx, "stuck:big", strings.Repeat("b", 4<<20), 0).Err())
	stuck := authedConn(t, p)
	stuck.c.(*net.TCPConn).SetReadBuffer(4096)
	stuck.send(strings.Repeat("GET stuck:big\r\n", 5) + "SUBSCRIBE stuck:ch\r\n")
	const channels = 8000
	var req strings.Builder
	req.WriteString("*" + strconv.Itoa(channels+1) + "\r\n$11\r\nUNSUBSCRIBE\r\n")
	for i := 0; i < channels; i++ {
		name := "stuck:" + strconv.Itoa(i) + strings.Repeat("n", 1000)
		req.WriteString("$" + strconv.Itoa(len(name)) + "\r\n" + name + "\r\n")
	}
	unsub := authedConn(t, p)
	unsub.c.(*net.TCPConn).SetReadBuffer(4096)
	unsub.send(req.String())
	other := redis.NewClient(&redis.Options{Addr: p.Addr(), Password: hostileAdminPass, Protocol: 2, DisableIdentity: true, MaxRetries: -1, ReadTimeout: 30 * time.Second})
	defer other.Close()
	done := make(chan error, 1)
	go func() {
		if err := other.Publish(ctx, "stuck:ch", "x").Err(); err != nil {
			done <- err
			return
		}
		_, err := other.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
			pipe.Incr(ctx, "stuck:n")
			return nil
		})
		done <- err
	}()
	select {
	case err := <-done:
		must(t, err)
	case <-time.After(60 * time.Second):
		t.Fatal("PUBLISH or EXEC waited on clients that do not read")
	}
}

// hostileSubscriberPipeline checks a subscriber's replies come in the
// order it sent its commands, confirmations included.
func hostileSubscriberPipeline(t *testing.T, p *proc) {
	r := authedConn(t, p)
	r.send("SUBSCRIBE pipe:a\r\n")
	r.reply()
	r.send("PING x\r\nSUBSCRIBE pipe:b\r\nPING y\r\n")
	want := []string{
		"*2\r\n$4\r\npong\r\n$1\r\nx\r\n",
		"*3\r\n$9\r\nsubscribe\r\n$6\r\npipe:b\r\n:2\r\n",
		"*2\r\n$4\r\npong\r\n$1\r\ny\r\n",
	}
	for i, w := range want {
		if got := r.reply(); got != w {
			t.Fatalf("reply %d = %q, want %q", i, got, w)
		}
	}
}

// hostileLateReader publishes many messages to a subscriber that reads
// only afterwards: within the pubsub limits none is dropped, however many
// they are.
func hostileLateReader(t *testing.T, p *proc, admin *redis.Client) {
	sub := authedConn(t, p)
	sub.send("SUBSCRIBE late\r\n")
	const n = 30000
	msg := strings.Repeat("m", 150)
	pub := admin.Pipeline()
	for i := 0; i < n; i++ {
		pub.Publish(ctx, "late", msg)
	}
	cmds, err := pub.Exec(ctx)
	must(t, err)
	for i, c := range cmds {
		if c.(*redis.IntCmd).Val() != 1 {
			t.Fatalf("publish %d reached %d subscribers", i, c.(*redis.IntCmd).Val())
		}
	}
	sub.reply() // the confirmation
	for i := 0; i < n; i++ {
		if got := sub.reply(); !strings.HasSuffix(got, msg+"\r\n") {
			t.Fatalf("message %d: %q", i, got)
		}
	}
}

// hostileAuthRace switches a connection between namespaces while others
// list and kill clients: a race build of the server reports any unguarded
// access (proc.Stop fails the test on a data race).
func hostileAuthRace(t *testing.T, p *proc, admin *redis.Client) {
	r := dial(t, p)
	stop := make(chan struct{})
	go func() {
		defer close(stop)
		for i := 0; i < 200; i++ {
			admin.ClientList(ctx)
			admin.Do(ctx, "CLIENT", "KILL", "ID", "999999999")
		}
	}()
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		tok := hostileAdminPass
		if i%2 == 0 {
			tok = hostileToken
		}
		if got := r.do("AUTH", tok); got != "+OK\r\n" {
			t.Fatalf("AUTH: %q", got)
		}
	}
}
