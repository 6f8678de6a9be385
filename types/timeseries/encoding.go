package timeseries

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/basaltdb/basalt/metadata"
)

// The stored bytes of a series (KVROCKS-TYPES.md §6.1–6.3). Integers are
// big-endian unless said otherwise; the facts are tagged there with how
// sure they are, and the comments below repeat the tags that matter.

// TypeNumber is the metadata type of a series, flags 0x8d [doc][new-src].
const TypeNumber metadata.Type = 13

// TypeName is what TYPE answers for a series. Kvrocks's code read says
// "timeseries" [new-src:01861cf] (KVROCKS-TYPES.md §0.1, [unknown whether
// final]); RedisTimeSeries answers TSDB-TYPE.
const TypeName = "timeseries"

// DefaultChunkSize is the number of samples per chunk of a series created
// without CHUNK_SIZE (§6.1: Kvrocks stores the number as given and means
// samples, not bytes).
const DefaultChunkSize = 1024

// Encoding is a series's chunk_type byte. Only uncompressed chunks are
// ever written, whatever it says (§6.1 [new-src]).
type Encoding uint8

// The chunk types.
const (
	Uncompressed Encoding = 0
	Compressed   Encoding = 1
)

// Policy is what a write does with a timestamp the series already holds
// (§6.1 codes, §9.3 semantics).
type Policy uint8

// The duplicate policies, numbered as stored. PolicyNone is no stored
// code: an ON_DUPLICATE that was not given.
const (
	PolicyBlock Policy = 0
	PolicyFirst Policy = 1
	PolicyLast  Policy = 2
	PolicyMin   Policy = 3
	PolicyMax   Policy = 4
	PolicySum   Policy = 5
	PolicyNone  Policy = 0xff
)

var policyNames = [...]string{"block", "first", "last", "min", "max", "sum"}

// String is the policy's name as TS.INFO prints it (lower case).
func (p Policy) String() string {
	if int(p) < len(policyNames) {
		return policyNames[p]
	}
	return "unknown"
}

// Meta is a series's metadata extension: what follows the common header
// (flags 0x8d, expire, version, size = number of chunks) in its metadata
// record (§6.1).
type Meta struct {
	Retention int64    // ms; 0 keeps samples forever
	ChunkSize uint64   // samples per chunk [doc]
	Encoding  Encoding // as given at creation; chunks are uncompressed
	Duplicate Policy
	// SourceKey is the user key of the series whose compaction rule
	// writes into this one; empty unless the series is a destination.
	SourceKey []byte
	// LastTimestamp is the newest sample's timestamp as last written,
	// which the compaction filter measures retention from (PR #3177).
	// Records written before that PR end before it [inferred]; HasLast
	// says whether the record held it.
	LastTimestamp int64
	HasLast       bool
	// IgnoreTime and IgnoreValue are TS.CREATE's IGNORE. Kvrocks stores
	// no such field: Basalt appends both after LastTimestamp, and only
	// when one is not zero, so that every other record is Kvrocks's
	// bytes [Basalt].
	IgnoreTime  int64
	IgnoreValue float64
}

// NewMeta is the extension of a series created with no option.
func NewMeta() Meta {
	return Meta{ChunkSize: DefaultChunkSize, Encoding: Uncompressed, Duplicate: PolicyBlock, HasLast: true}
}

// AppendTo appends the encoded extension to dst (the caller has
// appended the common header before it).
func (m *Meta) AppendTo(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(m.Retention))
	dst = binary.BigEndian.AppendUint64(dst, m.ChunkSize)
	dst = append(dst, byte(m.Encoding), byte(m.Duplicate))
	dst = appendSized(dst, m.SourceKey)
	if !m.HasLast && m.IgnoreTime == 0 && m.IgnoreValue == 0 {
		return dst
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(m.LastTimestamp))
	if m.IgnoreTime == 0 && m.IgnoreValue == 0 {
		return dst
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(m.IgnoreTime))
	return metadata.AppendScore(dst, m.IgnoreValue)
}

