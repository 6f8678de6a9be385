package storage

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/linxGnu/grocksdb"
)

// RocksDB's WriteBatch wire format, which slot migration sends between
// nodes (APPLYBATCH) and reads back from the WAL: a 12-byte header (u64
// sequence, u32 record count, little-endian), then records, each a type
// byte, a varint column family id for the CF variants, and varint-prefixed
// key and value. Parsing is done here in Go so that no byte of a client's
// batch reaches RocksDB unchecked.

// The record types Basalt reads and writes.
const (
	recDelete           = 0x0
	recPut              = 0x1
	recLogData          = 0x3
	recCFDelete         = 0x4
	recCFPut            = 0x5
	recSingleDelete     = 0x7
	recCFSingleDelete   = 0x8
	recNoop             = 0xD
	recCFRangeDeletion  = 0xE
	recRangeDeletion    = 0xF
	rawBatchHeaderBytes = 12
)

// ErrBadBatch reports a raw write batch that cannot be parsed or names an
// unknown column family.
var ErrBadBatch = errors.New("invalid write batch")

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
	id := uint64(b.s.cfIDs[o.cf])
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

// parseRawBatch decodes a batch into operations on s's column families.
// The operations alias data. Log data and no-op records are skipped.
func (s *Storage) parseRawBatch(data []byte) ([]op, error) {
	if len(data) < rawBatchHeaderBytes {
		return nil, fmt.Errorf("%w: %d bytes, shorter than the header", ErrBadBatch, len(data))
	}
	want := binary.LittleEndian.Uint32(data[8:])
	r := rawReader{data: data[rawBatchHeaderBytes:]}
	var ops []op
	records := uint32(0)
	for len(r.data) > 0 {
		t := r.data[0]
		r.data = r.data[1:]
		o, counted, err := s.parseRecord(&r, t)
		if err != nil {
			return nil, err
		}
		if counted {
			records++
		}
		if o != nil {
			ops = append(ops, *o)
		}
	}
	if records != want {
		return nil, fmt.Errorf("%w: header says %d records, found %d", ErrBadBatch, want, records)
	}
	return ops, nil
}

// parseRecord decodes one record of type t. counted tells whether RocksDB
// counts it in the header (log data is not).
func (s *Storage) parseRecord(r *rawReader, t byte) (o *op, counted bool, err error) {
	cfID := uint64(0)
	switch t {
	case recCFDelete, recCFPut, recCFSingleDelete, recCFRangeDeletion:
		cfID = r.uvarint()
	}
	switch t {
	case recLogData:
		r.slice()
		return nil, false, r.err
	case recNoop:
		return nil, false, nil
	case recDelete, recCFDelete, recSingleDelete, recCFSingleDelete:
		o = &op{kind: opDelete, key: r.slice()}
	case recPut, recCFPut:
		o = &op{kind: opPut, key: r.slice()}
		o.value = r.slice()
	case recRangeDeletion, recCFRangeDeletion:
		o = &op{kind: opDeleteRange, key: r.slice()}
		o.value = r.slice()
	default:
		return nil, false, fmt.Errorf("%w: unsupported record type %#x", ErrBadBatch, t)
	}
	if r.err != nil {
		return nil, false, r.err
	}
	cf, ok := s.cfByID(cfID)
	if !ok {
		return nil, false, fmt.Errorf("%w: unknown column family id %d", ErrBadBatch, cfID)
	}
	o.cf = cf
	return o, true, nil
}

func (s *Storage) cfByID(id uint64) (CF, bool) {
	for cf, cid := range s.cfIDs {
		if s.cfs[cf] != nil && uint64(cid) == id {
			return CF(cf), true
		}
	}
	return 0, false
}

// rawReader reads varints and length-prefixed slices, remembering the
// first error.
type rawReader struct {
	data []byte
	err  error
}

func (r *rawReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.data)
	if n <= 0 {
		r.err = fmt.Errorf("%w: bad varint", ErrBadBatch)
		return 0
	}
	r.data = r.data[n:]
	return v
}

func (r *rawReader) slice() []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.data)) {
		r.err = fmt.Errorf("%w: truncated record", ErrBadBatch)
		return nil
	}
	out := r.data[:n]
	r.data = r.data[n:]
	return out
}

// ApplyBatch applies a raw write batch (APPLYBATCH) atomically and
// returns how many records it held. Once parsed, and so known to name
// only this database's column families, the bytes go to RocksDB as they
// are. Pop hints are dropped: the batch may add elements behind them.
func (s *Storage) ApplyBatch(data []byte) (int, error) {
	ops, err := s.parseRawBatch(data)
	if err != nil {
		return 0, err
	}
	wb := grocksdb.WriteBatchFrom(data)
	defer wb.Destroy()
	s.hints.reset()
	s.writeMu.Lock()
	err = s.db.Write(s.writeOptions(), wb)
	s.writeMu.Unlock()
	if err != nil {
		return 0, fmt.Errorf("storage: apply batch: %w", err)
	}
	return len(ops), nil
}
