package it

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// The tests of client-side caching (CLIENT TRACKING): the scripted cases
// of testdata/tracking_diff.txt against redis-server 7.0, byte for byte,
// and go-redis clients the way applications use it.

// trackingSide is one server and the named connections of a script.
type trackingSide struct {
	t       *testing.T
	p       *proc
	conns   map[string]*rawConn
	ids     map[string]string // connection name -> client id
	inMulti map[string]bool
	closed  map[string]bool
	order   []string
}

func newTrackingSide(t *testing.T, p *proc) *trackingSide {
	return &trackingSide{t: t, p: p, conns: map[string]*rawConn{}, ids: map[string]string{}, inMulti: map[string]bool{}, closed: map[string]bool{}}
}

func (s *trackingSide) conn(name string) *rawConn {
	if c, ok := s.conns[name]; ok {
		return c
	}
	c := dial(s.t, s.p)
	s.conns[name] = c
	s.order = append(s.order, name)
	s.ids[name] = strings.TrimSpace(strings.TrimPrefix(c.do("CLIENT", "ID"), ":"))
	return c
}

var clientInfoFields = regexp.MustCompile(`flags=\S+|redir=\S+`)

// step runs one line and returns its reply and what each connection
// received up to the PONG of a PING sent after it.
func (s *trackingSide) step(name string, args []string) string {
	c := s.conn(name)
	for i, a := range args {
		switch {
		case a == "$laddr":
			args[i] = s.p.Addr()
		case strings.HasPrefix(a, "$addr:"):
			args[i] = s.conns[a[6:]].c.LocalAddr().String()
		case strings.HasPrefix(a, "$"):
			s.conn(a[1:])
			args[i] = s.ids[a[1:]]
		}
	}
	out := c.do(args...)
	verb := strings.ToUpper(strings.Join(args[:min(2, len(args))], " "))
	switch {
	case strings.HasPrefix(verb, "HELLO"):
		out = "(HELLO's reply is Kvrocks's)"
	case verb == "CLIENT INFO":
		out = strings.Join(clientInfoFields.FindAllString(out, -1), " ")
		for n, id := range s.ids {
			out = strings.ReplaceAll(out, "redir="+id, "redir=$"+n)
		}
	case strings.HasPrefix(verb, "CLIENT"):
		// GETREDIR and TRACKINGINFO name a client by its ID.
		for n, id := range s.ids {
			out = strings.ReplaceAll(out, ":"+id+"\r\n", ":$"+n+"\r\n")
		}
	case strings.HasPrefix(verb, "MULTI"):
		s.inMulti[name] = true
	case strings.HasPrefix(verb, "EXEC"), strings.HasPrefix(verb, "DISCARD"):
		s.inMulti[name] = false
	}
	var b strings.Builder
	b.WriteString(out)
	for _, n := range s.order {
		if s.inMulti[n] || s.closed[n] {
			continue
		}
		conn := s.conns[n]
		conn.send(resp("PING"))
		b.WriteString(" | " + n + ":")
		for {
			// A connection CLIENT KILL closed answers nothing more.
			m := conn.replyWithin(longTimeout)
			if m == "(no reply)" {
				s.closed[n] = true
				b.WriteString("closed")
				break
			}
			if m == "+PONG\r\n" || strings.Contains(m, "$4\r\npong\r\n") {
				break
			}
			for n, id := range s.ids {
				m = strings.ReplaceAll(m, "tracking-redir-broken\r\n:"+id+"\r\n", "tracking-redir-broken\r\n:$"+n+"\r\n")
			}
			b.WriteString(m)
		}
	}
	return b.String()
}

func TestTrackingDiff(t *testing.T) {
	pushes := runConnectionScript(t, "testdata/tracking_diff.txt", "invalidate")
	if pushes < 20 {
		t.Fatalf("only %d invalidation messages: the cases should send more", pushes)
	}
}

