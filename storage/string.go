package storage

import (
	"bytes"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/num"
)

// stringHeaderLen is the size of a new-encoding string header.
const stringHeaderLen = 9

// EncodeString builds a string metadata value: header then payload.
func EncodeString(value []byte, expireMs int64) []byte {
	m := metadata.Metadata{Type: metadata.TypeString, Expire: expireMs}
	return append(m.AppendTo(make([]byte, 0, stringHeaderLen+len(value))), value...)
}

// Get returns the value of a string key, or of a key whose type reads as
// a string (a bitmap, as the string whose bits it holds: TypeHooks.String);
// found is false when it is absent.
func (db DB) Get(key []byte) (value []byte, found bool, err error) {
	rec, found, err := db.lookup(db.nsKey(key))
	if err == nil && found && rec.meta.Type != metadata.TypeString {
		return db.typeString(rec.meta.Type, key)
	}
	return rec.rest, found, err
}

// typeString reads key, of type t, as the string it stands for; a type
// that is no string to Redis is ErrWrongType.
func (db DB) typeString(t metadata.Type, key []byte) (value []byte, found bool, err error) {
	read := typeHooks[t].String
	if read == nil {
		return nil, false, ErrWrongType
	}
	return read(db, key)
}

// MGet returns the values of keys in one RocksDB round trip; a key that is
// absent or not a string has a nil value.
func (db DB) MGet(keys [][]byte) ([][]byte, error) {
	nsKeys := make([][]byte, len(keys))
	for i, k := range keys {
		nsKeys[i] = db.nsKey(k)
	}
	raws, err := db.multiGet(CFMetadata, nsKeys)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(keys))
	for i, raw := range raws {
		if raw == nil {
			continue
		}
		rec, found, err := decodeRecord(raw, db.now())
		switch {
		case err != nil || !found:
		case rec.meta.Type == metadata.TypeString:
			out[i] = rec.rest
		default:
			// A bitmap reads as its Redis string; one too large for
			// max-bitmap-to-string-mb as nil, as MGET answers a non-string.
			if v, ok, err := db.typeString(rec.meta.Type, keys[i]); err == nil && ok {
				out[i] = v
			}
		}
	}
	return out, nil
}

// SetArgs are the options of SET.
type SetArgs struct {
	NX, XX  bool  // only if absent / only if present
	KeepTTL bool  // keep the key's current expiry
	Get     bool  // return the old string value
	Expire  int64 // absolute expiry in ms, 0 for none
	// Cond is IFEQ, IFNE, IFDEQ or IFDNE: the write happens only when the
	// key meets it (and NX or XX, when given too).
	Cond Condition
}

// SetResult reports what Set did.
type SetResult struct {
	Written  bool
	Old      []byte // the old value, when SetArgs.Get
	OldFound bool
}

// Set writes a string, replacing any value of any type. A plain SET is a
// single Put with no read.
func (db DB) Set(key, value []byte, a SetArgs) (SetResult, error) {
	nsKey := db.nsKey(key)
	if !a.NX && !a.XX && !a.KeepTTL && !a.Get && a.Cond.Kind == CondNone {
		return SetResult{Written: true}, db.put(typeLogs[metadata.TypeString], CFMetadata, nsKey, EncodeString(value, a.Expire))
	}
	rec, found, err := db.lookup(nsKey)
	if err != nil {
		return SetResult{}, err
	}
	var res SetResult
	if a.Get && found {
		if rec.meta.Type != metadata.TypeString {
			return res, ErrWrongType
		}
		res.Old, res.OldFound = rec.rest, true
	}
	if met, err := db.setConditionHolds(key, rec, found, a.Cond); !met || err != nil {
		return res, err
	}
	if (a.NX && found) || (a.XX && !found) {
		return res, nil
	}
	expire := a.Expire
	if a.KeepTTL && found {
		expire = rec.meta.Expire
	}
	res.Written = true
	return res, db.put(typeLogs[metadata.TypeString], CFMetadata, nsKey, EncodeString(value, expire))
}

// setConditionHolds reports whether a key found with record rec (found
// false: absent) meets SET's condition.
func (db DB) setConditionHolds(key []byte, rec record, found bool, cond Condition) (bool, error) {
	if cond.Kind == CondNone || !found {
		return cond.holds(nil, found)
	}
	v, err := db.stringOf(key, rec)
	if err != nil {
		return false, err
	}
	return cond.holds(v, true)
}

