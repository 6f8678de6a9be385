package it

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// parseID splits an entry ID into its two numbers.
func parseID(t *testing.T, id string) (ms, seq uint64) {
	t.Helper()
	a, b, ok := strings.Cut(id, "-")
	ms, err1 := strconv.ParseUint(a, 10, 64)
	seq, err2 := strconv.ParseUint(b, 10, 64)
	if !ok || err1 != nil || err2 != nil {
		t.Fatalf("bad ID %q", id)
	}
	return ms, seq
}

// TestStreamAutoIDs: IDs made by "*" and "ms-*" grow strictly, carry the
// server's clock, and keep growing past an explicit ID in the future.
func TestStreamAutoIDs(t *testing.T) {
	c := startBasalt(t).client(t, 2)
	before := uint64(time.Now().UnixMilli())
	pipe := c.Pipeline()
	cmds := make([]*redis.StringCmd, 2000)
	for i := range cmds {
		cmds[i] = pipe.XAdd(ctx, &redis.XAddArgs{Stream: "s", Values: []string{"i", strconv.Itoa(i)}})
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	after := uint64(time.Now().UnixMilli())
	var lastMs, lastSeq uint64
	for i, cmd := range cmds {
		ms, seq := parseID(t, cmd.Val())
		if ms < before || ms > after {
			t.Fatalf("ID %s outside the clock's [%d, %d]", cmd.Val(), before, after)
		}
		if i > 0 && (ms < lastMs || (ms == lastMs && seq <= lastSeq)) {
			t.Fatalf("ID %s after %d-%d", cmd.Val(), lastMs, lastSeq)
		}
		lastMs, lastSeq = ms, seq
	}
	if n := c.XLen(ctx, "s").Val(); n != 2000 {
		t.Fatalf("XLEN = %d", n)
	}
	// An ID in the future: "*" continues from it.
	future := fmt.Sprint(after+3_600_000, "-5")
	if err := c.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: future, Values: []string{"f", "v"}}).Err(); err != nil {
		t.Fatal(err)
	}
	if id := c.XAdd(ctx, &redis.XAddArgs{Stream: "s", Values: []string{"f", "v"}}).Val(); id != fmt.Sprint(after+3_600_000, "-6") {
		t.Fatalf("* after %s = %s", future, id)
	}
	if id := c.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: fmt.Sprint(after+3_600_000, "-*"), Values: []string{"f", "v"}}).Val(); id != fmt.Sprint(after+3_600_000, "-7") {
		t.Fatalf("ms-* = %s", id)
	}
	if id := c.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: fmt.Sprint(after+3_600_001, "-*"), Values: []string{"f", "v"}}).Val(); id != fmt.Sprint(after+3_600_001, "-0") {
		t.Fatalf("next ms-* = %s", id)
	}
}

// TestStreamXReadBlock: a blocked XREAD is woken by XADD with the entries
// after the ID its "$" stood for, times out with a null, serves every
// waiter in order, ignores writes that add nothing, and does not block
// inside MULTI.
func TestStreamXReadBlock(t *testing.T) {
	p := startBasalt(t)
	c := p.client(t, 2)
	read := func(c *redis.Client, args ...any) chan string {
		out := make(chan string, 1)
		go func() {
			v, err := c.Do(ctx, append([]any{"XREAD"}, args...)...).Result()
			if err != nil {
				out <- err.Error()
				return
			}
			out <- fmt.Sprint(v)
		}()
		return out
	}
	get := func(ch chan string) string {
		select {
		case v := <-ch:
			return v
		case <-time.After(5 * time.Second):
			t.Fatal("XREAD was not answered")
			return ""
		}
	}

	t.Run("wakes", func(t *testing.T) {
		c.XAdd(ctx, &redis.XAddArgs{Stream: "w", ID: "1-1", Values: []string{"old", "x"}})
		ch := read(p.client(t, 2), "BLOCK", "0", "STREAMS", "w", "other", "$", "$")
		waitBlocked(t, c, 1)
		c.XDel(ctx, "w", "1-1") // a write that adds nothing
		c.XAdd(ctx, &redis.XAddArgs{Stream: "other", ID: "5-5", Values: []string{"a", "b"}})
		if got := get(ch); got != "[[other [[5-5 [a b]]]]]" {
			t.Fatalf("woken with %s", got)
		}
		waitBlocked(t, c, 0)
	})

	t.Run("times out", func(t *testing.T) {
		start := time.Now()
		if got := get(read(p.client(t, 2), "BLOCK", "100", "STREAMS", "w", "$")); got != "redis: nil" {
			t.Fatalf("timeout replied %s", got)
		}
		if d := time.Since(start); d < 100*time.Millisecond {
			t.Fatalf("answered after %v", d)
		}
	})

	t.Run("in order", func(t *testing.T) {
		var chans []chan string
		for i := 0; i < 3; i++ {
			chans = append(chans, read(p.client(t, 2), "COUNT", "1", "BLOCK", "0", "STREAMS", "o", "$"))
			waitBlocked(t, c, i+1)
		}
		pipe := c.Pipeline()
		pipe.XAdd(ctx, &redis.XAddArgs{Stream: "o", ID: "1-1", Values: []string{"n", "1"}})
		pipe.XAdd(ctx, &redis.XAddArgs{Stream: "o", ID: "1-2", Values: []string{"n", "2"}})
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		for i, ch := range chans {
			if got := get(ch); got != "[[o [[1-1 [n 1]]]]]" {
				t.Fatalf("waiter %d got %s", i, got)
			}
		}
	})

	t.Run("not in MULTI", func(t *testing.T) {
		m := p.client(t, 2)
		cmds, err := m.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
			pipe.Do(ctx, "XREAD", "BLOCK", "0", "STREAMS", "empty", "$")
			return nil
		})
		if err != nil && err != redis.Nil {
			t.Fatal(err)
		}
		if err := cmds[0].Err(); err != redis.Nil {
			t.Fatalf("XREAD BLOCK in MULTI: %v", err)
		}
	})

	t.Run("wrong type keeps waiting", func(t *testing.T) {
		ch := read(p.client(t, 2), "BLOCK", "0", "STREAMS", "typed", "$")
		waitBlocked(t, c, 1)
		c.Del(ctx, "typed")
		c.Set(ctx, "typed", "x", 0)
		c.Del(ctx, "typed")
		c.XAdd(ctx, &redis.XAddArgs{Stream: "typed", ID: "7-7", Values: []string{"a", "b"}})
		if got := get(ch); got != "[[typed [[7-7 [a b]]]]]" {
			t.Fatalf("got %s", got)
		}
	})
}

