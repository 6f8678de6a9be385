package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc64"
	"io"
	"strconv"
)

// An RDB file (what SAVE writes): "REDIS" and a 4-digit version, then
// opcodes and keys until the EOF opcode, then (version 5 on) the CRC64
// of everything before it, little-endian; 0 when Redis ran with
// rdbchecksum no. A key is its value's type byte, the key as a string and
// the value as DUMP writes it, after the optional expire, LRU and LFU
// opcodes that belong to it.

// The opcodes of an RDB file (rdb.h).
const (
	// opSlotInfo (Redis 7.4, Valkey 8) sizes a cluster slot's tables:
	// the slot, its keys and its keys with a TTL, three lengths.
	opSlotInfo     = 0xf4
	opFunctionPre  = 0xf6 // Redis 7.0 release candidates only (0xf5, opFunction, is 7.0's)
	opModuleAux    = 0xf7
	opIdle         = 0xf8
	opFreq         = 0xf9
	opAux          = 0xfa
	opResizeDB     = 0xfb
	opExpireTimeMS = 0xfc
	opExpireTime   = 0xfd
	opSelectDB     = 0xfe
	opEOF          = 0xff
)

// Errors of reading a file; a value that does not decode is ErrFormat.
var (
	ErrSignature = errors.New("rdb: wrong signature trying to load DB from file")
	ErrVersion   = errors.New("rdb: unsupported RDB format version")
	// ErrFileChecksum wraps the checksum a file holds and the one of its
	// bytes.
	ErrFileChecksum = errors.New("rdb: wrong RDB checksum")
)

// Entry is a key ReadFile read, or a chunk of its value: a collection's
// elements come in chunks of about a megabyte, the first with First set,
// the last with Last set (one chunk may be both).
type Entry struct {
	DB     uint64
	Key    []byte
	Expire int64 // absolute Unix time in ms; 0: none
	// Value is the whole string, or a chunk of a collection's elements;
	// a collection without any reads as one chunk without elements, which
	// Redis skips ("empty keys skipped").
	Value       *Value
	First, Last bool
	// Function, when not nil, is a function library's code (Redis 7.0's
	// FUNCTION LOAD), which the file holds before its keys; Key and Value
	// are nil then.
	Function []byte
}

// FileInfo is what ReadFile learns about a file besides its keys.
type FileInfo struct {
	Version int
	// Aux holds the file's auxiliary fields (redis-ver, ctime, ...).
	Aux map[string]string
	// Skipped counts what Basalt has no place for: modules' auxiliary
	// data and keys.
	Skipped int
}

// ReadFile reads an RDB file of size bytes from r: versions 1 to 12, as
// Redis 2.6 to 7.4 (and Valkey 7.2 to 8) write them. It calls fn with every function library
// and every key, in file order;
// the Entry and everything it points to are valid only during the call.
// It never holds the file in memory: a value's elements are handed over
// in chunks. It does not check the trailing checksum (VerifyChecksum
// does, before). fn's error stops it and is returned.
func ReadFile(r io.Reader, size int64, fn func(*Entry) error) (*FileInfo, error) {
	if size < 0 {
		return nil, ErrTruncated
	}
	src := newStreamSource(r, uint64(size))
	rd := &reader{src: src, keep: true, seen: newDedup()}
	info, err := readHeader(rd)
	if err != nil {
		return nil, err
	}
	f := &fileReader{r: rd, info: info, fn: fn}
	rd.flush = f.chunk
	if err := f.run(); err != nil {
		return info, fmt.Errorf("%w (at byte %d)", err, src.consumed)
	}
	return info, nil
}

// readHeader reads the signature and version.
func readHeader(r *reader) (*FileInfo, error) {
	head, err := r.bytes(9)
	if err != nil || !bytes.Equal(head[:5], []byte("REDIS")) {
		return nil, ErrSignature
	}
	v, err := strconv.Atoi(string(head[5:]))
	if err != nil || v < 1 {
		return nil, ErrSignature
	}
	if v > MaxVersion {
		return nil, fmt.Errorf("%w %d", ErrVersion, v)
	}
	return &FileInfo{Version: v, Aux: map[string]string{}}, nil
}

// fileReader is the state of ReadFile between opcodes.
type fileReader struct {
	r      *reader
	info   *FileInfo
	fn     func(*Entry) error
	db     uint64
	expire int64 // of the next key
	entry  Entry
	name   []byte // the key being read
}

