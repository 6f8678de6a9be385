package storage

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/linxGnu/grocksdb"
)

type opKind uint8

const (
	opPut opKind = iota
	opDelete
	opDeleteRange
	// opLogData is a LogData record: first in a command's batch (see
	// logdata.go), anywhere in a raw batch (ApplyBatch). It has no key: a
	// Group does not index it.
	opLogData
)

// op is one operation of a batch. For opDeleteRange, key and value are the
// range's start and end; for opLogData, value is the blob.
type op struct {
	kind       opKind
	cf         CF
	key, value []byte
	// uncached marks a range deletion of records no cache holds.
	uncached bool
}

// batch collects the operations of one command. The keys and values it is
// given must stay unmodified until commit returns.
type batch struct {
	s       *Storage
	g       *group // the group the batch joins; nil: it is written by itself
	ops     []op
	logged  int   // 1 when ops begins with the command's LogData
	indexed bool  // the Indexer saw it (indexer.go)
	inline  [4]op // ops of small batches, allocated with the batch
}

// newBatch starts a batch whose first record is log (nil: none).
func (s *Storage) newBatch(log LogData) *batch {
	b := &batch{s: s}
	b.ops = b.inline[:0]
	if log != nil {
		b.ops = append(b.ops, op{kind: opLogData, value: log})
		b.logged = 1
	}
	return b
}

func (b *batch) put(cf CF, key, value []byte) {
	b.ops = append(b.ops, op{kind: opPut, cf: cf, key: key, value: value})
}

func (b *batch) del(cf CF, key []byte) {
	b.ops = append(b.ops, op{kind: opDelete, cf: cf, key: key})
}

func (b *batch) delRange(cf CF, from, to []byte) {
	b.ops = append(b.ops, op{kind: opDeleteRange, cf: cf, key: from, value: to})
}

// delUncachedRange is delRange of records no cache holds (a list's
// elements, which are read around the elements cache): the caches go on
// serving what they hold, where a range deletion makes them forget all.
func (b *batch) delUncachedRange(cf CF, from, to []byte) {
	b.ops = append(b.ops, op{kind: opDeleteRange, cf: cf, key: from, value: to, uncached: true})
}

// writeBatches recycles RocksDB write batches, whose memory lives in C and
// so must be freed explicitly: a sync.Pool could drop them unfreed. A batch
// that grew past reusableBatchBytes is freed instead of kept.
type writeBatches chan *grocksdb.WriteBatch

const reusableBatchBytes = 1 << 20

func (p writeBatches) get() *grocksdb.WriteBatch {
	select {
	case wb := <-p:
		wb.Clear()
		return wb
	default:
		return grocksdb.NewWriteBatch()
	}
}

func (p writeBatches) put(wb *grocksdb.WriteBatch, bytes int) {
	if bytes <= reusableBatchBytes {
		select {
		case p <- wb:
			return
		default:
		}
	}
	wb.Destroy()
}

// close frees the pooled batches; no get or put may follow.
func (p writeBatches) close() {
	for {
		select {
		case wb := <-p:
			wb.Destroy()
		default:
			return
		}
	}
}

// commit applies the batch atomically. Its effects are visible when commit
// returns (in a group: to the group's members, and to everyone once the
// group is flushed); they are durable after the next Durable.
func (b *batch) commit() (err error) {
	if len(b.ops) == b.logged {
		return nil // nothing but LogData: nothing written
	}
	for _, o := range b.ops {
		if o.kind == opDeleteRange && bytes.Compare(o.key, o.value) > 0 {
			return fmt.Errorf("%w: begin %s, end %s in %s", errBackwardRange, quoteKey(o.key), quoteKey(o.value), o.cf)
		}
	}
	applied, err := b.index()
	if err != nil {
		return err
	}
	if applied != nil {
		defer func() { applied(err) }()
	}
	if limit := b.s.cfg.RocksDB.WriteBatchMaxBytes.Get(); limit > 0 && b.s.batchBytes(b.ops) > limit {
		return ErrBatchTooLarge
	}
	b.s.writes.Add(1)
	if b.g == nil {
		return b.s.write(b.ops)
	}
	if err := b.g.add(b.ops); err != nil || applied == nil {
		return err
	}
	b.g.flush()
	return b.g.err
}

