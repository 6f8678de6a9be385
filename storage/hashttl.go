package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/basaltdb/basalt/metadata"
)

// Hash field expiration, in Kvrocks's encoding (KVROCKS-TYPES.md §7): a
// hash is in field-expiration mode (metadata.Metadata.FieldTTL) once one
// of its fields was given a TTL, and only then; the others keep the plain
// layout, byte for byte, and cost no extra read. In that mode every field
// value starts with its expiry (8 bytes big-endian, Unix ms, 0: none) and
// the metadata counts the fields without TTL and bounds the TTLs of the
// others. An expired field is invisible to every read at once; its record
// goes when a write meets it, when the background sweep (ReapFields)
// reaches its hash, or at compaction.

// fieldTTLLen is the expiry prefix of a field value in field-expiration
// mode.
const fieldTTLLen = 8

// MaxFieldExpire is the latest expiry a field can be given (Unix ms), as
// Redis's HFE_MAX_ABS_TIME_MSEC.
const MaxFieldExpire = 1<<46 - 1

// Field TTL replies, per field, of HEXPIRE, HTTL and HPERSIST.
const (
	FieldMissing  = -2 // no such field, or no such key
	FieldNoTTL    = -1 // HTTL and HPERSIST: the field has no TTL
	FieldNotMet   = 0  // HEXPIRE: the NX/XX/GT/LT condition failed
	FieldSet      = 1  // HEXPIRE: TTL set; HPERSIST: TTL removed
	FieldDeleted  = 2  // HEXPIRE: the time had passed, the field is deleted
	fieldNoChange = 3  // internal: nothing to write
)

// ErrFieldCondition is HSETEX's FNX or FXX failing: nothing was written.
var ErrFieldCondition = errors.New("storage: the FNX/FXX condition failed")

// hashField is a field as stored: its value, its expiry (0: none), and
// whether a record holds it.
type hashField struct {
	value  []byte
	expire int64
	stored bool
}

// live reports whether the field exists for reads at now.
func (f hashField) live(now int64) bool {
	return f.stored && (f.expire == 0 || f.expire >= now)
}

// splitField reads a stored field value of c: its expiry and its value.
// A value too short for the prefix (corrupt) is taken whole, without TTL.
func (c *collection) splitField(raw []byte) (expire int64, value []byte) {
	if !c.meta.FieldTTL || len(raw) < fieldTTLLen {
		return 0, raw
	}
	return int64(binary.BigEndian.Uint64(raw)), raw[fieldTTLLen:]
}

// FieldValue returns the value of a stored field of a hash whose
// metadata is m, and its expiry (0: none).
func FieldValue(m *metadata.Metadata, raw []byte) (value []byte, expire int64) {
	c := collection{meta: *m}
	expire, value = c.splitField(raw)
	return value, expire
}

// joinField is the stored value of a field of c: value, after its expiry
// in field-expiration mode.
func (c *collection) joinField(value []byte, expire int64) []byte {
	if !c.meta.FieldTTL {
		return value
	}
	v := binary.BigEndian.AppendUint64(c.newBuf(fieldTTLLen+len(value)), uint64(expire))
	return append(v, value...)
}

// liveValue returns a stored field's value when it is live at now; it
// tells the sweep of the hash when the field has expired.
func (c *collection) liveValue(raw []byte, now int64) ([]byte, bool) {
	expire, value := c.splitField(raw)
	if expire != 0 && expire < now {
		c.db.s.fieldReaps.note(c.db.ns, c.key)
		return nil, false
	}
	return value, true
}

// hashFields reads fields of c as stored, in one round trip.
func (c *collection) hashFields(fields [][]byte) ([]hashField, error) {
	out := make([]hashField, len(fields))
	if !c.exists {
		return out, nil
	}
	raws, err := c.getElements(fields)
	if err != nil {
		return nil, err
	}
	for i, raw := range raws {
		if raw != nil {
			out[i].expire, out[i].value = c.splitField(raw)
			out[i].stored = true
		}
	}
	return out, nil
}