// DecodeMeta parses the extension (metadata.Decode's rest). The result
// copies what it keeps of ext.
func DecodeMeta(ext []byte) (Meta, error) {
	var m Meta
	if len(ext) < 8+8+1+1+4 {
		return m, fmt.Errorf("%w: metadata extension of %d bytes", ErrCorrupt, len(ext))
	}
	m.Retention = int64(binary.BigEndian.Uint64(ext))
	m.ChunkSize = binary.BigEndian.Uint64(ext[8:])
	m.Encoding = Encoding(ext[16])
	m.Duplicate = Policy(ext[17])
	src, rest, ok := cutSized(ext[18:])
	if !ok || m.Retention < 0 || m.Duplicate > PolicySum || m.Encoding > Compressed {
		return m, fmt.Errorf("%w: metadata extension %x", ErrCorrupt, ext)
	}
	if len(src) > 0 {
		m.SourceKey = bytes.Clone(src)
	}
	switch len(rest) {
	case 0:
		return m, nil
	case 8, 8 + 16:
	default:
		return m, fmt.Errorf("%w: metadata extension ends with %d bytes", ErrCorrupt, len(rest))
	}
	m.HasLast = true
	m.LastTimestamp = int64(binary.BigEndian.Uint64(rest))
	if len(rest) == 8 {
		return m, nil
	}
	m.IgnoreTime = int64(binary.BigEndian.Uint64(rest[8:]))
	m.IgnoreValue, _ = metadata.DecodeScore(rest[16:])
	if m.IgnoreTime < 0 || !(m.IgnoreValue >= 0) {
		return m, fmt.Errorf("%w: IGNORE fields %x", ErrCorrupt, rest[8:])
	}
	return m, nil
}

// The first byte of every subkey of a series says what it is (§6.2).
const (
	kindChunk      = 0x00
	kindLabel      = 0x01
	kindDownstream = 0x02
)

// ChunkSubkeyLen is the length of a chunk's subkey.
const ChunkSubkeyLen = 9

// AppendChunkSubkey appends the subkey of the chunk whose first sample is
// at id: 00 | u64 id.
func AppendChunkSubkey(dst []byte, id int64) []byte {
	dst = append(dst, kindChunk)
	return binary.BigEndian.AppendUint64(dst, uint64(id))
}

// ParseChunkSubkey returns the id a chunk subkey holds.
func ParseChunkSubkey(sub []byte) (int64, error) {
	if len(sub) != ChunkSubkeyLen || sub[0] != kindChunk || sub[1] >= 0x80 {
		return 0, fmt.Errorf("%w: chunk subkey %x", ErrCorrupt, sub)
	}
	return int64(binary.BigEndian.Uint64(sub[1:])), nil
}

// ChunkPrefix, LabelPrefix and RulePrefix are the one-byte prefixes of
// the three kinds of subkeys, for the engine's prefix walks.
var (
	ChunkPrefix = []byte{kindChunk}
	LabelPrefix = []byte{kindLabel}
	RulePrefix  = []byte{kindDownstream}
)

// AppendLabelSubkey appends the subkey of a label: 01 | name. Its value
// is the label's value bytes.
func AppendLabelSubkey(dst, name []byte) []byte {
	return append(append(dst, kindLabel), name...)
}

// ParseLabelSubkey returns the label name of a label subkey; it aliases
// sub.
func ParseLabelSubkey(sub []byte) ([]byte, error) {
	if len(sub) < 2 || sub[0] != kindLabel {
		return nil, fmt.Errorf("%w: label subkey %x", ErrCorrupt, sub)
	}
	return sub[1:], nil
}

// AppendRuleSubkey appends the subkey of a compaction rule of this
// series (a "downstream"): 02 | destination user key.
func AppendRuleSubkey(dst, destKey []byte) []byte {
	return append(append(dst, kindDownstream), destKey...)
}

// ParseRuleSubkey returns the destination key of a rule subkey; it
// aliases sub.
func ParseRuleSubkey(sub []byte) ([]byte, error) {
	if len(sub) < 2 || sub[0] != kindDownstream {
		return nil, fmt.Errorf("%w: rule subkey %x", ErrCorrupt, sub)
	}
	return sub[1:], nil
}

// Sample is one point of a series.
type Sample struct {
	TS int64
	V  float64
}

// chunkHeaderLen is the length of a chunk value's header, sampleLen that
// of each sample after it.
const (
	chunkHeaderLen = 8
	sampleLen      = 16
)

// AppendChunk appends the value of an uncompressed chunk holding samples
// (sorted by timestamp, unique): u32 flags (0) | u32 count, then each
// sample as a little-endian u64 timestamp and a little-endian IEEE
// float64 [new-src:21bdd9a].
func AppendChunk(dst []byte, samples []Sample) []byte {
	dst = slices.Grow(dst, chunkHeaderLen+len(samples)*sampleLen)
	dst = binary.BigEndian.AppendUint32(dst, 0)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(samples)))
	for _, s := range samples {
		dst = binary.LittleEndian.AppendUint64(dst, uint64(s.TS))
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(s.V))
	}
	return dst
}

// Chunk is a stored chunk value, read in place: it aliases the bytes it
// was made from.
type Chunk struct {
	b []byte
	n int
}

