package executor

import (
	"sync"
	"sync/atomic"

	"github.com/basaltdb/basalt/storage"
)

// Script commands run one at a time, each holding the gate alone. Taking
// the gate for each of them in turn puts a goroutine wake-up between two
// runs, which is most of the time the gate stands idle while clients
// queue: the script commands are combined instead. The first to come leads:
// it takes the gate, runs its command, then those that queued meanwhile,
// each on its client's context, and wakes each client to send its reply.
// Past maxLedRuns it hands the lead to the next one, which takes the gate
// anew, so that the other commands get their turn.
//
// The leader runs them in rounds: a round is the commands queued when it
// began (the first one also the leader's own), whose writes join one
// storage.Joint and reach RocksDB in one write when the round ends,
// before any of its clients is woken. A script's write then costs its
// memtable inserts, not a RocksDB write of its own, and the scripts of a
// round read each other's writes through the joint, as they would read
// them applied.

// maxLedRuns is the script commands past which a leader lets go of the
// gate, once it ran those queued when it looked last.
const maxLedRuns = 64

// maxRoundRuns bounds the script commands of a round: their clients all
// wait for its end, and none sends its next command meanwhile.
const maxRoundRuns = 8

// scriptQueue holds the script commands waiting for the leader.
type scriptQueue struct {
	mu      sync.Mutex
	leading bool
	waiting []*scriptJob
	spare   []*scriptJob
	// The leader's alone: the joint of its rounds, and the contexts of
	// the round running with the reply length of each before it ran.
	joint   *storage.Joint
	round   []*Ctx
	replied []int
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
	hold, busy := e.enterGate(cmd, args, true)
	if busy != "" {
		// Without the gate it runs nothing: the lead goes on.
		e.reject(c.Session, cmd, busy)
		e.handOver()
		return
	}
	e.lead(c, cmd, args)
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
		changed := e.Scripts.Changed()
		if busy := e.Scripts.Busy(); busy != "" && job.state.CompareAndSwap(jobQueued, jobRefused) {
			e.scriptsPending.Add(-1)
			e.reject(job.c.Session, job.cmd, busy)
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

// lead runs the leader's command, then the script commands queued behind
// it, round by round, and ends the lead.
func (e *Env) lead(c *Ctx, cmd *Command, args [][]byte) {
	q := &e.scriptQueue
	if q.joint == nil {
		q.joint = e.Storage.NewJoint()
	}
	e.runJoined(c, cmd, args)
	var woken []*scriptJob
	for runs := 1; ; {
		q.mu.Lock()
		batch := q.waiting
		if len(batch) == 0 || runs >= maxLedRuns {
			if len(batch) == 0 {
				// The next leader waits for the gate, which is let go
				// of after the round ends.
				q.leading = false
			}
			q.mu.Unlock()
			e.endRound(woken)
			if len(batch) != 0 {
				e.handOver()
			}
			return
		}
		q.waiting = q.spare[:0]
		q.mu.Unlock()
		for i, job := range batch {
			batch[i] = nil
			if !job.state.CompareAndSwap(jobQueued, jobTaken) {
				continue
			}
			e.runJoined(job.c, job.cmd, job.args)
			e.scriptsPending.Add(-1)
			woken = append(woken, job)
			runs++
			if len(q.round) == maxRoundRuns {
				e.endRound(woken)
				woken = woken[:0]
			}
		}
		q.mu.Lock()
		q.spare = batch[:0]
		q.mu.Unlock()
		e.endRound(woken)
		woken = woken[:0]
	}
}

// runJoined runs a script command of the round on its context, its writes
// in the round's joint.
func (e *Env) runJoined(c *Ctx, cmd *Command, args [][]byte) {
	q := &e.scriptQueue
	q.round = append(q.round, c)
	q.replied = append(q.replied, c.W.Len())
	c.joint = q.joint
	q.joint.Run(func() { e.Execute(c, cmd, args) })
	c.joint = nil
}

// endRound applies the round's writes, replaces the replies of the
// commands whose writes were lost by the error, makes each reply wait for
// the WAL to hold the round, and wakes the clients of the queued ones.
func (e *Env) endRound(woken []*scriptJob) {
	q := &e.scriptQueue
	failedFrom, err := q.joint.End()
	seq := e.Storage.LatestSequence()
	for m, c := range q.round {
		if failedFrom >= 0 && m >= failedFrom {
			c.W.Truncate(q.replied[m])
			c.Error(err)
		}
		c.Session.SyncTo = seq
		q.round[m] = nil
	}
	q.round, q.replied = q.round[:0], q.replied[:0]
	for _, job := range woken {
		job.done <- false
	}
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
