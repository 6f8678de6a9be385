package search

import (
	"encoding/binary"
	"math"
)

// The search column family's keys (KVROCKS-TYPES.md §4.1): every key is
// `u8 len(ns) | ns | u8 kind | sized(index) | ...` with sized(s) =
// `u32 len | s`, big-endian, and no cluster slot.
//
// Byte ownership: every function here returns a fresh slice; arguments
// are not retained.
const (
	kindIndexMeta = 0
	kindPrefixes  = 1
	kindFieldMeta = 2
	kindFieldData = 3
	kindAlias     = 4 // defined by Kvrocks, never written by 5fccd57
)

// HNSW records under a vector field's data: `u16 level | kind | ...`.
const (
	hnswNode = 1
	hnswEdge = 2
)

func appendSized(b, s []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// readSized reads sized(s) at the start of b and returns s and the rest.
func readSized(b []byte) (s, rest []byte, err error) {
	if len(b) < 4 {
		return nil, nil, ErrCorrupt
	}
	n := binary.BigEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return nil, nil, ErrCorrupt
	}
	return b[4 : 4+n], b[4+n:], nil
}

func indexKey(ns []byte, kind byte, index string) []byte {
	b := make([]byte, 0, 1+len(ns)+1+4+len(index)+32)
	b = append(b, byte(len(ns)))
	b = append(b, ns...)
	b = append(b, kind)
	return appendSized(b, []byte(index))
}

// IndexMetaKey is the key of an index's metadata record; its value is
// EncodeIndexMeta's.
func IndexMetaKey(ns []byte, index string) []byte { return indexKey(ns, kindIndexMeta, index) }

// PrefixesKey is the key of an index's prefixes record.
func PrefixesKey(ns []byte, index string) []byte { return indexKey(ns, kindPrefixes, index) }

// FieldMetaKey is the key of a field's metadata record.
func FieldMetaKey(ns []byte, index, field string) []byte {
	return appendSized(indexKey(ns, kindFieldMeta, index), []byte(field))
}

// IndexMetaPrefix is the prefix of every index metadata key of a
// namespace: an iteration over it lists the namespace's indexes (FT._LIST,
// loading at start) in name order only among names of one length, as
// sized() sorts by length first.
func IndexMetaPrefix(ns []byte) []byte {
	b := append([]byte{byte(len(ns))}, ns...)
	return append(b, kindIndexMeta)
}

// ParseIndexMetaKey returns the index name of a key under
// IndexMetaPrefix(ns).
func ParseIndexMetaKey(ns, key []byte) (string, error) {
	p := IndexMetaPrefix(ns)
	if len(key) < len(p) || string(key[:len(p)]) != string(p) {
		return "", ErrCorrupt
	}
	name, rest, err := readSized(key[len(p):])
	if err != nil || len(rest) != 0 {
		return "", ErrCorrupt
	}
	return string(name), nil
}

// FieldMetaPrefix is the prefix of the index's field metadata keys.
func FieldMetaPrefix(ns []byte, index string) []byte { return indexKey(ns, kindFieldMeta, index) }

// ParseFieldMetaKey returns the field name of a key under
// FieldMetaPrefix.
func ParseFieldMetaKey(prefix, key []byte) (string, error) {
	if len(key) < len(prefix) {
		return "", ErrCorrupt
	}
	name, rest, err := readSized(key[len(prefix):])
	if err != nil || len(rest) != 0 {
		return "", ErrCorrupt
	}
	return string(name), nil
}

// IndexRanges are the key ranges [start, end) that hold all of an
// index's records, for FT.DROPINDEX.
func IndexRanges(ns []byte, index string) [][2][]byte {
	var out [][2][]byte
	for _, kind := range []byte{kindIndexMeta, kindPrefixes, kindFieldMeta, kindFieldData, kindAlias} {
		start := indexKey(ns, kind, index)
		out = append(out, [2][]byte{start, successor(start)})
	}
	return out
}

// successor is the smallest key above every key that starts with p.
func successor(p []byte) []byte {
	s := append([]byte(nil), p...)
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] != 0xff {
			s[i]++
			return s[:i+1]
		}
	}
	return nil // no bound: p is all 0xff
}

