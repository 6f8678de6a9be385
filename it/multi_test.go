package it

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"
)

// nextTx draws transaction commands (MULTI, EXEC, DISCARD, WATCH,
// UNWATCH, commands refused at queue time) among ordinary ones.
func (g *diffGen) nextTx() []string {
	switch g.r.Intn(14) {
	case 0, 1:
		return []string{"MULTI"}
	case 2, 3:
		return []string{"EXEC"}
	case 4:
		return []string{"DISCARD"}
	case 5:
		return []string{"WATCH", g.key(), g.key()}
	case 6:
		return []string{"UNWATCH"}
	case 7:
		return [][]string{{"NOSUCHCMD", g.key()}, {"GET"}, {"SET", g.key()}}[g.r.Intn(3)]
	case 8:
		return g.nextList()
	case 9:
		return g.nextHash()
	}
	return g.nextStringOrKey()
}

// TestDifferentialTransactions runs MULTI/EXEC/WATCH sequences against
// redis-server: queued replies, EXECABORT, EXEC's array of replies, and
// EXEC's null reply when a watched key was written (by the client itself:
// the stream has one client).
func TestDifferentialTransactions(t *testing.T) {
	runDifferential(t, func(g *diffGen) { g.only = g.nextTx })
}

// TestWatchRace has 50 clients increment one key with WATCH, GET, MULTI,
// SET, EXEC: the key ends at exactly the number of EXECs that succeeded.
func TestWatchRace(t *testing.T) {
	p := startBasalt(t)
	const clients, attempts = 50, 40
	var won atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		c := p.client(t, 2)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < attempts; j++ {
				err := c.Watch(ctx, func(tx *redis.Tx) error {
					n, err := tx.Get(ctx, "counter").Int()
					if err != nil && !errors.Is(err, redis.Nil) {
						return err
					}
					_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
						p.Set(ctx, "counter", n+1, 0)
						return nil
					})
					return err
				}, "counter")
				switch {
				case err == nil:
					won.Add(1)
				case errors.Is(err, redis.TxFailedErr):
				default:
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	got, err := p.client(t, 2).Get(ctx, "counter").Int64()
	if err != nil {
		t.Fatal(err)
	}
	if got != won.Load() || got == 0 {
		t.Fatalf("counter = %d, successful EXECs = %d", got, won.Load())
	}
	t.Logf("%d of %d transactions committed", got, clients*attempts)
}

// TestExecIsAtomic checks that a reader never sees half a transaction: a
// writer moves a total between two keys inside MULTI while readers MGET
// both.
func TestExecIsAtomic(t *testing.T) {
	p := startBasalt(t)
	w := p.client(t, 2)
	must(t, w.MSet(ctx, "{a}x", 100, "{a}y", 0).Err())
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		r := p.client(t, 2)
		repeatUntil(stop, &wg, func() bool {
			vals, err := r.MGet(ctx, "{a}x", "{a}y").Result()
			if err != nil {
				t.Error(err)
				return false
			}
			x, _ := strconv.Atoi(vals[0].(string))
			y, _ := strconv.Atoi(vals[1].(string))
			if x+y != 100 {
				t.Errorf("a reader saw x=%d y=%d mid-transaction", x, y)
				return false
			}
			return true
		})
	}
	for i := 0; i < 500; i++ {
		_, err := w.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.DecrBy(ctx, "{a}x", 1)
			p.IncrBy(ctx, "{a}y", 1)
			return nil
		})
		must(t, err)
	}
	close(stop)
	wg.Wait()
	if v := w.Get(ctx, "{a}y").Val(); v != "500" {
		t.Fatalf("y = %s after 500 transfers", v)
	}
	if err := w.Do(ctx, "EXEC").Err(); err == nil || !strings.Contains(err.Error(), "EXEC without MULTI") {
		t.Errorf("EXEC alone: %v", err)
	}
}

// TestTransactionsInClusterMode checks that a transaction's keys must be
// served by this node (in any of its slots, as in Kvrocks), and that shard
// channels route by slot.
func TestTransactionsInClusterMode(t *testing.T) {
	nodes, ids := clusterNodes(t, 2)
	pushTopology(t, nodes, mastersText(nodes, ids, []string{"0-8191", "8192-16383"}), 1)
	r := dial(t, nodes[0])
	// "{a}" hashes to 15495 (node 1), "{b}" to 3300 and "{c}" to 7365 (node 0).
	for _, tc := range []struct{ args, want string }{
		{"MULTI", "+OK\r\n"},
		{"SET {b}1 x", "+QUEUED\r\n"},
		{"SET {c}1 x", "+QUEUED\r\n"},
		{"MSET {b}1 x {c}1 x", "-CROSSSLOT Attempted to access keys that don't hash to the same slot\r\n"},
		{"SET {a}1 x", "-MOVED 15495 " + nodes[1].Addr() + "\r\n"},
		{"EXEC", "-EXECABORT Transaction discarded because of previous errors.\r\n"},
		{"MULTI", "+OK\r\n"},
		{"SET {b}1 y", "+QUEUED\r\n"},
		{"SET {c}1 y", "+QUEUED\r\n"},
		{"EXEC", "*2\r\n+OK\r\n+OK\r\n"},
		{"MULTI", "+OK\r\n"},
		{"SET {b}1 x", "+QUEUED\r\n"},
		{"GET {b}1", "+QUEUED\r\n"},
		{"EXEC", "*2\r\n+OK\r\n$1\r\nx\r\n"},
		{"SPUBLISH {a}ch m", "-MOVED 15495 " + nodes[1].Addr() + "\r\n"},
		{"SPUBLISH {b}ch m", ":0\r\n"},
	} {
		if got := r.do(strings.Fields(tc.args)...); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.args, got, tc.want)
		}
	}
}
