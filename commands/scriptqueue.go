package commands

import (
	"sync"
	"sync/atomic"
)

// Script commands run one at a time, each holding the gate alone. Taking
// the gate for each of them in turn puts a goroutine wake-up between two
// runs, which is most of the time the gate stands idle while clients
// queue: the script commands are combined instead. The first to come leads:
// it takes the gate, runs its command, then those that queued meanwhile,
// each on its client's context, and wakes each client to send its reply.
// Past maxLedRuns it hands the lead to the next one, which takes the gate
// anew, so that the other commands get their turn.

// maxLedRuns is the script commands past which a leader lets go of the
// gate, once it ran those queued when it looked last.
const maxLedRuns = 64

// scriptQueue holds the script commands waiting for the leader.
type scriptQueue struct {
	mu      sync.Mutex
	leading bool
	waiting []*scriptJob
	spare   []*scriptJob
}

// scriptJob is a script command waiting in the queue; each context has
// one, which its client reuses.
type scriptJob struct {
	c     *Ctx
	cmd   *Command
	args  [][]byte
	state atomic.Int32
	// done gets true when the client must lead (take the gate and run its
	// command itself), false once its command ran.
	done chan bool
}

const (
	jobQueued  int32 = iota
	jobTaken         // the leader runs it
	jobRefused       // its client answered BUSY instead
)

// dispatchScript runs a command that runs a script: as the leader, or by
// the leader.
func (e *Env) dispatchScript(c *Ctx, cmd *Command, args [][]byte) {
	q := &e.scriptQueue
	q.mu.Lock()
	if q.leading {
		job := c.queueJob(cmd, args)
		q.waiting = append(q.waiting, job)
		q.mu.Unlock()
		if lead := e.awaitJob(job); !lead {
			return
		}
	} else {
		q.leading = true
		q.mu.Unlock()
	}
	hold, busy := e.enterGate(cmd, args)
	if busy != "" {
		// Without the gate it runs nothing: the lead goes on.
		cmd.stats.rejected.Add(1)
		c.Session.W.Error(busy)
		e.handOver()
		return
	}
	e.execute(c, cmd, args)
	e.runQueued()
	e.leaveGate(hold)
}

// queueJob readies the context's job for cmd.
func (c *Ctx) queueJob(cmd *Command, args [][]byte) *scriptJob {
	if c.job == nil {
		c.job = &scriptJob{c: c, done: make(chan bool, 1)}
	}
	job := c.job
	job.cmd, job.args = cmd, args
	job.state.Store(jobQueued)
	// Counted as a script waiting for the gate: other commands watch for
	// BUSY (busy.go).
	c.Env.scriptsPending.Add(1)
	return job
}

// awaitJob waits until the leader ran the job, or hands it the lead; it
// answers BUSY instead when the script running becomes busy first.
func (e *Env) awaitJob(job *scriptJob) (lead bool) {
	for {
		changed := e.scripts.Changed()
		if busy := e.scripts.Busy(); busy != "" && job.state.CompareAndSwap(jobQueued, jobRefused) {
			e.scriptsPending.Add(-1)
			job.cmd.stats.rejected.Add(1)
			job.c.Session.W.Error(busy)
			return false
		}
		select {
		case lead = <-job.done:
			if lead {
				// dispatchScript counts it again as it takes the gate.
				e.scriptsPending.Add(-1)
			}
			return lead
		case <-changed:
		}
	}
}

// runQueued runs the script commands queued behind the leader, which
// holds the gate and ran its own, and ends its lead.
func (e *Env) runQueued() {
	q := &e.scriptQueue
	for runs := 1; runs < maxLedRuns; {
		q.mu.Lock()
		if len(q.waiting) == 0 {
			q.leading = false
			q.mu.Unlock()
			return
		}
		batch := q.waiting
		q.waiting = q.spare[:0]
		q.mu.Unlock()
		for i, job := range batch {
			batch[i] = nil
			if !job.state.CompareAndSwap(jobQueued, jobTaken) {
				continue
			}
			e.execute(job.c, job.cmd, job.args)
			e.scriptsPending.Add(-1)
			job.done <- false
			runs++
		}
		q.mu.Lock()
		q.spare = batch[:0]
		q.mu.Unlock()
	}
	e.handOver()
}

// handOver ends a lead: the first script command still queued leads next,
// or none does.
func (e *Env) handOver() {
	q := &e.scriptQueue
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.waiting) > 0 {
		next := q.waiting[0]
		q.waiting[0] = nil
		q.waiting = q.waiting[1:]
		if next.state.CompareAndSwap(jobQueued, jobTaken) {
			next.done <- true
			return
		}
	}
	q.leading = false
}