// FieldDataPrefix is the prefix of a field's index entries (tags,
// numbers, or the HNSW graph).
func FieldDataPrefix(ns []byte, index, field string) []byte {
	return appendSized(indexKey(ns, kindFieldData, index), []byte(field))
}

// TagKey is a tag entry: the document key has the tag (stored as
// indexed, lower-cased unless the field is case sensitive).
func TagKey(ns []byte, index, field string, tag, key []byte) []byte {
	return appendSized(TagPrefix(ns, index, field, tag), key)
}

// TagPrefix is the prefix of the entries of one tag: a scan of it lists
// the documents with the tag in key order.
func TagPrefix(ns []byte, index, field string, tag []byte) []byte {
	return appendSized(FieldDataPrefix(ns, index, field), tag)
}

// ParseTagEntry reads what follows FieldDataPrefix in a tag entry.
func ParseTagEntry(rest []byte) (tag, key []byte, err error) {
	tag, rest, err = readSized(rest)
	if err != nil {
		return nil, nil, err
	}
	key, rest, err = readSized(rest)
	if err != nil || len(rest) != 0 {
		return nil, nil, ErrCorrupt
	}
	return tag, key, nil
}

// NumericKey is a numeric entry: the document key's field holds v.
func NumericKey(ns []byte, index, field string, v float64, key []byte) []byte {
	return appendSized(NumericBound(ns, index, field, v), key)
}

// NumericBound is the first key of the entries of value v: a scan of a
// range [lo, hi) runs from NumericBound(lo) to NumericBound(hi).
func NumericBound(ns []byte, index, field string, v float64) []byte {
	return appendDouble(FieldDataPrefix(ns, index, field), v)
}

// ParseNumericEntry reads what follows FieldDataPrefix in a numeric
// entry.
func ParseNumericEntry(rest []byte) (v float64, key []byte, err error) {
	if len(rest) < 8 {
		return 0, nil, ErrCorrupt
	}
	v = decodeDouble(rest)
	key, rest, err = readSized(rest[8:])
	if err != nil || len(rest) != 0 {
		return 0, nil, ErrCorrupt
	}
	return v, key, nil
}

// appendDouble appends dbl(v), the order-preserving double of FORMAT.md
// §3.3.
func appendDouble(b []byte, v float64) []byte {
	u := math.Float64bits(v)
	if u&(1<<63) != 0 {
		u = ^u
	} else {
		u |= 1 << 63
	}
	return binary.BigEndian.AppendUint64(b, u)
}

func decodeDouble(b []byte) float64 {
	u := binary.BigEndian.Uint64(b)
	if u&(1<<63) == 0 {
		u = ^u
	} else {
		u &^= 1 << 63
	}
	return math.Float64frombits(u)
}

// LevelPrefix is the prefix of an HNSW level's records of a field.
func LevelPrefix(ns []byte, index, field string, level uint16) []byte {
	return binary.BigEndian.AppendUint16(FieldDataPrefix(ns, index, field), level)
}

// NodeKey is an HNSW node: the document key's vector at a level.
func NodeKey(ns []byte, index, field string, level uint16, key []byte) []byte {
	return appendSized(NodesPrefix(ns, index, field, level), key)
}

// NodesPrefix is the prefix of a level's nodes, in key order.
func NodesPrefix(ns []byte, index, field string, level uint16) []byte {
	return append(LevelPrefix(ns, index, field, level), hnswNode)
}

// EdgeKey is an HNSW edge from a to b at a level (Kvrocks writes both
// directions).
func EdgeKey(ns []byte, index, field string, level uint16, a, b []byte) []byte {
	return appendSized(EdgesPrefix(ns, index, field, level, a), b)
}

// EdgesPrefix is the prefix of the edges from a at a level: a scan of it
// lists a's neighbours.
func EdgesPrefix(ns []byte, index, field string, level uint16, a []byte) []byte {
	return appendSized(append(LevelPrefix(ns, index, field, level), hnswEdge), a)
}

