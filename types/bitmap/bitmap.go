package bitmap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strconv"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
)

// Bit commands (SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD) work on
// two types. A string keeps its value in its metadata record, bit n being
// bit 7-n%8 of byte n/8 (Redis's order), and stays a string. A bitmap
// (FORMAT.md §4.6), which bit commands create on an absent key as Kvrocks
// does, keeps 1024-byte segments holding bit n at bit n%8 of its byte,
// least significant first. Either way the bits are Redis's: a bitmap reads
// as the string whose bits it holds, which GET returns, and every reply is
// the one Redis gives for that string. A bitmap is never loaded whole by
// these commands: they read the segments they need, or walk them one by
// one.

// ErrTooLarge refuses to render a bitmap longer than
// max-bitmap-to-string-mb as a string, as Kvrocks does.
var ErrTooLarge = errors.New("bitmap: the size of the bitmap string exceeds the configuration item max-bitmap-to-string-mb")

func init() {
	storage.RegisterType(metadata.TypeBitmap, storage.TypeHooks{String: bitmapString})
}

// bitmapLog returns the LogData of bitmap command cmd with its arguments.
func bitmapLog(cmd storage.LogCommand, args ...[]byte) storage.LogData {
	return storage.CommandLog(metadata.TypeBitmap, cmd, args...)
}

// bitmap is a bitmap key being read or written.
type bitmap struct {
	*storage.Object
	db storage.DB
	// writer is set for a writer, which holds the key's lock and reads
	// the latest.
	writer bool
	// rv is the snapshot a reader's reads of several segments are made
	// in, from the first such read on (pin); pinned tells it is taken.
	rv     storage.ReadView
	pinned bool
}

// pin takes the snapshot of a reader, unless it has one: records read
// together must be of one moment, which a read of one record (GETBIT's)
// is by itself.
func (bm *bitmap) pin() {
	if bm.writer || bm.pinned {
		return
	}
	bm.rv, bm.pinned = bm.db.ReadView(), true
}

// view is the snapshot reads are made in; nil: the latest.
func (bm *bitmap) view() *storage.ReadView {
	if !bm.pinned {
		return nil
	}
	return &bm.rv
}

// size is the bitmap's length in bytes.
func (bm *bitmap) size() int64 { return int64(bm.Meta().Size) }

// segKey returns the internal key of segment seg.
func (bm *bitmap) segKey(seg uint64) []byte {
	var buf [20]byte
	return bm.Subkey(metadata.AppendBitmapSegment(buf[:0], seg))
}

// clamp cuts segment seg's data to the bitmap's length: bytes past it are
// zero by definition (a segment may have grown past it by doubling).
func (bm *bitmap) clamp(seg uint64, data []byte) []byte {
	room := bm.size() - int64(seg)*metadata.BitmapSegmentBytes
	switch {
	case room <= 0:
		return nil
	case int64(len(data)) > room:
		return data[:room]
	}
	return data
}

// segments reads segments segs in one round trip; an absent segment is
// nil. A reader gets them cut to the length; a writer gets them as stored,
// so that it writes back the length Kvrocks would.
func (bm *bitmap) segments(segs []uint64) ([][]byte, error) {
	keys := make([][]byte, len(segs))
	for i, s := range segs {
		keys[i] = bm.segKey(s)
	}
	if len(segs) > 1 {
		bm.pin()
	}
	var out [][]byte
	var err error
	if bm.pinned {
		out, err = bm.db.GetMany(&bm.rv, storage.CFDefault, keys)
	} else {
		out, err = bm.GetElements(keys)
	}
	if err != nil {
		return nil, err
	}
	for i := range out {
		if out[i] != nil && !bm.writer {
			out[i] = bm.clamp(segs[i], out[i])
		}
	}
	return out, nil
}

// each calls fn with every segment present, cut to the length, in the
// order RocksDB keeps them (lexicographic, not numeric), until fn returns
// false. data is valid only during the call.
func (bm *bitmap) each(fn func(seg uint64, data []byte) bool) error {
	bm.pin()
	var bad error
	err := bm.Each(bm.view(), storage.CFDefault, nil, 0, func(sub, value []byte) bool {
		seg, ok := metadata.ParseBitmapSegment(sub)
		if !ok {
			bad = fmt.Errorf("%w: bitmap segment %q of %q", storage.ErrCorrupt, sub, bm.Key())
			return false
		}
		return fn(seg, bm.clamp(seg, value))
	})
	if bad != nil {
		return bad
	}
	return err
}

// Reader reads the bits of a string or bitmap key as of one snapshot,
// in Redis's order: for GETBIT, BITCOUNT, BITPOS and GET. Close must be
// called when done.
type Reader struct {
	str []byte  // a string's value
	bm  *bitmap // a bitmap; nil for a string
}

