package it

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The differential tests of keyspace notifications: the same commands go
// to redis-server 7.0 and to Basalt while a client of each, subscribed to
// __key*@*__:*, records what is published; the messages each command
// causes must be the same bytes, in RESP2 and in RESP3.

// notifyMark is the channel a test publishes to after each command: the
// subscriber's messages up to it are that command's.
const notifyMark = "__keyspace@0__:#mark"

// notifySide is one server: a connection running the commands and one
// subscribed to every keyspace channel.
type notifySide struct {
	name      string
	data, sub *rawConn
}

func newNotifySide(t *testing.T, name string, p *proc, proto int, flags string) *notifySide {
	s := &notifySide{name: name, data: dial(t, p), sub: dial(t, p)}
	if proto == 3 {
		s.data.do("HELLO", "3")
		s.sub.do("HELLO", "3")
	}
	for _, args := range [][]string{{"FLUSHALL"}, {"CONFIG", "SET", "notify-keyspace-events", flags}, {"DEBUG", "SET-ACTIVE-EXPIRE", "0"}} {
		if r := s.data.do(args...); r[0] == '-' {
			t.Fatalf("%s: %v: %q", name, args, r)
		}
	}
	s.sub.do("PSUBSCRIBE", "__key*@*__:*")
	return s
}

// run sends a command and returns its reply and, unless the command was
// queued in a transaction, the messages it caused, in order.
func (s *notifySide) run(args []string, queued bool) (reply string, messages []string) {
	reply = s.data.do(args...)
	if queued {
		return reply, nil
	}
	s.data.do("PUBLISH", notifyMark, "x")
	for {
		m := s.sub.reply()
		if strings.Contains(m, notifyMark) {
			return reply, messages
		}
		messages = append(messages, m)
	}
}

func TestNotifyDiff(t *testing.T) {
	b, r := startBasalt(t), startRedis(t, "--enable-debug-command", "yes")
	cases := readCases(t, "testdata/notify_diff.txt")
	for _, flags := range []string{"KEA", "KEAmn", "Elgx", "K$hz"} {
		for _, proto := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s/RESP%d", flags, proto), func(t *testing.T) {
				basalt, redis := newNotifySide(t, "basalt", b, proto, flags), newNotifySide(t, "redis", r, proto, flags)
				inMulti := false
				events, history := 0, []string{}
				for _, args := range cases {
					verb := strings.ToUpper(args[0])
					switch verb {
					case "MULTI":
						inMulti = true
					case "EXEC", "DISCARD":
						inMulti = false
					}
					queued := inMulti && verb != "MULTI"
					gotReply, got := basalt.run(args, queued || verb == "MULTI")
					wantReply, want := redis.run(args, queued || verb == "MULTI")
					history = append(history, strings.Join(args, " "))
					if (gotReply[0] == '-') != (wantReply[0] == '-') {
						t.Errorf("%v: basalt replied %q, redis-server %q", args, abbreviated(gotReply), abbreviated(wantReply))
					}
					if strings.Join(got, "") != strings.Join(want, "") {
						from := max(0, len(history)-8)
						t.Fatalf("%v: events differ\nbasalt:       %q\nredis-server: %q\nlast commands:\n%s", args, got, want, strings.Join(history[from:], "\n"))
					}
					events += len(want)
				}
				if flags == "KEA" && events < 300 {
					t.Fatalf("only %d messages for %d commands: the corpus should publish more", events, len(cases))
				}
				t.Logf("%d commands, %d messages the same", len(cases), events)
			})
		}
	}
}

// TestNotifyBlockedOrder: a blocked BLPOP served by an RPUSH publishes
// after the push, as in Redis: rpush, then the served client's lpop and
// del.
func TestNotifyBlockedOrder(t *testing.T) {
	b, r := startBasalt(t), startRedis(t, "--enable-debug-command", "yes")
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			var streams [2][]string
			for i, p := range []*proc{b, r} {
				side := newNotifySide(t, "server", p, proto, "KEA")
				blocked := dial(t, p)
				blocked.send(resp("BLPOP", "q", "0"))
				// Counted as blocked once it waits for the key; CLIENT
				// LIST names the command before, while it still looks.
				waitFor(t, time.Minute, "the client blocks", func() bool {
					return strings.Contains(side.data.do("INFO", "clients"), "blocked_clients:1")
				})
				_, streams[i] = side.run([]string{"RPUSH", "q", "a"}, false)
				if reply := blocked.reply(); !strings.Contains(reply, "a") {
					t.Fatalf("BLPOP replied %q", reply)
				}
			}
			if strings.Join(streams[0], "") != strings.Join(streams[1], "") || len(streams[1]) != 6 {
				t.Fatalf("basalt: %q\nredis-server: %q", streams[0], streams[1])
			}
		})
	}
}

