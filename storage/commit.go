package storage

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/linxGnu/grocksdb"
)

// Writes go through one committer goroutine: each command hands over the
// operations of its batch, the committer merges every batch waiting at that
// moment into one RocksDB WriteBatch and writes it once, then releases the
// commands. Under concurrency this replaces RocksDB's own write-group
// handoffs between many OS threads (futex wake-ups that cost more than the
// write itself on a small machine) with cheap goroutine handoffs. A
// command's operations are never split, so each command stays atomic; a
// command is acknowledged only after the merged batch is in the WAL.

// maxGroupOps bounds how many operations one merged write carries, so one
// huge command does not wait behind many others.
const maxGroupOps = 4096

type opKind uint8

const (
	opPut opKind = iota
	opDelete
	opDeleteRange
)

// op is one operation of a batch. For opDeleteRange, key and value are the
// range's start and end.
type op struct {
	kind       opKind
	cf         CF
	key, value []byte
}

// batch collects the operations of one command. The keys and values it is
// given must stay unmodified until commit returns.
type batch struct {
	s   *Storage
	ops []op
}

func (s *Storage) newBatch() *batch { return &batch{s: s} }

func (b *batch) put(cf CF, key, value []byte) {
	b.ops = append(b.ops, op{kind: opPut, cf: cf, key: key, value: value})
}

func (b *batch) del(cf CF, key []byte) {
	b.ops = append(b.ops, op{kind: opDelete, cf: cf, key: key})
}

func (b *batch) delRange(cf CF, from, to []byte) {
	b.ops = append(b.ops, op{kind: opDeleteRange, cf: cf, key: from, value: to})
}

// commit writes the batch atomically and returns once it is durable in the
// WAL (or failed).
func (b *batch) commit() error {
	if len(b.ops) == 0 {
		return nil
	}
	req := commitRequestPool.Get().(*commitRequest)
	req.ops = b.ops
	b.s.commits <- req
	err := <-req.done
	req.ops = nil
	commitRequestPool.Put(req)
	return err
}

type commitRequest struct {
	ops  []op
	done chan error
}

var commitRequestPool = sync.Pool{New: func() any { return &commitRequest{done: make(chan error, 1)} }}

func (s *Storage) startCommitter() {
	s.commits = make(chan *commitRequest, 1024)
	s.committed = make(chan struct{})
	go s.commitLoop()
}

// stopCommitter ends the committer once every queued write is done. No
// write may start after it is called.
func (s *Storage) stopCommitter() {
	close(s.commits)
	<-s.committed
}

func (s *Storage) commitLoop() {
	defer close(s.committed)
	wb := grocksdb.NewWriteBatch()
	defer wb.Destroy()
	var group []*commitRequest
	for req := range s.commits {
		// Let the goroutines that have just read a command run up to their
		// commit before draining: under load this gathers about ten
		// commands per WAL write, at the cost of one scheduler yield.
		runtime.Gosched()
		group = append(group[:0], req)
		n := len(req.ops)
	gather:
		for n < maxGroupOps {
			select {
			case more, ok := <-s.commits:
				if !ok {
					break gather
				}
				group = append(group, more)
				n += len(more.ops)
			default:
				break gather
			}
		}
		err := s.writeGroup(wb, group)
		for _, r := range group {
			r.done <- err
		}
	}
}

func (s *Storage) writeGroup(wb *grocksdb.WriteBatch, group []*commitRequest) error {
	wb.Clear()
	for _, r := range group {
		for _, o := range r.ops {
			h := s.cfs[o.cf]
			switch o.kind {
			case opPut:
				wb.PutCF(h, o.key, o.value)
			case opDelete:
				wb.DeleteCF(h, o.key)
			case opDeleteRange:
				wb.DeleteRangeCF(h, o.key, o.value)
			}
		}
	}
	if err := s.db.Write(s.writeOptions(), wb); err != nil {
		return fmt.Errorf("storage: write batch: %w", err)
	}
	return nil
}
