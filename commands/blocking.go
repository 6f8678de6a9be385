package commands

import (
	"bytes"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basaltdb/basalt/resp"
)

func init() {
	register(
		&Command{Name: "blpop", Arity: -3, Flags: Write, FirstKey: 1, LastKey: -2, Handler: cmdBLPop},
		&Command{Name: "brpop", Arity: -3, Flags: Write, FirstKey: 1, LastKey: -2, Handler: cmdBRPop},
		&Command{Name: "blmove", Arity: 6, Flags: Write, FirstKey: 1, LastKey: 2, Handler: cmdBLMove},
		&Command{Name: "brpoplpush", Arity: 4, Flags: Write, FirstKey: 1, LastKey: 2, Handler: cmdBRPopLPush},
		&Command{Name: "blmpop", Arity: -5, Flags: Write, Keys: numkeysKeys(2), Handler: cmdBLMPop},
		&Command{Name: "bzpopmin", Arity: -3, Flags: Write, FirstKey: 1, LastKey: -2, Handler: cmdBZPopMin},
		&Command{Name: "bzpopmax", Arity: -3, Flags: Write, FirstKey: 1, LastKey: -2, Handler: cmdBZPopMax},
		&Command{Name: "bzmpop", Arity: -5, Flags: Write, Keys: numkeysKeys(2), Handler: cmdBZMPop},
	)
}

// A blocking command first tries its non-blocking form. When that finds
// nothing, the client is registered as a waiter on the keys (still under
// their locks, so no write can slip between the try and the
// registration) and its connection waits, outside every lock, for a
// write to one of the keys, its timeout, CLIENT UNBLOCK or its own
// disconnection. A write to a key wakes the key's oldest waiter, which
// tries again; one that got its element wakes the next, so waiters are
// served in the order they blocked, and an element goes to exactly one
// of them (the pop is atomic).

// BLPOP key [key ...] timeout
func cmdBLPop(c *Ctx) { blpop(c, true) }

// BRPOP key [key ...] timeout
func cmdBRPop(c *Ctx) { blpop(c, false) }

func blpop(c *Ctx, left bool) {
	keys := c.Args[1 : len(c.Args)-1]
	blockingTry(c, keys, c.Args[len(c.Args)-1], nullArray, func() {
		for _, k := range keys {
			values, err := c.DB.Pop(k, left, 1)
			if !c.ok(err) {
				return
			}
			if len(values) > 0 {
				c.W.Array(2)
				c.W.Bulk(k)
				c.W.Bulk(values[0])
				return
			}
		}
	})
}

// BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout
func cmdBLMove(c *Ctx) {
	if srcLeft, dstLeft, ok := c.sides(3); ok {
		blockingTry(c, c.Args[1:2], c.Args[5], nullBulk, func() { lmove(c, srcLeft, dstLeft) })
	}
}

// BRPOPLPUSH source destination timeout
func cmdBRPopLPush(c *Ctx) {
	blockingTry(c, c.Args[1:2], c.Args[3], nullBulk, func() { lmove(c, false, true) })
}

// BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count]
func cmdBLMPop(c *Ctx) { blockingMPop(c, cmdLMPop) }

// BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count]
func cmdBZMPop(c *Ctx) { blockingMPop(c, cmdZMPop) }

// blockingMPop runs LMPOP or ZMPOP on the arguments after the timeout.
func blockingMPop(c *Ctx, handler func(*Ctx)) {
	timeout, keys := c.Args[1], numkeysKeys(2)(c.Args)
	all := c.Args
	c.Args = append([][]byte{all[0]}, all[2:]...)
	defer func() { c.Args = all }()
	blockingTry(c, keys, timeout, nullArray, func() { handler(c) })
}

// BZPOPMIN key [key ...] timeout
func cmdBZPopMin(c *Ctx) { bzpop(c, false) }

// BZPOPMAX key [key ...] timeout
func cmdBZPopMax(c *Ctx) { bzpop(c, true) }

func bzpop(c *Ctx, max bool) {
	keys := c.Args[1 : len(c.Args)-1]
	blockingTry(c, keys, c.Args[len(c.Args)-1], nullArray, func() {
		for _, k := range keys {
			popped, err := c.DB.ZPop(k, max, 1)
			if !c.ok(err) {
				return
			}
			if len(popped) > 0 {
				c.W.Array(3)
				c.W.Bulk(k)
				c.W.Bulk(popped[0].Member)
				c.W.Double(popped[0].Score)
				return
			}
		}
	})
}

func nullArray(w *resp.Writer) { w.NullArray() }
func nullBulk(w *resp.Writer)  { w.Null() }

// blockingTry runs try, which replies with what it popped, a null, or
// nothing. On a real reply (or an error) the command is done; otherwise
// the client blocks on keys, unless it runs inside EXEC, where a blocking
// command does not block and replies null at once.
func blockingTry(c *Ctx, keys [][]byte, timeoutArg []byte, null func(*resp.Writer), try func()) {
	timeout, ok := parseTimeout(c, timeoutArg)
	if !ok {
		return
	}
	mark := c.W.Len()
	try()
	if reply := c.W.Bytes()[mark:]; len(reply) > 0 && !isNull(reply) {
		c.Env.blocking.served(c.Client, c.Client.Namespace, keys)
		return
	}
	c.W.Truncate(mark)
	if c.inExec {
		null(c.W)
		return
	}
	c.Env.blocking.wait(c.Client, keys, timeout, null)
}