// TestClientDiff runs testdata/client_diff.txt: CLIENT KILL with each
// filter, CLIENT NO-EVICT, CLIENT INFO and RESET, against redis-server.
func TestClientDiff(t *testing.T) {
	if closed := runConnectionScript(t, "testdata/client_diff.txt", "closed"); closed < 6 {
		t.Fatalf("only %d connections were seen closed: the cases should kill more", closed)
	}
}

// runConnectionScript runs a script of named connections on Basalt and
// redis-server, failing at the first step whose outcome differs, and
// returns how many times word occurs in the outcomes.
func runConnectionScript(t *testing.T, path, word string) int {
	b, r := startBasalt(t), startRedis(t)
	lines := readCases(t, path)
	sides := []*trackingSide{newTrackingSide(t, b), newTrackingSide(t, r)}
	count := 0
	var history []string
	for _, line := range lines {
		name := strings.TrimSuffix(line[0], ":")
		args := line[1:]
		got := sides[0].step(name, append([]string(nil), args...))
		want := sides[1].step(name, append([]string(nil), args...))
		history = append(history, name+": "+strings.Join(args, " "))
		if got != want {
			from := max(0, len(history)-8)
			t.Fatalf("%s: %v\nbasalt:       %q\nredis-server: %q\nlast steps:\n%s", name, args, got, want, strings.Join(history[from:], "\n"))
		}
		count += strings.Count(want, word)
	}
	t.Logf("%d steps the same, %q %d times", len(lines), word, count)
	return count
}

// TestTrackingTableMaxKeys: past tracking-table-max-keys, keys drawn at
// random are invalidated until the table fits again, on both servers.
func TestTrackingTableMaxKeys(t *testing.T) {
	b, r := startBasalt(t), startRedis(t)
	for _, p := range []*proc{b, r} {
		c := dial(t, p)
		c.do("HELLO", "3")
		must(t, p.client(t, 2).ConfigSet(ctx, "tracking-table-max-keys", "10").Err())
		c.do("CLIENT", "TRACKING", "on")
		// The invalidations come among the replies: Redis evicts when a
		// command comes, Basalt when a read made the table too big.
		var pipeline strings.Builder
		for i := 0; i < 20; i++ {
			pipeline.WriteString(resp("GET", fmt.Sprint("key", i)))
		}
		pipeline.WriteString(resp("PING"))
		c.send(pipeline.String())
		invalidated, replies := 0, 0
		for {
			m := c.reply()
			if m == "+PONG\r\n" {
				break
			}
			switch {
			case strings.HasPrefix(m, ">2\r\n$10\r\ninvalidate\r\n*1\r\n"):
				invalidated++
			case m == "_\r\n":
				replies++
			default:
				t.Fatalf("%s: %q", p.cmd.Path, m)
			}
		}
		if invalidated != 10 || replies != 20 {
			t.Errorf("%s: %d keys invalidated, %d replies; want 10 and 20", p.cmd.Path, invalidated, replies)
		}
	}
}

