package metadata

import (
	"encoding/binary"
	"errors"
	"math"
)

// Type is the data type stored in the low four bits of a metadata flags byte.
type Type uint8

// The types of FORMAT.md §3.1, numbered as on disk.
const (
	TypeNone Type = iota
	TypeString
	TypeHash
	TypeList
	TypeSet
	TypeZSet
	TypeBitmap
	TypeSortedint
	TypeStream
	TypeBloom
	TypeJSON
	TypeHyperLogLog
	TypeTDigest
	TypeTimeSeries // KVROCKS-TYPES.md §6
)

var typeNames = [...]string{
	TypeNone:        "none",
	TypeString:      "string",
	TypeHash:        "hash",
	TypeList:        "list",
	TypeSet:         "set",
	TypeZSet:        "zset",
	TypeBitmap:      "string", // a bitmap is a string to every Redis client (FORMAT.md §11)
	TypeSortedint:   "sortedint",
	TypeStream:      "stream",
	TypeBloom:       "MBbloom--",
	TypeJSON:        "ReJSON-RL",
	TypeHyperLogLog: "hyperloglog",
	TypeTDigest:     "TDIS-TYPE", // KVROCKS-TYPES.md §0.1
	TypeTimeSeries:  "timeseries",
}

// String returns the name TYPE replies with.
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "unknown"
}

// Known reports whether t is a type of the table above.
func (t Type) Known() bool { return t != TypeNone && int(t) < len(typeNames) }

// SingleKV reports whether the whole value lives in the metadata record.
func (t Type) SingleKV() bool { return t == TypeString || t == TypeJSON }

// Emptyable reports whether a record of this type stays alive with size 0.
func (t Type) Emptyable() bool {
	switch t {
	case TypeString, TypeStream, TypeBloom, TypeJSON, TypeHyperLogLog, TypeTDigest, TypeTimeSeries:
		return true
	}
	return false
}

const (
	flag64   = 0x80 // the common fields are 64 bits wide
	typeMask = 0x0f
)

// ListInitialIndex is head and tail of a fresh list: 2^63-1.
const ListInitialIndex = math.MaxUint64 / 2

// Errors returned by Decode.
var (
	ErrTooShort = errors.New("metadata: metadata is too short")
	ErrNoType   = errors.New("metadata: unknown type")
)

// Metadata is the decoded common header of a metadata value plus the list
// extension. Expire is an absolute Unix time in milliseconds, 0 for none.
type Metadata struct {
	Type    Type
	Legacy  bool // 32-bit expire (seconds) and size, as written by Kvrocks <= 2.8
	Expire  int64
	Version uint64
	Size    uint64
	Head    uint64 // lists only
	Tail    uint64 // lists only
	// FieldTTL is set on a hash in Kvrocks's field-expiration mode
	// (KVROCKS-TYPES.md §7.1): every field value starts with its expiry
	// (8 bytes, Unix ms, 0 for none) and the record ends with the
	// extension below. Size then counts the field records stored,
	// expired ones not yet removed included.
	FieldTTL bool
	// Persist is how many fields have no TTL; LowerTTL and UpperTTL
	// (Unix ms) enclose the TTLs of the others, 0 when there are none.
	Persist            uint64
	LowerTTL, UpperTTL int64
}

// fieldTTLMode is the mode byte of a hash in field-expiration mode.
const fieldTTLMode = 1

// fieldTTLExtLen is the length of the field-expiration extension: mode,
// persist, lower, upper.
const fieldTTLExtLen = 1 + 8 + 8 + 8

// New returns the metadata of a freshly created key of type t: no expiry,
// size 0, the given version, and for lists the initial head and tail.
func New(t Type, version uint64) Metadata {
	m := Metadata{Type: t}
	if !t.SingleKV() {
		m.Version = version
	}
	if t == TypeList {
		m.Head, m.Tail = ListInitialIndex, ListInitialIndex
	}
	return m
}

// Expired reports whether the key has a TTL that ended before now (ms).
// A key is still alive at the exact millisecond of its expiry.
func (m *Metadata) Expired(nowMs int64) bool {
	return m.Expire != 0 && m.Expire < nowMs
}

// Dead reports whether the record counts as absent at nowMs: expired, or a
// non-emptyable collection with no element.
func (m *Metadata) Dead(nowMs int64) bool {
	return m.Expired(nowMs) || (!m.Type.Emptyable() && m.Size == 0) || m.FieldsAllExpired(nowMs)
}

// FieldsAllExpired reports whether every field of a hash in
// field-expiration mode has a TTL and the latest of them ended before
// now: the hash is gone although its records are not.
func (m *Metadata) FieldsAllExpired(nowMs int64) bool {
	return m.FieldTTL && m.Persist == 0 && m.UpperTTL != 0 && m.UpperTTL < nowMs
}

