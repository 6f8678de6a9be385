package storage

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"

	"github.com/basaltdb/basalt/glob"
	"github.com/basaltdb/basalt/metadata"
)

// Type returns the type of a live key, TypeNone when it does not exist.
func (db DB) Type(key []byte) (metadata.Type, error) {
	rec, found, err := db.lookup(db.nsKey(key))
	if err != nil || !found {
		return metadata.TypeNone, err
	}
	return rec.meta.Type, nil
}

// liveMany reads the metadata of keys in one round trip and reports which
// are alive, returning their metadata keys.
func (db DB) liveMany(keys [][]byte) (nsKeys [][]byte, alive []bool, err error) {
	nsKeys = make([][]byte, len(keys))
	for i, k := range keys {
		nsKeys[i] = db.nsKey(k)
	}
	raws, err := db.multiGet(CFMetadata, nsKeys)
	if err != nil {
		return nil, nil, err
	}
	alive = make([]bool, len(keys))
	for i, raw := range raws {
		if raw != nil {
			_, found, _ := decodeRecord(raw, db.now())
			alive[i] = found
		}
	}
	return nsKeys, alive, nil
}

// Exists counts the live keys among keys; a key given twice counts twice.
func (db DB) Exists(keys [][]byte) (int64, error) {
	_, alive, err := db.liveMany(keys)
	var n int64
	for _, a := range alive {
		if a {
			n++
		}
	}
	return n, err
}

// Del deletes keys of any type and returns how many existed. Collections
// lose only their metadata record; their elements become unreachable at
// once and are reclaimed by compaction.
func (db DB) Del(keys [][]byte) (int64, error) {
	deleted, err := db.DelKeys(keys)
	return int64(len(deleted)), err
}

// DelKeys is Del returning the keys it deleted, each once, in the order
// given: the keys that existed.
func (db DB) DelKeys(keys [][]byte) ([][]byte, error) {
	nsKeys, alive, err := db.liveMany(keys)
	if err != nil {
		return nil, err
	}
	b := db.newBatch(logDelete)
	var deleted [][]byte
	seen := map[string]bool{}
	for i, a := range alive {
		if a && !seen[string(nsKeys[i])] {
			seen[string(nsKeys[i])] = true
			b.del(CFMetadata, nsKeys[i])
			deleted = append(deleted, keys[i])
		}
	}
	return deleted, b.commit()
}

// ExpireCond restricts when Expire changes a key: EXPIRE's NX, XX, GT and
// LT flags, each applied as Redis applies it (a key without TTL counts as
// never expiring for GT and LT).
type ExpireCond struct {
	NX, XX, GT, LT bool
}

// allows reports whether the condition lets an expiry change from cur (0:
// none) to at.
func (c ExpireCond) allows(cur, at int64) bool {
	switch {
	case c.NX && cur != 0, c.XX && cur == 0:
		return false
	case c.GT && (cur == 0 || at <= cur):
		return false
	case c.LT && cur != 0 && at >= cur:
		return false
	}
	return true
}

// Expire sets a key's absolute expiry in ms if cond allows it; a time not
// in the future deletes the key. It reports whether the key was changed.
func (db DB) Expire(key []byte, atMs int64, cond ExpireCond) (bool, error) {
	nsKey := db.nsKey(key)
	rec, found, err := db.lookup(nsKey)
	if err != nil || !found {
		return false, err
	}
	if !cond.allows(rec.meta.Expire, atMs) {
		return false, nil
	}
	if atMs <= db.now() {
		return true, db.delete(logExpireWrite, CFMetadata, nsKey)
	}
	return true, db.rewriteExpire(nsKey, rec, atMs)
}

// rewriteExpire stores rec with a new expiry, keeping everything else.
func (db DB) rewriteExpire(nsKey []byte, rec record, atMs int64) error {
	m := rec.meta
	m.Expire = atMs
	v := m.AppendTo(make([]byte, 0, len(rec.raw)+4))
	return db.put(logExpireWrite, CFMetadata, nsKey, append(v, rec.rest...))
}

// Persist removes a key's expiry and reports whether it had one.
func (db DB) Persist(key []byte) (bool, error) {
	nsKey := db.nsKey(key)
	rec, found, err := db.lookup(nsKey)
	if err != nil || !found || rec.meta.Expire == 0 {
		return false, err
	}
	return true, db.rewriteExpire(nsKey, rec, 0)
}

// ExpireAt returns a key's absolute expiry in ms: 0 when it has none;
// found is false when the key does not exist.
func (db DB) ExpireAt(key []byte) (atMs int64, found bool, err error) {
	rec, found, err := db.lookup(db.nsKey(key))
	return rec.meta.Expire, found, err
}

