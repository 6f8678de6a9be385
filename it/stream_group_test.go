package it

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// readAsync runs a command on its own client and hands over its reply (or
// error text) as text.
func readAsync(c *redis.Client, args ...any) chan string {
	out := make(chan string, 1)
	go func() {
		v, err := c.Do(ctx, args...).Result()
		if err != nil {
			out <- err.Error()
			return
		}
		out <- fmt.Sprint(v)
	}()
	return out
}

// answer waits for a reply of readAsync, for as long as a loaded machine
// may take.
func answer(t *testing.T, ch chan string) string {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(longTimeout):
		t.Fatal("no reply")
		return ""
	}
}

// TestStreamXReadGroupBlock: a blocked XREADGROUP is woken by XADD with
// the new entries, which become its pending entries; waiters of one group
// are served in the order they blocked, each with entries no other got; it
// times out with a null, is answered as Redis 7.0 answers when its group
// or stream goes away, and does not block inside MULTI.
func TestStreamXReadGroupBlock(t *testing.T) {
	p := startBasalt(t)
	c := p.client(t, 2)
	block := func(consumer, count, key string) chan string {
		return readAsync(p.client(t, 2), "XREADGROUP", "GROUP", "g", consumer, "COUNT", count, "BLOCK", "0", "STREAMS", key, ">")
	}
	must(t, c.XGroupCreateMkStream(ctx, "s", "g", "$").Err())

	t.Run("wakes and owns", func(t *testing.T) {
		ch := block("alice", "10", "s")
		waitBlocked(t, c, 1)
		c.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: "1-1", Values: []string{"a", "1"}})
		if got := answer(t, ch); got != "[[s [[1-1 [a 1]]]]]" {
			t.Fatalf("woken with %s", got)
		}
		pending := c.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: "s", Group: "g", Start: "-", End: "+", Count: 10}).Val()
		if len(pending) != 1 || pending[0].Consumer != "alice" || pending[0].RetryCount != 1 {
			t.Fatalf("pending after the wake: %+v", pending)
		}
	})

	t.Run("in order, each its own", func(t *testing.T) {
		var chans []chan string
		for i, name := range []string{"b1", "b2", "b3"} {
			chans = append(chans, block(name, "1", "s"))
			waitBlocked(t, c, i+1)
		}
		pipe := c.Pipeline()
		pipe.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: "2-1", Values: []string{"n", "1"}})
		pipe.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: "2-2", Values: []string{"n", "2"}})
		_, err := pipe.Exec(ctx)
		must(t, err)
		for i, want := range []string{"[[s [[2-1 [n 1]]]]]", "[[s [[2-2 [n 2]]]]]"} {
			if got := answer(t, chans[i]); got != want {
				t.Fatalf("waiter %d got %s, want %s", i, got, want)
			}
		}
		waitBlocked(t, c, 1) // the third has nothing left to read
		c.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: "3-1", Values: []string{"n", "3"}})
		if got := answer(t, chans[2]); got != "[[s [[3-1 [n 3]]]]]" {
			t.Fatalf("third waiter got %s", got)
		}
	})

	t.Run("times out", func(t *testing.T) {
		start := time.Now()
		got := answer(t, readAsync(p.client(t, 2), "XREADGROUP", "GROUP", "g", "t", "BLOCK", "100", "STREAMS", "s", ">"))
		if got != "redis: nil" || time.Since(start) < 100*time.Millisecond {
			t.Fatalf("timeout replied %s after %v", got, time.Since(start))
		}
	})

	t.Run("group destroyed", func(t *testing.T) {
		must(t, c.XGroupCreateMkStream(ctx, "d", "g", "$").Err())
		ch := block("x", "1", "d")
		waitBlocked(t, c, 1)
		c.XGroupDestroy(ctx, "d", "g")
		if got := answer(t, ch); got != "NOGROUP the consumer group this client was blocked on no longer exists" {
			t.Fatalf("got %s", got)
		}
	})

	t.Run("stream deleted", func(t *testing.T) {
		must(t, c.XGroupCreateMkStream(ctx, "d", "g", "$").Err())
		ch := block("x", "1", "d")
		waitBlocked(t, c, 1)
		c.Del(ctx, "d")
		if got := answer(t, ch); got != "UNBLOCKED the stream key no longer exists" {
			t.Fatalf("got %s", got)
		}
	})

	t.Run("not in MULTI", func(t *testing.T) {
		cmds, err := p.client(t, 2).TxPipelined(ctx, func(pipe redis.Pipeliner) error {
			pipe.Do(ctx, "XREADGROUP", "GROUP", "g", "m", "BLOCK", "0", "STREAMS", "s", ">")
			return nil
		})
		if err != nil && err != redis.Nil {
			t.Fatal(err)
		}
		if err := cmds[0].Err(); err != redis.Nil {
			t.Fatalf("XREADGROUP BLOCK in MULTI: %v", err)
		}
	})

	t.Run("history does not block", func(t *testing.T) {
		got := answer(t, readAsync(p.client(t, 2), "XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", "0"))
		if got != "[[s [[1-1 [a 1]]]]]" {
			t.Fatalf("history read: %s", got)
		}
	})
}

