package metadata

import (
	"encoding/binary"
	"errors"
	"strconv"
	"strings"
)

// DefaultNamespace is the namespace of admin connections and of every key
// when no namespace tokens are configured.
const DefaultNamespace = "__namespace"

// DatabaseNamespace is the namespace that holds database n of
// redis-databases (Kvrocks 2.15, KVROCKS-TYPES.md §8): the default
// namespace for 0, db<n> for the others, so database 0 is byte for byte
// the data of a server without databases.
func DatabaseNamespace(n int64) string {
	if n == 0 {
		return DefaultNamespace
	}
	return "db" + strconv.FormatInt(n, 10)
}

// DatabaseOf returns the database index DatabaseNamespace(n) maps to ns,
// and whether ns is such a namespace.
func DatabaseOf(ns string) (int64, bool) {
	if ns == DefaultNamespace {
		return 0, true
	}
	digits, ok := strings.CutPrefix(ns, "db")
	if !ok || digits == "" || digits[0] == '0' || digits[0] == '+' {
		return 0, false
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	return n, err == nil && n > 0
}

// ErrMalformedKey reports a key too short for the layout it should have.
var ErrMalformedKey = errors.New("metadata: malformed key")

// Layout encodes and parses keys for one server mode. In cluster mode every
// key carries the 2-byte hash slot after the namespace, so that the keys of
// a slot form one contiguous range; the mode is not recorded on disk, so a
// data directory must always be opened in the mode it was written in.
type Layout struct {
	Cluster bool
}

// AppendNamespacePrefix appends u8 len(ns) | ns: the prefix shared by every
// key of a namespace, in every column family.
func AppendNamespacePrefix(dst []byte, ns string) []byte {
	dst = append(dst, byte(len(ns)))
	return append(dst, ns...)
}

// AppendSlotPrefix appends the prefix shared by all keys of one slot in
// cluster mode: u8 len(ns) | ns | u16 slot.
func AppendSlotPrefix(dst []byte, ns string, slot uint16) []byte {
	dst = AppendNamespacePrefix(dst, ns)
	return binary.BigEndian.AppendUint16(dst, slot)
}

// AppendNSKey appends the metadata key of a user key:
// u8 len(ns) | ns | [u16 slot] | key.
func (l Layout) AppendNSKey(dst []byte, ns string, key []byte) []byte {
	dst = AppendNamespacePrefix(dst, ns)
	if l.Cluster {
		dst = binary.BigEndian.AppendUint16(dst, HashSlot(key))
	}
	return append(dst, key...)
}

// ParseNSKey splits a metadata key into namespace and user key. The results
// alias nsKey.
func (l Layout) ParseNSKey(nsKey []byte) (ns, key []byte, err error) {
	if len(nsKey) < 1 || len(nsKey) < 1+int(nsKey[0]) {
		return nil, nil, ErrMalformedKey
	}
	n := int(nsKey[0])
	ns, rest := nsKey[1:1+n], nsKey[1+n:]
	if l.Cluster {
		if len(rest) < 2 {
			return nil, nil, ErrMalformedKey
		}
		rest = rest[2:]
	}
	return ns, rest, nil
}

// AppendSubkeyPrefix appends the prefix shared by every subkey of one
// incarnation of a key: u8 len(ns) | ns | [u16 slot] | u32 len(key) | key |
// u64 version.
func (l Layout) AppendSubkeyPrefix(dst []byte, ns string, key []byte, version uint64) []byte {
	dst = AppendNamespacePrefix(dst, ns)
	if l.Cluster {
		dst = binary.BigEndian.AppendUint16(dst, HashSlot(key))
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(key)))
	dst = append(dst, key...)
	return binary.BigEndian.AppendUint64(dst, version)
}

// SubkeyPrefixLen is the length of AppendSubkeyPrefix's output, so that
// callers can allocate a key once.
func (l Layout) SubkeyPrefixLen(ns string, key []byte) int {
	n := 1 + len(ns) + 4 + len(key) + 8
	if l.Cluster {
		n += 2
	}
	return n
}

// AppendInternalKey appends the internal key of one element (subkey) of a
// collection: the subkey prefix followed by sub.
func (l Layout) AppendInternalKey(dst []byte, ns string, key []byte, version uint64, sub []byte) []byte {
	return append(l.AppendSubkeyPrefix(dst, ns, key, version), sub...)
}

// InternalKey is a parsed internal key. Its slices alias the parsed bytes.
type InternalKey struct {
	Namespace []byte
	Key       []byte
	Version   uint64
	Sub       []byte
}

// ParseInternalKey parses an internal key of the default, zset_score or
// stream column family.
func (l Layout) ParseInternalKey(ikey []byte) (InternalKey, error) {
	var k InternalKey
	if len(ikey) < 1 || len(ikey) < 1+int(ikey[0]) {
		return k, ErrMalformedKey
	}
	n := int(ikey[0])
	k.Namespace, ikey = ikey[1:1+n], ikey[1+n:]
	if l.Cluster {
		if len(ikey) < 2 {
			return k, ErrMalformedKey
		}
		ikey = ikey[2:]
	}
	if len(ikey) < 4 {
		return k, ErrMalformedKey
	}
	keyLen := int(binary.BigEndian.Uint32(ikey))
	ikey = ikey[4:]
	if keyLen < 0 || len(ikey) < keyLen+8 {
		return k, ErrMalformedKey
	}
	k.Key, ikey = ikey[:keyLen], ikey[keyLen:]
	k.Version = binary.BigEndian.Uint64(ikey)
	k.Sub = ikey[8:]
	return k, nil
}

// AppendNSKeyOf appends the metadata key that owns a parsed internal key.
func (l Layout) AppendNSKeyOf(dst []byte, k InternalKey) []byte {
	return l.AppendNSKey(dst, string(k.Namespace), k.Key)
}

// PrefixEnd returns the smallest key greater than every key that starts with
// prefix (the exclusive upper bound of a prefix scan), or nil when there is
// none (prefix is empty or all 0xff). It does not modify prefix.
func PrefixEnd(prefix []byte) []byte {
	end := append([]byte(nil), prefix...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}