// ScanArgs are the arguments of a SCAN step.
type ScanArgs struct {
	From  []byte        // metadata key to start at (inclusive); nil to start at the beginning
	Match []byte        // glob pattern, nil for all
	Count int           // records to examine
	Type  metadata.Type // TypeNone for any type
}

// Scan examines up to a.Count records from a.From and returns the live keys
// among them that pass the filters, and the metadata key the next step
// starts at (nil when the namespace has been walked to its end).
func (db DB) Scan(a ScanArgs) (keys [][]byte, next []byte, err error) {
	lower, upper := db.scanRange(a.Match)
	it := db.newIterator(CFMetadata, lower, upper, nil)
	defer it.close()
	if a.From != nil {
		it.Seek(a.From)
	} else {
		it.SeekToFirst()
	}
	now := db.now()
	examined := 0
	err = it.walk(false, a.Count+1, func(nsKey, value []byte) bool {
		if examined == a.Count {
			next = append([]byte(nil), nsKey...)
			return false
		}
		examined++
		if k, ok := db.visible(nsKey, value, now, a.Match, a.Type); ok {
			keys = append(keys, k)
		}
		return true
	})
	return keys, next, err
}

// scanRange bounds a scan of the namespace, narrowed to the literal prefix
// of the pattern when keys are not slot-prefixed.
func (db DB) scanRange(match []byte) (lower, upper []byte) {
	lower = metadata.AppendNamespacePrefix(nil, db.ns)
	if !db.s.layout.Cluster {
		lower = append(lower, glob.LiteralPrefix(match)...)
	}
	return lower, metadata.PrefixEnd(lower)
}

// visible returns the user key of a metadata record if it is alive and
// passes the pattern and type filters. The key is a copy.
func (db DB) visible(nsKey, value []byte, now int64, match []byte, t metadata.Type) ([]byte, bool) {
	typ, expire, ok := metadata.PeekType(value)
	// A bitmap is a string to Redis clients (TYPE, SCAN TYPE string).
	if typ == metadata.TypeBitmap && t == metadata.TypeString {
		typ = t
	}
	if !ok || (expire != 0 && expire < now) || (t != metadata.TypeNone && typ != t) {
		return nil, false
	}
	if !typ.Emptyable() {
		m, _, err := metadata.Decode(value)
		if err != nil || m.Size == 0 {
			return nil, false
		}
	}
	_, key, err := db.s.layout.ParseNSKey(nsKey)
	if err != nil || (match != nil && !glob.Match(match, key, false)) {
		return nil, false
	}
	return append([]byte(nil), key...), true
}

// Keys returns every live key matching the pattern.
func (db DB) Keys(match []byte) ([][]byte, error) {
	lower, upper := db.scanRange(match)
	it := db.newIterator(CFMetadata, lower, upper, nil)
	defer it.close()
	now := db.now()
	var keys [][]byte
	it.SeekToFirst()
	err := it.walk(false, 0, func(nsKey, value []byte) bool {
		if k, ok := db.visible(nsKey, value, now, match, metadata.TypeNone); ok {
			keys = append(keys, k)
		}
		return true
	})
	return keys, err
}

// KeyStats are the figures of INFO keyspace and DBSIZE.
type KeyStats struct {
	Keys    int64 // live keys
	Expires int64 // live keys with a TTL
	AvgTTL  int64 // average remaining TTL of those, ms
	Expired int64 // keys past their TTL still on disk, until compaction drops them
}

// Stats walks the namespace and counts its live keys.
func (db DB) Stats() (KeyStats, error) {
	lower, upper := db.prefix()
	it := db.newIterator(CFMetadata, lower, upper, nil)
	defer it.close()
	now := db.now()
	var st KeyStats
	var ttlSum int64
	it.SeekToFirst()
	err := it.walk(false, 0, func(nsKey, v []byte) bool {
		if _, ok := db.visible(nsKey, v, now, nil, metadata.TypeNone); !ok {
			if _, expire, ok := metadata.PeekType(v); ok && expire != 0 && expire < now {
				st.Expired++
			}
			return true
		}
		st.Keys++
		if _, expire, _ := metadata.PeekType(v); expire != 0 {
			st.Expires++
			ttlSum += expire - now
		}
		return true
	})
	if st.Expires > 0 {
		st.AvgTTL = ttlSum / st.Expires
	}
	return st, err
}

// randomKeyWalk bounds how many live keys element sampling (sample.go)
// steps over after its seek, which spreads picks inside dense runs of
// elements at a fixed cost.
const randomKeyWalk = 64