// TestStreamGroupKeys: streams with groups through the key commands:
// COPY and RENAME take the groups along, EXPIRE and DEL end them with the
// stream, a new stream of the same name starts without them, and a
// namespace keeps its groups apart.
func TestStreamGroupKeys(t *testing.T) {
	p := startBasalt(t, "--requirepass", "admin", "--namespace.ns1", "t1")
	c := redis.NewClient(&redis.Options{Addr: p.Addr(), Password: "admin", ReadTimeout: longTimeout})
	t.Cleanup(func() { c.Close() })
	c.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: "1-1", Values: []string{"f", "v"}})
	c.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: "2-1", Values: []string{"f", "v"}})
	must(t, c.XGroupCreate(ctx, "s", "g", "0").Err())
	c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "c", Streams: []string{"s", ">"}, Count: 1})
	summary := func(key string) string {
		v, err := c.Do(ctx, "XPENDING", key, "g").Result()
		if err != nil {
			return err.Error()
		}
		return fmt.Sprint(v)
	}
	if n := c.Copy(ctx, "s", "copy", 0, false).Val(); n != 1 {
		t.Fatalf("COPY = %d", n)
	}
	must(t, c.Rename(ctx, "copy", "moved").Err())
	if got := summary("moved"); got != "[1 1-1 1-1 [[c 1]]]" {
		t.Fatalf("XPENDING of the moved copy: %s", got)
	}
	if got := c.Type(ctx, "moved").Val(); got != "stream" {
		t.Fatalf("TYPE = %s", got)
	}
	c.Del(ctx, "moved")
	c.XAdd(ctx, &redis.XAddArgs{Stream: "moved", ID: "1-1", Values: []string{"f", "v"}})
	if got := summary("moved"); !strings.HasPrefix(got, "NOGROUP") {
		t.Fatalf("a re-created stream has the old group: %s", got)
	}
	c.PExpire(ctx, "s", 30*time.Millisecond)
	waitFor(t, longTimeout, "the stream expires", func() bool { return c.Exists(ctx, "s").Val() == 0 })
	if got := summary("s"); !strings.HasPrefix(got, "NOGROUP") {
		t.Fatalf("an expired stream's group: %s", got)
	}

	ns := redis.NewClient(&redis.Options{Addr: p.Addr(), Password: "t1", ReadTimeout: longTimeout})
	t.Cleanup(func() { ns.Close() })
	must(t, ns.XGroupCreateMkStream(ctx, "moved", "other", "$").Err())
	if got := fmt.Sprint(ns.XInfoGroups(ctx, "moved").Val()); !strings.Contains(got, "other") || strings.Contains(got, "{g ") {
		t.Fatalf("the namespace's groups: %s", got)
	}
	if n := len(c.XInfoGroups(ctx, "moved").Val()); n != 0 {
		t.Fatalf("the default namespace sees %d groups", n)
	}
}

