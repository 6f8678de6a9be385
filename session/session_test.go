package session

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/reply"
	"github.com/basaltdb/basalt/resp"
)

const def = metadata.DefaultNamespace

// conn is a connection without a network: what is flushed or queued is
// kept, and Close is only recorded.
type conn struct {
	w      *resp.Writer
	s      *Session
	closed atomic.Bool
	sent   []byte
}

func (c *conn) Flush() error {
	c.sent = append(c.sent, c.w.Bytes()...)
	c.w.Reset()
	return nil
}

func (c *conn) QueueReplies() {
	if c.w.Len() > 0 {
		c.s.PushReply(bytes.Clone(c.w.Bytes()))
		c.w.Reset()
	}
}

func (c *conn) WatchClose() (<-chan struct{}, func()) { return nil, func() {} }
func (c *conn) Close()                                { c.closed.Store(true) }
func (c *conn) WakePushes()                           { c.s.StartPushes() }

func newRegistry(t *testing.T, settings ...[2]string) *Registry {
	t.Helper()
	cfg, err := config.Load("", settings)
	if err != nil {
		t.Fatal(err)
	}
	return NewRegistry(cfg, resp.Render)
}

func connect(t *testing.T, r *Registry) (*Session, *conn) {
	t.Helper()
	c := &conn{w: resp.NewWriter()}
	c.s = r.New("127.0.0.1:1", "127.0.0.1:2", -1, c.w, c)
	if !r.Add(c.s, 100) {
		t.Fatal("not registered")
	}
	return c.s, c
}

// pushed returns what is queued in s's push stream.
func pushed(s *Session) string {
	var b strings.Builder
	for _, p := range s.TakePushes(nil) {
		b.Write(p)
	}
	return b.String()
}

func TestRegistryAddLimitAndOrder(t *testing.T) {
	r := newRegistry(t)
	a, _ := connect(t, r)
	b, _ := connect(t, r)
	if got := r.List(); len(got) != 2 || got[0] != a || got[1] != b {
		t.Fatalf("List = %v", got)
	}
	extra := r.New("x", "y", -1, resp.NewWriter(), &conn{})
	if r.Add(extra, 2) {
		t.Fatal("a third session was added past a limit of 2")
	}
	r.Disconnected(a)
	if r.Get(a.ID) != nil || r.Count() != 1 {
		t.Fatal("a disconnected session is still registered")
	}
}

// Messages reach subscribers in their protocol, after the confirmation,
// with pattern subscribers matched per namespace.
func TestPublishOrderAndProtocols(t *testing.T) {
	r := newRegistry(t)
	sub2, _ := connect(t, r)
	sub3, _ := connect(t, r)
	sub3.SetProtocol(3)
	psub, _ := connect(t, r)
	other, _ := connect(t, r)
	other.SetNamespace("tenant")
	sub2.Subscribe(KindChannel, [][]byte{[]byte("news")})
	sub3.Subscribe(KindChannel, [][]byte{[]byte("news")})
	psub.Subscribe(KindPattern, [][]byte{[]byte("n*")})
	other.Subscribe(KindChannel, [][]byte{[]byte("news")})
	if n := r.Publish(def, "news", []byte("hi"), false); n != 3 {
		t.Fatalf("receivers %d, want 3 (the tenant's subscriber hears nothing)", n)
	}
	if got, want := pushed(sub2), "*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$2\r\nhi\r\n"; got != want {
		t.Errorf("RESP2 subscriber got %q", got)
	}
	if got, want := pushed(sub3), ">3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n>3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$2\r\nhi\r\n"; got != want {
		t.Errorf("RESP3 subscriber got %q", got)
	}
	if got := pushed(psub); !strings.HasSuffix(got, "*4\r\n$8\r\npmessage\r\n$2\r\nn*\r\n$4\r\nnews\r\n$2\r\nhi\r\n") {
		t.Errorf("pattern subscriber got %q", got)
	}
	if got := pushed(other); strings.Contains(got, "message") {
		t.Errorf("another namespace's subscriber got %q", got)
	}
	if r.PubSub.Distinct(KindChannel) != 2 || r.PubSub.NumSub(def, KindChannel, "news") != 2 {
		t.Errorf("distinct %d, numsub %d", r.PubSub.Distinct(KindChannel), r.PubSub.NumSub(def, KindChannel, "news"))
	}
	r.Disconnected(sub2)
	if r.PubSub.NumSub(def, KindChannel, "news") != 1 || sub2.Kind() != "normal" {
		t.Errorf("a disconnected subscriber is still counted: numsub %d, kind %s", r.PubSub.NumSub(def, KindChannel, "news"), sub2.Kind())
	}
}