// AppendTo appends the encoded header (and list extension) to dst. For
// single-KV types the caller appends the payload after it.
func (m *Metadata) AppendTo(dst []byte) []byte {
	dst = append(dst, m.Flags())
	if m.Legacy {
		dst = binary.BigEndian.AppendUint32(dst, legacyExpireSeconds(m.Expire))
	} else {
		dst = binary.BigEndian.AppendUint64(dst, uint64(m.Expire))
	}
	if m.Type.SingleKV() {
		return dst
	}
	dst = binary.BigEndian.AppendUint64(dst, m.Version)
	if m.Legacy {
		dst = binary.BigEndian.AppendUint32(dst, uint32(m.Size))
	} else {
		dst = binary.BigEndian.AppendUint64(dst, m.Size)
	}
	if m.Type == TypeList {
		dst = binary.BigEndian.AppendUint64(dst, m.Head)
		dst = binary.BigEndian.AppendUint64(dst, m.Tail)
	}
	if m.FieldTTL {
		dst = append(dst, fieldTTLMode)
		dst = binary.BigEndian.AppendUint64(dst, m.Persist)
		dst = binary.BigEndian.AppendUint64(dst, uint64(m.LowerTTL))
		dst = binary.BigEndian.AppendUint64(dst, uint64(m.UpperTTL))
	}
	return dst
}

// legacyExpireSeconds rounds a millisecond expiry the way Kvrocks writes the
// 32-bit seconds field: 0 stays 0, anything below one second becomes 1,
// otherwise round half up.
func legacyExpireSeconds(ms int64) uint32 {
	switch {
	case ms == 0:
		return 0
	case ms < 1000:
		return 1
	default:
		return uint32((ms + 499) / 1000)
	}
}

// Decode parses a metadata value. rest is what follows the header and the
// list extension: the payload of a string, or the type-specific extension of
// other types. rest aliases value.
func Decode(value []byte) (m Metadata, rest []byte, err error) {
	if len(value) < 1 {
		return m, nil, ErrTooShort
	}
	flags := value[0]
	m.Type = Type(flags & typeMask)
	m.Legacy = flags&flag64 == 0
	if !m.Type.Known() {
		return m, nil, ErrNoType
	}
	value = value[1:]
	if m.Legacy {
		if len(value) < 4 {
			return m, nil, ErrTooShort
		}
		m.Expire = int64(binary.BigEndian.Uint32(value)) * 1000
		value = value[4:]
	} else {
		if len(value) < 8 {
			return m, nil, ErrTooShort
		}
		m.Expire = int64(binary.BigEndian.Uint64(value))
		value = value[8:]
	}
	if m.Type.SingleKV() {
		return m, value, nil
	}
	sizeLen := 8
	if m.Legacy {
		sizeLen = 4
	}
	if len(value) < 8+sizeLen {
		return m, nil, ErrTooShort
	}
	m.Version = binary.BigEndian.Uint64(value)
	if m.Legacy {
		m.Size = uint64(binary.BigEndian.Uint32(value[8:]))
	} else {
		m.Size = binary.BigEndian.Uint64(value[8:])
	}
	value = value[8+sizeLen:]
	if m.Type == TypeList {
		if len(value) < 16 {
			return m, nil, ErrTooShort
		}
		m.Head = binary.BigEndian.Uint64(value)
		m.Tail = binary.BigEndian.Uint64(value[8:])
		value = value[16:]
	}
	// Kvrocks tells a hash's mode by what follows the header.
	if m.Type == TypeHash && len(value) >= fieldTTLExtLen && value[0] == fieldTTLMode {
		m.FieldTTL = true
		m.Persist = binary.BigEndian.Uint64(value[1:])
		m.LowerTTL = int64(binary.BigEndian.Uint64(value[9:]))
		m.UpperTTL = int64(binary.BigEndian.Uint64(value[17:]))
		value = value[fieldTTLExtLen:]
	}
	return m, value, nil
}

// PeekType returns the type and expiry of a metadata value without decoding
// the rest; ok is false when the value is too short for its header.
func PeekType(value []byte) (t Type, expireMs int64, ok bool) {
	if len(value) < 1 {
		return TypeNone, 0, false
	}
	t = Type(value[0] & typeMask)
	if value[0]&flag64 == 0 {
		if len(value) < 5 {
			return t, 0, false
		}
		return t, int64(binary.BigEndian.Uint32(value[1:])) * 1000, true
	}
	if len(value) < 9 {
		return t, 0, false
	}
	return t, int64(binary.BigEndian.Uint64(value[1:])), true
}

// Flags returns the record's first byte: the type in the low four bits,
// and the high bit set unless the record is Legacy.
func (m *Metadata) Flags() uint8 {
	if m.Legacy {
		return uint8(m.Type)
	}
	return uint8(m.Type) | flag64
}