// fieldWrite is a write of some fields of a hash: it keeps the metadata's
// counts and TTL bounds as the fields change (KVROCKS-TYPES.md §7.3).
type fieldWrite struct {
	c   *collection
	b   *batch
	now int64
	// gone are the fields deleted so far, which a switch to
	// field-expiration mode must not write back.
	gone map[string]bool
}

func (c *collection) newFieldWrite() *fieldWrite {
	return &fieldWrite{c: c, b: c.db.newBatch(TypeLog(metadata.TypeHash)), now: c.db.now()}
}

// toFieldTTLMode turns a plain hash into one in field-expiration mode,
// rewriting every field with an empty expiry, before its first TTL.
func (w *fieldWrite) toFieldTTLMode() error {
	c := w.c
	if c.meta.FieldTTL {
		return nil
	}
	var fields, values [][]byte
	if c.exists {
		err := c.each(CFDefault, nil, nil, int(c.meta.Size), func(sub, value []byte) bool {
			fields, values = append(fields, bytes.Clone(sub)), append(values, bytes.Clone(value))
			return true
		})
		if err != nil {
			return err
		}
	}
	// The extension follows the 64-bit header only.
	c.meta.FieldTTL, c.meta.Legacy, c.meta.LowerTTL, c.meta.UpperTTL = true, false, 0, 0
	c.meta.Size = uint64(len(fields) - len(w.gone))
	c.meta.Persist = c.meta.Size
	for i, f := range fields {
		if !w.gone[string(f)] {
			w.b.put(CFDefault, c.subkey(f), c.joinField(values[i], 0))
		}
	}
	return nil
}

// put stores field with value and expire (0: none); old is what it was.
func (w *fieldWrite) put(field, value []byte, expire int64, old hashField) {
	c := w.c
	m := &c.meta
	w.b.put(CFDefault, c.subkey(field), c.joinField(value, expire))
	switch {
	case !old.stored:
		c.db.s.hints.widen(c, CFDefault, field)
		w.count(expire)
		return
	case old.expire == 0 && expire != 0:
		m.Persist--
	case old.expire != 0 && expire == 0:
		m.Persist++
	}
	w.widen(expire)
}

// count counts a new field that expires at expire (0: never).
func (w *fieldWrite) count(expire int64) {
	m := &w.c.meta
	m.Size++
	if expire == 0 && m.FieldTTL {
		m.Persist++
	}
	w.widen(expire)
}

// widen makes the TTL bounds include expire (0: none).
func (w *fieldWrite) widen(expire int64) {
	m := &w.c.meta
	if expire != 0 && m.FieldTTL {
		if m.LowerTTL == 0 || expire < m.LowerTTL {
			m.LowerTTL = expire
		}
		m.UpperTTL = max(m.UpperTTL, expire)
	}
}

// del deletes a stored field.
func (w *fieldWrite) del(field []byte, old hashField) {
	if w.gone == nil {
		w.gone = map[string]bool{}
	}
	w.gone[string(field)] = true
	w.b.del(CFDefault, w.c.subkey(field))
	w.c.meta.Size--
	if old.expire == 0 && w.c.meta.FieldTTL {
		w.c.meta.Persist--
	}
}

// commit writes the batch with the metadata, unless nothing changed: the
// hash goes when its last field did.
func (w *fieldWrite) commit() error {
	if len(w.b.ops) == w.b.logged {
		return nil
	}
	m := &w.c.meta
	if m.FieldTTL {
		m.Persist = min(m.Persist, m.Size)
		if m.Persist == m.Size {
			m.LowerTTL, m.UpperTTL = 0, 0
		}
		if m.Size > 0 {
			w.c.db.s.fieldReaps.seen.Store(true)
		}
	}
	w.c.saveMeta(w.b)
	return w.b.commit()
}