// A subscriber that does not read is disconnected past its output limit;
// the publisher is not held up.
func TestPushOutputLimit(t *testing.T) {
	r := newRegistry(t, [2]string{"client-output-buffer-limit", "pubsub 1kb 0 0"})
	s, c := connect(t, r)
	s.Subscribe(KindChannel, [][]byte{[]byte("c")})
	for i := 0; i < 100 && !c.closed.Load(); i++ {
		r.Publish(def, "c", make([]byte, 100), false)
	}
	if !c.closed.Load() {
		t.Fatal("a subscriber holding over 1kb of output was not disconnected")
	}
	if s.PendingOutput() > 1024 {
		t.Fatalf("%d bytes queued past the limit", s.PendingOutput())
	}
}

// Waiters on a key are claimed in the order they blocked; a served one
// leaves the queues, one not served waits again.
func TestBlockingFIFO(t *testing.T) {
	r := newRegistry(t)
	writer, _ := connect(t, r)
	a, _ := connect(t, r)
	b, _ := connect(t, r)
	null := func(w reply.Sink) { w.NullArray() }
	wa := a.Block([][]byte{[]byte("blpop"), []byte("k"), []byte("0")}, [][]byte{[]byte("k"), []byte("k")}, 0, null, nil, "")
	wb := b.Block([][]byte{[]byte("blpop"), []byte("k"), []byte("0")}, [][]byte{[]byte("k")}, 0, null, nil, "")
	if r.Blocking.Count() != 2 || len(wa.Keys()) != 1 {
		t.Fatalf("count %d, keys %q", r.Blocking.Count(), wa.Keys())
	}
	// Both are preparing: a write marks them as having missed it.
	r.Blocking.Written(def, [][]byte{[]byte("k")}, writer)
	ready := r.Blocking.TakeReady(writer)
	if len(ready) != 1 || r.Blocking.Claim(ready[0], nil) != nil {
		t.Fatalf("ready %v: a preparing waiter was claimed", ready)
	}
	if got := wa.Await(); got != Woken {
		t.Fatalf("Await of a waiter that missed a write = %v, want Woken", got)
	}
	// Now both wait.
	for _, w := range []*Waiter{wa, wb} {
		w.state.Store(stWaiting)
	}
	first := r.Blocking.Claim(ReadyKey{def, "k"}, nil)
	if first != wa || !first.Serving() {
		t.Fatalf("claimed %v, want the first to block", first)
	}
	r.Blocking.Served(first, false)
	if again := r.Blocking.Claim(ReadyKey{def, "k"}, nil); again != wa {
		t.Fatal("a waiter not served lost its place")
	} else {
		r.Blocking.Served(again, true)
	}
	if next := r.Blocking.Claim(ReadyKey{def, "k"}, nil); next != wb {
		t.Fatalf("after the first was served, claimed %v", next)
	}
	if r.Blocking.Count() != 1 {
		t.Fatalf("count %d after one was served", r.Blocking.Count())
	}
}

// A round of a key passes by the waiters of the pools spent, and only
// those: the next waiter of another pool is claimed, in order.
func TestBlockingPools(t *testing.T) {
	r := newRegistry(t)
	args := [][]byte{[]byte("xreadgroup"), []byte("k")}
	var ws []*Waiter
	for _, pool := range []string{"g1", "g1", "g2", "g1"} {
		s, _ := connect(t, r)
		w := s.Block(args, [][]byte{[]byte("k")}, 0, nil, nil, pool)
		w.state.Store(stWaiting)
		ws = append(ws, w)
	}
	rk := ReadyKey{def, "k"}
	if got := r.Blocking.Claim(rk, nil); got != ws[0] {
		t.Fatal("the first waiter was not claimed")
	}
	r.Blocking.Served(ws[0], false)
	if got := r.Blocking.Claim(rk, []string{"g1"}); got != ws[2] {
		t.Fatal("the first waiter of another pool was not claimed past a spent one")
	}
	r.Blocking.Served(ws[2], false)
	if got := r.Blocking.Claim(rk, []string{"g1", "g2"}); got != nil {
		t.Fatalf("claimed a waiter of a spent pool: %v", got.Pool)
	}
}

