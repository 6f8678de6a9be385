package session

import (
	"bytes"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basaltdb/basalt/reply"
)

// A blocking command that found nothing registers its session as a
// Waiter on its keys (still under their locks, so no write can slip
// between the try and the registration) and the connection waits, outside
// every lock, for its timeout, CLIENT UNBLOCK, its own disconnection, or
// to be served.
//
// Waiters are served as Redis serves them: a write to a key someone waits
// on makes the key ready (Written), and once the writing command is done,
// and before its reply goes out, the writer's goroutine serves the ready
// keys: for each key, its waiters in the order they blocked (Claim), each
// with its command restricted to that key, until one finds nothing; a
// waiter that finds nothing ends the turn of its pool only, the waiters
// that compete with it for the same elements. What
// a command means, and how it is run for a waiter, is the command layer's:
// this file only keeps who waits for what.

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

// Waiter is a blocked session. Its connection's goroutine owns it, and
// lends its session to the server that serves it (state serving): the
// connection's goroutine does not touch the session meanwhile.
type Waiter struct {
	Session *Session
	NS      string
	keys    []string // without repeats
	// Args is the command as it blocked, owned; Serve makes the form it
	// is served with from the key that became ready; Null writes the
	// reply on timeout.
	Args  [][]byte
	Serve func(args [][]byte, key []byte) [][]byte
	Null  func(reply.Sink)
	// Pool names the waiters of a key that compete for what a write
	// brings there: once one of a pool is not served, neither would the
	// others be, and the round of that key passes them by (Claim). The
	// waiters of lists and sorted sets are one pool, "".
	Pool string
	// AckTarget is, for WAIT, the sequence number replicas must
	// acknowledge.
	AckTarget uint64
	deadline  time.Time // zero: none
	state     atomic.Int32
	// wake tells the connection's goroutine to look at the state again:
	// served, or an attempt ended while an event was pending.
	wake    chan struct{}
	unblock chan Outcome // CLIENT UNBLOCK (TimedOut or UnblockedWithError), or Demoted

	mu     sync.Mutex // guards the fields below and the state's changes
	event  Outcome    // TimedOut, UnblockedWithError or Disconnected, noted while serving
	missed bool       // a key got ready while it was preparing
	again  bool       // a key got ready again while it was being served
	linked bool       // in the queues (guarded by Blocking.mu)
}

// Keys returns the keys w waits on, without repeats.
func (w *Waiter) Keys() [][]byte {
	out := make([][]byte, len(w.keys))
	for i, k := range w.keys {
		out[i] = []byte(k)
	}
	return out
}

// Serving reports whether a writer's goroutine runs w's command for it
// now: the command must then only try, never block.
func (w *Waiter) Serving() bool { return w.state.Load() == stServing }

// Miss makes w's next Await return Woken at once: something it waits for
// came while it got ready to wait.
func (w *Waiter) Miss() {
	w.mu.Lock()
	w.missed = true
	w.mu.Unlock()
}

// ReadyKey is a key written while someone waited on it.
type ReadyKey struct{ NS, Key string }

// Blocking is the server's registry of waiters, FIFO per key, and of the
// keys each session's command made ready.
type Blocking struct {
	mu        sync.Mutex
	queues    map[ReadyKey][]*Waiter
	bySession map[*Session]*Waiter
	ready     map[*Session][]ReadyKey
	count     atomic.Int64 // waiters
	readyN    atomic.Int64 // sessions with ready keys
	// acks are the waiters of WAIT, which a replica's acknowledgement
	// makes run their command again.
	acks map[*Waiter]struct{}
	// gone are the waiters whose command answers when a key of theirs is
	// deleted (XREADGROUP): their keys are expired actively.
	gone map[*Waiter]struct{}
	// expiries are when keys someone waits on expire (Unix ms), as the
	// last attempt of a gone waiter found them; absent: never.
	expiries map[ReadyKey]int64
}

// Count returns how many sessions wait (INFO's blocked_clients).
func (b *Blocking) Count() int64 { return b.count.Load() }

