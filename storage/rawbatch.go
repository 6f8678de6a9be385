package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// RocksDB's WriteBatch wire format, which slot migration sends between
// nodes (APPLYBATCH) and reads back from the WAL: a 12-byte header (u64
// sequence, u32 record count, little-endian), then records, each a type
// byte, a varint32 column family id for the CF variants, and
// varint32-prefixed key and value. Parsing is done here in Go so that no
// byte of a client's batch reaches RocksDB unchecked: RocksDB writes a
// batch to the WAL before it inserts it into the memtables, and a record
// the memtable refuses (a range deletion that ends before it begins, a
// merge without a merge operator, a wrong count, an unknown column
// family) puts RocksDB in a background-error state in which it refuses
// every later write until the database is reopened.

// The record types of RocksDB's WriteBatch (ValueType in db/dbformat.h).
const (
	recDelete                   = 0x0
	recPut                      = 0x1
	recMerge                    = 0x2
	recLogData                  = 0x3
	recCFDelete                 = 0x4
	recCFPut                    = 0x5
	recCFMerge                  = 0x6
	recSingleDelete             = 0x7
	recCFSingleDelete           = 0x8
	recBeginPrepareXID          = 0x9
	recEndPrepareXID            = 0xA
	recCommitXID                = 0xB
	recRollbackXID              = 0xC
	recNoop                     = 0xD
	recCFRangeDeletion          = 0xE
	recRangeDeletion            = 0xF
	recCFBlobIndex              = 0x10
	recBlobIndex                = 0x11
	recBeginPersistedPrepareXID = 0x12
	recBeginUnprepareXID        = 0x13
	recDeletionWithTimestamp    = 0x14
	recCommitXIDAndTimestamp    = 0x15
	recWideColumnEntity         = 0x16
	recCFWideColumnEntity       = 0x17
	rawBatchHeaderBytes         = 12
)

// unsupportedRecords names the record types RocksDB knows but Basalt does
// not apply: transaction markers, blob indexes, timestamps and wide
// columns, none of which a Kvrocks or Basalt node writes.
var unsupportedRecords = map[byte]string{
	recBeginPrepareXID:          "begin-prepare",
	recEndPrepareXID:            "end-prepare",
	recCommitXID:                "commit",
	recRollbackXID:              "rollback",
	recCFBlobIndex:              "blob index",
	recBlobIndex:                "blob index",
	recBeginPersistedPrepareXID: "begin-persisted-prepare",
	recBeginUnprepareXID:        "begin-unprepare",
	recDeletionWithTimestamp:    "deletion with timestamp",
	recCommitXIDAndTimestamp:    "commit with timestamp",
	recWideColumnEntity:         "wide-column entity",
	recCFWideColumnEntity:       "wide-column entity",
}

// ErrBadBatch reports a raw write batch that is malformed or that RocksDB
// would refuse; the message says what and where.
var ErrBadBatch = errors.New("invalid write batch")

// ErrBatchTooSmall is an ErrBadBatch shorter than a batch's header.
var ErrBatchTooSmall = fmt.Errorf("%w: too small", ErrBadBatch)

// RawBatch builds a write batch in RocksDB's wire format.
type RawBatch struct {
	s     *Storage
	buf   []byte
	count uint32
}

// NewRawBatch returns an empty batch whose records name s's column
// families.
func (s *Storage) NewRawBatch() *RawBatch {
	return &RawBatch{s: s, buf: make([]byte, rawBatchHeaderBytes, 4096)}
}

// Reset empties the batch, keeping its memory.
func (b *RawBatch) Reset() {
	b.buf, b.count = b.buf[:rawBatchHeaderBytes], 0
}

// Len returns the number of records.
func (b *RawBatch) Len() int { return int(b.count) }

// Size returns the encoded size in bytes.
func (b *RawBatch) Size() int { return len(b.buf) }

// Bytes returns the encoded batch; it aliases the batch's memory until the
// next change.
func (b *RawBatch) Bytes() []byte {
	binary.LittleEndian.PutUint32(b.buf[8:], b.count)
	return b.buf
}