// The keys whose time has passed are listed for active expiry when a
// waiter that answers when they are deleted waits on them, each once,
// for as long as one does.
func TestBlockingGoneKeys(t *testing.T) {
	r := newRegistry(t)
	args := [][]byte{[]byte("xreadgroup")}
	a, _ := connect(t, r)
	b, _ := connect(t, r)
	c, _ := connect(t, r)
	wa := a.Block(args, [][]byte{[]byte("s"), []byte("t")}, 0, nil, nil, "g")
	wb := b.Block(args, [][]byte{[]byte("s")}, 0, nil, nil, "g")
	c.Block(args, [][]byte{[]byte("u")}, 0, nil, nil, "")
	r.Blocking.AnswersGone(wa)
	r.Blocking.AnswersGone(wb)
	for _, k := range []string{"s", "t", "u"} {
		r.Blocking.Expires(def, []byte(k), 100)
	}
	r.Blocking.Expires(def, []byte("nobody"), 100)
	if keys := r.Blocking.GoneKeys(100); len(keys) != 0 {
		t.Fatalf("GoneKeys before their time = %v", keys)
	}
	r.Blocking.Expires(def, []byte("t"), 0) // PERSIST
	if keys := r.Blocking.GoneKeys(101); fmt.Sprint(keys) != fmt.Sprintf("[{%s s}]", def) {
		t.Fatalf("GoneKeys = %v", keys)
	}
	r.Blocking.Remove(wa)
	r.Blocking.Remove(wb)
	if keys := r.Blocking.GoneKeys(101); len(keys) != 0 {
		t.Fatalf("GoneKeys after the waiters left = %v", keys)
	}
}

// FLUSHDB makes every key waited on in its namespace ready, FLUSHALL
// every key of every namespace, each once, after what the writer made
// ready before.
func TestBlockingFlushed(t *testing.T) {
	r := newRegistry(t)
	writer, _ := connect(t, r)
	a, _ := connect(t, r)
	b, _ := connect(t, r)
	b.Namespace = "tenant"
	args := [][]byte{[]byte("blpop"), []byte("k"), []byte("j"), []byte("0")}
	a.Block(args, [][]byte{[]byte("k"), []byte("j")}, 0, nil, nil, "")
	b.Block(args, [][]byte{[]byte("k")}, 0, nil, nil, "")
	r.Blocking.Written(def, [][]byte{[]byte("j")}, writer)
	r.Blocking.Flushed(def, false, writer)
	ready := r.Blocking.TakeReady(writer)
	slices.SortFunc(ready[1:], func(x, y ReadyKey) int { return strings.Compare(x.Key, y.Key) })
	if fmt.Sprint(ready) != fmt.Sprintf("[{%s j} {%s k}]", def, def) {
		t.Fatalf("FLUSHDB made ready %v", ready)
	}
	r.Blocking.Flushed(def, true, writer)
	if ready := r.Blocking.TakeReady(writer); len(ready) != 3 || !slices.Contains(ready, ReadyKey{"tenant", "k"}) {
		t.Fatalf("FLUSHALL made ready %v", ready)
	}
}

// A key that gets ready while its oldest waiter is being served on
// another goroutine does not go to a later waiter: the attempt is made
// again, and the later waiter keeps waiting its turn.
func TestBlockingReadyWhileServing(t *testing.T) {
	r := newRegistry(t)
	a, _ := connect(t, r)
	b, _ := connect(t, r)
	args := [][]byte{[]byte("blpop"), []byte("k"), []byte("0")}
	wa := a.Block(args, [][]byte{[]byte("k")}, 0, nil, nil, "")
	wb := b.Block(args, [][]byte{[]byte("k")}, 0, nil, nil, "")
	wa.state.Store(stWaiting)
	wb.state.Store(stWaiting)
	rk := ReadyKey{def, "k"}
	if got := r.Blocking.Claim(rk, nil); got != wa {
		t.Fatal("the first waiter was not claimed")
	}
	if got := r.Blocking.Claim(rk, nil); got != nil {
		t.Fatal("a later waiter overtook one being served")
	}
	if !r.Blocking.Served(wa, false) {
		t.Fatal("a failed attempt after the key got ready again was not to be retried")
	}
	if !wa.Serving() || r.Blocking.Served(wa, false) {
		t.Fatal("the retry did not keep the claim, or asked for another")
	}
	if got := r.Blocking.Claim(rk, nil); got != wa {
		t.Fatal("the first waiter lost its turn")
	}
}