// Waiter returns s's waiter while a blocking command of s waits.
func (s *Session) Waiter() *Waiter { return s.waiter }

// Block registers s as blocked on keys (or keeps its registration, when
// it ran its command again), with the command as it was sent (args), the
// reply on timeout (null), the form it is served with (serve) and its
// pool; the dispatcher then waits (Blocked is set). A timeout of 0 waits
// for ever.
func (s *Session) Block(args, keys [][]byte, timeout time.Duration, null func(reply.Sink), serve func([][]byte, []byte) [][]byte, pool string) *Waiter {
	s.Blocked = true
	if w := s.waiter; w != nil {
		w.mu.Lock()
		w.state.Store(stPreparing)
		w.event = 0
		w.mu.Unlock()
		return w
	}
	w := &Waiter{Session: s, NS: s.Namespace, Null: null, Serve: serve, Pool: pool, wake: make(chan struct{}, 1), unblock: make(chan Outcome, 1)}
	// The server reuses the argument buffers.
	w.Args = make([][]byte, len(args))
	for i, a := range args {
		w.Args[i] = bytes.Clone(a)
	}
	for _, k := range keys {
		if !slices.Contains(w.keys, string(k)) {
			w.keys = append(w.keys, string(k))
		}
	}
	if timeout > 0 {
		w.deadline = time.Now().Add(timeout)
	}
	s.waiter = w
	b := &s.reg.Blocking
	b.mu.Lock()
	if b.queues == nil {
		b.queues, b.bySession = map[ReadyKey][]*Waiter{}, map[*Session]*Waiter{}
	}
	b.bySession[s] = w
	for _, k := range w.keys {
		q := ReadyKey{w.NS, k}
		b.queues[q] = append(b.queues[q], w)
	}
	w.linked = true
	b.mu.Unlock()
	b.count.Add(1)
	return w
}

// WaitAcks makes w, a waiter of WAIT, run again at each acknowledgement
// of a replica.
func (b *Blocking) WaitAcks(w *Waiter) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.acks == nil {
		b.acks = map[*Waiter]struct{}{}
	}
	b.acks[w] = struct{}{}
}

// Acked wakes the waiters of WAIT to count the acknowledgements again.
func (b *Blocking) Acked() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for w := range b.acks {
		w.mu.Lock()
		switch {
		case w.state.Load() == stPreparing:
			w.missed = true
		case w.state.Load() == stWaiting && w.event == 0:
			w.event = Recount
			w.signal()
		}
		w.mu.Unlock()
	}
}

// Written records, for writer, the keys of namespace ns that someone
// waits on: they are served when writer's command is done (TakeReady).
func (b *Blocking) Written(ns string, keys [][]byte, writer *Session) {
	if b.count.Load() == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, k := range keys {
		rk := ReadyKey{ns, string(k)}
		if len(b.queues[rk]) == 0 || slices.Contains(b.ready[writer], rk) {
			continue
		}
		b.markReady(rk, writer)
	}
}

// markReady adds rk to the keys writer made ready; b.mu is held.
func (b *Blocking) markReady(rk ReadyKey, writer *Session) {
	if b.ready == nil {
		b.ready = map[*Session][]ReadyKey{}
	}
	if len(b.ready[writer]) == 0 {
		b.readyN.Add(1)
	}
	b.ready[writer] = append(b.ready[writer], rk)
}

// Flushed records, for writer, every key of namespace ns (all: of every
// namespace) that someone waits on, as FLUSHDB (FLUSHALL) emptied them:
// their waiters look at them again (a blocked XREADGROUP learns its
// stream is gone). With no writer (a replicated flush), they run their
// command again on their own, as Retry.
func (b *Blocking) Flushed(ns string, all bool, writer *Session) {
	if b.count.Load() == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	already := map[ReadyKey]bool{}
	for _, rk := range b.ready[writer] {
		already[rk] = true
	}
	for rk, q := range b.queues {
		switch {
		case len(q) == 0 || !(all || rk.NS == ns):
		case writer == nil:
			retryLocked(q)
		case !already[rk]:
			b.markReady(rk, writer)
		}
	}
}

