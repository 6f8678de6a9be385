package storage

import (
	"math"
	"math/bits"
	"strconv"

	"github.com/basaltdb/basalt/metadata"
)

// BITOP and BITFIELD, on strings and bitmaps (see bitmap.go).

// BitOpKind is the operation of BITOP.
type BitOpKind uint8

// BITOP's operations.
const (
	BitAnd BitOpKind = iota
	BitOr
	BitXor
	BitNot
)

// bitSource is one source of BITOP: a string, a bitmap or nothing.
type bitSource struct {
	str  []byte
	bm   *bitmap
	size int64
}

// segment returns the bytes of segment seg in the bitmap's order (least
// significant bit first): a bitmap's from datas, a string's reversed.
func (s *bitSource) segment(seg uint64, data []byte) []byte {
	if s.bm != nil {
		return data
	}
	base := int64(seg) * metadata.BitmapSegmentBytes
	if base >= int64(len(s.str)) {
		return nil
	}
	src := s.str[base:min(int64(len(s.str)), base+metadata.BitmapSegmentBytes)]
	out := make([]byte, len(src))
	for i, b := range src {
		out[i] = bits.Reverse8(b)
	}
	return out
}

// bitOpChunk is how many segments BITOP reads per round trip.
const bitOpChunk = 64

// BitOp stores op applied to the sources into dst and returns the length
// of the result in bytes, the longest source's (shorter ones count as
// padded with zeros). dst becomes a new bitmap without expiry, with the
// segments Kvrocks writes (see bitOpSegment). A result of length 0 deletes
// dst. opName is op as the client spelled it, for the
// LogData. The sources are read a chunk of segments at a time.
func (db DB) BitOp(op BitOpKind, opName []byte, dst []byte, srcs [][]byte) (int64, error) {
	nsKeys := make([][]byte, len(srcs))
	for i, k := range srcs {
		nsKeys[i] = db.nsKey(k)
	}
	raws, err := db.multiGet(CFMetadata, nsKeys)
	if err != nil {
		return 0, err
	}
	sources := make([]bitSource, len(srcs))
	var size int64
	for i, raw := range raws {
		if raw == nil {
			continue
		}
		rec, found, err := decodeRecord(raw, db.now())
		switch {
		case err != nil:
			return 0, err
		case !found:
			continue
		case rec.meta.Type == metadata.TypeString:
			sources[i] = bitSource{str: rec.rest, size: int64(len(rec.rest))}
		case rec.meta.Type == metadata.TypeBitmap:
			// As stored (the lengths of the result's segments follow them);
			// the caller holds every key's lock.
			c := &collection{db: db, nsKey: nsKeys[i], key: srcs[i], meta: rec.meta, exists: true, writer: true}
			sources[i] = bitSource{bm: &bitmap{collection: c}, size: int64(rec.meta.Size)}
		default:
			return 0, ErrWrongType
		}
		size = max(size, sources[i].size)
	}
	dstKey := db.nsKey(dst)
	if size == 0 {
		_, found, err := db.lookup(dstKey)
		if err != nil || !found {
			return 0, err
		}
		return 0, db.delete(nil, CFMetadata, dstKey) // Kvrocks logs no LogData for it
	}
	args := append([][]byte{opName}, srcs...)
	b := db.newBatch(bitmapLog(LogBitOp, args...))
	m := metadata.New(metadata.TypeBitmap, db.s.versions.Next(nowTime()))
	m.Size = uint64(size)
	out := &collection{db: db, nsKey: dstKey, key: dst, meta: m}
	result := &bitmap{collection: out}
	segCount := uint64((size-1)/metadata.BitmapSegmentBytes + 1)
	for from := uint64(0); from < segCount; from += bitOpChunk {
		segs := segmentRange(from, min(segCount, from+bitOpChunk)-1)
		// The chunk's segments of every bitmap source in one round trip.
		var keys [][]byte
		for i := range sources {
			if bm := sources[i].bm; bm != nil {
				for _, seg := range segs {
					keys = append(keys, bm.segKey(seg))
				}
			}
		}
		vals, err := db.multiGet(CFDefault, keys)
		if err != nil {
			return 0, err
		}
		datas := make([][][]byte, len(sources))
		for i := range sources {
			if sources[i].bm != nil {
				datas[i], vals = vals[:len(segs)], vals[len(segs):]
			}
		}
		for k, seg := range segs {
			if v := bitOpSegment(op, sources, datas, k, seg, size); v != nil {
				b.put(CFDefault, result.segKey(seg), v)
			}
		}
	}
	b.put(CFMetadata, dstKey, m.AppendTo(nil))
	return size, b.commit()
}