// Read opens key for reading its bits; nil when it does not exist.
// Another type than string and bitmap is ErrWrongType. The metadata comes
// from the cache; a bitmap's segments are read in a snapshot taken at
// the first read of more than one of them (pin).
func Read(db storage.DB, key []byte) (*Reader, error) {
	o, err := db.Lookup(key)
	if err != nil || o == nil {
		return nil, err
	}
	switch o.Meta().Type {
	case metadata.TypeString:
		return &Reader{str: o.Ext()}, nil
	case metadata.TypeBitmap:
		return &Reader{bm: &bitmap{Object: o, db: db}}, nil
	}
	return nil, storage.ErrWrongType
}

// Close releases the reader's snapshot, if it took one.
func (r *Reader) Close() {
	if r.bm != nil && r.bm.pinned {
		r.bm.rv.Release()
	}
}

// Len is the length of the value in bytes.
func (r *Reader) Len() int64 {
	if r.bm != nil {
		return r.bm.size()
	}
	return int64(len(r.str))
}

// Bit returns bit offset (0 past the end).
func (r *Reader) Bit(offset uint64) (int, error) {
	i := int64(offset / 8)
	if i >= r.Len() {
		return 0, nil
	}
	if r.bm == nil {
		return int(r.str[i]>>(7-offset%8)) & 1, nil
	}
	seg := offset / metadata.BitmapSegmentBits
	data, err := r.bm.segments([]uint64{seg})
	if err != nil {
		return 0, err
	}
	j := i % metadata.BitmapSegmentBytes
	if j >= int64(len(data[0])) {
		return 0, nil
	}
	return int(data[0][j]>>(offset%8)) & 1, nil
}

// directSegments is how many segments a range may span for Count and Pos
// to read them by point lookups (one MultiGet per chunk) rather than by
// walking the whole bitmap.
const directSegments = 64

// Count counts the set bits of bytes [start, end] (0 <= start <= end <
// Len), leaving out the bits of byte start in firstNeg and those of byte
// end in lastNeg (masks in Redis's order: BITCOUNT's BIT ranges).
func (r *Reader) Count(start, end int64, firstNeg, lastNeg byte) (int64, error) {
	if start > end {
		return 0, nil
	}
	if r.bm == nil {
		s := r.str[start : end+1]
		n := popcount(s)
		n -= int64(bits.OnesCount8(s[0]&firstNeg) + bits.OnesCount8(s[len(s)-1]&lastNeg))
		return n, nil
	}
	var n int64
	var first, last byte // bytes start and end, in Redis's order
	visit := func(seg uint64, data []byte) {
		base := int64(seg) * metadata.BitmapSegmentBytes
		lo, hi := max(start, base), min(end, base+int64(len(data))-1)
		if lo > hi {
			return
		}
		n += popcount(data[lo-base : hi-base+1])
		if lo == start {
			first = bits.Reverse8(data[start-base])
		}
		if hi == end {
			last = bits.Reverse8(data[end-base])
		}
	}
	from, to := uint64(start/metadata.BitmapSegmentBytes), uint64(end/metadata.BitmapSegmentBytes)
	if to-from < directSegments {
		segs := segmentRange(from, to)
		datas, err := r.bm.segments(segs)
		if err != nil {
			return 0, err
		}
		for i, d := range datas {
			visit(segs[i], d)
		}
	} else if err := r.bm.each(func(seg uint64, data []byte) bool {
		visit(seg, data)
		return true
	}); err != nil {
		return 0, err
	}
	n -= int64(bits.OnesCount8(first&firstNeg) + bits.OnesCount8(last&lastNeg))
	return n, nil
}