// batchBytes is the size of ops as a RocksDB write batch, what
// rocksdb.write_options.write_batch_max_bytes bounds (as Kvrocks's batches
// are bounded): a 12-byte header, then per record a type byte, the column
// family's id unless it is 0, and each key or value after its varint
// length.
func (s *Storage) batchBytes(ops []op) int64 {
	n := int64(12)
	field := func(b []byte) int64 { return int64(uvarintLen(uint64(len(b))) + len(b)) }
	for _, o := range ops {
		n++
		if o.kind != opLogData && s.cfIDs[o.cf].Load() != 0 {
			n += int64(uvarintLen(uint64(s.cfIDs[o.cf].Load())))
		}
		switch o.kind {
		case opPut, opDeleteRange:
			n += field(o.key) + field(o.value)
		case opDelete:
			n += field(o.key)
		case opLogData:
			n += field(o.value)
		}
	}
	return n
}

// uvarintLen is the length of v as a varint.
func uvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

// Concurrent writers share RocksDB writes. The first writer to find none
// in progress leads: it applies its own ops, then, in rounds, everything
// queued meanwhile, each round with one RocksDB write. The others wait for
// the leader to apply theirs. Writers to different keys (different lock
// stripes) thus pay one write between them instead of taking turns at it,
// which matters most to pipelines, whose commands arrive faster than the
// turns go round. A writer's ops stay owned by it, and so unmodified, until
// it is told they are applied.

// maxCommitRounds bounds the rounds a leader applies for others before it
// hands the lead to the oldest waiting writer, so that its own client is
// not kept waiting for long.
const maxCommitRounds = 4

type commitQueue struct {
	mu      sync.Mutex     // guards the fields below
	leading bool           // a leader is applying writes
	pending []*queuedWrite // queued since its current round began, oldest first
	spare   []*queuedWrite // the slice of a finished round, reused for pending
}

// queuedWrite is a writer waiting for a leader. done is signalled when
// its ops are applied (err is the outcome) or when it is to lead itself.
type queuedWrite struct {
	ops  []op
	lead bool
	err  error
	done chan struct{}
}

var queuedWrites = sync.Pool{New: func() any { return &queuedWrite{done: make(chan struct{}, 1)} }}

// write applies ops atomically, possibly in one RocksDB write with the ops
// of concurrent writers.
func (s *Storage) write(ops []op) error {
	q := &s.commits
	q.mu.Lock()
	if !q.leading {
		q.leading = true
		q.mu.Unlock()
		return s.lead(ops)
	}
	w := queuedWrites.Get().(*queuedWrite)
	w.ops = ops
	q.pending = append(q.pending, w)
	q.mu.Unlock()
	<-w.done
	lead, err := w.lead, w.err
	w.ops, w.lead, w.err = nil, false, nil
	queuedWrites.Put(w)
	if lead {
		return s.lead(ops)
	}
	return err
}

// lead applies ops, then the writes queued meanwhile; see commitQueue.
func (s *Storage) lead(ops []op) error {
	q := &s.commits
	err := s.apply(ops, nil, true)
	var round []*queuedWrite
	for n := 0; ; n++ {
		q.mu.Lock()
		if round != nil {
			q.spare = round[:0]
		}
		if len(q.pending) == 0 {
			q.leading = false
			q.mu.Unlock()
			return err
		}
		if n == maxCommitRounds {
			next := q.pending[0]
			q.pending = q.pending[1:]
			q.mu.Unlock()
			next.lead = true
			next.done <- struct{}{}
			return err
		}
		round = q.pending
		q.pending = q.spare[:0]
		q.mu.Unlock()
		roundErr := s.apply(nil, round, true)
		for i, w := range round {
			w.err = roundErr
			round[i] = nil
			w.done <- struct{}{}
		}
	}
}