// CLIENT UNBLOCK and the timeout end a wait with their outcome.
func TestAwaitOutcomes(t *testing.T) {
	r := newRegistry(t)
	s, _ := connect(t, r)
	null := func(w reply.Sink) { w.Null() }
	w := s.Block([][]byte{[]byte("blpop"), []byte("k"), []byte("0.05")}, [][]byte{[]byte("k")}, 50*time.Millisecond, null, nil, "")
	if got := w.Await(); got != TimedOut {
		t.Fatalf("Await = %v, want TimedOut", got)
	}
	r.Blocking.Remove(w)
	if s.Waiter() != nil || r.Blocking.Count() != 0 {
		t.Fatal("a removed waiter is still registered")
	}
	w = s.Block([][]byte{[]byte("blpop"), []byte("k"), []byte("0")}, [][]byte{[]byte("k")}, 0, null, nil, "")
	if !r.Blocking.Unblock(s, true) {
		t.Fatal("Unblock found no waiter")
	}
	if got := w.Await(); got != UnblockedWithError {
		t.Fatalf("Await = %v, want UnblockedWithError", got)
	}
}

// A write to a watched key, a flush of a key that existed, and an expiry
// each make EXEC fail; a write elsewhere or in another namespace does not.
func TestWatches(t *testing.T) {
	r := newRegistry(t)
	s, _ := connect(t, r)
	s.Watch([]byte("k"), true, 0)
	if !r.Watches.Active() || s.WatchedChanged() {
		t.Fatal("a fresh watch is already changed")
	}
	r.Watches.Touch("tenant", [][]byte{[]byte("k")})
	if s.WatchedChanged() {
		t.Fatal("a write in another namespace changed the watch")
	}
	r.Watches.Touch(def, [][]byte{[]byte("k")})
	if !s.WatchedChanged() {
		t.Fatal("a write to the key did not change the watch")
	}
	r.Watches.Unwatch(s)
	s.Watch([]byte("absent"), false, 0)
	r.Watches.Touch(def, nil)
	if s.WatchedChanged() {
		t.Fatal("a flush changed a key that did not exist")
	}
	r.Watches.Unwatch(s)
	s.Watch([]byte("k"), true, time.Now().Add(-time.Millisecond).UnixMilli())
	if !s.WatchedChanged() {
		t.Fatal("an expired key did not change the watch")
	}
	r.Watches.Unwatch(s)
	if r.Watches.Active() {
		t.Fatal("watches still active after the last unwatch")
	}
}

func TestSlowlog(t *testing.T) {
	r := newRegistry(t, [2]string{"slowlog-log-slower-than", "10"}, [2]string{"slowlog-max-len", "2"})
	s, _ := connect(t, r)
	many := make([][]byte, 40)
	for i := range many {
		many[i] = []byte("x")
	}
	for i, args := range [][][]byte{{[]byte("fast")}, many, {[]byte(strings.Repeat("y", 130))}, {[]byte("last")}} {
		elapsed := time.Millisecond
		if i == 0 {
			elapsed = time.Microsecond
		}
		r.LogIfSlow(s, func() [][]byte { return args }, time.Now(), elapsed)
	}
	got := r.Slowlog.Newest(-1)
	if len(got) != 2 || got[0].Args[0] != "last" || got[1].Args[0] != strings.Repeat("y", 128)+"... (2 more bytes)" {
		t.Fatalf("newest entries %+v", got)
	}
	if n, id, _ := r.Slowlog.Stats(); n != 2 || id != 2 {
		t.Fatalf("stats %d %d", n, id)
	}
	if args := slowlogArgs(many); len(args) != slowlogMaxArgs || args[31] != "... (9 more arguments)" {
		t.Fatalf("slowlogArgs = %v", args)
	}
}

// MONITOR lines are status replies in Redis's format, queued after the
// monitor's +OK.
func TestMonitorFeed(t *testing.T) {
	r := newRegistry(t)
	m, _ := connect(t, r)
	s, _ := connect(t, r)
	m.Monitor()
	r.Feed(s, [][]byte{[]byte("set"), []byte("k\n"), []byte{0xff}}, time.Unix(1700000000, 1000))
	if got, want := pushed(m), "+OK\r\n+1700000000.000001 [0 127.0.0.1:1] \"set\" \"k\\n\" \"\\xff\"\r\n"; got != want {
		t.Fatalf("monitor got %q, want %q", got, want)
	}
	r.Monitors.Stop(m)
	if r.Monitors.Count() != 0 {
		t.Fatal("a stopped monitor is counted")
	}
}