// bitOpSegment computes segment seg (the k-th of the chunk datas holds) of
// the result, nil when it is not written, with the segments Kvrocks writes:
// for AND one where every source has the segment, for OR and XOR one where
// any has it, as long as the longest of them (as stored), even when it
// comes out all zeros; for NOT every segment, whole but cut to size.
func bitOpSegment(op BitOpKind, sources []bitSource, datas [][][]byte, k int, seg uint64, size int64) []byte {
	ins := make([][]byte, len(sources))
	n, present := 0, 0
	for i := range sources {
		var data []byte
		if datas[i] != nil {
			data = datas[i][k]
		}
		if ins[i] = sources[i].segment(seg, data); ins[i] != nil {
			present++
			n = max(n, len(ins[i]))
		}
	}
	switch {
	case op == BitNot:
		n = int(min(metadata.BitmapSegmentBytes, size-int64(seg)*metadata.BitmapSegmentBytes))
	case op == BitAnd && present < len(sources), present == 0:
		return nil
	}
	out := make([]byte, n)
	for j := range out {
		var v byte
		for i, in := range ins {
			var c byte
			if j < len(in) {
				c = in[j]
			}
			switch {
			case i == 0:
				v = c
			case op == BitAnd:
				v &= c
			case op == BitOr:
				v |= c
			case op == BitXor:
				v ^= c
			}
		}
		if op == BitNot {
			v = ^v
		}
		out[j] = v
	}
	return out
}

// BitFieldKind is the kind of a BITFIELD operation.
type BitFieldKind uint8

// BITFIELD's operations.
const (
	BitFieldGet BitFieldKind = iota
	BitFieldSet
	BitFieldIncrBy
)

// Overflow is BITFIELD's overflow behaviour.
type Overflow uint8

// OVERFLOW's choices.
const (
	OverflowWrap Overflow = iota
	OverflowSat
	OverflowFail
)

var overflowNames = [...]string{"WRAP", "SAT", "FAIL"}

// BitFieldOp is one operation of BITFIELD: a field of Bits (1..64 signed,
// 1..63 unsigned) at bit Offset, with Value for SET and INCRBY.
type BitFieldOp struct {
	Kind     BitFieldKind
	Signed   bool
	Bits     uint
	Offset   uint64
	Value    int64
	Overflow Overflow
}

// BitFieldResult is the reply to one operation: a value, or Nil when
// OVERFLOW FAIL refused it.
type BitFieldResult struct {
	Value int64
	Nil   bool
}

// bitSpace is bit-level access to a value in Redis's bit numbering.
type bitSpace interface {
	bit(n uint64) uint64
	setBit(n uint64, v uint64)
}

// stringBits is a string's value, most significant bit first.
type stringBits []byte

func (s stringBits) bit(n uint64) uint64 {
	if n/8 >= uint64(len(s)) {
		return 0
	}
	return uint64(s[n/8]>>(7-n%8)) & 1
}

func (s stringBits) setBit(n uint64, v uint64) {
	s[n/8] = s[n/8]&^(1<<(7-n%8)) | byte(v)<<(7-n%8)
}

// segmentBits is the segments of a bitmap that BITFIELD touches, least
// significant bit first.
type segmentBits struct {
	segs  map[uint64][]byte
	dirty map[uint64]bool
}

func (s *segmentBits) bit(n uint64) uint64 {
	d := s.segs[n/metadata.BitmapSegmentBits]
	j := n / 8 % metadata.BitmapSegmentBytes
	if j >= uint64(len(d)) {
		return 0
	}
	return uint64(d[j]>>(n%8)) & 1
}

func (s *segmentBits) setBit(n uint64, v uint64) {
	seg := n / metadata.BitmapSegmentBits
	d := s.segs[seg]
	j := int(n / 8 % metadata.BitmapSegmentBytes)
	if j >= len(d) {
		grown := make([]byte, metadata.BitmapSegmentLen(len(d), j))
		copy(grown, d)
		d = grown
		s.segs[seg] = d
	}
	old := d[j]
	d[j] = d[j]&^(1<<(n%8)) | byte(v)<<(n%8)
	// A bit set to what it was changes nothing (zeros past the stored
	// bytes of a segment are implied, up to the bitmap's size).
	if d[j] != old {
		s.dirty[seg] = true
	}
}

