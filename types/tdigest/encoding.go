package tdigest

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/basaltdb/basalt/metadata"
)

// The layout is KVROCKS-TYPES.md §5.1–5.2, read in Kvrocks's source
// (78529d7, PR #2741, PR #2878) but never checked against a data directory
// written by a 2.14+ build (the 5fccd57 binary predates the type). How
// sure each fact is:
//   - type 12, TYPE reply TDIS-TYPE, subkeys in the default column family,
//     the segment bytes and the centroid record: read in the source;
//   - the extension's fields up to total_weight and from minimum on, in
//     that order: the website table and the PR's encoder agree;
//   - merged_weight between total_weight and minimum: [unknown] — the
//     C++ struct has it and INFO reads it back, the website table omits
//     it; placed where the struct declares it (one line below to move);
//   - the common header's size: written 0, its use was not seen [unknown].

// TypeNumber is the metadata type of a t-digest (flags 0x8c in the new
// encoding), and TypeName its TYPE reply; the engine's type table holds
// them.
const (
	TypeNumber = 12
	TypeName   = "TDIS-TYPE"
)

// ExtLen is the length of the metadata extension after the common header.
const ExtLen = 72

// The capacity of the buffer is min(compression·6 + 10, MaxCapacity), and
// compression is at most MaxCompression (Kvrocks's bounds; RedisBloom's
// capacity has no ceiling).
const (
	MaxCompression     = 1000
	MaxCapacity        = 1024
	DefaultCompression = 100
)

// Meta is the metadata extension of a t-digest: the sketch's parameters
// and counters. Min and Max are the smallest and largest value merged so
// far (math.MaxFloat64 and -math.MaxFloat64 while none is); values in the
// buffer count in TotalWeight and TotalObservations only.
type Meta struct {
	Compression       uint32
	Capacity          uint32
	UnmergedNodes     uint64 // values in the buffer record
	MergedNodes       uint64 // centroid records
	TotalWeight       uint64 // merged and buffered values
	MergedWeight      uint64 // the centroids' weights summed
	Min, Max          float64
	TotalObservations uint64
	MergeTimes        uint64 // INFO's "Total compressions"
}

// NewMeta returns the metadata of an empty t-digest of the given
// compression (TDIGEST.CREATE).
func NewMeta(compression uint32) Meta {
	m := Meta{Compression: compression}
	m.Capacity = uint32(min(uint64(compression)*6+10, MaxCapacity))
	m.clear()
	return m
}

// clear empties the sketch, keeping compression and capacity.
func (m *Meta) clear() {
	*m = Meta{Compression: m.Compression, Capacity: m.Capacity, Min: math.MaxFloat64, Max: -math.MaxFloat64}
}

// AppendExt appends the extension's ExtLen bytes to dst: the fields in
// their order, integers big-endian, Min and Max as order-preserving
// doubles (FORMAT.md §3.3).
func (m Meta) AppendExt(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, m.Compression)
	dst = binary.BigEndian.AppendUint32(dst, m.Capacity)
	for _, n := range []uint64{m.UnmergedNodes, m.MergedNodes, m.TotalWeight, m.MergedWeight} {
		dst = binary.BigEndian.AppendUint64(dst, n)
	}
	dst = metadata.AppendScore(dst, m.Min)
	dst = metadata.AppendScore(dst, m.Max)
	dst = binary.BigEndian.AppendUint64(dst, m.TotalObservations)
	return binary.BigEndian.AppendUint64(dst, m.MergeTimes)
}

