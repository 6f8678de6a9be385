package rdb

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"

	"github.com/basaltdb/basalt/num"
)

// Errors of Decode.
var (
	// ErrChecksum: the payload is shorter than its footer, its RDB version
	// is newer than Redis 7.0's, or its CRC64 does not match.
	ErrChecksum = errors.New("rdb: DUMP payload version or checksum are wrong")
	// ErrFormat: the value does not decode, or is an empty collection,
	// which Redis 7.0 refuses to restore.
	ErrFormat = errors.New("rdb: bad data format")
	// ErrStream: a stream, which Basalt does not store yet.
	ErrStream = errors.New("rdb: streams cannot be restored yet")
)

var errFormat = ErrFormat

const footerSize = 10 // the RDB version and the CRC64

// Decode reads a DUMP payload. The Value aliases payload.
func Decode(payload []byte) (*Value, error) {
	if len(payload) < footerSize {
		return nil, ErrChecksum
	}
	footer := payload[len(payload)-footerSize:]
	if binary.LittleEndian.Uint16(footer) > Version ||
		binary.LittleEndian.Uint64(footer[2:]) != checksum(payload[:len(payload)-8]) {
		return nil, ErrChecksum
	}
	// As Redis does, the value is read from the whole payload: a value
	// cut short reads on into the footer, and whatever follows the value
	// is left unread. Every read stays within the payload.
	r := &reader{b: payload}
	t, err := r.byte()
	if err != nil {
		return nil, err
	}
	return r.value(t)
}

// reader walks a payload's value; every read checks what remains.
type reader struct {
	b []byte
	p int
}

func (r *reader) left() int { return len(r.b) - r.p }

func (r *reader) byte() (byte, error) {
	if r.p >= len(r.b) {
		return 0, errFormat
	}
	r.p++
	return r.b[r.p-1], nil
}

func (r *reader) bytes(n uint64) ([]byte, error) {
	if n > uint64(r.left()) {
		return nil, errFormat
	}
	s := r.b[r.p : r.p+int(n)]
	r.p += int(n)
	return s, nil
}

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

// count reads a collection's element count, which may not be 0 (Redis 7.0
// restores no empty key); each element takes at least perElem bytes, so a
// count the remaining bytes cannot hold is refused before anything is
// sized by it.
func (r *reader) count(perElem int) (int, error) {
	n, err := r.plainLength()
	if err != nil {
		return 0, err
	}
	if n == 0 || n > uint64(r.left()/perElem) {
		return 0, errFormat
	}
	return int(n), nil
}

// string reads a string in any of its encodings.
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

// value reads a value of RDB type t.
func (r *reader) value(t byte) (*Value, error) {
	switch t {
	case typeString:
		s, err := r.string()
		return &Value{Kind: String, Str: s}, err
	case typeList, typeSet:
		n, err := r.count(1)
		if err != nil {
			return nil, err
		}
		elems := make([][]byte, 0, n)
		for range n {
			s, err := r.string()
			if err != nil {
				return nil, err
			}
			elems = append(elems, s)
		}
		if t == typeList {
			return &Value{Kind: List, Elems: elems}, nil
		}
		return &Value{Kind: Set, Elems: elems}, distinct(elems, 1)
	case typeHash:
		n, err := r.count(2)
		if err != nil {
			return nil, err
		}
		elems := make([][]byte, 0, 2*n)
		for range 2 * n {
			s, err := r.string()
			if err != nil {
				return nil, err
			}
			elems = append(elems, s)
		}
		return &Value{Kind: Hash, Elems: elems}, distinct(elems, 2)
	case typeZSet, typeZSet2:
		return r.zset(t)
	case typeListZiplist, typeHashZiplist, typeZSetZiplist, typeHashListpack, typeZSetListpack:
		return r.packed(t)
	case typeSetIntset:
		s, err := r.string()
		if err != nil {
			return nil, err
		}
		elems, err := parseIntset(s)
		if err == nil && len(elems) == 0 {
			err = errFormat
		}
		return &Value{Kind: Set, Elems: elems}, err
	case typeListQuicklist, typeListQuicklist2:
		return r.quicklist(t)
	case typeStreamListpacks, typeStreamListpack2:
		return nil, ErrStream
	}
	// Modules (whose module Basalt does not have), the zipmap of Redis
	// 2.4, unknown types.
	return nil, errFormat
}