func (b *RawBatch) add(o op) {
	id := uint64(b.s.cfIDs[o.cf].Load())
	switch o.kind {
	case opPut:
		b.buf = append(b.buf, recCFPut)
	case opDelete:
		b.buf = append(b.buf, recCFDelete)
	case opDeleteRange:
		b.buf = append(b.buf, recCFRangeDeletion)
	}
	b.buf = binary.AppendUvarint(b.buf, id)
	b.buf = binary.AppendUvarint(b.buf, uint64(len(o.key)))
	b.buf = append(b.buf, o.key...)
	if o.kind != opDelete {
		b.buf = binary.AppendUvarint(b.buf, uint64(len(o.value)))
		b.buf = append(b.buf, o.value...)
	}
	b.count++
}

// Put adds a put of key in cf.
func (b *RawBatch) Put(cf CF, key, value []byte) {
	b.add(op{kind: opPut, cf: cf, key: key, value: value})
}

// parseRawBatch checks a raw batch the way RocksDB reads it and decodes
// it into operations on s's column families. The operations alias data.
// No-op records are skipped, and log data too unless logData is set; then
// each is an op of kind opLogData. A single deletion is an opDelete. It
// fails with ErrBadBatch, naming the record and its offset, unless every
// record is well formed, of a type Basalt applies, in one of Kvrocks's
// column families, and the header counts them exactly; a range deletion
// must end after it begins.
func (s *Storage) parseRawBatch(data []byte, logData bool) ([]op, error) {
	if len(data) < rawBatchHeaderBytes {
		return nil, fmt.Errorf("%w: %d bytes, shorter than the %d-byte header", ErrBatchTooSmall, len(data), rawBatchHeaderBytes)
	}
	want := binary.LittleEndian.Uint32(data[8:])
	r := rawReader{data: data, off: rawBatchHeaderBytes}
	var ops []op
	counted := uint32(0)
	for n := 1; r.off < len(r.data); n++ {
		start := r.off
		o, noop, err := s.parseRecord(&r)
		if err != nil {
			return nil, fmt.Errorf("%w: record %d at byte %d: %w", ErrBadBatch, n, start, err)
		}
		switch {
		case noop:
		case o.kind == opLogData:
			if logData {
				ops = append(ops, o)
			}
		case counted == math.MaxUint32:
			return nil, fmt.Errorf("%w: more than %d records", ErrBadBatch, uint32(math.MaxUint32))
		default:
			counted++
			ops = append(ops, o)
		}
	}
	if counted != want {
		return nil, fmt.Errorf("%w: the header counts %d records, the batch holds %d", ErrBadBatch, want, counted)
	}
	return ops, nil
}

// parseRecord decodes the record at r; noop is set for a no-op record.
func (s *Storage) parseRecord(r *rawReader) (o op, noop bool, err error) {
	t := r.data[r.off]
	r.off++
	if name, ok := unsupportedRecords[t]; ok {
		return op{}, false, fmt.Errorf("%s records (type 0x%02x) are not supported", name, t)
	}
	cf := CFDefault
	switch t {
	case recCFDelete, recCFPut, recCFMerge, recCFSingleDelete, recCFRangeDeletion:
		id, err := r.varint32("column family id")
		if err != nil {
			return op{}, false, err
		}
		var ok bool
		if cf, ok = s.cfByID(id); !ok {
			return op{}, false, fmt.Errorf("unknown column family id %d", id)
		}
	}
	switch t {
	case recLogData:
		blob, err := r.slice("log data")
		return op{kind: opLogData, value: blob}, false, err
	case recNoop:
		return op{}, true, nil
	case recDelete, recCFDelete, recSingleDelete, recCFSingleDelete:
		// A single deletion becomes a deletion when applied: RocksDB
		// fails flushes and compactions, and so stops taking writes and
		// even refuses to open, when a key has both kinds.
		key, err := r.slice("key")
		return op{kind: opDelete, cf: cf, key: key}, false, err
	case recPut, recCFPut, recMerge, recCFMerge:
		key, err := r.slice("key")
		if err != nil {
			return op{}, false, err
		}
		value, err := r.slice("value")
		if err != nil {
			return op{}, false, err
		}
		if t == recMerge || t == recCFMerge {
			// No column family has a merge operator: RocksDB would
			// refuse the batch after writing it to the WAL.
			return op{}, false, fmt.Errorf("merge record in column family %s: there is no merge operator", cf)
		}
		return op{kind: opPut, cf: cf, key: key, value: value}, false, nil
	case recRangeDeletion, recCFRangeDeletion:
		begin, err := r.slice("range begin")
		if err != nil {
			return op{}, false, err
		}
		end, err := r.slice("range end")
		if err != nil {
			return op{}, false, err
		}
		if bytes.Compare(begin, end) >= 0 {
			return op{}, false, fmt.Errorf("range deletion in column family %s: end %s is not after begin %s", cf, quoteKey(end), quoteKey(begin))
		}
		return op{kind: opDeleteRange, cf: cf, key: begin, value: end}, false, nil
	}
	return op{}, false, fmt.Errorf("unknown record type 0x%02x", t)
}

