package storage

import (
	"encoding/binary"
	"fmt"

	"github.com/linxGnu/grocksdb"
)

// WALTail follows the WAL from a sequence number on, for a replica's
// feed. Unlike ReadWALBatches, which opens a WAL iterator per call (and
// RocksDB then reads the WAL file from its start up to the sequence
// asked for), it keeps its iterator between reads: at the end of the
// file being written, RocksDB's iterator reads on from where it stopped
// when asked again, so following a busy WAL costs what it appends. A new
// iterator is opened only when the WAL moved on to a new file. A WALTail
// is used by one goroutine; Close it before the Storage closes.
type WALTail struct {
	s    *Storage
	it   *grocksdb.WalIterator
	next uint64 // the first sequence number not yet read
	// positioned is set while the iterator stands on a batch already
	// read: the next Read moves it first.
	positioned bool
}

// TailWAL returns a WALTail whose first batch is the one beginning at
// next.
func (s *Storage) TailWAL(next uint64) *WALTail { return &WALTail{s: s, next: next} }

// Next returns the first sequence number the tail has not read.
func (t *WALTail) Next() uint64 { return t.next }

// Read calls fn with every batch committed from Next on, in order, up to
// the latest one when it was called, and returns; fn may return
// ErrStopWAL to stop early. A batch that does not begin at Next fails the
// read with ErrWALNotRetained (the WAL no longer holds the sequence
// numbers, or they are inside a batch). b.Data is valid during fn only.
func (t *WALTail) Read(fn func(WALBatch) error) error {
	latest := t.s.LatestSequence()
	if t.next > latest {
		return nil
	}
	if err := t.s.Durable(latest); err != nil {
		return err
	}
	// Reopen and Restore wait for the read; they refuse to close the
	// database while a tail holds an iterator on it.
	t.s.life.RLock()
	defer t.s.life.RUnlock()
	reopened := false
	for t.next <= latest {
		if t.it == nil {
			it, err := t.s.db.GetUpdatesSince(t.next)
			if err != nil {
				return fmt.Errorf("storage: read WAL from %d: %w", t.next, walError(err))
			}
			t.s.pinned.Add(1)
			t.it, t.positioned = it, false
		}
		if t.positioned {
			t.it.Next()
			t.positioned = false
		}
		if !t.it.Valid() {
			// At the end of the files the iterator knows: the WAL went
			// on in a new file. One new iterator per read finds it.
			err := t.it.Err()
			t.it.Destroy()
			t.s.pinned.Add(-1)
			t.it = nil
			if reopened {
				if err != nil {
					return walError(err)
				}
				return nil
			}
			reopened = true
			continue
		}
		wb, seq := t.it.GetBatch()
		data := wb.Data()
		count := uint64(binary.LittleEndian.Uint32(data[8:]))
		t.positioned = true
		switch {
		case count == 0 || seq+count <= t.next:
			wb.Destroy()
			continue // read already
		case seq != t.next:
			wb.Destroy()
			return fmt.Errorf("%w: wanted the batch beginning at %d, the WAL has one at %d", ErrWALNotRetained, t.next, seq)
		}
		err := fn(WALBatch{Seq: seq, Count: count, Data: data})
		wb.Destroy()
		t.next = seq + count
		if err == ErrStopWAL {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Close frees the iterator.
func (t *WALTail) Close() {
	if t.it != nil {
		t.it.Destroy()
		t.s.pinned.Add(-1)
		t.it = nil
	}
}