// TestTrackingGoRedis: a go-redis RESP3 client caching GET replies, as an
// application's cache does, sees its entries invalidated by another
// client's writes, and a RESP2 client through a redirection.
func TestTrackingGoRedis(t *testing.T) {
	p := startBasalt(t)
	writer := p.client(t, 2)
	t.Run("RESP3", func(t *testing.T) {
		cache := dial(t, p)
		cache.do("HELLO", "3")
		if r := cache.do("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "user:"); r != "+OK\r\n" {
			t.Fatal(r)
		}
		must(t, writer.Set(ctx, "user:1", "ann", 0).Err())
		must(t, writer.Set(ctx, "order:1", "x", 0).Err())
		if m := cache.replyWithin(time.Minute); m != ">2\r\n$10\r\ninvalidate\r\n*1\r\n$6\r\nuser:1\r\n" {
			t.Fatalf("got %q", m)
		}
		if m := cache.replyWithin(100 * time.Millisecond); m != "(no reply)" {
			t.Fatalf("a key of no tracked prefix was invalidated: %q", m)
		}
	})
	t.Run("RESP2 redirect", func(t *testing.T) {
		listener := dial(t, p)
		id := strings.TrimSpace(strings.TrimPrefix(listener.do("CLIENT", "ID"), ":"))
		listener.do("SUBSCRIBE", "__redis__:invalidate")
		reader := p.client(t, 2).Conn()
		defer reader.Close()
		must(t, reader.Do(ctx, "CLIENT", "TRACKING", "on", "REDIRECT", id).Err())
		if v, err := reader.Do(ctx, "CLIENT", "GETREDIR").Int64(); err != nil || fmt.Sprint(v) != id {
			t.Fatalf("GETREDIR: %v %v", v, err)
		}
		if info, err := reader.Do(ctx, "CLIENT", "INFO").Text(); err != nil || !strings.Contains(info, " flags=t ") || !strings.Contains(info, " redir="+id+" ") {
			t.Fatalf("CLIENT INFO: %q %v", info, err)
		}
		reader.Get(ctx, "cached")
		must(t, writer.Set(ctx, "cached", "v", 0).Err())
		want := "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n$6\r\ncached\r\n"
		if m := listener.replyWithin(time.Minute); m != want {
			t.Fatalf("got %q, want %q", m, want)
		}
	})
}

// TestClientKillMaxAge: CLIENT KILL MAXAGE, Redis 7.4's filter, closes the
// connections older than that many seconds; 0 is any age, as in Redis.
func TestClientKillMaxAge(t *testing.T) {
	p := startBasalt(t)
	admin := dial(t, p)
	for _, bad := range []string{"x", "-1", "99999999999999999999"} {
		if r := admin.do("CLIENT", "KILL", "MAXAGE", bad); r != "-ERR maxage is not an integer or out of range\r\n" {
			t.Errorf("MAXAGE %s: %q", bad, r)
		}
	}
	old := dial(t, p)
	old.do("PING")
	if r := admin.do("CLIENT", "KILL", "MAXAGE", "3600"); r != ":0\r\n" {
		t.Fatalf("no connection is an hour old: %q", r)
	}
	// Both connections pass one second; only the one given is killed.
	waitFor(t, time.Minute, "a connection older than a second is killed", func() bool {
		return admin.do("CLIENT", "KILL", "MAXAGE", "1", "ADDR", old.c.LocalAddr().String()) == ":1\r\n"
	})
	if !old.closed() {
		t.Fatal("the connection killed is still open")
	}
}

// TestTrackingRedirectListener: a RESP3 client named by REDIRECT that
// never subscribed gets the invalidations pushed, on both servers, while
// it waits for nothing (no command of its own brings them) and while it
// is blocked in BLPOP (Basalt sends them once BLPOP ends, Redis during
// it: either order).
func TestTrackingRedirectListener(t *testing.T) {
	for _, p := range []*proc{startBasalt(t), startRedis(t)} {
		name := p.cmd.Path
		listener, tracker, writer := dial(t, p), dial(t, p), dial(t, p)
		listener.do("HELLO", "3")
		id := strings.TrimSpace(strings.TrimPrefix(listener.do("CLIENT", "ID"), ":"))
		if r := tracker.do("CLIENT", "TRACKING", "on", "REDIRECT", id); r != "+OK\r\n" {
			t.Fatalf("%s: %q", name, r)
		}
		tracker.do("GET", "k1")
		writer.do("SET", "k1", "v")
		if m := listener.replyWithin(time.Minute); m != ">2\r\n$10\r\ninvalidate\r\n*1\r\n$2\r\nk1\r\n" {
			t.Fatalf("%s: idle listener got %q", name, m)
		}
		listener.send(resp("BLPOP", "q", "0"))
		waitFor(t, time.Minute, "the listener blocks", func() bool {
			return strings.Contains(writer.do("CLIENT", "LIST"), "cmd=blpop")
		})
		tracker.do("GET", "k2")
		writer.do("SET", "k2", "v")
		writer.do("RPUSH", "q", "x")
		got := []string{listener.reply(), listener.reply()}
		sort.Strings(got)
		want := []string{"*2\r\n$1\r\nq\r\n$1\r\nx\r\n", ">2\r\n$10\r\ninvalidate\r\n*1\r\n$2\r\nk2\r\n"}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: blocked listener got %q, want %q", name, got, want)
		}
	}
}