// Pos returns the offset of the first bit equal to bit (0 or 1) in bytes
// [start, end] (0 <= start <= end < Len), the bits of byte start in
// firstNeg and those of byte end in lastNeg (Redis's order) not counting
// as part of the range; -1 when there is none (BITPOS).
func (r *Reader) Pos(bit int, start, end int64, firstNeg, lastNeg byte) (int64, error) {
	if start > end {
		return -1, nil
	}
	if r.bm == nil {
		return scanBits(r.str, false, bit, start, end, start, end, firstNeg, lastNeg), nil
	}
	from, to := uint64(start/metadata.BitmapSegmentBytes), uint64(end/metadata.BitmapSegmentBytes)
	inSeg := func(seg uint64, data []byte) int64 {
		base := int64(seg) * metadata.BitmapSegmentBytes
		lo, hi := max(start, base), min(end, base+metadata.BitmapSegmentBytes-1)
		p := scanBits(data, true, bit, lo-base, hi-base, start-base, end-base, firstNeg, lastNeg)
		if p < 0 {
			return -1
		}
		return base*8 + p
	}
	// The first segments in order, by point lookups: where the bit is
	// near the start (the common case) nothing else is read.
	next := from
	for chunk := uint64(8); next <= to && next-from < directSegments; chunk *= 2 {
		segs := segmentRange(next, min(to, next+chunk-1))
		datas, err := r.bm.segments(segs)
		if err != nil {
			return 0, err
		}
		for i, d := range datas {
			if p := inSeg(segs[i], d); p >= 0 {
				return p, nil
			}
		}
		next = segs[len(segs)-1] + 1
	}
	if next > to {
		return -1, nil
	}
	// The rest by one walk over the segments present, in RocksDB's order:
	// the answer is the smallest candidate, and for a clear bit also the
	// first absent segment (all zeros).
	best := int64(-1)
	var present []uint64 // bit set of the segments in [next, to] present
	if bit == 0 {
		present = make([]uint64, (to-next)/64+1)
	}
	err := r.bm.each(func(seg uint64, data []byte) bool {
		if seg < next || seg > to {
			return true
		}
		if present != nil {
			i := seg - next
			present[i/64] |= 1 << (i % 64)
		}
		if best >= 0 && int64(seg)*metadata.BitmapSegmentBits > best {
			return true
		}
		if p := inSeg(seg, data); p >= 0 && (best < 0 || p < best) {
			best = p
		}
		return true
	})
	if err != nil {
		return 0, err
	}
	for w, word := range present {
		if word == ^uint64(0) {
			continue
		}
		seg := next + uint64(w*64+bits.TrailingZeros64(^word))
		if seg <= to {
			// A segment after the first byte of the range: its first bit
			// is in the range and clear.
			if p := int64(seg) * metadata.BitmapSegmentBits; best < 0 || p < best {
				best = p
			}
		}
		break
	}
	return best, nil
}

// segmentRange returns the segment numbers from..to.
func segmentRange(from, to uint64) []uint64 {
	out := make([]uint64, 0, to-from+1)
	for s := from; s <= to; s++ {
		out = append(out, s)
	}
	return out
}

// scanBits returns the position, counted from the start of data, of the
// first bit equal to bit among bytes [lo, hi] of data (bytes past its end
// are 0). lsb says data holds bitmap bytes (least significant bit first),
// else Redis's order. The bits in firstNeg of byte first and in lastNeg of
// byte last (Redis's order) are outside the range. -1 when none.
func scanBits(data []byte, lsb bool, bit int, lo, hi, first, last int64, firstNeg, lastNeg byte) int64 {
	at := func(i int64) int64 {
		var b byte
		if i < int64(len(data)) {
			b = data[i]
			if lsb {
				b = bits.Reverse8(b)
			}
		}
		var neg byte
		if i == first {
			neg |= firstNeg
		}
		if i == last {
			neg |= lastNeg
		}
		if bit == 1 {
			b &^= neg
		} else {
			b = ^(b | neg)
		}
		if b == 0 {
			return -1
		}
		return i*8 + int64(bits.LeadingZeros8(b))
	}
	// The masked bytes one by one, the others by skipping whole words of
	// non-matching bytes.
	if lo == first && firstNeg != 0 {
		if p := at(lo); p >= 0 || lo == hi {
			return p
		}
		lo++
	}
	mid := hi
	if hi == last && lastNeg != 0 {
		mid--
	}
	if lo <= mid {
		skip := byte(0)
		if bit == 0 {
			skip = 0xff
		}
		if i := firstOtherByte(data, lo, mid, skip); i >= 0 {
			return at(i)
		}
	}
	if mid < hi {
		return at(hi)
	}
	return -1
}

// firstOtherByte returns the first index in [lo, hi] whose byte is not
// skip (bytes past the end of data are 0), -1 when none.
func firstOtherByte(data []byte, lo, hi int64, skip byte) int64 {
	end := min(hi+1, int64(len(data)))
	word := uint64(skip) * 0x0101010101010101
	i := lo
	for ; i+8 <= end; i += 8 {
		if binary.LittleEndian.Uint64(data[i:]) != word {
			break
		}
	}
	for ; i < end; i++ {
		if data[i] != skip {
			return i
		}
	}
	if i <= hi && skip != 0 {
		return i // the zeros past the end
	}
	return -1
}

// popcount counts the set bits of b.
func popcount(b []byte) int64 {
	var n int
	for len(b) >= 32 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(b)) + bits.OnesCount64(binary.LittleEndian.Uint64(b[8:])) +
			bits.OnesCount64(binary.LittleEndian.Uint64(b[16:])) + bits.OnesCount64(binary.LittleEndian.Uint64(b[24:]))
		b = b[32:]
	}
	for len(b) >= 8 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	for _, c := range b {
		n += bits.OnesCount8(c)
	}
	return int64(n)
}