// CompareAndSwap is Kvrocks's CAS: it sets a string key to value when it
// holds old, and returns 1; 0 when it holds another value, -1 when it is
// absent. The key gets expiry expire (absolute ms, 0: none), so a CAS
// without one drops the key's TTL, as Kvrocks's does.
func (db DB) CompareAndSwap(key, old, value []byte, expire int64) (int64, error) {
	nsKey := db.nsKey(key)
	if held, err := db.compareString(nsKey, old); held != 1 || err != nil {
		return held, err
	}
	return 1, db.put(typeLogs[metadata.TypeString], CFMetadata, nsKey, EncodeString(value, expire))
}

// CompareAndDelete is Kvrocks's CAD: it deletes a string key that holds
// value, with CompareAndSwap's replies.
func (db DB) CompareAndDelete(key, value []byte) (int64, error) {
	nsKey := db.nsKey(key)
	if held, err := db.compareString(nsKey, value); held != 1 || err != nil {
		return held, err
	}
	return 1, db.delete(logDelete, CFMetadata, nsKey)
}

// compareString returns 1 when the string at nsKey holds value, 0 when it
// holds another, -1 when it is absent.
func (db DB) compareString(nsKey, value []byte) (int64, error) {
	rec, found, err := db.lookupType(nsKey, metadata.TypeString)
	switch {
	case err != nil:
		return 0, err
	case !found:
		return -1, nil
	case !bytes.Equal(rec.rest, value):
		return 0, nil
	}
	return 1, nil
}

// MSet sets every key/value pair in one batch. With nx it writes nothing
// unless every key is absent, and reports whether it wrote.
func (db DB) MSet(pairs [][]byte, nx bool) (bool, error) {
	if nx {
		for i := 0; i < len(pairs); i += 2 {
			_, found, err := db.lookup(db.nsKey(pairs[i]))
			if err != nil {
				return false, err
			}
			if found {
				return false, nil
			}
		}
	}
	b := db.newBatch(typeLogs[metadata.TypeString])
	for i := 0; i < len(pairs); i += 2 {
		b.put(CFMetadata, db.nsKey(pairs[i]), EncodeString(pairs[i+1], 0))
	}
	return true, b.commit()
}

// stringForUpdate reads a string key for a read-modify-write: its value and
// expiry, or an empty value when absent.
func (db DB) stringForUpdate(nsKey []byte) (value []byte, expire int64, err error) {
	rec, found, err := db.lookupType(nsKey, metadata.TypeString)
	if err != nil || !found {
		return nil, 0, err
	}
	return rec.rest, rec.meta.Expire, nil
}

// Append appends to a string (creating it) and returns the new length.
// maxLen is the largest length the result may have.
func (db DB) Append(key, suffix []byte, maxLen int64) (int64, error) {
	nsKey := db.nsKey(key)
	old, expire, err := db.stringForUpdate(nsKey)
	if err != nil {
		return 0, err
	}
	n := int64(len(old)) + int64(len(suffix))
	if n > maxLen {
		return 0, ErrTooLarge
	}
	v := make([]byte, 0, stringHeaderLen+n)
	v = (&metadata.Metadata{Type: metadata.TypeString, Expire: expire}).AppendTo(v)
	v = append(append(v, old...), suffix...)
	return n, db.put(typeLogs[metadata.TypeString], CFMetadata, nsKey, v)
}

// SetRange overwrites part of a string at offset, padding with zero bytes,
// and returns the new length. An empty value on an absent key writes
// nothing, as in Redis.
func (db DB) SetRange(key []byte, offset int64, value []byte, maxLen int64) (int64, error) {
	nsKey := db.nsKey(key)
	old, expire, err := db.stringForUpdate(nsKey)
	if err != nil {
		return 0, err
	}
	if len(value) == 0 {
		return int64(len(old)), nil
	}
	end := offset + int64(len(value))
	if end > maxLen || end < offset {
		return 0, ErrTooLarge
	}
	n := max(int64(len(old)), end)
	v := make([]byte, stringHeaderLen, stringHeaderLen+n)
	(&metadata.Metadata{Type: metadata.TypeString, Expire: expire}).AppendTo(v[:0])
	v = append(v, old...)
	v = append(v, make([]byte, n-int64(len(old)))...)
	copy(v[stringHeaderLen+offset:], value)
	return n, db.put(typeLogs[metadata.TypeString], CFMetadata, nsKey, v)
}