// randomKeyWindow bounds how many live keys RandomKey steps over after its
// seek. A namespace with fewer live keys is drawn from uniformly: the walk
// goes around it and draws among all of them. In a larger one, a key's
// chance is that of the window of keys before it under the seek, which
// evens out the uneven spread of keys over the key space (numbers, hex
// digits) over that many keys.
const randomKeyWindow = 1024

// RandomKey returns a random live key, or nil when the namespace has none.
// It seeks to a point drawn between the first and last keys, then steps
// over a random number (below randomKeyWindow) of live keys, wrapping
// around at the end. Expired keys are stepped over, never returned; only a
// namespace holding no live key is walked whole.
func (db DB) RandomKey() ([]byte, error) {
	lower, upper := db.prefix()
	it := db.newIterator(CFMetadata, lower, upper, nil)
	defer it.close()
	it.SeekToFirst()
	if !it.Valid() {
		return nil, it.Err()
	}
	first := append([]byte(nil), it.keyData()...)
	it.SeekToLast()
	last := append([]byte(nil), it.keyData()...)
	now := db.now()
	steps := rand.IntN(randomKeyWindow)
	var start []byte // the first live key met
	live, cycled := 0, false
	it.Seek(randomBetween(first, last))
	for wrapped := false; ; it.Next() {
		if !it.Valid() {
			if err := it.Err(); err != nil {
				return nil, err
			}
			if wrapped && start == nil {
				return nil, nil // around the namespace: no live key
			}
			wrapped = true
			it.SeekToFirst()
			if !it.Valid() {
				return nil, it.Err()
			}
		}
		if start != nil && !cycled && bytes.Equal(it.keyData(), start) {
			// Around once: every live key was met; draw among them
			// afresh, which makes the draw exactly uniform.
			steps = rand.IntN(live)
			cycled = true
		}
		if !alive(it.valueData(), now) {
			continue
		}
		if steps == 0 {
			if k, ok := db.visible(it.keyData(), it.valueData(), now, nil, metadata.TypeNone); ok {
				return k, nil
			}
			return nil, ErrCorrupt // a live record whose key cannot be read
		}
		if start == nil {
			start = append([]byte(nil), it.keyData()...)
		}
		steps--
		live++
	}
}

// alive reports whether a metadata record is a live key, as visible does,
// without copying anything.
func alive(value []byte, now int64) bool {
	typ, expire, ok := metadata.PeekType(value)
	if !ok || (expire != 0 && expire < now) {
		return false
	}
	if !typ.Emptyable() {
		m, _, err := metadata.Decode(value)
		if err != nil || m.Size == 0 {
			return false
		}
	}
	return true
}

// randomBetween returns a key uniformly drawn between a and b (a <= b):
// their common prefix followed by a number between the next eight bytes of
// each, read as big-endian integers.
func randomBetween(a, b []byte) []byte {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	var pa, pb [8]byte
	copy(pa[:], a[p:])
	copy(pb[:], b[p:])
	lo, hi := binary.BigEndian.Uint64(pa[:]), binary.BigEndian.Uint64(pb[:])
	if hi <= lo {
		return a
	}
	return binary.BigEndian.AppendUint64(append([]byte(nil), a[:p]...), lo+rand.Uint64N(hi-lo+1))
}

// subkeyCFs are the column families holding a type's elements.
func subkeyCFs(t metadata.Type) []CF {
	switch {
	case t.SingleKV():
		return nil
	case t == metadata.TypeZSet:
		return []CF{CFDefault, CFZSetScore}
	case t == metadata.TypeStream:
		return []CF{CFStream}
	default:
		return []CF{CFDefault}
	}
}