// String returns the value in Redis's order: a string's bytes, or a
// bitmap's bytes with the bits of each reversed. A bitmap longer than
// max-bitmap-to-string-mb is ErrTooLarge. The slice is the caller's.
func (r *Reader) String() ([]byte, error) {
	if r.bm == nil {
		return r.str, nil
	}
	if limit := maxBitmapString(r.bm.db); r.bm.size() > limit {
		return nil, ErrTooLarge
	}
	out := make([]byte, r.bm.size())
	err := r.bm.each(func(seg uint64, data []byte) bool {
		if len(data) == 0 {
			return true
		}
		dst := out[seg*metadata.BitmapSegmentBytes:]
		for i, b := range data {
			dst[i] = bits.Reverse8(b)
		}
		return true
	})
	return out, err
}

// maxBitmapString is max-bitmap-to-string-mb in bytes.
func maxBitmapString(db storage.DB) int64 {
	return db.Storage().Config().MaxBitmapToStringMB.Get() << 20
}

// bitmapString returns the value of key, a bitmap when it was looked up,
// as a string in Redis's order (GET on a bitmap: TypeHooks.String); found
// is false when the key is gone meanwhile.
func bitmapString(db storage.DB, key []byte) (value []byte, found bool, err error) {
	r, err := Read(db, key)
	if err != nil || r == nil {
		return nil, false, err
	}
	defer r.Close()
	v, err := r.String()
	return v, err == nil, err
}

// bitTarget is a string or bitmap key read for a write under its lock:
// its record, or fresh bitmap metadata when it is absent.
type bitTarget struct {
	*storage.Object
	bm *bitmap // nil for a string
}

// bitsForWrite reads key for a bit write. An absent or dead key becomes a
// new bitmap with a new version, as Kvrocks creates.
func bitsForWrite(db storage.DB, key []byte) (bitTarget, error) {
	o, err := db.LookupOrNew(key, metadata.TypeBitmap)
	if err != nil {
		return bitTarget{}, err
	}
	t := bitTarget{Object: o}
	switch {
	case o.Meta().Type == metadata.TypeBitmap:
		t.bm = &bitmap{Object: o, db: db, writer: true}
	case o.Meta().Type != metadata.TypeString:
		return bitTarget{}, storage.ErrWrongType
	}
	return t, nil
}

// putString writes the string value of t, a string key.
func (t bitTarget) putString(db storage.DB, value []byte) error {
	b := db.NewBatch(storage.TypeLog(metadata.TypeString))
	b.Put(storage.CFMetadata, t.NSKey(), storage.EncodeString(value, t.Meta().Expire))
	return b.Commit()
}

// SetBit sets or clears bit offset of key and returns its old value
// (SETBIT). Bytes past the end are added as zeros. Nothing is written
// when the bit and the length stay the same.
func SetBit(db storage.DB, key []byte, offset uint64, on bool) (int, error) {
	t, err := bitsForWrite(db, key)
	if err != nil {
		return 0, err
	}
	var v byte
	if on {
		v = 1
	}
	byteAt := int64(offset / 8)
	if t.bm == nil {
		old := t.Ext()
		n := max(int64(len(old)), byteAt+1)
		if n == int64(len(old)) && old[byteAt]>>(7-offset%8)&1 == v {
			return int(v), nil
		}
		value := make([]byte, n)
		copy(value, old)
		prev := value[byteAt] >> (7 - offset%8) & 1
		value[byteAt] = value[byteAt]&^(1<<(7-offset%8)) | v<<(7-offset%8)
		return int(prev), t.putString(db, value)
	}
	bm := t.bm
	seg := offset / metadata.BitmapSegmentBits
	var data []byte
	if t.Exists() {
		datas, err := bm.segments([]uint64{seg})
		if err != nil {
			return 0, err
		}
		data = datas[0]
	}
	j := int(byteAt % metadata.BitmapSegmentBytes)
	shift := offset % 8
	var prev byte
	if j < len(data) {
		prev = data[j] >> shift & 1
	}
	grows := byteAt+1 > bm.size()
	if t.Exists() && !grows && prev == v {
		return int(prev), nil
	}
	if j >= len(data) {
		grown := make([]byte, metadata.BitmapSegmentLen(len(data), j))
		copy(grown, data)
		data = grown
	}
	data[j] = data[j]&^(1<<shift) | v<<shift
	b := db.NewBatch(bitmapLog(storage.LogSetBit, strconv.AppendUint(nil, offset, 10)))
	b.Put(storage.CFDefault, bm.segKey(seg), data)
	if grows {
		bm.Meta().Size = uint64(byteAt + 1)
		b.Put(storage.CFMetadata, t.NSKey(), bm.Meta().AppendTo(nil))
	}
	return int(prev), b.Commit()
}