// BitField runs BITFIELD's operations in order and returns their replies.
// With no SET or INCRBY it only reads (a missing key reads as zeros);
// otherwise the value first grows to hold the farthest field written, as
// in Redis, an absent key becoming a new bitmap.
func (db DB) BitField(key []byte, ops []BitFieldOp) ([]BitFieldResult, error) {
	var highest uint64 // one past the last bit written
	for _, op := range ops {
		if op.Kind != BitFieldGet {
			highest = max(highest, op.Offset+uint64(op.Bits))
		}
	}
	if highest == 0 {
		return db.bitFieldRead(key, ops)
	}
	t, err := db.bitsForWrite(key)
	if err != nil {
		return nil, err
	}
	need := int64((highest-1)/8 + 1)
	out := make([]BitFieldResult, len(ops))
	if t.bm == nil {
		value := make([]byte, max(int64(len(t.rec.rest)), need))
		copy(value, t.rec.rest)
		// As in Redis 7, fields set to the values they had change nothing.
		if runBitField(stringBits(value), ops, out) || len(value) > len(t.rec.rest) {
			err = db.put(typeLog(metadata.TypeString), CFMetadata, t.nsKey, encodeString(value, t.rec.meta.Expire))
		}
		return out, err
	}
	bm := t.bm
	space, err := bm.touched(ops, t.found)
	if err != nil {
		return nil, err
	}
	runBitField(space, ops, out)
	b := db.newBatch(bitFieldLog(ops))
	for seg := range space.dirty {
		b.put(CFDefault, bm.segKey(seg), space.segs[seg])
	}
	if need > bm.size() {
		bm.meta.Size = uint64(need)
		b.put(CFMetadata, t.nsKey, bm.meta.AppendTo(nil))
	}
	return out, b.commit()
}

// touched reads the segments the operations' fields lie in (none of a
// bitmap not yet stored).
func (bm *bitmap) touched(ops []BitFieldOp, stored bool) (*segmentBits, error) {
	space := &segmentBits{segs: map[uint64][]byte{}, dirty: map[uint64]bool{}}
	var segs []uint64
	for _, op := range ops {
		first, last := op.Offset/metadata.BitmapSegmentBits, (op.Offset+uint64(op.Bits)-1)/metadata.BitmapSegmentBits
		for s := first; s <= last; s++ {
			if _, ok := space.segs[s]; !ok {
				space.segs[s] = nil
				segs = append(segs, s)
			}
		}
	}
	if !stored {
		return space, nil
	}
	datas, err := bm.segments(segs)
	if err != nil {
		return nil, err
	}
	for i, s := range segs {
		space.segs[s] = datas[i]
	}
	return space, nil
}

// bitFieldRead runs operations that are all GETs.
func (db DB) bitFieldRead(key []byte, ops []BitFieldOp) ([]BitFieldResult, error) {
	out := make([]BitFieldResult, len(ops))
	r, err := db.ReadBits(key)
	if err != nil {
		return nil, err
	}
	var space bitSpace = stringBits(nil)
	if r != nil {
		defer r.Close()
		space = stringBits(r.str)
		if r.bm != nil {
			if space, err = r.bm.touched(ops, true); err != nil {
				return nil, err
			}
		}
	}
	runBitField(space, ops, out)
	return out, nil
}

// bitFieldLog is the LogData Kvrocks writes for BITFIELD on a bitmap: its
// SET and INCRBY operations, each preceded by OVERFLOW when the behaviour
// differs from the previous one's (WRAP at first).
func bitFieldLog(ops []BitFieldOp) logData {
	var args [][]byte
	last := OverflowWrap
	for _, op := range ops {
		if op.Kind == BitFieldGet {
			continue
		}
		if op.Overflow != last {
			args = append(args, []byte("OVERFLOW"), []byte(overflowNames[op.Overflow]))
			last = op.Overflow
		}
		name := "SET"
		if op.Kind == BitFieldIncrBy {
			name = "INCRBY"
		}
		sign := byte('u')
		if op.Signed {
			sign = 'i'
		}
		args = append(args, []byte(name), strconv.AppendUint([]byte{sign}, uint64(op.Bits), 10),
			strconv.AppendUint(nil, op.Offset, 10), strconv.AppendInt(nil, op.Value, 10))
	}
	return bitmapLog(LogBitField, args...)
}