// apply writes ops and the ops of queued writers with one RocksDB write.
// A local write (not a master's batch a replica applies) ends with the
// replication id's marker, when there is one.
func (s *Storage) apply(ops []op, queued []*queuedWrite, local bool) error {
	wb := s.writeBatches.get()
	bytes := s.addOps(wb, ops)
	for _, w := range queued {
		bytes += s.addOps(wb, w.ops)
	}
	if marker := s.replMarker.Load(); local && marker != nil {
		wb.PutLogData(*marker)
	}
	err := s.writeRocksDB(wb, "write batch", func(phase writePhase) { s.tellMeta(ops, queued, phase) })
	s.writeBatches.put(wb, bytes)
	return err
}

// writeRocksDB is the one RocksDB write of every batch, apply's and the
// importer's: one at a time (writeMu), with the metadata cache told of
// the records it changes before and after (tell calls, metacache.go).
func (s *Storage) writeRocksDB(wb *grocksdb.WriteBatch, what string, tell func(writePhase)) error {
	tell(writeBegins)
	s.writeMu.Lock()
	err := s.db.Write(s.writeOptions(), wb)
	s.writeMu.Unlock()
	if err != nil {
		tell(writeFailed)
		return s.writeFailed(what, err)
	}
	tell(writeApplied)
	return nil
}

// tellMeta tells the record caches of the records a write changes,
// before it is applied and after (metacache.go).
func (s *Storage) tellMeta(ops []op, queued []*queuedWrite, phase writePhase) {
	for _, c := range s.caches() {
		c.writeOps(ops, phase)
		for _, w := range queued {
			c.writeOps(w.ops, phase)
		}
	}
}

// A batch RocksDB refuses while inserting it into the memtables (after it
// went to the WAL: a range deletion that ends before it begins, a merge
// without a merge operator, a wrong record count) leaves RocksDB in a
// background-error state in which it refuses every later write, and which
// only reopening the database clears. Basalt never sends such a batch:
// commit refuses backwards range deletions and parseRawBatch checks raw
// batches. Should RocksDB stop anyway (a bug, an I/O error it cannot
// resume from), the failure says so instead of failing each write with
// the first error's text, and WriteHealth reports it.

// ErrWritesStopped reports that RocksDB refuses every write since an
// earlier one failed; only restarting the server recovers.
var ErrWritesStopped = errors.New("storage: RocksDB has stopped accepting writes after a failed write; restart the server")

// errBackwardRange refuses a range deletion that ends before it begins.
var errBackwardRange = errors.New("storage: range deletion ends before it begins")

// writeFailed returns the error of a failed RocksDB write, after checking
// whether RocksDB still accepts writes at all; the first failure that
// stops it is logged.
func (s *Storage) writeFailed(what string, err error) error {
	if probe := s.WriteHealth(); probe != nil {
		if !s.writesStopped.Swap(true) {
			slog.Error("RocksDB has stopped accepting writes; every write fails until the server restarts", "failed", what, "err", err)
		}
		return fmt.Errorf("%w (%s: %v)", ErrWritesStopped, what, err)
	}
	return fmt.Errorf("storage: %s: %w", what, err)
}

// WriteHealth returns nil when RocksDB accepts writes, and otherwise an
// error wrapping ErrWritesStopped with the background error that stopped
// it. It writes an empty batch, which RocksDB refuses with its background
// error once it has stopped.
func (s *Storage) WriteHealth() error {
	wb := grocksdb.NewWriteBatch()
	defer wb.Destroy()
	s.writeMu.Lock()
	err := s.db.Write(s.writeOpts[1], wb)
	s.writeMu.Unlock()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrWritesStopped, err)
	}
	s.writesStopped.Store(false)
	return nil
}

// addOps adds ops to wb and returns the bytes of their keys and values.
func (s *Storage) addOps(wb *grocksdb.WriteBatch, ops []op) int {
	bytes := 0
	for _, o := range ops {
		bytes += len(o.key) + len(o.value)
		h := s.cfs[o.cf].Load()
		switch o.kind {
		case opPut:
			wb.PutCF(h, o.key, o.value)
		case opDelete:
			wb.DeleteCF(h, o.key)
		case opDeleteRange:
			wb.DeleteRangeCF(h, o.key, o.value)
		case opLogData:
			wb.PutLogData(o.value)
		}
	}
	return bytes
}
