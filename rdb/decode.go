package rdb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/basaltdb/basalt/num"
)

// Errors of Decode.
var (
	// ErrChecksum: the payload is shorter than its footer, its RDB version
	// is newer than MaxVersion, or its CRC64 does not match.
	ErrChecksum = errors.New("rdb: DUMP payload version or checksum are wrong")
	// ErrFormat: the value does not decode, or is an empty collection,
	// which Redis 7.0 refuses to restore.
	ErrFormat = errors.New("rdb: bad data format")
)

var errFormat = ErrFormat

// ErrUnsupportedType is an ErrFormat: a value of a type Basalt does not
// read (a module's, Redis 2.4's zipmap, an unknown one), whose number
// follows.
var ErrUnsupportedType = fmt.Errorf("%w: unsupported type", ErrFormat)

const footerSize = 10 // the RDB version and the CRC64

// Decode reads a DUMP payload of RDB version up to MaxVersion. The Value
// aliases payload.
func Decode(payload []byte) (*Value, error) {
	if err := checkFooter(payload); err != nil {
		return nil, err
	}
	// As Redis does, the value is read from the whole payload: a value
	// cut short reads on into the footer, and whatever follows the value
	// is left unread. Every read stays within the payload.
	r := &reader{src: &memSource{b: payload}}
	t, err := r.byte()
	if err != nil {
		return nil, err
	}
	if err := r.value(t); err != nil {
		return nil, err
	}
	v := &r.v
	switch {
	case v.Kind != String && v.Kind != Stream && len(v.Elems) == 0:
		return nil, errFormat // Redis 7.0 restores no empty key but a stream
	case v.Kind == Hash:
		err = distinct(v.Elems, 2)
	case v.Kind == Set || v.Kind == ZSet:
		err = distinct(v.Elems, 1)
	}
	return v, err
}

// checkFooter checks a payload's footer: an RDB version this package
// reads and the CRC64 of what precedes the checksum.
func checkFooter(payload []byte) error {
	if len(payload) < footerSize {
		return ErrChecksum
	}
	footer := payload[len(payload)-footerSize:]
	if binary.LittleEndian.Uint16(footer) > MaxVersion ||
		binary.LittleEndian.Uint64(footer[2:]) != checksum(payload[:len(payload)-8]) {
		return ErrChecksum
	}
	return nil
}

// reader decodes values from a source. It collects a value's elements in
// v; with flush set, it hands them over in chunks instead (flush then
// empties v), checking that members do not repeat across chunks.
type reader struct {
	src source
	// keep copies the elements out of the source, whose buffer a file
	// reuses; a payload's are aliased.
	keep  bool
	v     Value
	flush func(v *Value) error
	// size is what the elements in v take; arena holds the copies.
	size  int
	arena arena
	seen  *dedup
	// streamLast is the last entry of the stream being read, of
	// streamEntries so far (across chunks).
	streamLast    StreamID
	streamEntries uint64
}

// chunkBytes is how much of a value a reader collects before it hands the
// chunk to flush.
const chunkBytes = 1 << 20

func (r *reader) left() uint64 { return r.src.left() }

