package bitmap

import (
	"math"
	"math/bits"
	"strconv"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
)

// BITOP and BITFIELD, on strings and bitmaps (see bitmap.go).

// OpKind is the operation of BITOP.
type OpKind uint8

// BITOP's operations; Redis 8.2 added the last four, where the first
// source X is compared with the others Y1..Yn: DIFF is X & ^(Y1|...|Yn),
// DIFF1 ^X & (Y1|...|Yn), ANDOR X & (Y1|...|Yn), and ONE has the bits set
// in exactly one source.
const (
	And OpKind = iota
	Or
	Xor
	Not
	Diff
	Diff1
	AndOr
	One
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

// Op stores op applied to the sources into dst and returns the length
// of the result in bytes, the longest source's (shorter ones count as
// padded with zeros) (BITOP). dst becomes a new bitmap without expiry, with
// the segments Kvrocks writes (see bitOpSegment). A result of length 0
// deletes dst. opName is op as the client spelled it, for the
// LogData. The sources are read a chunk of segments at a time.
func Op(db storage.DB, op OpKind, opName []byte, dst []byte, srcs [][]byte) (int64, error) {
	sources := make([]bitSource, len(srcs))
	var size int64
	err := db.LookupMany(nil, srcs, func(i int, o *storage.Object) error {
		switch {
		case o == nil:
			return nil
		case o.Meta().Type == metadata.TypeString:
			sources[i] = bitSource{str: o.Ext(), size: int64(len(o.Ext()))}
		case o.Meta().Type == metadata.TypeBitmap:
			// As stored (the lengths of the result's segments follow them);
			// the caller holds every key's lock.
			sources[i] = bitSource{bm: &bitmap{Object: o, db: db, writer: true}, size: int64(o.Meta().Size)}
		default:
			return storage.ErrWrongType
		}
		size = max(size, sources[i].size)
		return nil
	})
	if err != nil {
		return 0, err
	}
	if size == 0 {
		o, err := db.Lookup(dst)
		if err != nil || o == nil {
			return 0, err
		}
		b := db.NewBatch(nil) // Kvrocks logs no LogData for it
		b.Delete(storage.CFMetadata, o.NSKey())
		return 0, b.Commit()
	}
	args := append([][]byte{opName}, srcs...)
	b := db.NewBatch(bitmapLog(storage.LogBitOp, args...))
	out := db.NewObject(dst, metadata.TypeBitmap)
	m := out.Meta()
	m.Size = uint64(size)
	result := &bitmap{Object: out, db: db}
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
		vals, err := db.GetMany(nil, storage.CFDefault, keys)
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
				b.Put(storage.CFDefault, result.segKey(seg), v)
			}
		}
	}
	b.Put(storage.CFMetadata, out.NSKey(), m.AppendTo(nil))
	return size, b.Commit()
}

// bitOpSegment computes segment seg (the k-th of the chunk datas holds) of
// the result, nil when it is not written, with the segments Kvrocks writes:
// for AND one where every source has the segment, for OR and XOR one where
// any has it, as long as the longest of them (as stored), even when it
// comes out all zeros; for NOT every segment, whole but cut to size.
func bitOpSegment(op OpKind, sources []bitSource, datas [][][]byte, k int, seg uint64, size int64) []byte {
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
	othersPresent := present
	if ins[0] != nil {
		othersPresent--
	}
	switch {
	case op == Not:
		n = int(min(metadata.BitmapSegmentBytes, size-int64(seg)*metadata.BitmapSegmentBytes))
	case op == And && present < len(sources), present == 0,
		(op == Diff || op == AndOr) && ins[0] == nil,
		(op == Diff1 || op == AndOr) && othersPresent == 0:
		// The result's segment is all zeros: none is written.
		return nil
	}
	out := make([]byte, n)
	for j := range out {
		out[j] = combineByte(op, ins, j)
	}
	return out
}

// combineByte returns byte j of op applied to the sources' segments ins,
// where a segment shorter than j+1 bytes, or absent, has zeros.
func combineByte(op OpKind, ins [][]byte, j int) byte {
	var first, others, or, xor, once, twice byte
	and := byte(0xff)
	for i, in := range ins {
		var c byte
		if j < len(in) {
			c = in[j]
		}
		if i == 0 {
			first = c
		} else {
			others |= c
		}
		and, or, xor = and&c, or|c, xor^c
		twice |= once & c
		once |= c
	}
	switch op {
	case And:
		return and
	case Or:
		return or
	case Xor:
		return xor
	case Not:
		return ^first
	case Diff:
		return first &^ others
	case Diff1:
		return others &^ first
	case AndOr:
		return first & others
	}
	return once &^ twice // One
}