// TestStreamGroupReplication: a replica gets a stream's groups, consumers
// and pending entries as its master changes them, and refuses to be read
// by a group itself (XREADGROUP writes).
func TestStreamGroupReplication(t *testing.T) {
	m, r := startBasalt(t), startBasalt(t)
	mc, rc := m.client(t, 2), r.client(t, 2)
	slaveOf(t, rc, m)
	for i := 1; i <= 20; i++ {
		mc.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: fmt.Sprint(i, "-1"), Values: []any{"i", i}})
	}
	must(t, mc.XGroupCreate(ctx, "s", "g", "0").Err())
	mc.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "a", Streams: []string{"s", ">"}, Count: 5})
	mc.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "b", Streams: []string{"s", ">"}, Count: 5})
	mc.XAck(ctx, "s", "g", "1-1", "7-1")
	mc.XClaim(ctx, &redis.XClaimArgs{Stream: "s", Group: "g", Consumer: "c", Messages: []string{"2-1"}})
	mc.XGroupDelConsumer(ctx, "s", "g", "b")
	must(t, mc.XGroupCreateMkStream(ctx, "other", "h", "$").Err())
	waitCaughtUp(t, mc, rc)
	for _, k := range []string{"s", "other"} {
		if got, want := migratedStream(t, rc, k), migratedStream(t, mc, k); got != want {
			t.Errorf("%s on the replica:\n%s\nwant:\n%s", k, got, want)
		}
	}
	err := rc.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "a", Streams: []string{"s", ">"}, Block: -1}).Err()
	if err == nil || !strings.HasPrefix(err.Error(), "READONLY") {
		t.Errorf("XREADGROUP on the replica: %v", err)
	}
}

// TestXReadGroupReleasedWhileGettingReady: a client blocks in XREADGROUP
// behind a large reply it does not read yet, so that Basalt has not
// finished getting it ready to wait (it is still sending that reply) when
// the stream is deleted. It is answered as the blocked client it is in
// Redis, and its wait ends cleanly: it blocks again on another key.
func TestXReadGroupReleasedWhileGettingReady(t *testing.T) {
	blockingServers(t, func(t *testing.T, p *proc) {
		admin := p.client(t, 2)
		must(t, admin.XGroupCreateMkStream(ctx, "s", "g", "$").Err())
		must(t, admin.XGroupCreateMkStream(ctx, "t", "g", "$").Err())
		// More than the server's socket send buffer and the client's
		// small receive buffer hold together.
		const size = 12 << 20
		must(t, admin.SetRange(ctx, "big", size-1, "x").Err())
		rd := dialSmallWindow(t, p)
		rd.send(resp("GETDEL", "big") + resp("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "t", "s", ">", ">"))
		waitBlocked(t, admin, 1)
		must(t, admin.Del(ctx, "s").Err())
		if got := rd.reply(); len(got) < size {
			t.Fatalf("GETDEL replied %.100q", got)
		}
		if got := rd.reply(); got != "-UNBLOCKED the stream key no longer exists\r\n" {
			t.Errorf("the blocked XREADGROUP got %q", got)
		}
		waitBlocked(t, admin, 0)
		rd.send(resp("BLPOP", "l", "0"))
		waitBlocked(t, admin, 1)
		must(t, admin.RPush(ctx, "l", "x").Err())
		if got := rd.reply(); got != "*2\r\n$1\r\nl\r\n$1\r\nx\r\n" {
			t.Fatalf("BLPOP after the released wait got %q", got)
		}
	})
}

// dialSmallWindow connects to p with a small socket receive buffer, so
// that a reply the test does not read holds up the server's writes.
func dialSmallWindow(t *testing.T, p *proc) *rawConn {
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var err error
		rc.Control(func(fd uintptr) {
			err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
		return err
	}}
	c, err := d.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{t: t, c: c, rd: bufio.NewReader(c)}
}
