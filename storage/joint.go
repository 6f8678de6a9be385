package storage

import "slices"

// A Joint runs the writes of commands that one goroutine runs back to back
// as one group: their batches reach RocksDB in one write when the joint
// ends, instead of one write per command. The script queue runs the
// scripts its leader runs in a round through one (commands/scriptqueue.go):
// they hold the command gate alone, so no other command reads between
// them, and each script reads what the ones before it wrote through the
// group.
//
// The joint holds the lock stripes of the keys its writes name until it
// ends, as Update holds a write's until the write is applied: no other
// writer can change those keys on the strength of what RocksDB still
// holds, and a writer waiting for one of them then sees the joint's
// writes. It never waits for a stripe while it holds one: when a stripe it
// needs is taken, it applies its writes, lets its stripes go and waits
// holding none, so it cannot deadlock with a writer taking several stripes
// in order.
//
// Every write of the joint's goroutine while it holds stripes must name it
// (Write.Joint), or run after Release: an Update without it would wait
// for a stripe the joint holds.
type Joint struct {
	s    *Storage
	g    *group
	held []uint32 // the stripes held, ascending
}

// NewJoint returns a joint holding nothing.
func (s *Storage) NewJoint() *Joint {
	j := &Joint{s: s, g: &group{s: s, failedFrom: -1}}
	j.g.joint = j
	return j
}

// DB returns the view of namespace ns whose reads see the joint's pending
// writes.
func (j *Joint) DB(ns string) DB { return j.s.DB(ns).in(j.g) }

// Run runs fn, a command of the joint's goroutine, as the joint's next
// member: members are numbered from 0 in the order they run, for End.
func (j *Joint) Run(fn func()) {
	fn()
	j.g.member++
}

// take makes the joint hold the stripes ids (ascending) besides those it
// holds.
func (j *Joint) take(ids []uint32) {
	had := len(j.held)
	for _, id := range ids {
		if _, ok := slices.BinarySearch(j.held[:had], id); ok {
			continue
		}
		if j.s.locks.stripes[id].tryAcquire() {
			j.held = append(j.held, id)
			continue
		}
		// Taken: wait for it holding nothing.
		j.Release()
		for _, id := range ids {
			j.s.locks.stripes[id].acquire(nil)
		}
		j.held = append(j.held, ids...)
		return
	}
	slices.Sort(j.held)
}

// Release applies the joint's pending writes and lets its stripes go; the
// joint goes on. A command whose writes cannot join the group (a write
// of no key, one that locks its keys itself) runs after it.
func (j *Joint) Release() {
	j.g.flush()
	for _, id := range j.held {
		j.s.locks.stripes[id].handOver()
	}
	j.held = j.held[:0]
}

// End releases the joint and starts it anew. When writes were lost,
// failedFrom is the first member whose writes were, and err the reason:
// those members' replies must be replaced by it. failedFrom is -1 when
// nothing was lost.
func (j *Joint) End() (failedFrom int, err error) {
	j.Release()
	g := j.g
	failedFrom, err = g.failedFrom, g.err
	g.member, g.pendingFrom, g.failedFrom, g.err = 0, 0, -1, nil
	return failedFrom, err
}

// joint returns the joint whose group db is bound to, or nil.
func (db DB) joint() *Joint {
	if db.g == nil {
		return nil
	}
	return db.g.joint
}