// TestStreamXReadLast: "+" (Redis 7.4) reads a stream's last entry; on an
// empty stream a blocked XREAD waits as with "$".
func TestStreamXReadLast(t *testing.T) {
	p := startBasalt(t)
	c := p.client(t, 2)
	for _, id := range []string{"1-1", "2-1", "3-1"} {
		c.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: id, Values: []string{"id", id}})
	}
	c.XDel(ctx, "s", "3-1")
	if v := fmt.Sprint(c.Do(ctx, "XREAD", "COUNT", "5", "STREAMS", "s", "+").Val()); v != "[[s [[2-1 [id 2-1]]]]]" {
		t.Fatalf("XREAD + = %s", v)
	}
	if err := c.Do(ctx, "XREAD", "STREAMS", "none", "+").Err(); err != redis.Nil {
		t.Fatalf("XREAD + of no stream: %v", err)
	}
	ch := make(chan string, 1)
	go func() {
		v, err := p.client(t, 2).Do(ctx, "XREAD", "BLOCK", "0", "STREAMS", "none", "+").Result()
		ch <- fmt.Sprint(v, err)
	}()
	waitBlocked(t, c, 1)
	c.XAdd(ctx, &redis.XAddArgs{Stream: "none", ID: "1-1", Values: []string{"a", "b"}})
	select {
	case got := <-ch:
		if got != "[[none [[1-1 [a b]]]]] <nil>" {
			t.Fatalf("woken with %s", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("not woken")
	}
}

// TestStreamXReadRepeatedKey: an XREAD BLOCK that names a stream several
// times is woken as redis-server 7.0 wakes it: with the first stream named
// that has new entries, once (Kvrocks answers for every name that has).
func TestStreamXReadRepeatedKey(t *testing.T) {
	servers := map[string]*proc{"redis-server": startRedis(t), "basalt": startBasalt(t)}
	cases := []struct {
		read   []any
		writes [][]any
	}{
		{[]any{"STREAMS", "s", "s", "$", "$"}, [][]any{{"XADD", "s", "5-1", "f", "v"}}},
		{[]any{"STREAMS", "s", "t", "s", "$", "$", "$"}, [][]any{{"XADD", "t", "5-1", "f", "v"}}},
		{[]any{"STREAMS", "s", "t", "s", "$", "$", "$"}, [][]any{{"MULTI"}, {"XADD", "t", "5-1", "f", "v"}, {"XADD", "s", "6-1", "g", "w"}, {"EXEC"}}},
		{[]any{"COUNT", "1", "STREAMS", "s", "s", "$", "$"}, [][]any{{"MULTI"}, {"XADD", "s", "5-1", "f", "v"}, {"XADD", "s", "6-1", "g", "w"}, {"EXEC"}}},
	}
	for i, tc := range cases {
		replies := map[string]string{}
		for name, p := range servers {
			c := p.client(t, 2)
			must(t, c.Del(ctx, "s", "t").Err())
			must(t, c.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: "1-1", Values: []string{"a", "1"}}).Err())
			ch := make(chan string, 1)
			go func() {
				v, err := p.client(t, 2).Do(ctx, append([]any{"XREAD", "BLOCK", "0"}, tc.read...)...).Result()
				ch <- fmt.Sprint(v, err)
			}()
			waitBlocked(t, c, 1)
			conn := c.Conn()
			for _, w := range tc.writes {
				must(t, conn.Do(ctx, w...).Err())
			}
			conn.Close()
			select {
			case replies[name] = <-ch:
			case <-time.After(30 * time.Second):
				t.Fatalf("case %d: %s did not wake the reader", i, name)
			}
			waitBlocked(t, c, 0)
		}
		if replies["basalt"] != replies["redis-server"] {
			t.Errorf("XREAD BLOCK 0 %v after %v: Basalt %s, redis-server %s", tc.read, tc.writes, replies["basalt"], replies["redis-server"])
		}
	}
}