// hashSetTTL is HSET in field-expiration mode: every field written loses
// its TTL; an expired one counts as new.
func (c *collection) hashSetTTL(fields, values [][]byte, onlyNew bool) (int64, error) {
	old, err := c.hashFields(fields)
	if err != nil {
		return 0, err
	}
	w := c.newFieldWrite()
	var added int64
	for i, f := range fields {
		isNew := !old[i].live(w.now)
		if isNew {
			added++
		} else if onlyNew {
			continue
		}
		w.put(f, values[i], 0, old[i])
	}
	return added, w.commit()
}

// hashDelTTL is HDEL in field-expiration mode: expired fields are deleted
// but not counted.
func (c *collection) hashDelTTL(fields [][]byte) (int64, error) {
	old, err := c.hashFields(fields)
	if err != nil {
		return 0, err
	}
	w := c.newFieldWrite()
	seen := map[string]bool{}
	var n int64
	for i, f := range fields {
		if !old[i].stored || seen[string(f)] {
			continue
		}
		seen[string(f)] = true
		if old[i].live(w.now) {
			n++
		}
		w.del(f, old[i])
	}
	return n, w.commit()
}

// HExpire sets the expiry of fields to atMs (Unix ms) where cond allows
// it: HEXPIRE, HPEXPIRE, HEXPIREAT, HPEXPIREAT. A time not in the future
// deletes the field. It returns one of FieldMissing, FieldNotMet,
// FieldSet, FieldDeleted per field, each seeing the previous ones.
func (db DB) HExpire(key []byte, fields [][]byte, atMs int64, cond ExpireCond) ([]int64, error) {
	return db.changeFieldTTLs(key, fields, func(f hashField, now int64) (int64, int64) {
		switch {
		case !f.live(now):
			return FieldMissing, 0
		case !cond.allows(f.expire, atMs):
			return FieldNotMet, 0
		case atMs <= now:
			return FieldDeleted, 0
		}
		return FieldSet, atMs
	})
}

// HPersist removes the TTL of fields: FieldMissing, FieldNoTTL or
// FieldSet per field.
func (db DB) HPersist(key []byte, fields [][]byte) ([]int64, error) {
	return db.changeFieldTTLs(key, fields, func(f hashField, now int64) (int64, int64) {
		switch {
		case !f.live(now):
			return FieldMissing, 0
		case f.expire == 0:
			return FieldNoTTL, 0
		}
		return FieldSet, 0
	})
}

// changeFieldTTLs applies decide to each field in turn: it returns the
// field's reply and its new expiry, which FieldSet writes and
// FieldDeleted replaces by a deletion. Expired fields met are deleted.
func (db DB) changeFieldTTLs(key []byte, fields [][]byte, decide func(f hashField, now int64) (reply, expire int64)) ([]int64, error) {
	replies := make([]int64, len(fields))
	c, err := db.forWrite(key, metadata.TypeHash)
	if err != nil || !c.exists {
		for i := range replies {
			replies[i] = FieldMissing
		}
		return replies, err
	}
	old, err := c.hashFields(fields)
	if err != nil {
		return nil, err
	}
	w := c.newFieldWrite()
	state := map[string]hashField{}
	for i, f := range fields {
		cur, seen := state[string(f)]
		if !seen {
			cur = old[i]
		}
		reply, expire := decide(cur, w.now)
		replies[i] = reply
		switch {
		case reply == FieldSet && expire != 0:
			if err := w.toFieldTTLMode(); err != nil {
				return nil, err
			}
			w.put(f, cur.value, expire, cur)
			cur.expire = expire
		case reply == FieldSet:
			w.put(f, cur.value, 0, cur)
			cur.expire = 0
		case reply == FieldDeleted || (reply == FieldMissing && cur.stored):
			w.del(f, cur)
			cur = hashField{}
		}
		state[string(f)] = cur
	}
	return replies, w.commit()
}

