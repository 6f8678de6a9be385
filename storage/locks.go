package storage

import (
	"slices"
	"sync"
)

// lockStripes is the number of stripes keys are spread over. Two keys that
// share a stripe serialise needlessly, so it is large.
const lockStripes = 1 << 14

// maxCombined bounds how many waiting critical sections one holder runs
// before it hands the stripe over, so that its own client is not kept
// waiting for too long.
const maxCombined = 32

// keyLocks serialises read-modify-writes of the same key without a global
// lock: a key maps to one of lockStripes stripes by a hash of its namespace
// and name. Multi-key commands take their stripes in ascending order, so two
// of them can never deadlock.
//
// A stripe combines: when a single-stripe critical section finds its stripe
// held, it queues itself and the holder runs it, after its own, before
// letting the stripe go. On a hot key this runs the commands of every
// client back to back on one goroutine, instead of waking each waiter in
// turn through the scheduler, which on a small machine cost more than the
// critical sections themselves. The sections a holder runs share write
// groups, each applied before any of its sections returns.
type keyLocks struct {
	s       *Storage // whose writes the groups apply; nil in tests that write nothing
	stripes [lockStripes]stripe
}

type stripe struct {
	mu      sync.Mutex // guards the fields below
	held    bool
	waiters []*lockWaiter // FIFO from next
	next    int
}

// lockWaiter is a goroutine waiting for a stripe. When run is set, the
// holder may run it instead of handing the stripe over; done is signalled
// either way, and handed tells which. err is the outcome of a run.
type lockWaiter struct {
	run    func(*group)
	handed bool
	err    error
	done   chan struct{}
}

var waiterPool = sync.Pool{New: func() any { return &lockWaiter{done: make(chan struct{}, 1)} }}

func stripeOf(ns string, key []byte) uint32 {
	// FNV-1a over namespace and key: cheap and allocation free.
	h := uint32(2166136261)
	for i := 0; i < len(ns); i++ {
		h = (h ^ uint32(ns[i])) * 16777619
	}
	h = (h ^ 0xff) * 16777619
	for _, c := range key {
		h = (h ^ uint32(c)) * 16777619
	}
	return h % lockStripes
}

// stripes appends to buf the lock stripes of w's keys, ascending and
// each once: the order in which a writer takes them.
func (w *Write) stripes(buf []uint32) []uint32 {
	for _, k := range w.Keys {
		buf = append(buf, stripeOf(w.NS, k))
	}
	for _, k := range w.Also {
		buf = append(buf, stripeOf(k.NS, k.Name))
	}
	slices.Sort(buf)
	return slices.Compact(buf)
}

// run holds the stripes ids (ascending, each once: Write.stripes) around
// fn, and returns once fn has run and its writes are applied. fn gets the
// write group its writes must join (through DB.in). It may run on another
// goroutine (the holder of the stripe), so it must not depend on which
// goroutine runs it, must not take locks itself and must not panic. The
// error is set when fn's writes could not be applied: whatever fn replied
// must be replaced by it.
func (l *keyLocks) run(ids []uint32, fn func(*group)) error {
	if len(ids) == 1 {
		st := &l.stripes[ids[0]]
		if handed, err := st.acquire(fn); !handed {
			return err
		}
		return st.lead(l.s, fn)
	}
	for _, id := range ids {
		l.stripes[id].acquire(nil)
	}
	g := newGroup(l.s)
	g.run(fn)
	g.flush()
	err := g.result(0)
	g.free()
	for i := len(ids) - 1; i >= 0; i-- {
		l.stripes[ids[i]].handOver()
	}
	return err
}

// acquire takes the stripe and returns true, or, when run is set and the
// holder ran it, returns false and the run's outcome.
func (st *stripe) acquire(run func(*group)) (handed bool, err error) {
	st.mu.Lock()
	if !st.held {
		st.held = true
		st.mu.Unlock()
		return true, nil
	}
	w := waiterPool.Get().(*lockWaiter)
	w.run, w.handed, w.err = run, false, nil
	st.waiters = append(st.waiters, w)
	st.mu.Unlock()
	<-w.done
	handed, err = w.handed, w.err
	w.run, w.err = nil, nil
	waiterPool.Put(w)
	return handed, err
}

// tryAcquire takes the stripe if nobody holds it.
func (st *stripe) tryAcquire() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.held {
		return false
	}
	st.held = true
	return true
}

// lead runs fn, the holder's own critical section, then the waiting ones it
// may run, in groups: it runs the sections queued so far in one group,
// applies it and answers their clients, and goes on with the sections
// queued meanwhile. Only when its budget is spent does it hand the stripe
// to a waiter, since waking that goroutine leaves the stripe idle until
// the scheduler runs it. It returns fn's outcome.
func (st *stripe) lead(s *Storage, fn func(*group)) error {
	var err error
	var inline [maxCombined]*lockWaiter
	budget := maxCombined
	for first := true; ; first = false {
		g := newGroup(s)
		if first {
			g.run(fn)
		}
		ran := st.runQueued(g, &budget, inline[:0])
		g.flush()
		if first {
			err = g.result(0)
		}
		for i, w := range ran {
			w.err = g.result(g.member - len(ran) + i)
			w.done <- struct{}{}
		}
		g.free()
		if len(ran) == 0 || budget == 0 {
			break
		}
	}
	st.handOver()
	return err
}

// runQueued runs the queued critical sections in g, from the oldest, until
// one cannot be run for its owner (a multi-key holder) or the budget is
// spent, and returns their waiters appended to ran.
func (st *stripe) runQueued(g *group, budget *int, ran []*lockWaiter) []*lockWaiter {
	for ; *budget > 0; *budget-- {
		st.mu.Lock()
		w := st.popLocked(true)
		st.mu.Unlock()
		if w == nil {
			break
		}
		g.run(w.run)
		ran = append(ran, w)
	}
	return ran
}

// handOver gives the stripe to the next waiter, or frees it when none is
// left.
func (st *stripe) handOver() {
	st.mu.Lock()
	w := st.popLocked(false)
	if w == nil {
		st.held = false
		st.waiters, st.next = st.waiters[:0], 0
	}
	st.mu.Unlock()
	if w != nil {
		w.handed = true
		w.done <- struct{}{}
	}
}

// popLocked dequeues the next waiter; nil when none is queued, or, with
// runnable, when the next one's section cannot be run by the holder. The
// caller holds st.mu.
func (st *stripe) popLocked(runnable bool) *lockWaiter {
	if st.next == len(st.waiters) || (runnable && st.waiters[st.next].run == nil) {
		return nil
	}
	w := st.waiters[st.next]
	st.waiters[st.next] = nil
	st.next++
	return w
}