// copyElements adds to b a copy of every element of src's incarnation m
// under dst's incarnation of version dstVersion.
func (db DB) copyElements(b *batch, m metadata.Metadata, src []byte, to DB, dst []byte, dstVersion uint64) error {
	for _, cf := range subkeyCFs(m.Type) {
		srcPrefix := db.s.layout.AppendSubkeyPrefix(nil, db.ns, src, m.Version)
		dstPrefix := db.s.layout.AppendSubkeyPrefix(nil, to.ns, dst, dstVersion)
		err := db.scan(cf, srcPrefix, metadata.PrefixEnd(srcPrefix), func(ikey, value []byte) error {
			// The record points into the iterator: the batch needs copies.
			b.put(cf, append(dstPrefix[:len(dstPrefix):len(dstPrefix)], ikey[len(srcPrefix):]...), append([]byte(nil), value...))
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Rename moves src to dst, replacing dst unless nx. It returns false when
// nx stopped it; ErrNoSuchKey when src does not exist.
func (db DB) Rename(src, dst []byte, nx bool) (bool, error) {
	srcKey, dstKey := db.nsKey(src), db.nsKey(dst)
	rec, found, err := db.lookup(srcKey)
	if err != nil {
		return false, err
	}
	if !found {
		return false, ErrNoSuchKey
	}
	if bytes.Equal(src, dst) {
		return !nx, nil
	}
	if nx {
		if _, exists, err := db.lookup(dstKey); err != nil || exists {
			return false, err
		}
	}
	return true, db.moveRecord(rec, src, db, dst)
}

// placedRecord is rec as the metadata record of another key, and its
// version there. A collection takes a new version: the version in its
// elements' keys is what tells them from those of the key's earlier
// incarnations, which a deletion leaves for the compaction filter, so a
// version already used under another name (Kvrocks keeps the source's)
// would bring back the elements of an earlier copy of it deleted since
// (COPY a b, HSET b f2 x, DEL b, COPY a b: HGETALL b had f2 again, on
// Kvrocks 5fccd57 too). A string or JSON document has no elements.
func (db DB) placedRecord(rec record) ([]byte, uint64) {
	if rec.meta.Type.SingleKV() {
		return rec.raw, rec.meta.Version
	}
	m := rec.meta
	m.Version = db.s.versions.Next(nowTime())
	return append(m.AppendTo(nil), rec.rest...), m.Version
}

// moveRecord moves key src, whose metadata record is rec, to key dst of
// namespace to, with its elements, in one batch.
func (db DB) moveRecord(rec record, src []byte, to DB, dst []byte) error {
	srcKey, dstKey := db.nsKey(src), to.nsKey(dst)
	b := db.newBatch(TypeLog(rec.meta.Type))
	raw, version := db.placedRecord(rec)
	if err := db.copyElements(b, rec.meta, src, to, dst, version); err != nil {
		return err
	}
	b.put(CFMetadata, dstKey, raw)
	b.del(CFMetadata, srcKey)
	db.s.hints.drop(srcKey)
	db.s.hints.drop(dstKey)
	return b.commit()
}

// Copy copies src to dst, replacing dst only with replace. It returns false
// when src is absent or dst exists without replace.
func (db DB) Copy(src, dst []byte, replace bool) (bool, error) {
	if bytes.Equal(src, dst) {
		return false, ErrSameObject
	}
	srcKey, dstKey := db.nsKey(src), db.nsKey(dst)
	rec, found, err := db.lookup(srcKey)
	if err != nil || !found {
		return false, err
	}
	if !replace {
		if _, exists, err := db.lookup(dstKey); err != nil || exists {
			return false, err
		}
	}
	b := db.newBatch(TypeLog(rec.meta.Type))
	raw, version := db.placedRecord(rec)
	if err := db.copyElements(b, rec.meta, src, db, dst, version); err != nil {
		return false, err
	}
	b.put(CFMetadata, dstKey, raw)
	db.s.hints.drop(dstKey)
	return true, b.commit()
}

// MoveTo moves key to the same name in namespace to, unless it exists
// there. It reports whether it moved the key. The caller holds the locks
// of both keys.
func (db DB) MoveTo(key []byte, to DB) (bool, error) {
	srcKey, dstKey := db.nsKey(key), to.nsKey(key)
	rec, found, err := db.lookup(srcKey)
	if err != nil || !found || db.ns == to.ns {
		return false, err
	}
	if _, exists, err := to.lookup(dstKey); err != nil || exists {
		return false, err
	}
	return true, db.moveRecord(rec, key, to, key)
}

// elementCFs are the column families that hold elements of collections.
var elementCFs = []CF{CFMetadata, CFDefault, CFZSetScore, CFStream}

// Flush deletes every key of the namespace with range deletions.
func (db DB) Flush() error {
	lower, upper := db.prefix()
	b := db.newBatch(nil)
	for _, cf := range elementCFs {
		b.delRange(cf, lower, upper)
	}
	return b.commit()
}

// allKeysEnd is above every key: a key starts with its namespace's length
// byte and at most 255 namespace bytes.
var allKeysEnd = bytes.Repeat([]byte{0xff}, 258)

// FlushAll deletes every key of every namespace.
func (s *Storage) FlushAll() error {
	b := s.newBatch(nil)
	for _, cf := range elementCFs {
		b.delRange(cf, []byte{0}, allKeysEnd)
	}
	return b.commit()
}
