package it

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestWaitAgainstRedis: WAIT's argument errors and its replies without
// replicas are Redis's.
func TestWaitAgainstRedis(t *testing.T) {
	b, r := startBasalt(t).client(t, 2), startRedis(t).client(t, 2)
	for _, args := range [][]any{
		{"WAIT", "x", 1}, {"WAIT", 1, "x"}, {"WAIT", 1, -1}, {"WAIT", 1, "1.5"}, {"WAIT", 1, "9223372036854775808"},
		{"WAIT", -1, 0}, {"WAIT", 0, 0}, {"WAIT", 1, 10}, {"WAIT", 1}, {"WAIT", 1, 2, 3},
	} {
		want := fmt.Sprint(r.Do(ctx, args...).Result())
		if got := fmt.Sprint(b.Do(ctx, args...).Result()); got != want {
			t.Errorf("%v: basalt %s, redis %s", args, got, want)
		}
	}
}

// TestWait: WAIT counts the replicas that acknowledged the client's
// writes, waits for them up to its timeout, does not wait inside MULTI,
// ends with the count on CLIENT UNBLOCK and is refused on a replica.
func TestWait(t *testing.T) {
	m := startBasalt(t)
	mc := m.longClient(t, 2)
	replicas := []*proc{startBasalt(t), startBasalt(t)}
	for _, r := range replicas {
		slaveOf(t, r.client(t, 2), m)
	}
	for _, r := range replicas {
		waitCaughtUp(t, mc, r.client(t, 2))
	}
	if err := mc.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := mc.Do(ctx, "WAIT", 2, 0).Int(); err != nil || n != 2 {
		t.Fatalf("WAIT 2 0 after a write: %d %v", n, err)
	}
	// Three replicas never acknowledge: the timeout ends it with two.
	start := time.Now()
	if n, err := mc.Do(ctx, "WAIT", 3, 200).Int(); err != nil || n != 2 {
		t.Errorf("WAIT 3 200: %d %v", n, err)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("WAIT 3 200 returned after %v", d)
	}
	// Inside MULTI it counts and goes on.
	pipe := mc.TxPipeline()
	wait := pipe.Do(ctx, "WAIT", 3, 0)
	if _, err := pipe.Exec(ctx); err != nil || wait.Val() != int64(2) {
		t.Errorf("WAIT 3 0 inside MULTI: %v %v", wait.Val(), err)
	}
	// CLIENT UNBLOCK ends a WAIT without a timeout with the count, or
	// with UNBLOCKED.
	for _, mode := range []string{"TIMEOUT", "ERROR"} {
		waiter := m.longClient(t, 2)
		id := waiter.ClientID(ctx).Val()
		done := make(chan *redis.Cmd, 1)
		go func() { done <- waiter.Do(ctx, "WAIT", 3, 0) }()
		waitFor(t, 30*time.Second, "WAIT blocking", func() bool {
			return mc.Do(ctx, "CLIENT", "UNBLOCK", id, mode).Val() == int64(1)
		})
		cmd := <-done
		want := "2 <nil>"
		if mode == "ERROR" {
			want = "<nil> UNBLOCKED client unblocked via CLIENT UNBLOCK"
		}
		if got := fmt.Sprint(cmd.Val(), " ", cmd.Err()); got != want {
			t.Errorf("WAIT after CLIENT UNBLOCK %s: %s, want %s", mode, got, want)
		}
	}
	if err := replicas[0].client(t, 2).Do(ctx, "WAIT", 1, 0).Err(); err == nil || err.Error() != "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated." {
		t.Errorf("WAIT on a replica: %v", err)
	}
	// A replica that is gone does not acknowledge the next write.
	replicas[1].Stop()
	if err := mc.Set(ctx, "k", "w", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := mc.Do(ctx, "WAIT", 2, 300).Int(); err != nil || n != 1 {
		t.Errorf("WAIT 2 300 with one replica left: %d %v", n, err)
	}
	if v := replicas[0].client(t, 2).Get(ctx, "k").Val(); v != "w" {
		t.Errorf("the replica WAIT counted holds %q", v)
	}
	// Many writers waiting at once are each answered.
	errs := make(chan error, 20)
	for i := 0; i < cap(errs); i++ {
		go func() {
			c := m.longClient(t, 2)
			key := "w" + strconv.Itoa(i)
			if err := c.Set(ctx, key, i, 0).Err(); err != nil {
				errs <- err
				return
			}
			n, err := c.Do(ctx, "WAIT", 1, 60000).Int()
			if err == nil && n != 1 {
				err = fmt.Errorf("WAIT 1 after SET %s: %d", key, n)
			}
			errs <- err
		}()
	}
	for i := 0; i < cap(errs); i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