// TestNotifyExpired: a key whose time passes is deleted by active expiry
// with an "expired" event on both servers, without being looked up.
func TestNotifyExpired(t *testing.T) {
	b, r := startBasalt(t), startRedis(t)
	for _, p := range []*proc{b, r} {
		sub := p.client(t, 2).PSubscribe(ctx, "__keyevent@0__:*")
		defer sub.Close()
		c := p.client(t, 2)
		must(t, c.ConfigSet(ctx, "notify-keyspace-events", "Ex").Err())
		if _, err := sub.Receive(ctx); err != nil {
			t.Fatal(err)
		}
		must(t, c.Set(ctx, "soon", "v", 50*time.Millisecond).Err())
		msg, err := sub.ReceiveMessage(ctx)
		if err != nil || msg.Channel != "__keyevent@0__:expired" || msg.Payload != "soon" {
			t.Fatalf("%v: %+v, %v", p.cmd.Path, msg, err)
		}
	}
}

// TestNotifyConfig: notify-keyspace-events reads back in Redis's order,
// A for all classes, on both servers.
func TestNotifyConfig(t *testing.T) {
	b, r := startBasalt(t), startRedis(t)
	bc, rc := b.client(t, 2), r.client(t, 2)
	for _, v := range []string{"", "KEA", "AKE", "Kg", "E$lshzxet", "KEg$lshzxetmnd", "Am", "n", "tK", "xE", "KEAmn", "ddKK"} {
		must(t, rc.ConfigSet(ctx, "notify-keyspace-events", v).Err())
		must(t, bc.ConfigSet(ctx, "notify-keyspace-events", v).Err())
		want := rc.ConfigGet(ctx, "notify-keyspace-events").Val()
		got := bc.ConfigGet(ctx, "notify-keyspace-events").Val()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q: basalt %v, redis-server %v", v, got, want)
		}
	}
	for _, bad := range []string{"Q", "KEA!", "k", "a"} {
		if err := rc.ConfigSet(ctx, "notify-keyspace-events", bad).Err(); err == nil {
			t.Fatalf("redis-server took %q", bad)
		}
		err := bc.ConfigSet(ctx, "notify-keyspace-events", bad).Err()
		if err == nil || !strings.Contains(err.Error(), "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if got := bc.ConfigGet(ctx, "notify-keyspace-events").Val(); got["notify-keyspace-events"] != "dK" {
		t.Errorf("a refused value changed the setting: %v", got)
	}
}

// TestNotifyNamespaces: a tenant's subscribers hear only the events of
// its own keys, as Kvrocks keeps channels per namespace.
func TestNotifyNamespaces(t *testing.T) {
	p := startBasalt(t, "--requirepass", adminPass, "--repl-namespace-enabled", "yes")
	admin := interopClient(t, p, adminPass, longTimeout)
	must(t, admin.Do(ctx, "NAMESPACE", "ADD", "ns1", "token1").Err())
	must(t, admin.Do(ctx, "NAMESPACE", "ADD", "ns2", "token2").Err())
	must(t, admin.ConfigSet(ctx, "notify-keyspace-events", "KEA").Err())
	t1, t2 := interopClient(t, p, "token1", longTimeout), interopClient(t, p, "token2", longTimeout)
	sub1, sub2 := t1.PSubscribe(ctx, "__key*__:*"), t2.PSubscribe(ctx, "__key*__:*")
	defer sub1.Close()
	defer sub2.Close()
	if _, err := sub1.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := sub2.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	must(t, t2.Set(ctx, "theirs", "v", 0).Err())
	must(t, admin.Set(ctx, "admins", "v", 0).Err())
	must(t, t1.LPush(ctx, "mine", "v").Err())
	for _, want := range []string{"__keyspace@0__:mine lpush", "__keyevent@0__:lpush mine"} {
		msg, err := sub1.ReceiveMessage(ctx)
		if err != nil || msg.Channel+" "+msg.Payload != want {
			t.Fatalf("ns1 heard %+v (%v), want %s", msg, err, want)
		}
	}
	for _, want := range []string{"__keyspace@0__:theirs set", "__keyevent@0__:set theirs"} {
		msg, err := sub2.ReceiveMessage(ctx)
		if err != nil || msg.Channel+" "+msg.Payload != want {
			t.Fatalf("ns2 heard %+v (%v), want %s", msg, err, want)
		}
	}
	// Tracking too: a tenant's BCAST client hears only its own keys, a
	// key of the same name in another namespace is another key.
	watcher := dial(t, p)
	watcher.do("AUTH", "token1")
	watcher.do("HELLO", "3")
	if r := watcher.do("CLIENT", "TRACKING", "on", "BCAST"); r != "+OK\r\n" {
		t.Fatal(r)
	}
	must(t, t2.Set(ctx, "shared", "theirs", 0).Err())
	must(t, admin.Set(ctx, "shared", "admins", 0).Err())
	must(t, t1.Set(ctx, "shared", "mine", 0).Err())
	if m := watcher.replyWithin(time.Minute); m != ">2\r\n$10\r\ninvalidate\r\n*1\r\n$6\r\nshared\r\n" {
		t.Fatalf("got %q", m)
	}
	if m := watcher.replyWithin(200 * time.Millisecond); m != "(no reply)" {
		t.Fatalf("another namespace's write was heard: %q", m)
	}
}