// FieldKind is the kind of a BITFIELD operation.
type FieldKind uint8

// BITFIELD's operations.
const (
	FieldGet FieldKind = iota
	FieldSet
	FieldIncrBy
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

// FieldOp is one operation of BITFIELD: a field of Bits (1..64 signed,
// 1..63 unsigned) at bit Offset, with Value for SET and INCRBY.
type FieldOp struct {
	Kind     FieldKind
	Signed   bool
	Bits     uint
	Offset   uint64
	Value    int64
	Overflow Overflow
}

// FieldResult is the reply to one operation: a value, or Nil when
// OVERFLOW FAIL refused it.
type FieldResult struct {
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

// Field runs BITFIELD's operations in order and returns their replies.
// With no SET or INCRBY it only reads (a missing key reads as zeros);
// otherwise the value first grows to hold the farthest field written, as
// in Redis, an absent key becoming a new bitmap.
func Field(db storage.DB, key []byte, ops []FieldOp) ([]FieldResult, error) {
	var highest uint64 // one past the last bit written
	for _, op := range ops {
		if op.Kind != FieldGet {
			highest = max(highest, op.Offset+uint64(op.Bits))
		}
	}
	if highest == 0 {
		return bitFieldRead(db, key, ops)
	}
	t, err := bitsForWrite(db, key)
	if err != nil {
		return nil, err
	}
	need := int64((highest-1)/8 + 1)
	out := make([]FieldResult, len(ops))
	if t.bm == nil {
		value := make([]byte, max(int64(len(t.Ext())), need))
		copy(value, t.Ext())
		// As in Redis 7, fields set to the values they had change nothing.
		if runBitField(stringBits(value), ops, out) || len(value) > len(t.Ext()) {
			err = t.putString(db, value)
		}
		return out, err
	}
	bm := t.bm
	space, err := bm.touched(ops, t.Exists())
	if err != nil {
		return nil, err
	}
	runBitField(space, ops, out)
	b := db.NewBatch(bitFieldLog(ops))
	for seg := range space.dirty {
		b.Put(storage.CFDefault, bm.segKey(seg), space.segs[seg])
	}
	if need > bm.size() {
		bm.Meta().Size = uint64(need)
		b.Put(storage.CFMetadata, t.NSKey(), bm.Meta().AppendTo(nil))
	}
	return out, b.Commit()
}

// touched reads the segments the operations' fields lie in (none of a
// bitmap not yet stored).
func (bm *bitmap) touched(ops []FieldOp, stored bool) (*segmentBits, error) {
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
func bitFieldRead(db storage.DB, key []byte, ops []FieldOp) ([]FieldResult, error) {
	out := make([]FieldResult, len(ops))
	r, err := Read(db, key)
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
func bitFieldLog(ops []FieldOp) storage.LogData {
	var args [][]byte
	last := OverflowWrap
	for _, op := range ops {
		if op.Kind == FieldGet {
			continue
		}
		if op.Overflow != last {
			args = append(args, []byte("OVERFLOW"), []byte(overflowNames[op.Overflow]))
			last = op.Overflow
		}
		name := "SET"
		if op.Kind == FieldIncrBy {
			name = "INCRBY"
		}
		sign := byte('u')
		if op.Signed {
			sign = 'i'
		}
		args = append(args, []byte(name), strconv.AppendUint([]byte{sign}, uint64(op.Bits), 10),
			strconv.AppendUint(nil, op.Offset, 10), strconv.AppendInt(nil, op.Value, 10))
	}
	return bitmapLog(storage.LogBitField, args...)
}

// runBitField applies ops to space as Redis's bitfieldGeneric does,
// filling out; it reports whether a SET or INCRBY changed its field's
// value (Redis 7 counts those only as changes of the key).
func runBitField(space bitSpace, ops []FieldOp, out []FieldResult) (changed bool) {
	for i, op := range ops {
		if op.Kind == FieldGet {
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
			if op.Kind == FieldIncrBy {
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
			if op.Kind == FieldIncrBy {
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
			out[i] = FieldResult{Nil: true}
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
