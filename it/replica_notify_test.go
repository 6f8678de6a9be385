package it

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// A replica's clients learn of its master's writes as they learn of
// local ones: WATCH sees the key changed, a blocked XREAD wakes, tracking
// clients get invalidations and keyspace notifications are published,
// with the events a redis-server replica publishes for the same
// commands. The keys a slot migration imports reach the destination's
// clients the same way.

// pushWait bounds how long a test waits for a message the server pushes
// once the replica has the write.
const pushWait = 30 * time.Second

// replicaPair is a master and its replica, of Basalt or of redis-server.
type replicaPair struct {
	name            string
	master, replica *proc
}

// newReplicaPair makes replica follow master and waits for the link.
func newReplicaPair(t *testing.T, name string, master, replica *proc) *replicaPair {
	t.Helper()
	rc := replica.client(t, 2)
	must(t, rc.Do(ctx, "REPLICAOF", "127.0.0.1", master.Port).Err())
	waitFor(t, replWait, name+": the replica's link up", func() bool {
		return infoFields(t, rc, "replication")["master_link_status"] == "up"
	})
	return &replicaPair{name: name, master: master, replica: replica}
}

// replicaPairs starts a Basalt pair and a redis-server pair.
func replicaPairs(t *testing.T) []*replicaPair {
	return []*replicaPair{
		newReplicaPair(t, "basalt", startBasalt(t), startBasalt(t)),
		newReplicaPair(t, "redis-server", startRedis(t), startRedis(t)),
	}
}

// caughtUp waits until the replica has every write the master made so
// far: a key the master sets is there.
func (p *replicaPair) caughtUp(t *testing.T, master, replica *rawConn) {
	t.Helper()
	mark := strconv.FormatInt(time.Now().UnixNano(), 10)
	master.do("SET", "#caught-up", mark)
	waitFor(t, replWait, p.name+": the replica catching up", func() bool {
		return replica.do("GET", "#caught-up") == "$"+strconv.Itoa(len(mark))+"\r\n"+mark+"\r\n"
	})
}

// replicaNotifyCase is a line of testdata/replica_notify.txt: a command
// and the event names Basalt's replica publishes in place of Redis's.
type replicaNotifyCase struct {
	args    []string
	renamed map[string]string
}

func readReplicaNotifyCases(t *testing.T) []replicaNotifyCase {
	t.Helper()
	data, err := os.ReadFile("testdata/replica_notify.txt")
	must(t, err)
	var cases []replicaNotifyCase
	for n, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		command, renames, _ := strings.Cut(line, " => ")
		c := replicaNotifyCase{args: strings.Fields(command), renamed: map[string]string{}}
		for _, r := range strings.Fields(renames) {
			from, to, ok := strings.Cut(r, "=")
			if !ok {
				t.Fatalf("testdata/replica_notify.txt:%d: %q is not redis=basalt", n+1, r)
			}
			c.renamed[from] = to
		}
		cases = append(cases, c)
	}
	return cases
}

// pubSubMessage returns the channel and the message of a pmessage in
// RESP2, as "channel message".
func pubSubMessage(t *testing.T, raw string) string {
	t.Helper()
	var bulks []string
	lines := strings.Split(raw, "\r\n")
	for i := 0; i+1 < len(lines); i++ {
		if strings.HasPrefix(lines[i], "$") {
			bulks = append(bulks, lines[i+1])
			i++
		}
	}
	if len(bulks) != 4 || bulks[0] != "pmessage" {
		t.Fatalf("not a pmessage: %q", raw)
	}
	return bulks[2] + " " + bulks[3]
}

// renamedEvent is Redis's message m with the events of c renamed.
func (c replicaNotifyCase) renamedEvent(m string) string {
	channel, message, _ := strings.Cut(m, " ")
	if to, ok := c.renamed[message]; ok && strings.HasPrefix(channel, "__keyspace@") {
		message = to
	}
	if prefix, event, ok := strings.Cut(channel, "__:"); ok && strings.HasPrefix(prefix, "__keyevent@") {
		if to, ok := c.renamed[event]; ok {
			channel = prefix + "__:" + to
		}
	}
	return channel + " " + message
}

// replicaEvents is a pair whose replica's keyspace events a test reads:
// a connection to the master and one subscribed on the replica.
type replicaEvents struct {
	data, sub *rawConn
}

