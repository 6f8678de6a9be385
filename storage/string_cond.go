package storage

import (
	"bytes"
	"encoding/hex"
	"errors"

	"github.com/basaltdb/basalt/metadata"
	"github.com/zeebo/xxh3"
)

// The conditional and digest writes of Redis 8.4 and Kvrocks 2.15-2.16
// (SET ... IFEQ|IFNE|IFDEQ|IFDNE, DELEX, DIGEST, MSETEX). A condition
// tests the value GET answers: a string's bytes, or a bitmap's as the
// string it reads as.

// DigestLen is the length of a digest: XXH3-64 in 16 hex digits.
const DigestLen = 16

// Errors of the conditions.
var (
	// ErrDigestLength refuses a digest that is not 16 characters long,
	// checked only against an existing string.
	ErrDigestLength = errors.New("storage: digest must be exactly 16 hexadecimal characters")
	// ErrConditionType refuses DELEX's condition on a key that is no
	// string.
	ErrConditionType = errors.New("storage: key should be of string type if conditions are specified")
)

// Digest returns the digest of a value as Redis 8.4 and Kvrocks compute
// it: XXH3-64 with seed 0, in 16 lower-case hex digits. The returned
// slice is the caller's.
func Digest(value []byte) []byte {
	var sum [8]byte
	h := xxh3.Hash(value)
	for i := range sum {
		sum[i] = byte(h >> (56 - 8*i))
	}
	return hex.AppendEncode(make([]byte, 0, DigestLen), sum[:])
}

// CondKind is the test of a Condition.
type CondKind uint8

// The conditions: none, the value equal or not, the digest equal or not.
const (
	CondNone CondKind = iota
	CondIfEq
	CondIfNe
	CondIfDEq
	CondIfDNe
)

// Condition is the IFEQ, IFNE, IFDEQ or IFDNE option of SET and DELEX.
// Value is kept by reference while the write runs.
type Condition struct {
	Kind  CondKind
	Value []byte // the value, or the digest (compared ignoring case)
}

// holds reports whether a key holding value (found false: absent) meets
// the condition. Only a digest compared with an existing value must be
// 16 characters long; a 16-character text that is no hex never matches.
func (c Condition) holds(value []byte, found bool) (bool, error) {
	switch {
	case c.Kind == CondNone:
		return true, nil
	case !found:
		return c.Kind == CondIfNe || c.Kind == CondIfDNe, nil
	case c.Kind == CondIfEq:
		return bytes.Equal(value, c.Value), nil
	case c.Kind == CondIfNe:
		return !bytes.Equal(value, c.Value), nil
	case len(c.Value) != DigestLen:
		return false, ErrDigestLength
	}
	same := bytes.EqualFold(Digest(value), c.Value)
	return same == (c.Kind == CondIfDEq), nil
}

// stringOf returns the value GET answers for a key found with record rec:
// a string's, a bitmap's as a string; another type is ErrWrongType.
func (db DB) stringOf(key []byte, rec record) ([]byte, error) {
	if rec.meta.Type == metadata.TypeString {
		return rec.rest, nil
	}
	v, _, err := db.typeString(rec.meta.Type, key)
	return v, err
}

// DigestOf returns the digest of the value GET answers for key; found is
// false when the key does not exist.
func (db DB) DigestOf(key []byte) (digest []byte, found bool, err error) {
	v, found, err := db.Get(key)
	if err != nil || !found {
		return nil, false, err
	}
	return Digest(v), true, nil
}

// DeleteIf deletes key, of any type without a condition, or a string
// meeting cond (ErrConditionType for another type), and reports whether
// it did. A missing key is not deleted, whatever the condition.
func (db DB) DeleteIf(key []byte, cond Condition) (bool, error) {
	if cond.Kind == CondNone {
		n, err := db.Del([][]byte{key})
		return n == 1, err
	}
	nsKey := db.nsKey(key)
	rec, found, err := db.lookup(nsKey)
	if err != nil || !found {
		return false, err
	}
	v, err := db.stringOf(key, rec)
	if errors.Is(err, ErrWrongType) {
		return false, ErrConditionType
	}
	if err != nil {
		return false, err
	}
	if ok, err := cond.holds(v, true); !ok || err != nil {
		return false, err
	}
	n, err := db.Del([][]byte{key})
	return n == 1, err
}

// MSetExArgs are the options of MSETEX.
type MSetExArgs struct {
	NX, XX  bool  // only if every key is absent / present
	KeepTTL bool  // keep each key's expiry
	Expire  int64 // absolute expiry in ms of every key, 0 for none
}

// MSetEx sets every key/value pair in one batch, or none when NX or XX
// fails for one key, and reports whether it wrote.
func (db DB) MSetEx(pairs [][]byte, a MSetExArgs) (bool, error) {
	expires := make([]int64, len(pairs)/2)
	if a.NX || a.XX || a.KeepTTL {
		for i := range expires {
			rec, found, err := db.lookup(db.nsKey(pairs[2*i]))
			if err != nil {
				return false, err
			}
			if (a.NX && found) || (a.XX && !found) {
				return false, nil
			}
			if found && a.KeepTTL {
				expires[i] = rec.meta.Expire
			}
		}
	}
	b := db.newBatch(typeLogs[metadata.TypeString])
	for i, exp := range expires {
		if !a.KeepTTL {
			exp = a.Expire
		}
		b.put(CFMetadata, db.nsKey(pairs[2*i]), EncodeString(pairs[2*i+1], exp))
	}
	return true, b.commit()
}