// HFieldExpires returns the expiry of fields (Unix ms): FieldMissing for
// an absent or expired one, 0 for one without TTL. HTTL, HPTTL,
// HEXPIRETIME and HPEXPIRETIME.
func (db DB) HFieldExpires(key []byte, fields [][]byte) ([]int64, error) {
	out := make([]int64, len(fields))
	c, err := db.forRead(key, metadata.TypeHash)
	if err != nil {
		return nil, err
	}
	var got []hashField
	if c != nil {
		if got, err = c.hashFields(fields); err != nil {
			return nil, err
		}
	}
	now := db.now()
	for i := range out {
		out[i] = FieldMissing
		if got != nil && got[i].live(now) {
			out[i] = got[i].expire
		} else if got != nil && got[i].stored {
			db.s.fieldReaps.note(db.ns, key)
		}
	}
	return out, nil
}

// FieldExpiry is what HGETEX and HSETEX do to the TTL of the fields they
// touch.
type FieldExpiry struct {
	At      int64 // the expiry to set (Unix ms) when Set
	Set     bool  // EX, PX, EXAT, PXAT
	Persist bool  // HGETEX's PERSIST
	KeepTTL bool  // HSETEX's KEEPTTL
}

// HGetEx returns the values of fields (nil for absent ones) and then
// applies e to those that exist: a time not in the future deletes them.
// It reports which changes it made: TTLs set, TTLs removed, fields
// deleted.
func (db DB) HGetEx(key []byte, fields [][]byte, e FieldExpiry) (values [][]byte, set, persisted, deleted bool, err error) {
	values = make([][]byte, len(fields))
	c, err := db.forWrite(key, metadata.TypeHash)
	if err != nil || !c.exists {
		return values, false, false, false, err
	}
	old, err := c.hashFields(fields)
	if err != nil {
		return nil, false, false, false, err
	}
	w := c.newFieldWrite()
	done := map[string]bool{}
	for i, f := range fields {
		if !old[i].live(w.now) {
			if old[i].stored && !done[string(f)] {
				w.del(f, old[i])
			}
			done[string(f)] = true
			continue
		}
		values[i] = old[i].value
		if done[string(f)] {
			continue
		}
		done[string(f)] = true
		switch {
		case e.Set && e.At <= w.now:
			w.del(f, old[i])
			deleted = true
		case e.Set:
			if err := w.toFieldTTLMode(); err != nil {
				return nil, false, false, false, err
			}
			w.put(f, old[i].value, e.At, old[i])
			set = true
		case e.Persist && old[i].expire != 0:
			w.put(f, old[i].value, 0, old[i])
			persisted = true
		}
	}
	return values, set, persisted, deleted, w.commit()
}

// HGetDel returns the values of fields (nil for absent ones, and for a
// field named again) and deletes them; the hash goes with its last field.
func (db DB) HGetDel(key []byte, fields [][]byte) (values [][]byte, deleted bool, err error) {
	values = make([][]byte, len(fields))
	c, err := db.forWrite(key, metadata.TypeHash)
	if err != nil || !c.exists {
		return values, false, err
	}
	old, err := c.hashFields(fields)
	if err != nil {
		return nil, false, err
	}
	w := c.newFieldWrite()
	done := map[string]bool{}
	for i, f := range fields {
		if !old[i].stored || done[string(f)] {
			continue
		}
		done[string(f)] = true
		if old[i].live(w.now) {
			values[i], deleted = old[i].value, true
		}
		w.del(f, old[i])
	}
	return values, deleted, w.commit()
}

