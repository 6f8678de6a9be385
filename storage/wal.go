package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Reading the write-ahead log: every committed write batch, in commit
// order, as RocksDB logged it. Slot migration, POLLUPDATES and
// replication read it through ReadWALBatches.

// WALBatch is one committed write batch.
type WALBatch struct {
	// Seq is the sequence number of its first record and Count the
	// sequence numbers it takes (its header's record count).
	Seq, Count uint64
	// Data is the batch in RocksDB's WriteBatch wire format. It is valid
	// during the callback only.
	Data []byte
}

// Last returns the sequence number of the batch's last record.
func (b WALBatch) Last() uint64 { return b.Seq + b.Count - 1 }

var (
	// ErrWALNotRetained reports that the WAL no longer holds the sequence
	// numbers asked for: RocksDB removed the files holding them.
	ErrWALNotRetained = errors.New("storage: sequence no longer retained in the WAL")
	// ErrStopWAL, returned by a ReadWALBatches callback, ends the read
	// early without an error.
	ErrStopWAL = errors.New("storage: stop reading the WAL")
)

// errWALTail is RocksDB's "try again" at the end of the WAL file being
// written: a new iterator reads on.
var errWALTail = errors.New("storage: WAL iterator reached the tail")

// ReadWALBatches calls fn with every batch holding sequence numbers after
// after, in commit order, up to the latest one committed when it was
// called; the first batch may begin at or before after. It returns the
// last sequence number of the last batch fn was given (after if none).
// fn may return ErrStopWAL to end the read.
func (s *Storage) ReadWALBatches(after uint64, fn func(WALBatch) error) (uint64, error) {
	latest := s.db.GetLatestSequenceNumber()
	if latest <= after {
		return after, nil
	}
	// The WAL iterator reads files: the in-memory WAL buffer must reach
	// them first.
	if err := s.Durable(latest); err != nil {
		return after, err
	}
	last := after
	for stuck := 0; last < latest; {
		read, err := s.readWALFrom(last, latest, fn)
		switch {
		case errors.Is(err, ErrStopWAL):
			return read, nil
		case err == nil:
		case !errors.Is(err, errWALTail):
			return read, err
		case read > last:
			stuck = 0
		case stuck < 100:
			stuck++
			time.Sleep(time.Millisecond)
		default:
			return read, fmt.Errorf("storage: the WAL does not go past %d", read)
		}
		last = read
	}
	return last, nil
}

// readWALFrom is one pass of ReadWALBatches, with one WAL iterator.
func (s *Storage) readWALFrom(after, latest uint64, fn func(WALBatch) error) (uint64, error) {
	wal, err := s.db.GetUpdatesSince(after + 1)
	if err != nil {
		return after, fmt.Errorf("storage: read WAL from %d: %w", after+1, walError(err))
	}
	defer wal.Destroy()
	last := after
	for ; wal.Valid() && last < latest; wal.Next() {
		wb, seq := wal.GetBatch()
		b := WALBatch{Seq: seq, Data: wb.Data()}
		b.Count = uint64(binary.LittleEndian.Uint32(b.Data[8:]))
		switch {
		case b.Count == 0 || b.Last() <= last:
			wb.Destroy()
			continue // already read
		case seq > last+1:
			wb.Destroy()
			return last, fmt.Errorf("%w: wanted %d, the WAL starts at %d", ErrWALNotRetained, last+1, seq)
		}
		err := fn(b)
		wb.Destroy()
		if errors.Is(err, ErrStopWAL) {
			return b.Last(), err
		}
		if err != nil {
			return last, err
		}
		last = b.Last()
	}
	if err := wal.Err(); err != nil {
		return last, walError(err)
	}
	if last < latest {
		return last, errWALTail
	}
	return last, nil
}

// walError classifies a WAL iterator's error: the tail of the file being
// written (read on with a new iterator), a WAL whose files are gone, or a
// failure. grocksdb gives RocksDB's status only as text, hence the match.
func walError(err error) error {
	switch msg := err.Error(); {
	case strings.Contains(msg, "Try again"):
		return errWALTail
	case strings.Contains(msg, "Gap in sequence") || strings.Contains(msg, "NotFound"):
		return fmt.Errorf("%w: %v", ErrWALNotRetained, err)
	}
	return fmt.Errorf("storage: read WAL: %w", err)
}

// WALRecord is one record of a batch read from the WAL.
type WALRecord struct {
	Kind RecordKind
	CF   CF // not set for LogData
	// Key and Value: the key and value of a put, the key of a delete, the
	// begin and end of a range deletion, the blob of LogData (in Value).
	Key, Value []byte
}

// RecordKind is the kind of a WAL record.
type RecordKind uint8

// Kinds of WAL records.
const (
	RecordPut RecordKind = iota
	RecordDelete
	RecordDeleteRange
	RecordLogData
)

// WALRecords decodes a batch read from the WAL into its records,
// LogData included. The records' bytes point into data.
func (s *Storage) WALRecords(data []byte) ([]WALRecord, error) {
	ops, err := s.parseRawBatch(data, true)
	if err != nil {
		return nil, err
	}
	return walRecords(ops), nil
}

func walRecords(ops []op) []WALRecord {
	out := make([]WALRecord, len(ops))
	for i, o := range ops {
		out[i] = WALRecord{CF: o.cf, Key: o.key, Value: o.value}
		switch o.kind {
		case opPut:
			out[i].Kind = RecordPut
		case opDelete:
			out[i].Kind = RecordDelete
		case opDeleteRange:
			out[i].Kind = RecordDeleteRange
		case opLogData:
			out[i] = WALRecord{Kind: RecordLogData, Value: o.value}
		}
	}
	return out
}