// AnswersGone notes that w's command answers when a key it waits on is
// deleted (XREADGROUP's UNBLOCKED). Redis's active expiry deletes a key
// whose time has passed: so must Basalt's, for such a waiter's keys
// (Expires, GoneKeys).
func (b *Blocking) AnswersGone(w *Waiter) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !w.linked {
		return
	}
	if b.gone == nil {
		b.gone = map[*Waiter]struct{}{}
	}
	b.gone[w] = struct{}{}
}

// Expires records when key of namespace ns expires (Unix ms, 0: never).
// A gone waiter's attempts record it, under the key's lock, every time
// a write makes the key ready: the last one saw the last write.
func (b *Blocking) Expires(ns string, key []byte, atMs int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	rk := ReadyKey{ns, string(key)}
	switch {
	case atMs == 0:
		delete(b.expiries, rk)
	case len(b.queues[rk]) > 0:
		if b.expiries == nil {
			b.expiries = map[ReadyKey]int64{}
		}
		b.expiries[rk] = atMs
	}
}

// GoneKeys returns the keys whose time has passed at nowMs that a gone
// waiter waits on.
func (b *Blocking) GoneKeys(nowMs int64) []ReadyKey {
	b.mu.Lock()
	defer b.mu.Unlock()
	var keys []ReadyKey
	for rk, at := range b.expiries {
		if at >= nowMs {
			continue
		}
		for _, w := range b.queues[rk] {
			if _, ok := b.gone[w]; ok {
				keys = append(keys, rk)
				break
			}
		}
	}
	return keys

}

// Retry makes the waiters on keys of namespace ns run their command again
// on their own connections: a write that no command of this node made (a
// batch of its master's) changed the keys, and no writer's goroutine is
// there to serve them.
func (b *Blocking) Retry(ns string, keys [][]byte) {
	if b.count.Load() == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, k := range keys {
		retryLocked(b.queues[ReadyKey{ns, string(k)}])
	}
}

// retryLocked makes the waiters of a queue run their command again; b.mu
// is held.
func retryLocked(q []*Waiter) {
	for _, w := range q {
		w.mu.Lock()
		switch {
		case w.state.Load() == stPreparing:
			w.missed = true
		case w.state.Load() == stServing:
			w.again = true
		case w.state.Load() == stWaiting && w.event == 0:
			w.event = Rerun
			w.signal()
		}
		w.mu.Unlock()
	}
}

// TakeReady returns and forgets the keys s made ready.
func (b *Blocking) TakeReady(s *Session) []ReadyKey {
	if b.readyN.Load() == 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	keys := b.ready[s]
	if len(keys) > 0 {
		delete(b.ready, s)
		b.readyN.Add(-1)
	}
	return keys
}

// Claim takes the oldest waiter on rk that waits to serving, or returns
// nil, passing by the waiters of the pools spent (not served since the
// write). One that is getting ready to wait is told it missed a write. One
// that another goroutine serves now keeps its turn: it is told the key got
// ready again (its attempt may have read before this write), and nil is
// returned, so that no later waiter overtakes it. The caller runs the
// waiter's command and ends the attempt with Served.
func (b *Blocking) Claim(rk ReadyKey, spent []string) *Waiter {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, w := range b.queues[rk] {
		if slices.Contains(spent, w.Pool) {
			continue
		}
		w.mu.Lock()
		switch {
		case w.state.Load() == stPreparing:
			w.missed = true
		case w.state.Load() == stServing:
			w.again = true
			w.mu.Unlock()
			return nil
		case w.state.Load() == stWaiting && w.event == 0:
			w.state.Store(stServing)
			w.mu.Unlock()
			return w
		}
		w.mu.Unlock()
	}
	return nil
}