func newReplicaEvents(t *testing.T, p *replicaPair) *replicaEvents {
	t.Helper()
	s := &replicaEvents{data: dial(t, p.master), sub: dial(t, p.replica)}
	if r := dial(t, p.replica).do("CONFIG", "SET", "notify-keyspace-events", "KEAn"); r != "+OK\r\n" {
		t.Fatalf("%s: CONFIG SET notify-keyspace-events: %q", p.name, r)
	}
	s.sub.do("PSUBSCRIBE", "__key*@*__:*")
	return s
}

// run runs a command on the master and returns what the replica
// published for it, up to the mark published after it.
func (s *replicaEvents) run(t *testing.T, args []string) []string {
	s.data.do(args...)
	s.data.do("PUBLISH", notifyMark, "x")
	var out []string
	for {
		m := pubSubMessage(t, s.sub.reply())
		if strings.HasPrefix(m, notifyMark+" ") {
			return out
		}
		out = append(out, m)
	}
}

// TestReplicaNotifyDiff runs the commands of testdata/replica_notify.txt
// on the masters of a Basalt and a redis-server pair: their replicas
// publish the same keyspace events, but where the case says otherwise.
func TestReplicaNotifyDiff(t *testing.T) {
	cases := readReplicaNotifyCases(t)
	pairs := replicaPairs(t)
	basalt, redis := newReplicaEvents(t, pairs[0]), newReplicaEvents(t, pairs[1])
	events := 0
	for _, c := range cases {
		got, want := basalt.run(t, c.args), redis.run(t, c.args)
		for i, m := range want {
			want[i] = c.renamedEvent(m)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%v: the replicas publish\nbasalt:       %q\nredis-server: %q", c.args, got, want)
		}
		events += len(want)
	}
	if events < 100 {
		t.Fatalf("only %d messages for %d commands: the corpus should publish more", events, len(cases))
	}
	t.Logf("%d commands, %d messages", len(cases), events)
}

// TestKvrocksMasterReplicaNotify: a Basalt replica of a Kvrocks master
// publishes, for the commands of testdata/replica_notify.txt, what a
// Basalt replica of a Basalt master does: both masters write the same
// LogData records.
func TestKvrocksMasterReplicaNotify(t *testing.T) {
	cases := readReplicaNotifyCases(t)
	ofBasalt := newReplicaEvents(t, newReplicaPair(t, "basalt", startBasalt(t), startBasalt(t)))
	ofKvrocks := newReplicaEvents(t, newReplicaPair(t, "kvrocks master", startKvrocks(t), startBasalt(t)))
	events := 0
	for _, c := range cases {
		got, want := ofKvrocks.run(t, c.args), ofBasalt.run(t, c.args)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%v: the replicas publish\nof kvrocks: %q\nof basalt:  %q", c.args, got, want)
		}
		events += len(want)
	}
	if events < 100 {
		t.Fatalf("only %d messages for %d commands", events, len(cases))
	}
}

