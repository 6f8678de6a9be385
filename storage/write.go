package storage

import (
	"bytes"
	"errors"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// The write rules. Every command that may change the database goes
// through one door, Update; nothing above this package sees what is behind
// it.
//
//  1. Keys. A write names the keys it reads and changes (Write.Keys, and
//     Write.Also for the others: of other namespaces, or found from what
//     the keys hold). Update holds their lock stripes while the write runs
//     (locks.go): two writes of one key never interleave, and multi-key
//     writes take stripes in ascending order, so they cannot deadlock. A
//     write changes no key it does not lock: one that finds it must (DB.Holds)
//     writes nothing and fails with ErrUnlocked, to be run again naming
//     it. Reads need no lock: a RocksDB Get is atomic, and multi-record
//     reads use iterators or snapshots.
//  2. One batch per command. A command's changes commit as one RocksDB
//     batch (commit.go), so a key's metadata record and its elements change
//     together or not at all. The batch begins with the LogData record
//     Kvrocks writes for the same command (logdata.go), so replicas and WAL
//     readers see what a Kvrocks node writes.
//  3. Group commit. When a stripe is busy, its holder runs the waiting
//     writes itself, back to back, and their batches join one group that
//     reaches RocksDB in a single write (group.go); writes of different
//     stripes arriving together share one RocksDB write too (commit.go).
//     Update returns once the write's batch is applied: its effects are
//     visible to every reader. A Joint (joint.go) instead gathers the
//     writes of the commands one goroutine runs back to back, holding their
//     stripes, and applies them in one write when it ends.
//  4. Watchers. While a Watcher watches, Update tells it, still under the
//     keys' locks, of every write that changed something (WATCH, blocked
//     clients), so no write slips between a change and its notice.
//  5. Durability before replies. RocksDB runs with manual_wal_flush: an
//     applied write is in the WAL buffer, not yet in the file. No reply that
//     reveals a write may leave the server before Durable has flushed the
//     WAL past it; one flush covers every write applied before it, so
//     concurrent clients and pipelines share it. Read LatestSequence after
//     a command and pass it to Durable before its reply goes out.
//
// Writes that are no command's (FLUSHALL, slot deletion and import,
// APPLYBATCH, the propagate column family) go straight to the commit queue
// of rule 3; they carry no key lock, as in Kvrocks.

// Key names a key of a namespace.
type Key struct {
	NS   string
	Name []byte
}

// Write describes one command's write for Update.
type Write struct {
	NS   string
	Keys [][]byte // the keys it reads and changes in NS
	// Also are the other keys it locks: of other namespaces (MOVEX), or
	// of NS that the keys lead it to (a time series's rule destinations).
	Also []Key
	// By is who writes; Update hands the Write to the Watcher, which reads
	// it (the command and its client) to tell which keys changed. nil: the
	// Watcher is not told (WATCH, which only holds the locks).
	By any
	// Joint, when set, is the joint of the goroutine writing: the write
	// joins its group and is applied when the joint ends (joint.go).
	Joint *Joint
}

// A Watcher learns of the writes that changed the database.
type Watcher interface {
	// Watching reports whether anyone waits for changes; when not, Update
	// skips the bookkeeping.
	Watching() bool
	// Wrote is called, under the write's key locks, after a write changed
	// the database.
	Wrote(w *Write)
}

// SetWatcher installs the Watcher; call it before the first Update.
func (s *Storage) SetWatcher(w Watcher) { s.watcher = w }

// Update runs fn under w's key locks with the DB of w.NS through which its
// writes must go, and returns once they are applied. fn may run on another
// goroutine (the holder of a busy stripe), so it must not depend on which
// goroutine runs it, must not take locks or call Update itself and must
// not panic. A DB of another namespace of w.Also joins the write through
// DB.Sibling. The error is set when fn's writes could not be applied:
// whatever fn replied must be replaced by it.
func (s *Storage) Update(w *Write, fn func(DB)) error {
	body := func(g *group) {
		db := s.DB(w.NS).in(g)
		db.w = w
		if s.watcher == nil || w.By == nil || !s.watcher.Watching() {
			fn(db)
			return
		}
		before := s.writes.Load()
		fn(db)
		if s.writes.Load() != before {
			s.watcher.Wrote(w)
		}
	}
	var inline [4]uint32
	ids := w.stripes(inline[:0])
	if w.Joint != nil {
		// Applied when the joint ends; a write lost by a flush of the
		// joint fails through its group, and End reports it.
		w.Joint.take(ids)
		body(w.Joint.g)
		return nil
	}
	return s.locks.run(ids, body)
}

// ErrUnlocked fails a write that found it must change a key its Write
// does not lock (DB.Holds); it wrote nothing, and runs again naming it.
var ErrUnlocked = errors.New("storage: the write must change a key it does not lock")

// Holds reports whether the write db belongs to holds the lock of key,
// of db's namespace, so that it may change it. A view of no write (a
// tool, a test writing alone) holds every key.
func (db DB) Holds(key []byte) bool {
	w := db.w
	if w == nil {
		return true
	}
	if db.ns == w.NS && slices.ContainsFunc(w.Keys, func(k []byte) bool { return bytes.Equal(k, key) }) {
		return true
	}
	return slices.ContainsFunc(w.Also, func(k Key) bool { return k.NS == db.ns && bytes.Equal(k.Name, key) })
}

// Sibling returns the view of namespace ns that joins db's write.
func (db DB) Sibling(ns string) DB {
	db.ns = ns
	return db
}

// walFlusher tracks how much of the WAL buffer has reached the file.
type walFlusher struct {
	mu sync.Mutex // held by the one goroutine flushing; the others wait on it
	// flushed is the last sequence number known to be in the WAL file.
	flushed atomic.Uint64
}

// Durable returns once the WAL file holds every write up to sequence number
// target, flushing the WAL buffer if needed (rule 5). An error means the
// WAL could not be written and nothing since the last successful flush may
// be acknowledged.
func (s *Storage) Durable(target uint64) error {
	if s.wal.flushed.Load() >= target {
		return nil
	}
	s.life.RLock()
	defer s.life.RUnlock()
	// Let the goroutines that are about to write run first, so that one
	// flush covers their writes too: under load this makes one flush serve
	// many commands, at the cost of one scheduler yield.
	runtime.Gosched()
	s.wal.mu.Lock()
	defer s.wal.mu.Unlock()
	if s.wal.flushed.Load() >= target {
		return nil // flushed by the goroutine that held the lock
	}
	upto := s.db.GetLatestSequenceNumber()
	if err := s.db.FlushWAL(s.cfg.RocksDB.WriteSync.Get()); err != nil {
		return s.writeFailed("flush WAL", err)
	}
	s.wal.flushed.Store(upto)
	return nil
}