// Served ends an attempt to serve w that Claim began: served, w leaves
// the queues and its connection goes on. Not served, it waits again,
// unless its key got ready again meanwhile: then w stays claimed and
// Served reports that the caller must try once more.
func (b *Blocking) Served(w *Waiter, served bool) (tryAgain bool) {
	if served {
		b.unlink(w)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	again := w.again
	w.again = false
	switch {
	case served:
		w.state.Store(stServed)
		w.signal()
	case again && w.event == 0:
		return true
	default:
		w.state.Store(stWaiting)
		if w.event != 0 {
			w.signal()
		}
	}
	return false
}

func (w *Waiter) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// unlink takes w out of the queues, once.
func (b *Blocking) unlink(w *Waiter) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !w.linked {
		return
	}
	w.linked = false
	if b.bySession[w.Session] == w {
		delete(b.bySession, w.Session)
	}
	delete(b.acks, w)
	delete(b.gone, w)
	for _, k := range w.keys {
		q := ReadyKey{w.NS, k}
		list := b.queues[q]
		for i, x := range list {
			if x == w {
				list = append(list[:i:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(b.queues, q)
			delete(b.expiries, q)
		} else {
			b.queues[q] = list
		}
	}
	b.count.Add(-1)
}

// Remove ends w's wait: it leaves the queues, and its session is no
// longer blocked. Only its connection's goroutine calls it.
func (b *Blocking) Remove(w *Waiter) {
	b.unlink(w)
	w.Session.waiter = nil
}

// Unblock ends the wait of a blocked session (CLIENT UNBLOCK); it reports
// whether the session was blocked.
func (b *Blocking) Unblock(s *Session, withError bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	w := b.bySession[s]
	if w == nil {
		return false
	}
	outcome := TimedOut
	if withError {
		outcome = UnblockedWithError
	}
	w.end(outcome)
	return true
}

// Demoted ends the wait of every blocked session: the server became a
// replica, and Redis answers them with an error.
func (b *Blocking) Demoted() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, w := range b.bySession {
		w.end(Demoted)
	}
}

// end asks w's connection to end its wait with outcome, unless an end
// is asked already.
func (w *Waiter) end(outcome Outcome) {
	select {
	case w.unblock <- outcome:
	default:
	}
}

// Outcome is how a wait ended.
type Outcome int

// Outcomes of Await.
const (
	// Woken: something came while the waiter got ready to wait; it runs
	// its command again.
	Woken Outcome = iota
	TimedOut
	UnblockedWithError
	Disconnected
	// Served: a writer ran the command for it; the reply is written.
	Served
	// Recount: a replica acknowledged; WAIT runs again.
	Recount
	// Demoted: the server became a replica.
	Demoted
	// Rerun: a replicated write changed a key it waits on (Retry); it
	// runs its command again.
	Rerun
)

// Await blocks the connection's goroutine until w is served, times out,
// is unblocked or its session disconnects. An event that comes while a
// server holds w waits for the end of that attempt.
func (w *Waiter) Await() Outcome {
	w.Session.blockedNow.Store(true)
	defer w.Session.blockedNow.Store(false)
	w.mu.Lock()
	if w.missed {
		w.missed = false
		w.mu.Unlock()
		return Woken
	}
	w.state.Store(stWaiting)
	w.mu.Unlock()
	var expired <-chan time.Time
	if !w.deadline.IsZero() {
		t := time.NewTimer(time.Until(w.deadline))
		defer t.Stop()
		expired = t.C
	}
	closed, stop := w.Session.conn.WatchClose()
	defer stop()
	for {
		w.mu.Lock()
		switch st := w.state.Load(); {
		case st == stServed:
			w.mu.Unlock()
			return Served
		case st == stWaiting && w.event != 0:
			w.state.Store(stGone)
			ev := w.event
			w.mu.Unlock()
			return ev
		}
		w.mu.Unlock()
		var event Outcome
		select {
		case <-w.wake:
		case <-expired:
			event, expired = TimedOut, nil
		case event = <-w.unblock:
		case <-closed:
			event, closed = Disconnected, nil
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