// ParseSizedKey reads the sized(key) that ends a node key after
// NodesPrefix, or an edge key after EdgesPrefix.
func ParseSizedKey(rest []byte) ([]byte, error) {
	key, rest, err := readSized(rest)
	if err != nil || len(rest) != 0 {
		return nil, ErrCorrupt
	}
	return key, nil
}

// Node is an HNSW node's value: how many neighbours it has at its level
// (as Kvrocks counts them) and its vector.
type Node struct {
	Neighbours uint16
	Vector     []float64
}

// EncodeNode is `u16 neighbours | u16 dim | dim × dbl(x)`.
func EncodeNode(n Node) []byte {
	b := make([]byte, 0, 4+8*len(n.Vector))
	b = binary.BigEndian.AppendUint16(b, n.Neighbours)
	b = binary.BigEndian.AppendUint16(b, uint16(len(n.Vector)))
	for _, x := range n.Vector {
		b = appendDouble(b, x)
	}
	return b
}

// DecodeNode reads a node's value.
func DecodeNode(b []byte) (Node, error) {
	if len(b) < 4 {
		return Node{}, ErrCorrupt
	}
	n := Node{Neighbours: binary.BigEndian.Uint16(b)}
	dim := int(binary.BigEndian.Uint16(b[2:]))
	if len(b) != 4+8*dim {
		return Node{}, ErrCorrupt
	}
	n.Vector = make([]float64, dim)
	for i := range n.Vector {
		n.Vector[i] = decodeDouble(b[4+8*i:])
	}
	return n, nil
}

// EncodeIndexMeta is an index's metadata value: `u8 flag (0) | u8 on`.
func EncodeIndexMeta(on OnType) []byte { return []byte{0, byte(on)} }

// DecodeIndexMeta reads an index's metadata value.
func DecodeIndexMeta(b []byte) (OnType, error) {
	if len(b) < 2 || (OnType(b[1]) != OnHash && OnType(b[1]) != OnJSON) {
		return 0, ErrCorrupt
	}
	return OnType(b[1]), nil
}

// EncodePrefixes is the prefixes value: each prefix sized(); none means
// every key.
func EncodePrefixes(prefixes []string) []byte {
	var b []byte
	for _, p := range prefixes {
		b = appendSized(b, []byte(p))
	}
	if b == nil {
		b = []byte{}
	}
	return b
}

// DecodePrefixes reads the prefixes value.
func DecodePrefixes(b []byte) ([]string, error) {
	var out []string
	for len(b) > 0 {
		p, rest, err := readSized(b)
		if err != nil {
			return nil, err
		}
		out, b = append(out, string(p)), rest
	}
	return out, nil
}

// EncodeFieldMeta is a field's metadata value (KVROCKS-TYPES.md §4.2):
// the flag byte (NOINDEX in bit 0, the type in bits 1-4), then a tag's
// separator and case sensitivity, or a vector's HNSW parameters.
func EncodeFieldMeta(f *Field) []byte {
	flag := byte(f.Type) << 1
	if f.NoIndex {
		flag |= 1
	}
	b := []byte{flag}
	switch f.Type {
	case FieldTag:
		cs := byte(0)
		if f.CaseSensitive {
			cs = 1
		}
		b = append(b, f.Separator, cs)
	case FieldVector:
		h := &f.Vector
		b = append(b, byte(h.Type))
		b = binary.BigEndian.AppendUint16(b, h.Dim)
		b = append(b, byte(h.Metric))
		b = binary.BigEndian.AppendUint32(b, h.InitialCap)
		b = binary.BigEndian.AppendUint16(b, h.M)
		b = binary.BigEndian.AppendUint32(b, h.EFConstruction)
		b = binary.BigEndian.AppendUint32(b, h.EFRuntime)
		b = appendDouble(b, h.Epsilon)
		b = binary.BigEndian.AppendUint16(b, h.NumLevels)
	}
	return b
}

// hnswMetaLen is the length of a vector field's value after the flag.
const hnswMetaLen = 1 + 2 + 1 + 4 + 2 + 4 + 4 + 8 + 2