// TestStreamKeys: the key commands treat a stream as any other type.
func TestStreamKeys(t *testing.T) {
	p := startBasalt(t)
	protocols(t, p, func(t *testing.T, c *redis.Client) {
		c.FlushAll(ctx)
		for i := 1; i <= 3; i++ {
			c.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: fmt.Sprint(i, "-1"), Values: []string{"f", strconv.Itoa(i)}})
		}
		c.Set(ctx, "str", "x", 0)
		if typ := c.Type(ctx, "s").Val(); typ != "stream" {
			t.Fatalf("TYPE = %s", typ)
		}
		keys, _ := c.ScanType(ctx, 0, "*", 100, "stream").Val()
		if fmt.Sprint(keys) != "[s]" {
			t.Fatalf("SCAN TYPE stream = %v", keys)
		}
		if n := c.Copy(ctx, "s", "c", 0, false).Val(); n != 1 {
			t.Fatalf("COPY = %d", n)
		}
		if err := c.Rename(ctx, "c", "r").Err(); err != nil {
			t.Fatal(err)
		}
		if v := c.XRange(ctx, "r", "-", "+").Val(); len(v) != 3 || v[2].ID != "3-1" || v[2].Values["f"] != "3" {
			t.Fatalf("XRANGE of the copy = %v", v)
		}
		if id := c.XAdd(ctx, &redis.XAddArgs{Stream: "r", ID: "3-*", Values: []string{"f", "v"}}).Val(); id != "3-2" {
			t.Fatalf("the copy's last ID: %s", id)
		}
		if !c.PExpire(ctx, "r", 50*time.Millisecond).Val() {
			t.Fatal("EXPIRE")
		}
		time.Sleep(80 * time.Millisecond)
		if n := c.Exists(ctx, "r").Val(); n != 0 {
			t.Fatal("an expired stream exists")
		}
		if n := c.XLen(ctx, "r").Val(); n != 0 {
			t.Fatalf("XLEN of an expired stream = %d", n)
		}
		c.XTrimMaxLen(ctx, "s", 0)
		if n := c.Exists(ctx, "s").Val(); n != 1 {
			t.Fatal("an emptied stream is gone")
		}
		if n := c.Unlink(ctx, "s").Val(); n != 1 {
			t.Fatalf("UNLINK = %d", n)
		}
		if id := c.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: "1-1", Values: []string{"f", "v"}}).Val(); id != "1-1" {
			t.Fatalf("XADD after UNLINK = %s", id)
		}
		if v := c.XRange(ctx, "s", "-", "+").Val(); len(v) != 1 {
			t.Fatalf("old entries came back: %v", v)
		}
		if n := c.Del(ctx, "s", "str").Val(); n != 2 {
			t.Fatalf("DEL = %d", n)
		}
	})
}

// TestStreamConcurrentAppends: writers adding to one stream at once lose
// no entry and never reuse an ID.
func TestStreamConcurrentAppends(t *testing.T) {
	p := startBasalt(t)
	const writers, each = 8, 250
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		c := p.client(t, 2)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if err := c.XAdd(ctx, &redis.XAddArgs{Stream: "s", MaxLen: 1000, Values: []string{"w", strconv.Itoa(w)}}).Err(); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	c := p.client(t, 2)
	entries := c.XRange(ctx, "s", "-", "+").Val()
	if len(entries) != 1000 {
		t.Fatalf("%d entries, want 1000 (MAXLEN)", len(entries))
	}
	info := c.XInfoStream(ctx, "s").Val()
	if info.EntriesAdded != writers*each || info.Length != 1000 {
		t.Fatalf("XINFO: %+v", info)
	}
}
