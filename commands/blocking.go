package commands

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/reply"
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
// registration) and its connection waits, outside every lock, for its
// timeout, CLIENT UNBLOCK, its own disconnection, or to be served.
//
// Waiters are served as Redis serves them: a write to a key someone waits
// on makes the key ready, and once the writing command (or EXEC) is done,
// and before its reply goes out, the writer's goroutine serves the ready
// keys (serveBlocked): for each key, its waiters in the order they
// blocked, each with its command restricted to that key, until one finds
// nothing. A waiter's own writes (BLMOVE's push) make more keys ready,
// served in the same round, so that a chain of BRPOPLPUSH runs to its end
// before the push that started it is answered. A key holding another type
// keeps its waiters waiting.

// BLPOP key [key ...] timeout
func cmdBLPop(c *Ctx) { blpop(c, true) }

// BRPOP key [key ...] timeout
func cmdBRPop(c *Ctx) { blpop(c, false) }

func blpop(c *Ctx, left bool) {
	keys := c.Args[1 : len(c.Args)-1]
	blockingTry(c, keys, c.Args[len(c.Args)-1], metadata.TypeList, nullArray, lastArgServe, func() {
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
		blockingTry(c, c.Args[1:2], c.Args[5], metadata.TypeList, nullBulk, sameServe, func() { lmove(c, srcLeft, dstLeft) })
	}
}

// BRPOPLPUSH source destination timeout
func cmdBRPopLPush(c *Ctx) {
	blockingTry(c, c.Args[1:2], c.Args[3], metadata.TypeList, nullBulk, sameServe, func() { lmove(c, false, true) })
}

// BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count]
func cmdBLMPop(c *Ctx) { blockingMPop(c, metadata.TypeList, cmdLMPop) }

// BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count]
func cmdBZMPop(c *Ctx) { blockingMPop(c, metadata.TypeZSet, cmdZMPop) }

// blockingMPop runs LMPOP or ZMPOP on the arguments after the timeout.
func blockingMPop(c *Ctx, t metadata.Type, handler func(*Ctx)) {
	timeout, keys := c.Args[1], numkeysKeys(2)(c.Args)
	all := c.Args
	c.Args = append([][]byte{all[0]}, all[2:]...)
	defer func() { c.Args = all }()
	blockingTryAs(c, all, keys, timeout, t, nullArray, mpopServe, func() { handler(c) })
}

// The forms of a blocking command that a waiter is served with from the
// one key that became ready (its arguments are the waiter's own copy).

// lastArgServe: BLPOP, BRPOP, BZPOPMIN, BZPOPMAX: key timeout.
func lastArgServe(args [][]byte, key []byte) [][]byte {
	return [][]byte{args[0], key, args[len(args)-1]}
}

// sameServe: BLMOVE and BRPOPLPUSH have one source.
func sameServe(args [][]byte, _ []byte) [][]byte { return args }

// mpopServe: BLMPOP and BZMPOP: timeout 1 key and the rest.
func mpopServe(args [][]byte, key []byte) [][]byte {
	n, _ := strconv.Atoi(string(args[2]))
	out := [][]byte{args[0], args[1], []byte("1"), key}
	return append(out, args[3+n:]...)
}

// BZPOPMIN key [key ...] timeout
func cmdBZPopMin(c *Ctx) { bzpop(c, false) }

// BZPOPMAX key [key ...] timeout
func cmdBZPopMax(c *Ctx) { bzpop(c, true) }

func bzpop(c *Ctx, max bool) {
	keys := c.Args[1 : len(c.Args)-1]
	blockingTry(c, keys, c.Args[len(c.Args)-1], metadata.TypeZSet, nullArray, lastArgServe, func() {
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

func nullArray(w reply.Sink) { w.NullArray() }
func nullBulk(w reply.Sink)  { w.Null() }

// blockingTry runs try, which replies with what it popped, a null, or
// nothing. On a real reply (or an error) the command is done; otherwise
// the client blocks on keys, unless it runs inside EXEC, where a blocking
// command does not block and replies null at once. Serving a waiter
// (serveBlocked), it runs on keys[0], the key that became ready, only if
// that key holds a t, and never blocks: a null then means not served.
func blockingTry(c *Ctx, keys [][]byte, timeoutArg []byte, t metadata.Type, null func(reply.Sink), serve func(args [][]byte, key []byte) [][]byte, try func()) {
	blockingTryAs(c, c.Args, keys, timeoutArg, t, null, serve, try)
}

// blockingTryAs is blockingTry for a handler that changed c.Args: args is
// the command as sent.
func blockingTryAs(c *Ctx, args, keys [][]byte, timeoutArg []byte, t metadata.Type, null func(reply.Sink), serve func(args [][]byte, key []byte) [][]byte, try func()) {
	if timeout, ok := parseTimeout(c, timeoutArg); ok {
		blockingRun(c, args, keys, timeout, t, null, serve, try)
	}
}

// blockingRun is blockingTryAs once the timeout (0: none) is known. args
// is what the waiter runs again when a write comes while it gets ready to
// wait, and what serve makes its served form of.
func blockingRun(c *Ctx, args, keys [][]byte, timeout time.Duration, t metadata.Type, null func(reply.Sink), serve func(args [][]byte, key []byte) [][]byte, try func()) {
	w := c.Client.waiter
	if w != nil && w.state.Load() == stServing {
		if typ, err := c.DB.Type(keys[0]); err != nil || (typ != metadata.TypeNone && typ != t) {
			return
		}
		mark := c.W.Len()
		try()
		if c.W.NullSince(mark) {
			c.W.Truncate(mark)
		}
		return
	}
	mark := c.W.Len()
	try()
	if c.W.Len() > mark && !c.W.NullSince(mark) {
		if w != nil {
			// The waiter ran its command again itself (a write came
			// while it got ready to wait) and got its element.
			c.Env.blocking.remove(w)
		}
		return
	}
	c.W.Truncate(mark)
	if c.inExec {
		null(c.W)
		return
	}
	c.Env.blocking.wait(c, args, keys, timeout, null, serve)
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

// States of a waiter. Its connection's goroutine registers it preparing,
// and makes it waiting once the replies before it are sent; a server
// (the goroutine of a writer) takes a waiting one to serving for one
// attempt, which ends it served or waiting again; its own goroutine ends
// a waiting one gone (timeout, CLIENT UNBLOCK, disconnection).
const (
	stPreparing int32 = iota
	stWaiting
	stServing
	stServed
	stGone
)

// waiter is a blocked client. Its connection's goroutine owns it, and
// lends its client to the server that serves it (state serving): the
// connection's goroutine does not touch the client meanwhile.
type waiter struct {
	cl       *Client
	ns       string
	keys     []string // without repeats
	cmd      *Command
	args     [][]byte // the command, owned
	serve    func(args [][]byte, key []byte) [][]byte
	null     func(reply.Sink) // the reply on timeout
	deadline time.Time        // zero: none
	state    atomic.Int32
	// wake tells the connection's goroutine to look at the state again:
	// served, or an attempt ended while an event was pending.
	wake    chan struct{}
	unblock chan bool // CLIENT UNBLOCK; true: with an error

	// ackTarget is, for WAIT, the sequence number replicas must
	// acknowledge.
	ackTarget uint64

	mu     sync.Mutex // guards the fields below and the state's changes
	event  int        // timedOut, unblockedWithError or disconnected, noted while serving
	missed bool       // a key got ready while it was preparing
	linked bool       // in the queues (guarded by blocking.mu)
}

// readyKey is a key written while someone waited on it.
type readyKey struct{ ns, key string }

// blocking is the server's registry of waiters, FIFO per key, and of the
// keys each client's command made ready.
type blocking struct {
	mu       sync.Mutex
	queues   map[readyKey][]*waiter
	byClient map[*Client]*waiter
	ready    map[*Client][]readyKey
	count    atomic.Int64 // waiters
	readyN   atomic.Int64 // clients with ready keys
	// acks are the waiters of WAIT, which a replica's acknowledgement
	// makes run their command again.
	acks map[*waiter]struct{}
}

// wait registers c's client as blocked on keys (or keeps its
// registration, when it ran its command again); Dispatch then waits.
func (b *blocking) wait(c *Ctx, args, keys [][]byte, timeout time.Duration, null func(reply.Sink), serve func([][]byte, []byte) [][]byte) {
	cl := c.Client
	w := cl.waiter
	if w == nil {
		w = &waiter{cl: cl, ns: cl.Namespace, cmd: c.cmd, null: null, serve: serve, wake: make(chan struct{}, 1), unblock: make(chan bool, 1)}
		// The server reuses the argument buffers.
		w.args = make([][]byte, len(args))
		for i, a := range args {
			w.args[i] = bytes.Clone(a)
		}
		for _, k := range keys {
			if !slices.Contains(w.keys, string(k)) {
				w.keys = append(w.keys, string(k))
			}
		}
		if timeout > 0 {
			w.deadline = time.Now().Add(timeout)
		}
		cl.waiter = w
		b.mu.Lock()
		if b.queues == nil {
			b.queues, b.byClient = map[readyKey][]*waiter{}, map[*Client]*waiter{}
		}
		b.byClient[cl] = w
		for _, k := range w.keys {
			q := readyKey{w.ns, k}
			b.queues[q] = append(b.queues[q], w)
		}
		w.linked = true
		b.mu.Unlock()
		b.count.Add(1)
	} else {
		w.mu.Lock()
		w.state.Store(stPreparing)
		w.event = 0
		w.mu.Unlock()
	}
	cl.blocked = true
}

// waitAcks makes w, a waiter of WAIT, run again at each acknowledgement
// of a replica.
func (b *blocking) waitAcks(w *waiter) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.acks == nil {
		b.acks = map[*waiter]struct{}{}
	}
	b.acks[w] = struct{}{}
}

// acked wakes the waiters of WAIT to count the acknowledgements again.
func (b *blocking) acked() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for w := range b.acks {
		w.mu.Lock()
		switch {
		case w.state.Load() == stPreparing:
			w.missed = true
		case w.state.Load() == stWaiting && w.event == 0:
			w.event = recount
			w.signal()
		}
		w.mu.Unlock()
	}
}

// written records, for writer, the keys of namespace ns that someone
// waits on: serveBlocked serves them when writer's command is done.
func (b *blocking) written(ns string, keys [][]byte, writer *Client) {
	if b.count.Load() == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, k := range keys {
		rk := readyKey{ns, string(k)}
		if len(b.queues[rk]) == 0 || slices.Contains(b.ready[writer], rk) {
			continue
		}
		if b.ready == nil {
			b.ready = map[*Client][]readyKey{}
		}
		if len(b.ready[writer]) == 0 {
			b.readyN.Add(1)
		}
		b.ready[writer] = append(b.ready[writer], rk)
	}
}

// takeReady returns and forgets the keys cl made ready.
func (b *blocking) takeReady(cl *Client) []readyKey {
	if b.readyN.Load() == 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	keys := b.ready[cl]
	if len(keys) > 0 {
		delete(b.ready, cl)
		b.readyN.Add(-1)
	}
	return keys
}

// claim takes the oldest waiter on rk that waits to serving, or returns
// nil. One that is getting ready to wait is told it missed a write.
func (b *blocking) claim(rk readyKey) *waiter {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, w := range b.queues[rk] {
		w.mu.Lock()
		switch {
		case w.state.Load() == stPreparing:
			w.missed = true
		case w.state.Load() == stWaiting && w.event == 0:
			w.state.Store(stServing)
			w.mu.Unlock()
			return w
		}
		w.mu.Unlock()
	}
	return nil
}

// serveBlocked serves the waiters on the keys cl's command made ready,
// and on the keys their own commands make ready in turn. Dispatch calls
// it when a command is done, before its reply is sent.
func (e *Env) serveBlocked(cl *Client) {
	b := &e.blocking
	queue := b.takeReady(cl)
	for len(queue) > 0 {
		rk := queue[0]
		queue = queue[1:]
		for {
			w := b.claim(rk)
			if w == nil {
				break
			}
			served := e.serveOne(w, []byte(rk.key))
			// Its writes are taken before it goes: the next
			// command of its connection must not find them.
			more := b.takeReady(w.cl)
			if served {
				b.unlink(w)
			}
			w.mu.Lock()
			if served {
				w.state.Store(stServed)
				w.signal()
			} else {
				w.state.Store(stWaiting)
				if w.event != 0 {
					w.signal()
				}
			}
			w.mu.Unlock()
			queue = append(queue, more...)
			if !served {
				break
			}
		}
	}
}

// serveOne runs w's command from key for it, as its own connection would
// have, and reports whether that served it: a reply other than null.
func (e *Env) serveOne(w *waiter, key []byte) bool {
	cl := w.cl
	args := w.serve(w.args, key)
	mark := cl.W.Len()
	if e.Cluster != nil {
		e.Cluster.BeginWrite()
		defer e.Cluster.EndWrite()
		// The slot may have moved, or be in the last phase of a
		// migration, since the client blocked: it gets the redirect.
		if err := e.route(cl, w.cmd, args, false); err != nil {
			cl.W.Error(err.Error())
			return true
		}
	}
	e.gate.RLock()
	e.execute(&Ctx{W: cl.W, Client: cl, Env: e}, w.cmd, args)
	e.gate.RUnlock()
	return cl.W.Len() > mark
}

func (w *waiter) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// unlink takes w out of the queues, once; it takes blocking.mu.
func (b *blocking) unlink(w *waiter) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !w.linked {
		return
	}
	w.linked = false
	if b.byClient[w.cl] == w {
		delete(b.byClient, w.cl)
	}
	delete(b.acks, w)
	for _, k := range w.keys {
		q := readyKey{w.ns, k}
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
	b.count.Add(-1)
}

// remove ends w's wait: it leaves the queues, and its client is no longer
// blocked. Only its connection's goroutine calls it.
func (b *blocking) remove(w *waiter) {
	b.unlink(w)
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
	// woken: a write came while the waiter got ready to wait; it runs its
	// command again.
	woken = iota
	timedOut
	unblockedWithError
	disconnected
	// served: a writer ran the command for it; the reply is written.
	served
	// recount: a replica acknowledged; WAIT runs again.
	recount
)

// await blocks the connection's goroutine until w is served, times out,
// is unblocked or its client disconnects. An event that comes while a
// server holds w waits for the end of that attempt.
func (w *waiter) await() int {
	w.mu.Lock()
	if w.missed {
		w.missed = false
		w.mu.Unlock()
		return woken
	}
	w.state.Store(stWaiting)
	w.mu.Unlock()
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
	for {
		w.mu.Lock()
		switch st := w.state.Load(); {
		case st == stServed:
			w.mu.Unlock()
			return served
		case st == stWaiting && w.event != 0:
			w.state.Store(stGone)
			ev := w.event
			w.mu.Unlock()
			return ev
		}
		w.mu.Unlock()
		event := 0
		select {
		case <-w.wake:
		case <-expired:
			event, expired = timedOut, nil
		case withError := <-w.unblock:
			event = timedOut
			if withError {
				event = unblockedWithError
			}
		case <-closed:
			event, closed = disconnected, nil
		}
		if event != 0 {
			w.mu.Lock()
			if w.event == 0 {
				w.event = event
			}
			w.mu.Unlock()
		}
	}
}