// zset reads a sorted set of members and scores: scores as strings (type
// 3) or binary doubles (type 5).
func (r *reader) zset(t byte) (*Value, error) {
	perElem := 2
	if t == typeZSet2 {
		perElem = 9
	}
	n, err := r.count(perElem)
	if err != nil {
		return nil, err
	}
	v := &Value{Kind: ZSet, Elems: make([][]byte, 0, n), Scores: make([]float64, 0, n)}
	for range n {
		m, err := r.string()
		if err != nil {
			return nil, err
		}
		var score float64
		if t == typeZSet2 {
			b, err := r.bytes(8)
			if err != nil {
				return nil, err
			}
			score = math.Float64frombits(binary.LittleEndian.Uint64(b))
		} else if score, err = r.stringScore(); err != nil {
			return nil, err
		}
		if math.IsNaN(score) {
			return nil, errFormat
		}
		v.Elems, v.Scores = append(v.Elems, m), append(v.Scores, score)
	}
	return v, distinct(v.Elems, 1)
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

// packed reads a list, hash or sorted set packed in one ziplist or
// listpack.
func (r *reader) packed(t byte) (*Value, error) {
	s, err := r.string()
	if err != nil {
		return nil, err
	}
	var elems [][]byte
	collect := func(e []byte) error { elems = append(elems, e); return nil }
	if t == typeHashListpack || t == typeZSetListpack {
		err = parseListpack(s, collect)
	} else {
		err = parseZiplist(s, collect)
	}
	if err != nil {
		return nil, err
	}
	if len(elems) == 0 {
		return nil, errFormat
	}
	switch t {
	case typeListZiplist:
		return &Value{Kind: List, Elems: elems}, nil
	case typeHashZiplist, typeHashListpack:
		if len(elems)%2 != 0 {
			return nil, errFormat
		}
		return &Value{Kind: Hash, Elems: elems}, distinct(elems, 2)
	}
	if len(elems)%2 != 0 {
		return nil, errFormat
	}
	v := &Value{Kind: ZSet, Elems: make([][]byte, 0, len(elems)/2), Scores: make([]float64, 0, len(elems)/2)}
	for i := 0; i < len(elems); i += 2 {
		score, err := parseScore(elems[i+1])
		if err != nil {
			return nil, err
		}
		v.Elems, v.Scores = append(v.Elems, elems[i]), append(v.Scores, score)
	}
	return v, distinct(v.Elems, 1)
}

// quicklist reads a list of nodes: ziplists (type 14), or plain elements
// and listpacks (type 18). Empty nodes are skipped, as Redis skips them.
func (r *reader) quicklist(t byte) (*Value, error) {
	n, err := r.count(1)
	if err != nil {
		return nil, err
	}
	v := &Value{Kind: List}
	collect := func(e []byte) error { v.Elems = append(v.Elems, e); return nil }
	for range n {
		container := uint64(containerPacked)
		if t == typeListQuicklist2 {
			if container, err = r.plainLength(); err != nil {
				return nil, err
			}
		}
		s, err := r.string()
		if err != nil {
			return nil, err
		}
		switch {
		case t == typeListQuicklist:
			err = parseZiplist(s, collect)
		case container == containerPlain:
			v.Elems = append(v.Elems, s)
		case container == containerPacked:
			err = parseListpack(s, collect)
		default:
			err = errFormat
		}
		if err != nil {
			return nil, err
		}
	}
	if len(v.Elems) == 0 {
		return nil, errFormat
	}
	return v, nil
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