func (r *reader) byte() (byte, error) {
	b, err := r.src.next(1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

func (r *reader) bytes(n uint64) ([]byte, error) { return r.src.next(n) }

// length reads an RDB length; encoded reports a special string encoding
// (an integer or LZF), which n then names.
func (r *reader) length() (n uint64, encoded bool, err error) {
	c, err := r.byte()
	if err != nil {
		return 0, false, err
	}
	switch c >> 6 {
	case 0:
		return uint64(c), false, nil
	case 1:
		lo, err := r.byte()
		return uint64(c&0x3f)<<8 | uint64(lo), false, err
	case 3:
		return uint64(c & 0x3f), true, nil
	}
	switch c {
	case 0x80:
		b, err := r.bytes(4)
		if err != nil {
			return 0, false, err
		}
		return uint64(binary.BigEndian.Uint32(b)), false, nil
	case 0x81:
		b, err := r.bytes(8)
		if err != nil {
			return 0, false, err
		}
		return binary.BigEndian.Uint64(b), false, nil
	}
	return 0, false, errFormat
}

// plainLength reads a length that may not be a special encoding.
func (r *reader) plainLength() (uint64, error) {
	n, encoded, err := r.length()
	if err == nil && encoded {
		err = errFormat
	}
	return n, err
}

// count reads a collection's element count; each element takes at least
// perElem bytes, so a count the remaining bytes cannot hold is refused
// before anything is sized by it.
func (r *reader) count(perElem int) (int, error) {
	n, err := r.plainLength()
	if err != nil {
		return 0, err
	}
	if n > r.left()/uint64(perElem) {
		return 0, errFormat
	}
	return int(n), nil
}

// string reads a string in any of its encodings. What it returns is
// valid until the next read.
func (r *reader) string() ([]byte, error) {
	n, encoded, err := r.length()
	if err != nil {
		return nil, err
	}
	if !encoded {
		return r.bytes(n)
	}
	switch n {
	case 0:
		b, err := r.bytes(1)
		if err != nil {
			return nil, err
		}
		return strconv.AppendInt(nil, int64(int8(b[0])), 10), nil
	case 1:
		b, err := r.bytes(2)
		if err != nil {
			return nil, err
		}
		return strconv.AppendInt(nil, int64(int16(binary.LittleEndian.Uint16(b))), 10), nil
	case 2:
		b, err := r.bytes(4)
		if err != nil {
			return nil, err
		}
		return strconv.AppendInt(nil, int64(int32(binary.LittleEndian.Uint32(b))), 10), nil
	case 3:
		clen, err := r.plainLength()
		if err != nil {
			return nil, err
		}
		ulen, err := r.plainLength()
		if err != nil {
			return nil, err
		}
		data, err := r.bytes(clen)
		if err != nil {
			return nil, err
		}
		if ulen > clen*lzfMaxRatio {
			return nil, errFormat
		}
		out, ok := lzfDecompress(data, int(ulen))
		if !ok {
			return nil, errFormat
		}
		return out, nil
	}
	return nil, errFormat
}

// add adds an element (a list's, a set's member, a hash's field or
// value) to the chunk, copied when the source's buffer is reused; a
// member or field is checked against the earlier chunks'.
func (r *reader) add(e []byte, member bool) error {
	if r.keep {
		e = r.arena.copy(e)
	}
	return r.put(e, member)
}

// put is add of an element that stays valid until the chunk is flushed.
func (r *reader) put(e []byte, member bool) error {
	if member && r.seen != nil && !r.seen.add(e) {
		return fmt.Errorf("%w: a member repeats", errFormat)
	}
	r.v.Elems = append(r.v.Elems, e)
	r.size += len(e) + 16
	return nil
}

// addScored adds a sorted set's member, which stays valid until the chunk
// is flushed, and its score.
func (r *reader) addScored(m []byte, score float64) error {
	if math.IsNaN(score) {
		return errFormat
	}
	r.v.Scores = append(r.v.Scores, score)
	return r.put(m, true)
}

// chunkDone hands the chunk to flush once it is big enough; call it where
// a chunk may end (not between a field and its value).
func (r *reader) chunkDone() error {
	if r.flush == nil || r.size < chunkBytes {
		return nil
	}
	return r.flushChunk()
}

// flushChunk hands what v holds to flush and empties it.
func (r *reader) flushChunk() error {
	if err := r.flush(&r.v); err != nil {
		return err
	}
	r.emptyChunk()
	return nil
}

// emptyChunk forgets the elements in v, keeping their slices' memory.
func (r *reader) emptyChunk() {
	r.v.Elems, r.v.Scores, r.v.Entries, r.v.FieldExpires = r.v.Elems[:0], r.v.Scores[:0], r.v.Entries[:0], r.v.FieldExpires[:0]
	r.size = 0
	r.arena.reset()
}

// value reads a value of RDB type t into r.v (Kind, and Str or the
// elements), handing chunks of a long one to flush. A collection without
// elements reads as one: a file's loader skips it, Decode refuses it.
func (r *reader) value(t byte) error {
	r.v = Value{Elems: r.v.Elems[:0], Scores: r.v.Scores[:0], Entries: r.v.Entries[:0], FieldExpires: r.v.FieldExpires[:0]}
	switch t {
	case typeString:
		s, err := r.string()
		if err == nil && r.keep {
			s = append([]byte(nil), s...)
		}
		r.v.Kind, r.v.Str = String, s
		return err
	case typeList, typeSet:
		r.v.Kind = List
		if t == typeSet {
			r.v.Kind = Set
		}
		n, err := r.count(1)
		if err != nil {
			return err
		}
		for range n {
			s, err := r.string()
			if err != nil {
				return err
			}
			if err := r.add(s, t == typeSet); err != nil {
				return err
			}
			if err := r.chunkDone(); err != nil {
				return err
			}
		}
		return nil
	case typeHash:
		r.v.Kind = Hash
		n, err := r.count(2)
		if err != nil {
			return err
		}
		for range n {
			for _, field := range []bool{true, false} {
				s, err := r.string()
				if err != nil {
					return err
				}
				if err := r.add(s, field); err != nil {
					return err
				}
			}
			if err := r.chunkDone(); err != nil {
				return err
			}
		}
		return nil
	case typeZSet, typeZSet2:
		return r.zset(t)
	case typeListZiplist, typeHashZiplist, typeZSetZiplist, typeHashListpack, typeZSetListpack, typeSetListpack:
		return r.packed(t)
	case typeSetIntset:
		r.v.Kind = Set
		s, err := r.string()
		if err != nil {
			return err
		}
		elems, err := parseIntset(s)
		if err != nil {
			return err
		}
		for _, e := range elems {
			if err := r.add(e, true); err != nil {
				return err
			}
		}
		return nil
	case typeListQuicklist, typeListQuicklist2:
		return r.quicklist(t)
	case typeStreamListpacks, typeStreamListpacks2, typeStreamListpacks3:
		return r.stream(t)
	case typeHashMetadata, typeHashMetadataPreGA:
		return r.hashTableWithTTLs(t)
	case typeHashListpackEx, typeHashListpackExPreGA:
		return r.hashListpackWithTTLs(t)
	}
	// Modules (whose module Basalt does not have), the zipmap of Redis
	// 2.4, unknown types.
	return fmt.Errorf("%w: %d", ErrUnsupportedType, t)
}

// zset reads a sorted set of members and scores: scores as strings (type
// 3) or binary doubles (type 5).
func (r *reader) zset(t byte) error {
	r.v.Kind = ZSet
	perElem := 2
	if t == typeZSet2 {
		perElem = 9
	}
	n, err := r.count(perElem)
	if err != nil {
		return err
	}
	for range n {
		m, err := r.string()
		if err != nil {
			return err
		}
		if r.keep {
			// The score's read may reuse the buffer m points into.
			m = r.arena.copy(m)
		}
		var score float64
		if t == typeZSet2 {
			b, err := r.bytes(8)
			if err != nil {
				return err
			}
			score = math.Float64frombits(binary.LittleEndian.Uint64(b))
		} else if score, err = r.stringScore(); err != nil {
			return err
		}
		if err := r.addScored(m, score); err != nil {
			return err
		}
		if err := r.chunkDone(); err != nil {
			return err
		}
	}
	return nil
}

// stringScore reads a score as Redis's old rdbLoadDoubleValue: a length
// byte (253 NaN, 254 +inf, 255 -inf) and the number in ASCII.
func (r *reader) stringScore() (float64, error) {
	n, err := r.byte()
	if err != nil {
		return 0, err
	}
	switch n {
	case 253:
		return math.NaN(), nil
	case 254:
		return math.Inf(1), nil
	case 255:
		return math.Inf(-1), nil
	}
	b, err := r.bytes(uint64(n))
	if err != nil {
		return 0, err
	}
	return parseScore(b)
}

// parseScore reads a score written as text.
func parseScore(b []byte) (float64, error) {
	f, ok := num.ParseFloat(b)
	if !ok {
		return 0, errFormat
	}
	return f, nil
}

// packed reads a list, set, hash or sorted set packed in one ziplist or
// listpack.
func (r *reader) packed(t byte) error {
	s, err := r.string()
	if err != nil {
		return err
	}
	var elems [][]byte
	collect := func(e []byte) error { elems = append(elems, e); return nil }
	if t == typeHashListpack || t == typeZSetListpack || t == typeSetListpack {
		err = parseListpack(s, collect)
	} else {
		err = parseZiplist(s, collect)
	}
	if err != nil {
		return err
	}
	switch t {
	case typeListZiplist, typeSetListpack:
		r.v.Kind = List
		if t == typeSetListpack {
			r.v.Kind = Set
		}
		for _, e := range elems {
			if err := r.add(e, t == typeSetListpack); err != nil {
				return err
			}
		}
		return nil
	case typeHashZiplist, typeHashListpack:
		r.v.Kind = Hash
		if len(elems)%2 != 0 {
			return errFormat
		}
		for i, e := range elems {
			if err := r.add(e, i%2 == 0); err != nil {
				return err
			}
		}
		return nil
	}
	r.v.Kind = ZSet
	if len(elems)%2 != 0 {
		return errFormat
	}
	for i := 0; i < len(elems); i += 2 {
		score, err := parseScore(elems[i+1])
		if err != nil {
			return err
		}
		m := elems[i]
		if r.keep {
			m = r.arena.copy(m)
		}
		if err := r.addScored(m, score); err != nil {
			return err
		}
	}
	return nil
}

// quicklist reads a list of nodes: ziplists (type 14), or plain elements
// and listpacks (type 18). Empty nodes are skipped, as Redis skips them.
func (r *reader) quicklist(t byte) error {
	r.v.Kind = List
	n, err := r.count(1)
	if err != nil {
		return err
	}
	collect := func(e []byte) error { return r.add(e, false) }
	for range n {
		container := uint64(containerPacked)
		if t == typeListQuicklist2 {
			if container, err = r.plainLength(); err != nil {
				return err
			}
		}
		s, err := r.string()
		if err != nil {
			return err
		}
		switch {
		case t == typeListQuicklist:
			err = parseZiplist(s, collect)
		case container == containerPlain:
			err = r.add(s, false)
		case container == containerPacked:
			err = parseListpack(s, collect)
		default:
			err = errFormat
		}
		if err != nil {
			return err
		}
		if err := r.chunkDone(); err != nil {
			return err
		}
	}
	return nil
}

// distinct refuses a collection whose keys repeat (Redis's "duplicate
// fields" checks): every stride-th element from the first.
func distinct(elems [][]byte, stride int) error {
	seen := make(map[string]struct{}, len(elems)/stride)
	for i := 0; i < len(elems); i += stride {
		if _, dup := seen[string(elems[i])]; dup {
			return errFormat
		}
		seen[string(elems[i])] = struct{}{}
	}
	return nil
}