func isNull(reply []byte) bool {
	return bytes.Equal(reply, []byte("*-1\r\n")) || bytes.Equal(reply, []byte("$-1\r\n")) || bytes.Equal(reply, []byte("_\r\n"))
}

// parseTimeout reads a timeout in seconds (decimals allowed, 0: none).
func parseTimeout(c *Ctx, arg []byte) (time.Duration, bool) {
	f, err := strconv.ParseFloat(string(arg), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		c.ErrorString("ERR timeout is not a float or out of range")
		return 0, false
	}
	// Redis counts in milliseconds: beyond int64 its timeout wraps
	// negative, and it says so.
	if f < 0 || f*1000 >= math.MaxInt64 {
		c.ErrorString("ERR timeout is negative")
		return 0, false
	}
	if f*float64(time.Second) >= math.MaxInt64 {
		return 0, true // centuries: the same as forever
	}
	return time.Duration(f * float64(time.Second)), true
}

// waiter is a blocked client. Its connection's goroutine owns it; the
// registry only signals it.
type waiter struct {
	cl       *Client
	ns       string
	keys     []string
	null     func(*resp.Writer) // the reply on timeout
	wake     chan struct{}      // a key was written
	unblock  chan bool          // CLIENT UNBLOCK; true: with an error
	deadline time.Time          // zero: none
}

// blocking is the server's registry of waiters, FIFO per key.
type blocking struct {
	mu       sync.Mutex
	queues   map[string][]*waiter // namespace + "\x00" + key
	byClient map[*Client]*waiter
	count    atomic.Int64
}

// wait registers cl as blocked on keys; Dispatch then waits.
func (b *blocking) wait(cl *Client, keys [][]byte, timeout time.Duration, null func(*resp.Writer)) {
	w := cl.waiter
	if w == nil {
		w = &waiter{cl: cl, ns: cl.Namespace, null: null, wake: make(chan struct{}, 1), unblock: make(chan bool, 1)}
		for _, k := range keys {
			w.keys = append(w.keys, string(k))
		}
		if timeout > 0 {
			w.deadline = time.Now().Add(timeout)
		}
		cl.waiter = w
		b.mu.Lock()
		if b.queues == nil {
			b.queues, b.byClient = map[string][]*waiter{}, map[*Client]*waiter{}
		}
		b.byClient[cl] = w
		for _, k := range w.keys {
			q := subKey(w.ns, k)
			b.queues[q] = append(b.queues[q], w)
		}
		b.mu.Unlock()
		b.count.Add(1)
	}
	cl.blocked = true
}

// written wakes the oldest waiter of each key written, other than the
// writer.
func (b *blocking) written(ns string, keys [][]byte, writer *Client) {
	if b.count.Load() == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, k := range keys {
		for _, w := range b.queues[subKey(ns, string(k))] {
			if w.cl != writer {
				w.signal()
				break
			}
		}
	}
}

func (w *waiter) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// served is called when a blocking command got its element: its waiter,
// if it blocked, leaves the queues, and the next waiters of the keys get
// their turn with what may be left.
func (b *blocking) served(cl *Client, ns string, keys [][]byte) {
	if cl.waiter == nil {
		return
	}
	b.remove(cl.waiter)
	b.written(ns, keys, cl)
}

// remove takes w out of every queue.
func (b *blocking) remove(w *waiter) {
	b.mu.Lock()
	delete(b.byClient, w.cl)
	for _, k := range w.keys {
		q := subKey(w.ns, k)
		list := b.queues[q]
		for i, x := range list {
			if x == w {
				list = append(list[:i:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(b.queues, q)
		} else {
			b.queues[q] = list
		}
	}
	b.mu.Unlock()
	b.count.Add(-1)
	w.cl.waiter = nil
}

// unblockClient ends the wait of a blocked client (CLIENT UNBLOCK); it
// reports whether the client was blocked.
func (b *blocking) unblockClient(cl *Client, withError bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	w := b.byClient[cl]
	if w == nil {
		return false
	}
	select {
	case w.unblock <- withError:
	default:
	}
	return true
}

// outcome of a wait.
const (
	woken = iota
	timedOut
	unblockedWithError
	disconnected
)

// await blocks the connection's goroutine until w is woken, times out,
// is unblocked or its client disconnects.
func (w *waiter) await() int {
	var expired <-chan time.Time
	if !w.deadline.IsZero() {
		t := time.NewTimer(time.Until(w.deadline))
		defer t.Stop()
		expired = t.C
	}
	var closed <-chan struct{}
	if w.cl.WatchClose != nil {
		var stop func()
		closed, stop = w.cl.WatchClose()
		defer stop()
	}
	select {
	case <-w.wake:
		return woken
	case <-expired:
		return timedOut
	case withError := <-w.unblock:
		if withError {
			return unblockedWithError
		}
		return timedOut
	case <-closed:
		return disconnected
	}
}