// DecodeFieldMeta reads a field's metadata value.
func DecodeFieldMeta(name string, b []byte) (Field, error) {
	if len(b) < 1 {
		return Field{}, ErrCorrupt
	}
	f := Field{Name: name, NoIndex: b[0]&1 != 0, Type: FieldType(b[0] >> 1 & 0x0f)}
	b = b[1:]
	switch f.Type {
	case FieldTag:
		if len(b) < 2 {
			return Field{}, ErrCorrupt
		}
		f.Separator, f.CaseSensitive = b[0], b[1] != 0
	case FieldNumeric:
	case FieldVector:
		if len(b) < hnswMetaLen {
			return Field{}, ErrCorrupt
		}
		h := &f.Vector
		h.Type = VectorType(b[0])
		h.Dim = binary.BigEndian.Uint16(b[1:])
		h.Metric = Metric(b[3])
		h.InitialCap = binary.BigEndian.Uint32(b[4:])
		h.M = binary.BigEndian.Uint16(b[8:])
		h.EFConstruction = binary.BigEndian.Uint32(b[10:])
		h.EFRuntime = binary.BigEndian.Uint32(b[14:])
		h.Epsilon = decodeDouble(b[18:])
		h.NumLevels = binary.BigEndian.Uint16(b[26:])
		if (h.Type != Float64 && h.Type != Float32) || h.Metric > Cosine || h.Dim == 0 {
			return Field{}, ErrCorrupt
		}
	default:
		return Field{}, ErrCorrupt
	}
	return f, nil
}

// Record is a key and value of the search column family.
type Record struct{ Key, Value []byte }

// SchemaRecords are the records FT.CREATE writes for an index in the
// namespace ns: the index metadata, the prefixes and each field's
// metadata.
func SchemaRecords(ns []byte, s *Schema) []Record {
	out := []Record{
		{IndexMetaKey(ns, s.Name), EncodeIndexMeta(s.On)},
		{PrefixesKey(ns, s.Name), EncodePrefixes(s.Prefixes)},
	}
	for i := range s.Fields {
		f := &s.Fields[i]
		out = append(out, Record{FieldMetaKey(ns, s.Name, f.Name), EncodeFieldMeta(f)})
		if f.Alias != "" {
			out = append(out, Record{AliasKey(ns, s.Name, f.Alias), []byte(f.Name)})
		}
	}
	return out
}

// AliasKey is the record of a field's alias (RediSearch's `path AS
// alias`, beyond Kvrocks): kind 4, which Kvrocks 5fccd57 defines but
// neither writes nor reads; the value is the field's name.
func AliasKey(ns []byte, index, alias string) []byte {
	return appendSized(AliasPrefix(ns, index), []byte(alias))
}

// AliasPrefix is the prefix of an index's alias records.
func AliasPrefix(ns []byte, index string) []byte { return indexKey(ns, kindAlias, index) }

// DecodeSchema rebuilds an index of the namespace ns from its records:
// the index metadata and prefixes values, the field metadata records and
// the alias records.
func DecodeSchema(ns []byte, name string, meta, prefixes []byte, fields, aliases []Record) (*Schema, error) {
	fieldPrefix := FieldMetaPrefix(ns, name)
	on, err := DecodeIndexMeta(meta)
	if err != nil {
		return nil, err
	}
	s := &Schema{Name: name, On: on}
	if s.Prefixes, err = DecodePrefixes(prefixes); err != nil {
		return nil, err
	}
	for _, r := range fields {
		fname, err := ParseFieldMetaKey(fieldPrefix, r.Key)
		if err != nil {
			return nil, err
		}
		f, err := DecodeFieldMeta(fname, r.Value)
		if err != nil {
			return nil, err
		}
		s.Fields = append(s.Fields, f)
	}
	aliasPrefix := AliasPrefix(ns, name)
	for _, r := range aliases {
		alias, err := ParseFieldMetaKey(aliasPrefix, r.Key)
		if err != nil {
			return nil, err
		}
		if f := s.fieldNamed(string(r.Value)); f != nil {
			f.Alias = alias
		}
	}
	return s, nil
}