// HSetEx writes field/value pairs (a field given twice takes its last
// value) with the TTL e says: none, the fields' own (KeepTTL), or At,
// which deletes them when not in the future. With onlyNew (FNX) none of
// the fields may exist, with onlyOld (FXX) all must: else it writes
// nothing and returns ErrFieldCondition. It reports whether it deleted
// fields.
func (db DB) HSetEx(key []byte, pairs [][]byte, onlyNew, onlyOld bool, e FieldExpiry) (deleted bool, err error) {
	c, err := db.forWrite(key, metadata.TypeHash)
	if err != nil {
		return false, err
	}
	var fields, values [][]byte
	last := map[string]int{}
	for i := 0; i+1 < len(pairs); i += 2 {
		if j, ok := last[string(pairs[i])]; ok {
			values[j] = pairs[i+1]
			continue
		}
		last[string(pairs[i])] = len(fields)
		fields, values = append(fields, pairs[i]), append(values, pairs[i+1])
	}
	old, err := c.hashFields(fields)
	if err != nil {
		return false, err
	}
	now := db.now()
	for i := range fields {
		if (onlyNew && old[i].live(now)) || (onlyOld && !old[i].live(now)) {
			return false, ErrFieldCondition
		}
	}
	w := c.newFieldWrite()
	if e.Set && e.At > now {
		if err := w.toFieldTTLMode(); err != nil {
			return false, err
		}
	}
	for i, f := range fields {
		switch {
		case e.Set && e.At <= now:
			if old[i].stored {
				w.del(f, old[i])
			}
			deleted = true
		case e.Set:
			w.put(f, values[i], e.At, old[i])
		case e.KeepTTL && old[i].live(now):
			w.put(f, values[i], old[i].expire, old[i])
		default:
			w.put(f, values[i], 0, old[i])
		}
	}
	return deleted, w.commit()
}

// ReapFields deletes up to limit expired fields of hash key and
// recomputes its counts and TTL bounds from the fields left; the hash goes
// when none is left. It returns how many it deleted and whether the hash
// went. The sweep of field expiry calls it under the key's lock.
func (db DB) ReapFields(key []byte, limit int) (reaped int, gone bool, err error) {
	c, err := db.forWrite(key, metadata.TypeHash)
	if errors.Is(err, ErrWrongType) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	if !c.exists {
		// Every field expired: the key is dead already, its record is
		// removed here (compaction drops its fields).
		if rec, found, err := db.s.get(CFMetadata, c.nsKey, nil); err != nil || !found {
			return 0, false, err
		} else if m, _, err := metadata.Decode(rec); err != nil || m.Type != metadata.TypeHash || !m.FieldsAllExpired(db.now()) {
			return 0, false, err
		}
		b := db.newBatch(TypeLog(metadata.TypeHash))
		b.del(CFMetadata, c.nsKey)
		return 0, true, b.commit()
	}
	if !c.meta.FieldTTL {
		return 0, false, nil
	}
	w := c.newFieldWrite()
	m := &c.meta
	size, persist, lower, upper := uint64(0), uint64(0), int64(0), int64(0)
	err = c.each(CFDefault, nil, nil, 0, func(sub, raw []byte) bool {
		expire, _ := c.splitField(raw)
		if expire != 0 && expire < w.now && reaped < limit {
			w.b.del(CFDefault, c.subkey(sub))
			reaped++
			return true
		}
		size++
		switch {
		case expire == 0:
			persist++
		case lower == 0 || expire < lower:
			lower = expire
		}
		upper = max(upper, expire)
		return true
	})
	if err != nil {
		return 0, false, err
	}
	m.Size, m.Persist, m.LowerTTL, m.UpperTTL = size, persist, lower, upper
	if c.meta == c.stored {
		return 0, false, nil
	}
	w.c.saveMeta(w.b)
	return reaped, size == 0, w.b.commit()
}