// DecodeExt reads an extension written by AppendExt. Bytes after the
// first ExtLen are ignored, as Kvrocks's decoder ignores them; fewer are
// ErrCorrupt. No field is trusted to size anything.
func DecodeExt(ext []byte) (Meta, error) {
	if len(ext) < ExtLen {
		return Meta{}, fmt.Errorf("%w: metadata extension of %d bytes, want %d", ErrCorrupt, len(ext), ExtLen)
	}
	u64 := func(at int) uint64 { return binary.BigEndian.Uint64(ext[at:]) }
	dbl := func(at int) float64 { f, _ := metadata.DecodeScore(ext[at:]); return f }
	return Meta{
		Compression:       binary.BigEndian.Uint32(ext),
		Capacity:          binary.BigEndian.Uint32(ext[4:]),
		UnmergedNodes:     u64(8),
		MergedNodes:       u64(16),
		TotalWeight:       u64(24),
		MergedWeight:      u64(32),
		Min:               dbl(40),
		Max:               dbl(48),
		TotalObservations: u64(56),
		MergeTimes:        u64(64),
	}, nil
}

// The first byte of every subkey of a t-digest names its segment. Guard
// is never stored: it bounds the segments from above, so that
// [Subkey(Buffer), Guard) holds every record of the key.
const (
	SegmentBuffer   byte = 0x00
	SegmentCentroid byte = 0x01
	SegmentGuard    byte = 0xff
)

// BufferSubkey is the subkey of the buffer record, whose value is the
// buffered values, each an order-preserving double, in the order added.
// The caller must not modify it.
var BufferSubkey = []byte{SegmentBuffer}

// centroidSubkeyLen is a centroid's subkey length: the segment, the mean
// and the centroid's position, which keeps equal means apart (PR #2878).
// Records written before that have no position (9 bytes); both are read.
const (
	centroidSubkeyLen       = 1 + 8 + 4
	centroidSubkeyLenLegacy = 1 + 8
)

// Centroid is a centroid of the sketch: the mean of the values it stands
// for and how many they are.
type Centroid struct {
	Mean, Weight float64
}

// AppendCentroidSubkey appends the subkey of the centroid at position seq
// (0 for the one of the smallest mean) with mean mean: segment 01, the
// mean as an order-preserving double, seq as a big-endian u32. Key order
// is ascending mean, then position.
func AppendCentroidSubkey(dst []byte, mean float64, seq uint32) []byte {
	dst = append(dst, SegmentCentroid)
	dst = metadata.AppendScore(dst, mean)
	return binary.BigEndian.AppendUint32(dst, seq)
}

// AppendCentroidValue appends the value of a centroid record: its weight
// as an order-preserving double.
func AppendCentroidValue(dst []byte, weight float64) []byte {
	return metadata.AppendScore(dst, weight)
}

// ParseCentroid reads a centroid record; the position in the subkey is
// not needed (key order is the order).
func ParseCentroid(sub, value []byte) (Centroid, error) {
	if (len(sub) != centroidSubkeyLen && len(sub) != centroidSubkeyLenLegacy) || sub[0] != SegmentCentroid {
		return Centroid{}, fmt.Errorf("%w: centroid subkey %x", ErrCorrupt, sub)
	}
	if len(value) != 8 {
		return Centroid{}, fmt.Errorf("%w: centroid value of %d bytes", ErrCorrupt, len(value))
	}
	mean, _ := metadata.DecodeScore(sub[1:])
	weight, _ := metadata.DecodeScore(value)
	return Centroid{Mean: mean, Weight: weight}, nil
}

// AppendBufferValues appends values to a buffer record's value.
func AppendBufferValues(dst []byte, values []float64) []byte {
	for _, v := range values {
		dst = metadata.AppendScore(dst, v)
	}
	return dst
}

// ParseBuffer reads a buffer record's value into dst.
func ParseBuffer(dst []float64, value []byte) ([]float64, error) {
	if len(value)%8 != 0 {
		return dst, fmt.Errorf("%w: buffer of %d bytes", ErrCorrupt, len(value))
	}
	for at := 0; at < len(value); at += 8 {
		v, _ := metadata.DecodeScore(value[at:])
		dst = append(dst, v)
	}
	return dst, nil
}