func (f *fileReader) run() error {
	r := f.r
	for {
		op, err := r.byte()
		if err != nil {
			return err
		}
		switch op {
		case opEOF:
			if f.info.Version >= 5 {
				_, err = r.bytes(8) // the checksum
			}
			return err
		case opSelectDB:
			f.db, err = r.plainLength()
		case opResizeDB:
			err = skipLengths(r, 2)
		case opSlotInfo:
			err = skipLengths(r, 3)
		case opAux:
			err = f.aux()
		case opExpireTimeMS:
			var b []byte
			if b, err = r.bytes(8); err == nil {
				f.expire = int64(binary.LittleEndian.Uint64(b))
			}
		case opExpireTime:
			var b []byte
			if b, err = r.bytes(4); err == nil {
				f.expire = int64(int32(binary.LittleEndian.Uint32(b))) * 1000
			}
		case opFreq:
			_, err = r.byte()
		case opIdle:
			_, err = r.plainLength()
		case opFunction:
			var code []byte
			if code, err = r.string(); err == nil {
				err = f.fn(&Entry{Function: code})
			}
		case opModuleAux:
			err = f.skipModuleAux()
			f.info.Skipped++
		case opFunctionPre:
			return fmt.Errorf("%w: the function format of Redis 7.0's release candidates", errFormat)
		default:
			err = f.key(op)
		}
		if err != nil {
			return err
		}
	}
}

// skipLengths reads n lengths Basalt has no use for.
func skipLengths(r *reader, n int) error {
	for range n {
		if _, err := r.plainLength(); err != nil {
			return err
		}
	}
	return nil
}

// aux reads an auxiliary field.
func (f *fileReader) aux() error {
	k, err := f.r.string()
	if err != nil {
		return err
	}
	key := string(k)
	v, err := f.r.string()
	if err != nil {
		return err
	}
	if len(f.info.Aux) < 64 {
		f.info.Aux[key] = string(v)
	}
	return nil
}

// key reads a key of value type t and hands it to fn in chunks.
func (f *fileReader) key(t byte) error {
	r := f.r
	expire := f.expire
	f.expire = 0
	k, err := r.string()
	if err != nil {
		return err
	}
	f.name = append(f.name[:0], k...)
	if t == typeModule2 {
		f.info.Skipped++
		return skipModuleValue(r)
	}
	f.entry = Entry{DB: f.db, Key: f.name, Expire: expire, First: true}
	r.seen.reset()
	if err := r.value(t); err != nil {
		return err
	}
	f.entry.Value, f.entry.Last = &r.v, true
	err = f.fn(&f.entry)
	r.emptyChunk()
	return err
}

// chunk hands fn a chunk of the value being read, which is not its last.
func (f *fileReader) chunk(v *Value) error {
	f.entry.Value = v
	err := f.fn(&f.entry)
	f.entry.First = false
	return err
}

// skipModuleAux skips a module's auxiliary data: the module's id, when it
// is loaded and its values.
func (f *fileReader) skipModuleAux() error {
	if err := skipLengths(f.r, 3); err != nil {
		return err
	}
	return skipModuleOpcodes(f.r)
}

// skipModuleValue skips a value of a module (type 7: the module's id,
// then typed fields).
func skipModuleValue(r *reader) error {
	if _, err := r.plainLength(); err != nil {
		return err
	}
	return skipModuleOpcodes(r)
}

// skipModuleOpcodes skips a module's typed fields up to their end marker.
func skipModuleOpcodes(r *reader) error {
	for {
		op, err := r.plainLength()
		if err != nil {
			return err
		}
		switch op {
		case 0: // EOF
			return nil
		case 1, 2: // signed and unsigned integers
			_, err = r.plainLength()
		case 3: // float
			_, err = r.bytes(4)
		case 4: // double
			_, err = r.bytes(8)
		case 5: // string
			_, err = r.string()
		default:
			return fmt.Errorf("%w: unknown module field type %d", errFormat, op)
		}
		if err != nil {
			return err
		}
	}
}

// VerifyChecksum reads the RDB file of size bytes from r and checks the
// CRC64 at its end against its bytes, as Redis does on loading: a file of
// version 5 or later whose checksum is not 0 (rdbchecksum no) must match.
// It reads the whole file and keeps nothing.
func VerifyChecksum(r io.Reader, size int64) error {
	head := make([]byte, 9)
	if _, err := io.ReadFull(r, head); err != nil {
		return ErrSignature
	}
	info, err := readHeader(&reader{src: &memSource{b: head}})
	if err != nil {
		return err
	}
	if info.Version < 5 {
		return nil
	}
	if size < 9+1+8 {
		return ErrTruncated
	}
	crc := crc64.Update(^uint64(0), jonesTable, head)
	buf := make([]byte, streamBuffer)
	for left := size - 9 - 8; left > 0; {
		n, err := io.ReadFull(r, buf[:min(int64(len(buf)), left)])
		if err != nil {
			return fmt.Errorf("%w (it shrank while being read)", ErrTruncated)
		}
		crc = crc64.Update(crc, jonesTable, buf[:n])
		left -= int64(n)
	}
	tail := buf[:8]
	if _, err := io.ReadFull(r, tail); err != nil {
		return fmt.Errorf("%w (it shrank while being read)", ErrTruncated)
	}
	want, got := binary.LittleEndian.Uint64(tail), ^crc
	if want != 0 && want != got {
		return fmt.Errorf("%w: the file says %d, its bytes %d", ErrFileChecksum, want, got)
	}
	return nil
}