// TestTrackingPushesBesideBigReplies: a tracking client's replies too
// big to be held (sent in parts) arrive whole while invalidations are
// pushed to it all along: none lands inside a reply.
func TestTrackingPushesBesideBigReplies(t *testing.T) {
	p := startBasalt(t)
	w := p.client(t, 2)
	const n = 20000
	for i := 0; i < n; i += 1000 {
		batch := make([]any, 1000)
		for j := range batch {
			batch[j] = fmt.Sprintf("e%06d", i+j)
		}
		must(t, w.RPush(ctx, "big", batch...).Err())
	}
	c := dial(t, p)
	c.do("HELLO", "3")
	if r := c.do("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "hot"); r != "+OK\r\n" {
		t.Fatal(r)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				w.Set(ctx, "hot", "v", 0)
			}
		}
	}()
	defer func() { close(stop); <-done }()
	pushes := 0
	for reads := 0; reads < 10 || pushes == 0; reads++ {
		if reads == 100 {
			t.Fatal("no invalidation came in 100 reads")
		}
		c.send(resp("LRANGE", "big", "0", "-1"))
		for {
			m := c.reply()
			if strings.HasPrefix(m, ">2\r\n$10\r\ninvalidate\r\n") {
				pushes++
				continue
			}
			if !strings.HasPrefix(m, fmt.Sprintf("*%d\r\n", n)) || strings.Count(m, "$7\r\ne") != n || strings.Contains(m, "invalidate") {
				t.Fatalf("read %d: a reply of %d bytes is not the list whole: %.200q", reads, len(m), m)
			}
			break
		}
	}
	t.Logf("%d invalidations pushed between the replies", pushes)
}

// TestTrackingFlushNullInTargetProtocol: FLUSHALL's null reaches a
// redirection's target in the target's protocol. Redis 7.0 writes it in
// the tracking client's: a RESP3 tracker's "_" reaches a RESP2
// subscriber, which a RESP2 parser refuses, and a RESP2 tracker's "$-1"
// a RESP3 target. Basalt sends each target what its protocol has.
func TestTrackingFlushNullInTargetProtocol(t *testing.T) {
	p := startBasalt(t)
	for _, tc := range []struct {
		tracker, target string
		subscribe       bool
		want            string
	}{
		{"3", "2", true, "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n$-1\r\n"},
		{"2", "3", false, ">2\r\n$10\r\ninvalidate\r\n_\r\n"},
	} {
		target, tracker := dial(t, p), dial(t, p)
		target.do("HELLO", tc.target)
		tracker.do("HELLO", tc.tracker)
		id := strings.TrimSpace(strings.TrimPrefix(target.do("CLIENT", "ID"), ":"))
		if tc.subscribe {
			target.do("SUBSCRIBE", "__redis__:invalidate")
		}
		tracker.do("CLIENT", "TRACKING", "on", "REDIRECT", id)
		dial(t, p).do("FLUSHALL")
		if m := target.replyWithin(time.Minute); m != tc.want {
			t.Errorf("RESP%s tracker, RESP%s target: %q, want %q", tc.tracker, tc.target, m, tc.want)
		}
		tracker.do("CLIENT", "TRACKING", "off")
	}
}