// TestReplicaWakesReaders: on the replicas of a Basalt and a
// redis-server pair, a master's write wakes an XREAD BLOCK, makes a
// WATCHed transaction fail, and invalidates the key for tracking
// clients, in RESP3 and through a redirection; a FLUSHALL of the master
// does the same to every key.
func TestReplicaWakesReaders(t *testing.T) {
	for _, p := range replicaPairs(t) {
		t.Run(p.name, func(t *testing.T) {
			master, replica := dial(t, p.master), dial(t, p.replica)
			admin := p.replica.client(t, 2)
			master.do("SET", "k", "1")
			master.do("SET", "other", "1")
			p.caughtUp(t, master, replica)

			// XREAD BLOCK on a stream the master creates.
			reader := dial(t, p.replica)
			reader.send(resp("XREAD", "BLOCK", strconv.Itoa(int(pushWait/time.Millisecond)), "STREAMS", "s", "$"))
			waitBlocked(t, admin, 1)
			master.do("XADD", "s", "5-1", "f", "v")
			if got := reader.reply(); !strings.Contains(got, "5-1") {
				t.Errorf("XREAD BLOCK on the replica: %q", got)
			}

			// WATCH: the key the master writes fails EXEC, another does not.
			watcher, calm := dial(t, p.replica), dial(t, p.replica)
			watcher.do("WATCH", "k")
			calm.do("WATCH", "other")
			trackingPush := dial(t, p.replica)
			trackingPush.do("HELLO", "3")
			trackingPush.do("CLIENT", "TRACKING", "ON")
			trackingPush.do("GET", "k")
			redirected, sink := dial(t, p.replica), dial(t, p.replica)
			sinkID := strings.TrimSpace(strings.TrimPrefix(sink.do("CLIENT", "ID"), ":"))
			sink.do("SUBSCRIBE", "__redis__:invalidate")
			redirected.do("CLIENT", "TRACKING", "ON", "REDIRECT", sinkID)
			redirected.do("GET", "k")
			master.do("SET", "k", "2")
			p.caughtUp(t, master, replica)
			if got := transaction(watcher); got != "*-1\r\n" {
				t.Errorf("EXEC after the master changed the WATCHed key: %q, want a null", got)
			}
			if got := transaction(calm); got != "*1\r\n$1\r\n2\r\n" {
				t.Errorf("EXEC of a WATCH the master did not touch: %q", got)
			}
			if got, want := trackingPush.replyWithin(pushWait), ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n"; got != want {
				t.Errorf("RESP3 invalidation: %q, want %q", got, want)
			}
			if got, want := sink.replyWithin(pushWait), "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n$1\r\nk\r\n"; got != want {
				t.Errorf("redirected invalidation: %q, want %q", got, want)
			}

			// FLUSHALL: every WATCH of an existing key fails, every
			// tracking client is told to drop everything.
			watcher.do("WATCH", "k")
			trackingPush.do("GET", "k")
			master.do("FLUSHALL")
			waitFor(t, replWait, "the replica flushed", func() bool { return replica.do("DBSIZE") == ":0\r\n" })
			if got := transaction(watcher); got != "*-1\r\n" {
				t.Errorf("EXEC after the master's FLUSHALL: %q, want a null", got)
			}
			if got, want := trackingPush.replyWithin(pushWait), ">2\r\n$10\r\ninvalidate\r\n_\r\n"; got != want {
				t.Errorf("RESP3 invalidation of FLUSHALL: %q, want %q", got, want)
			}
		})
	}
}

// transaction runs MULTI, GET k, EXEC and returns EXEC's reply.
func transaction(c *rawConn) string {
	c.do("MULTI")
	c.do("GET", "k")
	return c.do("EXEC")
}

// TestMigrationImportNotifies: the keys a raw-key-value slot migration
// imports reach the destination's clients as a write does: an XREAD
// BLOCK (after ASKING) on an imported stream is served, a WATCH of an
// imported key fails EXEC, a tracking client's read of it is
// invalidated, and keyspace notifications publish "new" and "restore",
// the events of the RESTORE a Redis migration sends. The destination
// holds the import's writes (CLIENT PAUSE WRITE) until its clients wait.
func TestMigrationImportNotifies(t *testing.T) {
	nodes, ids := clusterNodes(t, 2, "--migrate-type", "raw-key-value")
	pushTopology(t, nodes, mastersText(nodes, ids, []string{"0-16383", ""}), 1)
	src := nodes[0].client(t, 2)
	must(t, src.XAdd(ctx, &redis.XAddArgs{Stream: "{t}s", ID: "1-1", Values: []string{"f", "v"}}).Err())
	must(t, src.Set(ctx, "{t}k", "v", 0).Err())
	slot := strconv.Itoa(int(src.ClusterKeySlot(ctx, "{t}k").Val()))

	admin := nodes[1].client(t, 2)
	must(t, admin.ConfigSet(ctx, "notify-keyspace-events", "KEAn").Err())
	must(t, admin.Do(ctx, "CLIENT", "PAUSE", "120000", "WRITE").Err())
	must(t, src.Do(ctx, "CLUSTERX", "MIGRATE", slot, ids[1]).Err())
	waitFor(t, time.Minute, "the destination importing", func() bool {
		info := admin.Do(ctx, "CLUSTER", "INFO").String()
		return strings.Contains(info, "importing_slot(s): "+slot+"\r\n") && strings.Contains(info, "import_state: start\r\n")
	})

	reader := dial(t, nodes[1])
	reader.do("ASKING")
	reader.send(resp("XREAD", "BLOCK", strconv.Itoa(int(pushWait/time.Millisecond)), "STREAMS", "{t}s", "$"))
	waitBlocked(t, admin, 1)
	watcher := dial(t, nodes[1])
	watcher.do("ASKING")
	watcher.do("WATCH", "{t}k")
	tracker := dial(t, nodes[1])
	tracker.do("HELLO", "3")
	tracker.do("CLIENT", "TRACKING", "ON")
	tracker.do("ASKING")
	if got := tracker.do("GET", "{t}k"); got != "_\r\n" {
		t.Fatalf("the key is on the destination before the import: %q", got)
	}
	sub := dial(t, nodes[1])
	sub.do("PSUBSCRIBE", "__key*@*__:*")
	must(t, admin.Do(ctx, "CLIENT", "UNPAUSE").Err())

	if got := reader.replyWithin(pushWait); !strings.Contains(got, "1-1") {
		t.Errorf("XREAD BLOCK on the imported stream: %q", got)
	}
	if got, want := tracker.replyWithin(pushWait), ">2\r\n$10\r\ninvalidate\r\n*1\r\n$4\r\n{t}k\r\n"; got != want {
		t.Errorf("invalidation of the imported key: %q, want %q", got, want)
	}
	var events []string
	for _, key := range []string{"{t}k", "{t}s"} {
		for _, ev := range []string{"new", "restore"} {
			events = append(events, "__keyspace@0__:"+key+" "+ev, "__keyevent@0__:"+ev+" "+key)
		}
	}
	for i, want := range events {
		if got := pubSubMessage(t, sub.replyWithin(pushWait)); got != want {
			t.Fatalf("event %d on the destination: %q, want %q", i, got, want)
		}
	}
	if state := waitMigration(t, src, time.Minute); state != "success" {
		t.Fatalf("migration ended in %s", state)
	}
	watcher.do("MULTI")
	watcher.do("PING")
	if got := watcher.do("EXEC"); got != "_\r\n" && got != "*-1\r\n" {
		t.Errorf("EXEC after the import wrote the WATCHed key: %q, want a null", got)
	}
}