// ParseChunk checks a chunk value: an uncompressed chunk whose length
// matches its count and whose timestamps rise. A compressed chunk (flag
// bit 0) is refused: no Kvrocks writes one (§6.1).
func ParseChunk(b []byte) (Chunk, error) {
	if len(b) < chunkHeaderLen {
		return Chunk{}, fmt.Errorf("%w: chunk of %d bytes", ErrCorrupt, len(b))
	}
	flags := binary.BigEndian.Uint32(b)
	count := uint64(binary.BigEndian.Uint32(b[4:]))
	if flags != 0 || uint64(len(b)-chunkHeaderLen) != count*sampleLen {
		return Chunk{}, fmt.Errorf("%w: chunk header %x with %d bytes", ErrCorrupt, b[:chunkHeaderLen], len(b))
	}
	c := Chunk{b: b[chunkHeaderLen:], n: int(count)}
	for i := 1; i < c.n; i++ {
		if c.TS(i) <= c.TS(i-1) {
			return Chunk{}, fmt.Errorf("%w: chunk timestamps out of order at %d", ErrCorrupt, i)
		}
	}
	if c.n > 0 && c.TS(0) < 0 {
		return Chunk{}, fmt.Errorf("%w: negative timestamp", ErrCorrupt)
	}
	return c, nil
}

// Len is the number of samples in the chunk.
func (c Chunk) Len() int { return c.n }

// TS is the timestamp of the i-th sample.
func (c Chunk) TS(i int) int64 { return int64(binary.LittleEndian.Uint64(c.b[i*sampleLen:])) }

// At is the i-th sample.
func (c Chunk) At(i int) Sample {
	return Sample{TS: c.TS(i), V: math.Float64frombits(binary.LittleEndian.Uint64(c.b[i*sampleLen+8:]))}
}

// Search is the index of the first sample at or after ts (Len when none).
func (c Chunk) Search(ts int64) int {
	lo, hi := 0, c.n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if c.TS(mid) < ts {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// Samples copies the chunk's samples out.
func (c Chunk) Samples() []Sample {
	out := make([]Sample, c.n)
	for i := range out {
		out[i] = c.At(i)
	}
	return out
}

// AppendIndexKey appends the key of a label's reverse-index entry in the
// index column family: u8 len(ns) | ns | 00 | sized(label) | sized(value)
// | user key, with no slot (§6.3 [doc][PR #3164]). Its value is empty.
func AppendIndexKey(dst []byte, ns string, label, value, key []byte) []byte {
	dst = AppendIndexPrefix(dst, ns, label, value)
	return append(dst, key...)
}

// AppendIndexPrefix appends what every entry of one label value starts
// with, for the seek of a filter's l=v.
func AppendIndexPrefix(dst []byte, ns string, label, value []byte) []byte {
	dst = AppendIndexLabelPrefix(dst, ns, label)
	return appendSized(dst, value)
}

// AppendIndexLabelPrefix appends what every entry of a label starts with,
// whatever its value.
func AppendIndexLabelPrefix(dst []byte, ns string, label []byte) []byte {
	dst = metadata.AppendNamespacePrefix(dst, ns)
	dst = append(dst, indexKindLabel)
	return appendSized(dst, label)
}

const indexKindLabel = 0x00

// IndexEntry is a decoded index key.
type IndexEntry struct {
	NS, Label, Value, Key []byte
}

// ParseIndexKey splits an index key; the parts alias k.
func ParseIndexKey(k []byte) (IndexEntry, error) {
	var e IndexEntry
	if len(k) < 1 || len(k) < 2+int(k[0]) {
		return e, fmt.Errorf("%w: index key %x", ErrCorrupt, k)
	}
	n := int(k[0])
	e.NS, k = k[1:1+n], k[1+n:]
	if k[0] != indexKindLabel {
		return e, fmt.Errorf("%w: index key kind %x", ErrCorrupt, k[0])
	}
	var ok1, ok2 bool
	e.Label, k, ok1 = cutSized(k[1:])
	e.Value, k, ok2 = cutSized(k)
	if !ok1 || !ok2 {
		return e, fmt.Errorf("%w: index key lengths", ErrCorrupt)
	}
	e.Key = k
	return e, nil
}

func appendSized(dst, s []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(s)))
	return append(dst, s...)
}

// cutSized splits a sized() string off b; the results alias b.
func cutSized(b []byte) (s, rest []byte, ok bool) {
	if len(b) < 4 {
		return nil, nil, false
	}
	n := uint64(binary.BigEndian.Uint32(b))
	if n > uint64(len(b)-4) {
		return nil, nil, false
	}
	return b[4 : 4+n], b[4+n:], true
}