// fieldReaps is what the sweep of field expiry has to visit: the hashes
// reads found expired fields in, and whether a walk of all keys may find
// hashes with field TTLs.
type fieldReaps struct {
	mu   sync.Mutex
	keys map[reapKey]struct{}
	// seen is set when a hash with field TTLs was written (and at start):
	// the sweep walks the keys while it is set, and else once every
	// idleWalkEvery (a replica's master wrote some, a replica was
	// promoted).
	seen     atomic.Bool
	lastWalk atomic.Int64 // Unix ms
}

// idleWalkEvery is how often the sweep walks the keys when no hash with
// field TTLs was seen.
const idleWalkEvery = 60_000

// reapKey names a hash noted for the sweep.
type reapKey struct{ ns, key string }

// maxNotedReaps bounds the hashes noted between two sweeps.
const maxNotedReaps = 1024

// note remembers that hash key of namespace ns has expired fields.
func (r *fieldReaps) note(ns string, key []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.keys == nil {
		r.keys = map[reapKey]struct{}{}
	}
	if len(r.keys) < maxNotedReaps {
		r.keys[reapKey{ns, string(key)}] = struct{}{}
	}
}

// NotedFieldReaps returns, and forgets, the hashes reads found expired
// fields in since the last call.
func (s *Storage) NotedFieldReaps() []Key {
	r := &s.fieldReaps
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := make([]Key, 0, len(r.keys))
	for k := range r.keys {
		keys = append(keys, Key{NS: k.ns, Name: []byte(k.key)})
	}
	r.keys = nil
	return keys
}

// HashesWithExpiredFields walks up to count metadata records from from
// (nil: the first) and returns the hashes among them that may hold
// expired fields, and where the next walk starts (nil: the walk is done).
// A walk that ends finding none stops the next ones until a hash with
// field TTLs is written.
func (s *Storage) HashesWithExpiredFields(from []byte, count int) (keys []Key, next []byte, err error) {
	now := nowMs()
	if from == nil {
		r := &s.fieldReaps
		if !r.seen.Swap(false) && now-r.lastWalk.Load() < idleWalkEvery {
			return nil, nil, nil
		}
		r.lastWalk.Store(now)
	}
	it := s.newIterator(CFMetadata, nil, nil, nil)
	defer it.close()
	if from != nil {
		it.Seek(from)
	} else {
		it.SeekToFirst()
	}
	examined := 0
	err = it.walk(false, count+1, func(nsKey, value []byte) bool {
		if examined == count {
			next = bytes.Clone(nsKey)
			return false
		}
		examined++
		if t, _, ok := metadata.PeekType(value); !ok || t != metadata.TypeHash {
			return true
		}
		m, _, err := metadata.Decode(value)
		if err != nil || !m.FieldTTL || m.LowerTTL == 0 {
			return true
		}
		s.fieldReaps.seen.Store(true) // the next walk looks again
		if m.LowerTTL >= now {
			return true
		}
		if ns, key, err := s.layout.ParseNSKey(nsKey); err == nil {
			keys = append(keys, Key{NS: string(ns), Name: bytes.Clone(key)})
		}
		return true
	})
	return keys, next, err
}

// hasFieldTTL reports whether one of expires is a TTL.
func hasFieldTTL(expires []int64) bool {
	for _, e := range expires {
		if e != 0 {
			return true
		}
	}
	return false
}

// sampleLive draws from the live fields of a hash in field-expiration
// mode, held in memory, as sample draws from a collection.
func sampleLive(elems []Element, count int64, distinct bool, fn func(total int64, chunk []Element) bool) error {
	n := int64(len(elems))
	if n == 0 || count <= 0 {
		return nil
	}
	if distinct {
		count = min(count, n)
	}
	out := &sampleOut{total: count, fn: fn, inOrder: distinct && count == n}
	switch {
	case !distinct:
		for range count {
			out.add(elems[rand.Int64N(n)])
		}
	case count == n:
		for _, e := range elems {
			out.add(e)
		}
	default:
		for _, i := range rand.Perm(int(n))[:count] {
			out.add(elems[i])
		}
	}
	return out.finish(nil)
}