// quoteKey renders a key of an error message, cut to a readable length.
func quoteKey(k []byte) string {
	const most = 64
	if len(k) > most {
		return fmt.Sprintf("%q... (%d bytes)", k[:most], len(k))
	}
	return fmt.Sprintf("%q", k)
}

func (s *Storage) cfByID(id uint32) (CF, bool) {
	for _, c := range s.openCFs() {
		if c.h.ID() == id {
			return c.cf, true
		}
	}
	// A master makes the index column family at its first time series:
	// so does a replica, when the id is the one it gets.
	if s.cfs[CFIndex].Load() == nil && s.EnsureIndexCF() == nil && s.cfIDs[CFIndex].Load() == id {
		return CFIndex, true
	}
	return 0, false
}

// rawReader reads varint32s and length-prefixed slices from data at off,
// as RocksDB's GetVarint32 and GetLengthPrefixedSlice do.
type rawReader struct {
	data []byte
	off  int
}

// varint32 reads a varint of at most 5 bytes whose value fits 32 bits.
func (r *rawReader) varint32(what string) (uint32, error) {
	v, n := binary.Uvarint(r.data[r.off:])
	switch {
	case n == 0:
		return 0, fmt.Errorf("%s: the batch ends inside its varint", what)
	case n < 0 || n > binary.MaxVarintLen32 || v > math.MaxUint32:
		return 0, fmt.Errorf("%s: varint does not fit 32 bits", what)
	}
	r.off += n
	return uint32(v), nil
}

// slice reads a varint32 length and that many bytes.
func (r *rawReader) slice(what string) ([]byte, error) {
	n, err := r.varint32(what + " length")
	if err != nil {
		return nil, err
	}
	if left := len(r.data) - r.off; uint64(n) > uint64(left) {
		return nil, fmt.Errorf("%s of %d bytes runs past the end of the batch (%d bytes left)", what, n, left)
	}
	out := r.data[r.off : r.off+int(n)]
	r.off += int(n)
	return out, nil
}

// ApplyBatch applies a raw write batch (APPLYBATCH) atomically and
// returns how many records it held. A batch parseRawBatch refuses fails
// with ErrBadBatch and changes nothing. What RocksDB gets is rebuilt from
// the parsed records, log data included, so that only the kinds of
// record Basalt writes itself reach it. Pop hints are dropped: the batch
// may add elements behind them. It is a local write: it ends with this
// node's replication id marker, if any. before, when not nil, is called
// with the batch's records once they parsed, before they are applied.
func (s *Storage) ApplyBatch(data []byte, before func([]WALRecord)) (int, error) {
	ops, _, err := s.applyRaw(data, true, before)
	n := 0
	for _, o := range ops {
		if o.kind != opLogData {
			n++
		}
	}
	return n, err
}

// ApplyReplicated is ApplyBatch for a batch of the master's a replica
// applies: written as the master wrote it, without a marker of its own.
// It returns the batch's records, LogData included, for the replica's
// side effects (published messages, namespaces, scripts, the readers of
// the keys); their bytes point into data.
func (s *Storage) ApplyReplicated(data []byte, before func([]WALRecord)) ([]WALRecord, error) {
	ops, records, err := s.applyRaw(data, false, before)
	if err != nil {
		return nil, err
	}
	if records == nil {
		records = walRecords(ops)
	}
	return records, nil
}

// applyRaw parses and applies a raw batch; records are its records when
// before was called with them, else nil.
func (s *Storage) applyRaw(data []byte, local bool, before func([]WALRecord)) (ops []op, records []WALRecord, err error) {
	if ops, err = s.parseRawBatch(data, true); err != nil {
		return nil, nil, err
	}
	if before != nil {
		records = walRecords(ops)
		before(records)
	}
	s.hints.reset()
	// A raw batch takes no key lock: it may change any key, behind the
	// back of caches kept under the keys' locks.
	s.lockless.Add(1)
	defer s.lockless.Add(1)
	if err := s.apply(ops, nil, local); err != nil {
		return nil, nil, err
	}
	return ops, records, nil
}
