package it

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// groupLedger is what the clients of TestStreamGroupWorkload saw the
// server acknowledge.
type groupLedger struct {
	mu        sync.Mutex
	added     map[string]string // entry ID -> payload, of XADDs answered
	delivered map[string]string // entry ID -> consumer, of XREADGROUPs answered
	acked     map[string]int    // entry ID -> XACKs answered 1
	ackSent   map[string]bool   // entry IDs whose XACK got no answer
}

// TestStreamGroupWorkload: 4 producers add to a stream while 8 consumers
// of one group read and acknowledge; the server is killed with SIGKILL in
// the middle. After a restart every answered XADD is there, every answered
// XACK holds, every entry delivered and not acknowledged is pending for
// the consumer it went to, and draining the group then acknowledges every
// entry exactly once: none lost, none delivered twice.
func TestStreamGroupWorkload(t *testing.T) {
	p := startBasalt(t)
	admin := p.client(t, 2)
	must(t, admin.XGroupCreateMkStream(ctx, "jobs", "workers", "$").Err())
	l := &groupLedger{added: map[string]string{}, delivered: map[string]string{}, acked: map[string]int{}, ackSent: map[string]bool{}}
	const producers, consumers, killAfter = 4, 8, 3000
	var adds atomic.Int64
	var once sync.Once
	killed := make(chan struct{})
	kill := func() { once.Do(func() { close(killed); p.Kill() }) }
	var wg sync.WaitGroup
	for w := 0; w < producers; w++ {
		c := p.client(t, 2)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				payload := fmt.Sprint("p", w, "-", i)
				id, err := c.XAdd(ctx, &redis.XAddArgs{Stream: "jobs", Values: []string{"job", payload}}).Result()
				if err != nil {
					return // the server is gone
				}
				l.mu.Lock()
				l.added[id] = payload
				l.mu.Unlock()
				if adds.Add(1) == killAfter {
					kill()
				}
			}
		}()
	}
	for w := 0; w < consumers; w++ {
		c := p.client(t, 2)
		name := fmt.Sprint("c", w)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				res, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "workers", Consumer: name, Streams: []string{"jobs", ">"}, Count: 10, Block: 50 * time.Millisecond}).Result()
				if err == redis.Nil {
					continue
				}
				if err != nil {
					return
				}
				for _, m := range res[0].Messages {
					l.mu.Lock()
					if other, twice := l.delivered[m.ID]; twice {
						t.Errorf("%s delivered to %s and to %s", m.ID, other, name)
					}
					l.delivered[m.ID] = name
					l.mu.Unlock()
					n, err := c.XAck(ctx, "jobs", "workers", m.ID).Result()
					l.mu.Lock()
					if err != nil {
						l.ackSent[m.ID] = true
					} else if n == 1 {
						l.acked[m.ID]++
					}
					l.mu.Unlock()
					if err != nil {
						return
					}
				}
			}
		}()
	}
	select {
	case <-killed:
	case <-time.After(5 * time.Minute):
		t.Errorf("only %d XADDs in 5 minutes", adds.Load())
		kill()
	}
	wg.Wait()

	again := startBasaltIn(t, p.Dir)
	c := again.client(t, 2)
	entries := c.XRange(ctx, "jobs", "-", "+").Val()
	payloads := map[string]string{}
	for _, e := range entries {
		payload := fmt.Sprint(e.Values["job"])
		if prev, dup := payloads[payload]; dup {
			t.Errorf("payload %s added twice: %s and %s", payload, prev, e.ID)
		}
		payloads[payload] = e.ID
	}
	for id, payload := range l.added {
		if payloads[payload] != id {
			t.Errorf("answered XADD %s (%s) lost after the kill", id, payload)
		}
	}
	pel := map[string]string{}
	for _, pe := range c.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: "jobs", Group: "workers", Start: "-", End: "+", Count: 1 << 30}).Val() {
		pel[pe.ID] = pe.Consumer
	}
	for id, consumer := range l.delivered {
		switch owner, pending := pel[id]; {
		case l.acked[id] == 1 && pending:
			t.Errorf("%s acknowledged before the kill, pending after it", id)
		case l.acked[id] == 0 && !l.ackSent[id] && owner != consumer:
			t.Errorf("%s delivered to %s, pending for %q after the kill", id, consumer, owner)
		}
	}
	t.Logf("before the kill: %d entries added, %d delivered, %d acknowledged; after: %d entries, %d pending",
		len(l.added), len(l.delivered), len(l.acked), len(entries), len(pel))

	// Drain: claim what is pending, read what is new, acknowledge it all.
	drained := map[string]int{}
	ack := func(ids ...string) {
		for _, id := range ids {
			n, err := c.XAck(ctx, "jobs", "workers", id).Result()
			must(t, err)
			drained[id] += int(n)
		}
	}
	for start := "0-0"; ; {
		ids, next, err := c.XAutoClaimJustID(ctx, &redis.XAutoClaimArgs{Stream: "jobs", Group: "workers", Consumer: "drain", Start: start, Count: 500}).Result()
		must(t, err)
		ack(ids...)
		if start = next; next == "0-0" {
			break
		}
	}
	for {
		res, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "workers", Consumer: "drain", Streams: []string{"jobs", ">"}, Count: 500, Block: -1}).Result()
		if err == redis.Nil {
			break
		}
		must(t, err)
		for _, m := range res[0].Messages {
			ack(m.ID)
		}
	}
	for _, e := range entries {
		switch n := l.acked[e.ID] + drained[e.ID]; {
		case n > 1:
			t.Errorf("%s acknowledged %d times", e.ID, n)
		case n == 0 && !l.ackSent[e.ID]:
			t.Errorf("%s never acknowledged", e.ID)
		}
	}
	if sum := c.XPending(ctx, "jobs", "workers").Val(); sum.Count != 0 {
		t.Errorf("pending after the drain: %+v", sum)
	}
}