// IncrBy adds delta to the integer in a string key (0 when absent).
func (db DB) IncrBy(key []byte, delta int64) (int64, error) {
	nsKey := db.nsKey(key)
	old, expire, err := db.stringForUpdate(nsKey)
	if err != nil {
		return 0, err
	}
	n, text, err := addInt(old, old != nil, delta, ErrNotInteger)
	if err != nil {
		return 0, err
	}
	return n, db.put(typeLogs[metadata.TypeString], CFMetadata, nsKey, EncodeString(text, expire))
}

// IncrByFloat adds incr to the number in a string key, computing in long
// double precision and storing Redis's rendering, which it returns.
func (db DB) IncrByFloat(key, incr []byte) ([]byte, error) {
	nsKey := db.nsKey(key)
	old, expire, err := db.stringForUpdate(nsKey)
	if err != nil {
		return nil, err
	}
	delta, ok := num.ParseLongDouble(incr)
	if !ok {
		return nil, ErrNotFloat
	}
	out, err := addLongDouble(old, old != nil, delta, ErrNotFloat)
	if err != nil {
		return nil, err
	}
	return out, db.put(typeLogs[metadata.TypeString], CFMetadata, nsKey, EncodeString(out, expire))
}

// GetDel returns a string's value and deletes the key.
func (db DB) GetDel(key []byte) (value []byte, found bool, err error) {
	nsKey := db.nsKey(key)
	rec, found, err := db.lookupType(nsKey, metadata.TypeString)
	if err != nil || !found {
		return nil, false, err
	}
	return rec.rest, true, db.delete(nil, CFMetadata, nsKey) // Kvrocks logs no LogData for GETDEL
}

// ExpireChange is how GetEx changes a key's expiry.
type ExpireChange struct {
	Set     bool  // change the expiry
	Persist bool  // remove the expiry
	At      int64 // new absolute expiry in ms when Set
}

// GetEx returns a string's value and optionally changes its expiry; an
// expiry in the past deletes the key. A bitmap reads as its Redis string,
// as for GET (Kvrocks's GETEX does so too) and only its metadata record
// changes.
func (db DB) GetEx(key []byte, c ExpireChange) (value []byte, found bool, err error) {
	nsKey := db.nsKey(key)
	rec, found, err := db.lookup(nsKey)
	if err != nil || !found {
		return nil, false, err
	}
	if rec.meta.Type != metadata.TypeString {
		return db.typedGetEx(key, nsKey, rec, c)
	}
	switch {
	case c.Persist && rec.meta.Expire != 0:
		err = db.put(typeLogs[metadata.TypeString], CFMetadata, nsKey, EncodeString(rec.rest, 0))
	case c.Set && c.At <= nowMs():
		err = db.delete(typeLogs[metadata.TypeString], CFMetadata, nsKey)
	case c.Set:
		err = db.put(typeLogs[metadata.TypeString], CFMetadata, nsKey, EncodeString(rec.rest, c.At))
	}
	return rec.rest, true, err
}

// typedGetEx is GetEx of a key of a type that reads as a string (a
// bitmap): its string, then the expiry changed as EXPIRE and PERSIST
// change one.
func (db DB) typedGetEx(key, nsKey []byte, rec record, c ExpireChange) ([]byte, bool, error) {
	value, found, err := db.typeString(rec.meta.Type, key)
	if err != nil || !found {
		return nil, false, err
	}
	switch {
	case c.Persist && rec.meta.Expire != 0:
		err = db.rewriteExpire(nsKey, rec, 0)
	case c.Set && c.At <= db.now():
		err = db.delete(logExpireWrite, CFMetadata, nsKey)
	case c.Set:
		err = db.rewriteExpire(nsKey, rec, c.At)
	}
	return value, true, err
}

// StrLen returns the length of a string, or of a bitmap as the string of
// its bits (its size, read from the metadata alone, whatever
// max-bitmap-to-string-mb); 0 when the key does not exist.
func (db DB) StrLen(key []byte) (int64, error) {
	rec, found, err := db.lookup(db.nsKey(key))
	switch {
	case err != nil || !found:
		return 0, err
	case rec.meta.Type == metadata.TypeString:
		return int64(len(rec.rest)), nil
	case rec.meta.Type == metadata.TypeBitmap:
		return int64(rec.meta.Size), nil
	}
	return 0, ErrWrongType
}