// TestReplicaNotifyNamespaces: on a replica, the events of a tenant's
// writes on the master reach the tenant's subscribers only, and a
// tenant's XREAD BLOCK wakes on its own stream only.
func TestReplicaNotifyNamespaces(t *testing.T) {
	args := []string{"--requirepass", "admin", "--repl-namespace-enabled", "yes", "--masterauth", "admin", "--notify-keyspace-events", "KEA"}
	m, r := startBasalt(t, args...), startBasalt(t, args...)
	conn := func(p *proc, password string) *rawConn {
		c := dial(t, p)
		if got := c.do("AUTH", password); got != "+OK\r\n" {
			t.Fatalf("AUTH: %q", got)
		}
		return c
	}
	admin := conn(r, "admin")
	admin.do("SLAVEOF", "127.0.0.1", strconv.Itoa(m.Port))
	master := conn(m, "admin")
	master.do("NAMESPACE", "ADD", "ns1", "token-1")
	waitFor(t, replWait, "the token on the replica", func() bool { return admin.do("NAMESPACE", "GET", "ns1") == "$7\r\ntoken-1\r\n" })

	tenantSub, adminSub := conn(r, "token-1"), conn(r, "admin")
	tenantSub.do("PSUBSCRIBE", "__key*@*__:*")
	adminSub.do("PSUBSCRIBE", "__key*@*__:*")
	reader, otherReader := conn(r, "token-1"), conn(r, "admin")
	timeout := strconv.Itoa(int(pushWait / time.Millisecond))
	reader.send(resp("XREAD", "BLOCK", timeout, "STREAMS", "s", "$"))
	otherReader.send(resp("XREAD", "BLOCK", "2000", "STREAMS", "s", "$"))
	waitFor(t, time.Minute, "two blocked readers", func() bool { return strings.Contains(admin.do("INFO", "clients"), "blocked_clients:2\r\n") })

	tenant := conn(m, "token-1")
	tenant.do("XADD", "s", "1-1", "f", "v")
	tenant.do("PUBLISH", notifyMark, "x")
	master.do("SET", "k", "v")
	master.do("PUBLISH", notifyMark, "x")
	if got := reader.replyWithin(pushWait); !strings.Contains(got, "1-1") {
		t.Errorf("the tenant's XREAD BLOCK: %q", got)
	}
	if got := otherReader.replyWithin(pushWait); got != "*-1\r\n" {
		t.Errorf("the default namespace's XREAD BLOCK of its own s: %q, want a timeout", got)
	}
	for _, tc := range []struct {
		sub  *rawConn
		want []string
	}{
		{tenantSub, []string{"__keyspace@0__:s xadd", "__keyevent@0__:xadd s"}},
		{adminSub, []string{"__keyspace@0__:k set", "__keyevent@0__:set k"}},
	} {
		var got []string
		for {
			m := pubSubMessage(t, tc.sub.replyWithin(pushWait))
			if strings.HasPrefix(m, notifyMark+" ") {
				break
			}
			got = append(got, m)
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("events: %q, want %q", got, tc.want)
		}
	}
}
