package it

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestBlockingQueue moves 100,000 items from 20 producers (LPUSH) to 20
// consumers (BRPOP): every item arrives exactly once.
func TestBlockingQueue(t *testing.T) {
	p := startBasalt(t)
	const producers, consumers = 20, 20
	items := 100_000
	if raceBuild() {
		items = 20_000
	}
	var mu sync.Mutex
	seen := make(map[string]int, items)
	var wg sync.WaitGroup
	done := make(chan struct{})
	for i := 0; i < consumers; i++ {
		c := p.client(t, 2)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				v, err := c.Do(ctx, "BRPOP", "queue", "0.2").StringSlice()
				if errors.Is(err, redis.Nil) {
					select {
					case <-done:
						return
					default:
						continue
					}
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				seen[v[1]]++
				mu.Unlock()
			}
		}()
	}
	var pw sync.WaitGroup
	for i := 0; i < producers; i++ {
		c := p.client(t, 2)
		pw.Add(1)
		go func() {
			defer pw.Done()
			for j := i; j < items; j += producers {
				if err := c.LPush(ctx, "queue", j).Err(); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	pw.Wait()
	deadline := time.Now().Add(time.Minute)
	for p.client(t, 2).LLen(ctx, "queue").Val() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	close(done)
	wg.Wait()
	if len(seen) != items {
		t.Fatalf("consumers got %d distinct items, want %d", len(seen), items)
	}
	for v, n := range seen {
		if n != 1 {
			t.Fatalf("item %s delivered %d times", v, n)
		}
	}
}

// TestBlockingSemantics covers timeouts, wake-ups by any writer and inside
// EXEC, the order waiters are served in, CLIENT UNBLOCK, blocked_clients
// and a blocked client that disconnects.
func TestBlockingSemantics(t *testing.T) {
	p := startBasalt(t)
	c := p.client(t, 2)

	start := time.Now()
	if err := c.Do(ctx, "BLPOP", "none", "0.15").Err(); !errors.Is(err, redis.Nil) {
		t.Fatalf("BLPOP on an empty key: %v", err)
	}
	// Not before its timeout; and it does return (a loaded machine may
	// take seconds to, so the upper bound only catches a missed timer).
	if d := time.Since(start); d < 140*time.Millisecond || d > 30*time.Second {
		t.Errorf("BLPOP 0.15 returned after %v", d)
	}
	wantErr(t, c.Do(ctx, "BLPOP", "k", "-1").Err(), "ERR timeout is negative")
	wantErr(t, c.Do(ctx, "BLPOP", "k", "abc").Err(), "ERR timeout is not a float or out of range")
	wantErr(t, c.Do(ctx, "BLPOP", "k", "1e300").Err(), "ERR timeout is negative")

	// Three waiters in order; pushes serve them in that order.
	type result struct {
		who int
		val string
	}
	results := make(chan result, 3)
	for i := 0; i < 3; i++ {
		w := p.client(t, 2)
		must(t, w.Ping(ctx).Err())
		go func() {
			v, err := w.BLPop(ctx, 0, "jobs", "other").Result()
			if err != nil {
				results <- result{i, "ERR " + err.Error()}
				return
			}
			results <- result{i, v[0] + "=" + v[1]}
		}()
		waitBlocked(t, c, i+1)
	}
	for i := 0; i < 3; i++ {
		must(t, c.RPush(ctx, "jobs", "job"+strconv.Itoa(i)).Err())
		r := <-results
		if r.who != i || r.val != "jobs=job"+strconv.Itoa(i) {
			t.Errorf("push %d served waiter %d with %q", i, r.who, r.val)
		}
	}
	waitBlocked(t, c, 0)

	// A push inside EXEC wakes a waiter; BZPOPMIN and BLMOVE block too.
	got := make(chan string, 1)
	z := p.client(t, 2)
	go func() {
		v, err := z.BZPopMin(ctx, 0, "zq").Result()
		if err != nil {
			got <- err.Error()
			return
		}
		got <- v.Key + " " + v.Member.(string)
	}()
	waitBlocked(t, c, 1)
	_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.ZAdd(ctx, "zq", redis.Z{Score: 2, Member: "b"}, redis.Z{Score: 1, Member: "a"})
		return nil
	})
	must(t, err)
	if v := <-got; v != "zq a" {
		t.Errorf("BZPOPMIN woken by EXEC: %q", v)
	}
	m := p.client(t, 2)
	go func() {
		v, err := m.BLMove(ctx, "src", "dst", "LEFT", "RIGHT", 0).Result()
		got <- v + " " + errString(err)
	}()
	waitBlocked(t, c, 1)
	must(t, c.LPush(ctx, "src", "x").Err())
	if v := <-got; v != "x " {
		t.Errorf("BLMOVE: %q", v)
	}
	if v := c.LRange(ctx, "dst", 0, -1).Val(); len(v) != 1 || v[0] != "x" {
		t.Errorf("dst after BLMOVE: %v", v)
	}
	// Inside MULTI a blocking command does not block.
	cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.BLPop(ctx, 0, "nothing")
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) || len(cmds) != 1 || !errors.Is(cmds[0].Err(), redis.Nil) {
		t.Errorf("BLPOP in MULTI: %v %v", cmds, err)
	}

	// CLIENT UNBLOCK, with and without error.
	u := p.client(t, 2)
	uid := u.ClientID(ctx).Val()
	for _, mode := range []string{"TIMEOUT", "ERROR"} {
		go func() {
			got <- errString(u.BRPop(ctx, 0, "never").Err())
		}()
		waitBlocked(t, c, 1)
		if n := c.Do(ctx, "CLIENT", "UNBLOCK", uid, mode).Val(); n != int64(1) {
			t.Fatalf("CLIENT UNBLOCK %s = %v", mode, n)
		}
		want := "redis: nil"
		if mode == "ERROR" {
			want = "UNBLOCKED client unblocked via CLIENT UNBLOCK"
		}
		if v := <-got; v != want {
			t.Errorf("unblocked with %s: %q", mode, v)
		}
	}
	if n := c.Do(ctx, "CLIENT", "UNBLOCK", uid).Val(); n != int64(0) {
		t.Errorf("CLIENT UNBLOCK of a client not blocked = %v", n)
	}

	// A blocked client that disconnects leaves at once: the element goes
	// to the next waiter.
	gone := dial(t, p)
	gone.send("*3\r\n$5\r\nBLPOP\r\n$4\r\nlast\r\n$1\r\n0\r\n")
	waitBlocked(t, c, 1)
	gone.c.Close()
	waitBlocked(t, c, 0)
	must(t, c.RPush(ctx, "last", "v").Err())
	if v := c.LPop(ctx, "last").Val(); v != "v" {
		t.Errorf("the element pushed after the waiter left: %q", v)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// waitBlocked waits until INFO reports n blocked clients.
func waitBlocked(t *testing.T, c *redis.Client, n int) {
	t.Helper()
	want := "blocked_clients:" + strconv.Itoa(n)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(c.Info(ctx, "clients").Val(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("never reached %s:\n%s", want, c.Info(ctx, "clients").Val())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestClientPauseAndReset checks CLIENT PAUSE WRITE|ALL, CLIENT UNPAUSE
// and RESET.
func TestClientPauseAndReset(t *testing.T) {
	p := startBasalt(t)
	admin, other := p.client(t, 2), p.client(t, 2)
	must(t, other.Set(ctx, "k", "v", 0).Err())

	must(t, admin.Do(ctx, "CLIENT", "PAUSE", 300, "WRITE").Err())
	start := time.Now()
	must(t, other.Get(ctx, "k").Err())
	if d := time.Since(start); d > 150*time.Millisecond {
		t.Errorf("a read waited %v under CLIENT PAUSE WRITE", d)
	}
	must(t, other.Set(ctx, "k", "w", 0).Err())
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Errorf("a write ran after %v under a 300 ms CLIENT PAUSE WRITE", d)
	}

	must(t, admin.Do(ctx, "CLIENT", "PAUSE", 60000).Err())
	done := make(chan time.Duration)
	go func() {
		start := time.Now()
		other.Get(ctx, "k")
		done <- time.Since(start)
	}()
	time.Sleep(100 * time.Millisecond)
	must(t, admin.Do(ctx, "CLIENT", "UNPAUSE").Err())
	if d := <-done; d < 90*time.Millisecond || d > 5*time.Second {
		t.Errorf("a read under CLIENT PAUSE ALL, unpaused after 100 ms, took %v", d)
	}

	r := dial(t, p)
	r.do("MULTI")
	r.do("CLIENT", "SETNAME", "x")
	if got := r.do("RESET"); got != "+RESET\r\n" {
		t.Errorf("RESET: %q", got)
	}
	if got := r.do("EXEC"); got != "-ERR EXEC without MULTI\r\n" {
		t.Errorf("EXEC after RESET: %q", got)
	}
	r.do("SUBSCRIBE", "c")
	if got := r.do("RESET"); got != "+RESET\r\n" {
		t.Errorf("RESET in subscriber mode: %q", got)
	}
	if got := r.do("GET", "k"); got != "$1\r\nw\r\n" {
		t.Errorf("GET after RESET: %q", got)
	}
}
