package rdb

import (
	"encoding/binary"
	"fmt"

	"github.com/basaltdb/basalt/num"
)

// Hashes with field TTLs, Redis 7.4's hash field expiration (RDB 12).
//
// Type 24, a hash table: the least TTL of its fields (8 bytes,
// little-endian, Unix ms), the field count, then for each field its TTL
// as a length (0: none, else the TTL less the least one, plus 1), the
// field and its value.
//
// Type 25, a listpack: the least TTL (0: none), then a string holding a
// listpack of triplets: field, value, TTL (absolute Unix ms, 0: none).
//
// Types 22 and 23 are the same of 7.4's release candidates: without the
// least TTL, and each TTL absolute.

// maxFieldExpire is the latest TTL a field can have (Redis's
// EB_EXPIRE_TIME_MAX); a payload with a later one is corrupt.
const maxFieldExpire = 1<<48 - 1

var errFieldExpire = fmt.Errorf("%w: a hash field's TTL past 2^48 ms", errFormat)

// leastExpire reads the least field TTL that types 24 and 25 start with.
func (r *reader) leastExpire() (uint64, error) {
	b, err := r.bytes(8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// hashTableWithTTLs reads a hash of type 24 or 22, in chunks.
func (r *reader) hashTableWithTTLs(t byte) error {
	r.v.Kind = Hash
	var least uint64
	if t == typeHashMetadata {
		var err error
		if least, err = r.leastExpire(); err != nil {
			return err
		}
		if least > maxFieldExpire {
			return errFieldExpire
		}
	}
	n, err := r.count(3)
	if err != nil {
		return err
	}
	for range n {
		expire, err := r.plainLength()
		if err != nil {
			return err
		}
		if expire > maxFieldExpire { // first, so that the sum cannot wrap
			return errFieldExpire
		}
		if t == typeHashMetadata && expire != 0 {
			expire += least - 1
		}
		if expire > maxFieldExpire {
			return errFieldExpire
		}
		for _, field := range []bool{true, false} {
			s, err := r.string()
			if err != nil {
				return err
			}
			if err := r.add(s, field); err != nil {
				return err
			}
		}
		r.v.FieldExpires = append(r.v.FieldExpires, int64(expire))
		if err := r.chunkDone(); err != nil {
			return err
		}
	}
	return nil
}

// hashListpackWithTTLs reads a hash of type 25 or 23.
func (r *reader) hashListpackWithTTLs(t byte) error {
	r.v.Kind = Hash
	if t == typeHashListpackEx {
		// Redis's index of the hash by its next field to expire; a loader
		// finds it again from the fields.
		if _, err := r.leastExpire(); err != nil {
			return err
		}
	}
	s, err := r.string()
	if err != nil {
		return err
	}
	var elems [][]byte
	if err := parseListpack(s, func(e []byte) error { elems = append(elems, e); return nil }); err != nil {
		return err
	}
	if len(elems)%3 != 0 {
		return fmt.Errorf("%w: a hash listpack of %d elements, not triplets", errFormat, len(elems))
	}
	for i := 0; i < len(elems); i += 3 {
		expire, ok := num.ParseInt(elems[i+2])
		if !ok || expire < 0 {
			return fmt.Errorf("%w: a hash field's TTL %q", errFormat, elems[i+2])
		}
		if expire > maxFieldExpire {
			return errFieldExpire
		}
		if err := r.add(elems[i], true); err != nil {
			return err
		}
		if err := r.add(elems[i+1], false); err != nil {
			return err
		}
		r.v.FieldExpires = append(r.v.FieldExpires, expire)
	}
	return nil
}

// DropExpiredFields removes from a hash the fields whose TTL is at or
// before now (Unix ms) and returns how many it removed. The fields left
// keep their TTLs in FieldExpires.
func (v *Value) DropExpiredFields(now int64) int {
	if v.Kind != Hash || len(v.FieldExpires) == 0 {
		return 0
	}
	kept := 0
	for i, expire := range v.FieldExpires {
		if expire != 0 && expire <= now {
			continue
		}
		v.Elems[2*kept], v.Elems[2*kept+1] = v.Elems[2*i], v.Elems[2*i+1]
		v.FieldExpires[kept] = expire
		kept++
	}
	dropped := len(v.FieldExpires) - kept
	v.Elems, v.FieldExpires = v.Elems[:2*kept], v.FieldExpires[:kept]
	return dropped
}

// fieldTTLVersion is the RDB version of Redis 7.4, the first with hash
// field TTLs: the version of a DUMP of a hash that has some.
const fieldTTLVersion = 12

func hasTTL(expires []int64) bool {
	for _, e := range expires {
		if e != 0 {
			return true
		}
	}
	return false
}

// appendHashWithTTLs appends a hash with field TTLs as Redis 7.4 saves a
// hash table that has some (type 24): Encode writes no listpack of
// triplets (type 25), which Redis reads all the same.
func appendHashWithTTLs(dst []byte, pairs [][]byte, expires []int64) []byte {
	var least int64
	for _, e := range expires {
		if e != 0 && (least == 0 || e < least) {
			least = e
		}
	}
	dst = binary.LittleEndian.AppendUint64(append(dst, typeHashMetadata), uint64(least))
	dst = appendLen(dst, uint64(len(expires)))
	for i, e := range expires {
		var ttl uint64
		if e != 0 {
			ttl = uint64(e-least) + 1
		}
		dst = appendString(appendString(appendLen(dst, ttl), pairs[2*i]), pairs[2*i+1])
	}
	return dst
}