// runBitField applies ops to space as Redis's bitfieldGeneric does,
// filling out; it reports whether a SET or INCRBY changed its field's
// value (Redis 7 counts those only as changes of the key).
func runBitField(space bitSpace, ops []BitFieldOp, out []BitFieldResult) (changed bool) {
	for i, op := range ops {
		if op.Kind == BitFieldGet {
			if op.Signed {
				out[i].Value = getSignedField(space, op.Offset, op.Bits)
			} else {
				out[i].Value = int64(getUnsignedField(space, op.Offset, op.Bits))
			}
			continue
		}
		var newVal uint64
		var overflow bool
		if op.Signed {
			old := getSignedField(space, op.Offset, op.Bits)
			var nv int64
			var wrapped int64
			if op.Kind == BitFieldIncrBy {
				overflow, wrapped = signedOverflow(old, op.Value, op.Bits, op.Overflow)
				nv = old + op.Value
				if overflow {
					nv = wrapped
				}
				out[i].Value = nv
			} else {
				nv = op.Value
				if overflow, wrapped = signedOverflow(nv, 0, op.Bits, op.Overflow); overflow {
					nv = wrapped
				}
				out[i].Value = old
			}
			newVal = uint64(nv)
		} else {
			old := getUnsignedField(space, op.Offset, op.Bits)
			var wrapped uint64
			if op.Kind == BitFieldIncrBy {
				newVal = old + uint64(op.Value)
				if overflow, wrapped = unsignedOverflow(old, op.Value, op.Bits, op.Overflow); overflow {
					newVal = wrapped
				}
				out[i].Value = int64(newVal)
			} else {
				newVal = uint64(op.Value)
				if overflow, wrapped = unsignedOverflow(newVal, 0, op.Bits, op.Overflow); overflow {
					newVal = wrapped
				}
				out[i].Value = int64(old)
			}
		}
		if overflow && op.Overflow == OverflowFail {
			out[i] = BitFieldResult{Nil: true}
			continue
		}
		if getUnsignedField(space, op.Offset, op.Bits) != newVal&(^uint64(0)>>(64-op.Bits)) {
			changed = true
		}
		setField(space, op.Offset, op.Bits, newVal)
	}
	return changed
}

func getUnsignedField(s bitSpace, offset uint64, n uint) uint64 {
	var v uint64
	for j := uint64(0); j < uint64(n); j++ {
		v = v<<1 | s.bit(offset+j)
	}
	return v
}

func getSignedField(s bitSpace, offset uint64, n uint) int64 {
	v := getUnsignedField(s, offset, n)
	if n < 64 && v&(1<<(n-1)) != 0 {
		v |= math.MaxUint64 << n
	}
	return int64(v)
}

func setField(s bitSpace, offset uint64, n uint, v uint64) {
	for j := uint64(0); j < uint64(n); j++ {
		s.setBit(offset+j, v>>(uint64(n)-1-j)&1)
	}
}

// unsignedOverflow is Redis's checkUnsignedBitfieldOverflow: whether
// value+incr overflows an unsigned field of n bits, and the value WRAP or
// SAT stores instead.
func unsignedOverflow(value uint64, incr int64, n uint, ow Overflow) (bool, uint64) {
	maxV := uint64(1)<<n - 1
	maxIncr := int64(maxV - value)
	minIncr := -int64(value)
	var limit uint64
	switch {
	case value > maxV || (incr > 0 && incr > maxIncr):
		limit = maxV
	case incr < 0 && incr < minIncr:
		limit = 0
	default:
		return false, 0
	}
	if ow == OverflowWrap {
		limit = (value + uint64(incr)) &^ (math.MaxUint64 << n)
	}
	return true, limit
}

// signedOverflow is Redis's checkSignedBitfieldOverflow for a signed field
// of n bits.
func signedOverflow(value, incr int64, n uint, ow Overflow) (bool, int64) {
	maxV := int64(math.MaxInt64)
	if n < 64 {
		maxV = 1<<(n-1) - 1
	}
	minV := -maxV - 1
	maxIncr := int64(uint64(maxV) - uint64(value))
	minIncr := minV - value
	var limit int64
	switch {
	case value > maxV || (n != 64 && incr > maxIncr) || (value >= 0 && incr > 0 && incr > maxIncr):
		limit = maxV
	case value < minV || (n != 64 && incr < minIncr) || (value < 0 && incr < 0 && incr < minIncr):
		limit = minV
	default:
		return false, 0
	}
	if ow == OverflowWrap {
		c := uint64(value) + uint64(incr)
		if n < 64 {
			mask := uint64(math.MaxUint64) << n
			if c&(1<<(n-1)) != 0 {
				c |= mask
			} else {
				c &^= mask
			}
		}
		limit = int64(c)
	}
	return true, limit
}
