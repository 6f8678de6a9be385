package storage

import (
	"github.com/basaltdb/basalt/glob"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/num"
)

// Hashes keep one record per field in the default column family:
// subkey = field, value = the field's value.

// HSet sets field/value pairs and returns how many fields are new. With nx
// (HSETNX) existing fields keep their value. A field given twice takes the
// last value.
func (db DB) HSet(key []byte, pairs [][]byte, nx bool) (int64, error) {
	c, err := db.forWrite(key, metadata.TypeHash)
	if err != nil {
		return 0, err
	}
	last := make(map[string]int, len(pairs)/2)
	var fields, values [][]byte
	for i := 0; i < len(pairs); i += 2 {
		if j, seen := last[string(pairs[i])]; seen {
			values[j] = pairs[i+1]
			continue
		}
		last[string(pairs[i])] = len(fields)
		fields, values = append(fields, pairs[i]), append(values, pairs[i+1])
	}
	if c.meta.FieldTTL {
		return c.hashSetTTL(fields, values, nx)
	}
	return c.setElements(fields, values, nx)
}

// setElements writes unique elements subs (with values, or empty values
// when values is nil) into the default column family and returns how many
// are new. With onlyNew, existing elements are left alone.
func (c *collection) setElements(subs, values [][]byte, onlyNew bool) (int64, error) {
	var old [][]byte
	if c.exists {
		var err error
		if old, err = c.getElements(subs); err != nil {
			return 0, err
		}
	}
	b := c.db.newBatch(TypeLog(c.meta.Type))
	var added int64
	for i, s := range subs {
		isNew := old == nil || old[i] == nil
		if isNew {
			added++
		} else if onlyNew {
			continue
		}
		var v []byte
		if values != nil {
			v = values[i]
		}
		b.put(CFDefault, c.subkey(s), v)
		c.db.s.hints.widen(c, CFDefault, s)
	}
	if len(b.ops) == 0 {
		return 0, nil
	}
	c.meta.Size += uint64(added)
	c.saveMeta(b)
	return added, b.commit()
}

// HGet returns a field's value; found is false when the key or field is
// absent.
func (db DB) HGet(key, field []byte) ([]byte, bool, error) {
	c, err := db.forRead(key, metadata.TypeHash)
	if err != nil || c == nil {
		return nil, false, err
	}
	v, found, err := c.getElement(field)
	if err != nil || !found || !c.meta.FieldTTL {
		return v, found, err
	}
	v, found = c.liveValue(v, db.now())
	return v, found, nil
}

// HMGet returns the values of fields, nil for absent ones, in one round
// trip after the metadata.
func (db DB) HMGet(key []byte, fields [][]byte) ([][]byte, error) {
	c, err := db.forRead(key, metadata.TypeHash)
	if err != nil || c == nil {
		return make([][]byte, len(fields)), err
	}
	values, err := c.getElements(fields)
	if err != nil || !c.meta.FieldTTL {
		return values, err
	}
	now := db.now()
	for i, v := range values {
		if v != nil {
			values[i], _ = c.liveValue(v, now)
		}
	}
	return values, nil
}

// HDel deletes fields and returns how many existed; a hash left empty is
// deleted.
func (db DB) HDel(key []byte, fields [][]byte) (int64, error) {
	c, err := db.forWrite(key, metadata.TypeHash)
	if err != nil || !c.exists {
		return 0, err
	}
	if c.meta.FieldTTL {
		return c.hashDelTTL(fields)
	}
	return c.deleteElements(fields)
}

// deleteElements removes the existing ones among subs (each counted once)
// and stores the new size.
func (c *collection) deleteElements(subs [][]byte) (int64, error) {
	old, err := c.getElements(subs)
	if err != nil {
		return 0, err
	}
	b := c.db.newBatch(TypeLog(c.meta.Type))
	seen := map[string]bool{}
	var n int64
	for i, s := range subs {
		if old[i] != nil && !seen[string(s)] {
			seen[string(s)] = true
			b.del(CFDefault, c.subkey(s))
			n++
		}
	}
	if n == 0 {
		return 0, nil
	}
	c.meta.Size -= uint64(n)
	c.saveMeta(b)
	return n, b.commit()
}

// Len returns the number of elements of a collection of type t (0 when
// absent): HLEN, SCARD, ZCARD, LLEN.
func (db DB) Len(key []byte, t metadata.Type) (int64, error) {
	c, err := db.forRead(key, t)
	if err != nil || c == nil {
		return 0, err
	}
	if c.meta.FieldTTL && c.meta.Persist < c.meta.Size && c.meta.LowerTTL < db.now() {
		// The sweep recounts the hash, so that the next HLEN is O(1)
		// again.
		db.s.fieldReaps.note(db.ns, key)
		return c.liveFields()
	}
	return int64(c.meta.Size), nil
}

// liveFields counts the fields of a hash in field-expiration mode that
// have not expired.
func (c *collection) liveFields() (int64, error) {
	now := c.db.now()
	var n int64
	err := c.each(CFDefault, nil, nil, 0, func(_, raw []byte) bool {
		if _, live := c.liveValue(raw, now); live {
			n++
		}
		return true
	})
	return n, err
}

// HExists reports whether a field exists.
func (db DB) HExists(key, field []byte) (bool, error) {
	_, found, err := db.HGet(key, field)
	return found, err
}

// hashSetOne writes one field of c, counting it when new; a live field
// keeps its TTL.
func (c *collection) hashSetOne(field, value []byte, old hashField) error {
	isNew := !old.stored
	if c.meta.FieldTTL {
		w := c.newFieldWrite()
		expire := old.expire
		if !old.live(w.now) {
			expire = 0
		}
		w.put(field, value, expire, old)
		return w.commit()
	}
	b := c.db.newBatch(TypeLog(c.meta.Type))
	b.put(CFDefault, c.subkey(field), value)
	if isNew {
		c.db.s.hints.widen(c, CFDefault, field)
		c.meta.Size++
		c.saveMeta(b)
	}
	return b.commit()
}

// HIncrBy adds delta to the integer in a field (0 when absent).
func (db DB) HIncrBy(key, field []byte, delta int64) (int64, error) {
	c, err := db.forWrite(key, metadata.TypeHash)
	if err != nil {
		return 0, err
	}
	old, err := c.fieldIfExists(field)
	if err != nil {
		return 0, err
	}
	n, text, err := addInt(old.value, old.live(c.db.now()), delta, ErrHashNotInteger)
	if err != nil {
		return 0, err
	}
	return n, c.hashSetOne(field, text, old)
}

// HIncrByFloat adds incr to the number in a field in long double precision
// and returns Redis's rendering of the result, which is what it stores.
func (db DB) HIncrByFloat(key, field, incr []byte) ([]byte, error) {
	// Like Redis, the increment is checked before the key.
	delta, ok := num.ParseLongDouble(incr)
	if !ok {
		return nil, ErrNotFloat
	}
	if delta.IsInf() {
		return nil, ErrInfiniteIncrement
	}
	c, err := db.forWrite(key, metadata.TypeHash)
	if err != nil {
		return nil, err
	}
	old, err := c.fieldIfExists(field)
	if err != nil {
		return nil, err
	}
	out, err := addLongDouble(old.value, old.live(c.db.now()), delta, ErrHashNotFloat)
	if err != nil {
		return nil, err
	}
	return out, c.hashSetOne(field, out, old)
}

// fieldIfExists reads a field as stored.
func (c *collection) fieldIfExists(field []byte) (hashField, error) {
	if !c.exists {
		return hashField{}, nil
	}
	raw, found, err := c.getElement(field)
	if err != nil || !found {
		return hashField{}, err
	}
	f := hashField{stored: true}
	f.expire, f.value = c.splitField(raw)
	return f, nil
}

// HRangeByLex calls fn with the fields of a hash in lex range r (LexMin,
// LexMax, Rev, Offset, Count as for sorted sets) and their values, as of
// one snapshot, until fn returns false. Arguments point into the iterator.
func (db DB) HRangeByLex(key []byte, r ZRange, fn func(field, value []byte) bool) error {
	v, err := db.readView(key, metadata.TypeHash)
	if err != nil || v == nil {
		return err
	}
	defer v.release()
	r.By = ByLex
	if !v.meta.FieldTTL {
		return v.walkSubkeysByLex(v.snap, r, fn)
	}
	// Expired fields take no place in the offset and count.
	offset, count := r.Offset, r.Count
	r.Offset, r.Count = 0, -1
	now := v.db.now()
	return v.walkSubkeysByLex(v.snap, r, func(field, raw []byte) bool {
		value, live := v.liveValue(raw, now)
		switch {
		case !live:
			return true
		case offset > 0:
			offset--
			return true
		case count == 0:
			return false
		}
		count--
		return fn(field, value)
	})
}

// Walk calls fn for every element (and its value) of a collection of type
// t as of one snapshot: HGETALL, HKEYS, HVALS, SMEMBERS. fn's arguments are
// valid only during the call. found is false when the key does not exist.
func (db DB) Walk(key []byte, t metadata.Type, fn func(sub, value []byte)) (found bool, err error) {
	v, err := db.readView(key, t)
	if err != nil || v == nil {
		return false, err
	}
	defer v.release()
	now := v.db.now()
	return true, v.eachAt(CFDefault, nil, 0, func(sub, value []byte) bool {
		if v.meta.FieldTTL {
			var live bool
			if value, live = v.liveValue(value, now); !live {
				return true
			}
		}
		fn(sub, value)
		return true
	})
}

// ScanElements is one step of HSCAN/SSCAN/ZSCAN over a collection of type
// t: it examines up to count elements from the element from (nil: the
// first) and returns copies of those matching the pattern, and the element
// the next step starts at (nil when done).
func (db DB) ScanElements(key []byte, t metadata.Type, from, match []byte, count int) (elems []Element, next []byte, err error) {
	c, err := db.forRead(key, t)
	if err != nil || c == nil {
		return nil, nil, err
	}
	examined := 0
	now := db.now()
	err = c.each(CFDefault, nil, from, 0, func(sub, value []byte) bool {
		if examined == count {
			next = append([]byte(nil), sub...)
			return false
		}
		examined++
		if c.meta.FieldTTL {
			var live bool
			if value, live = c.liveValue(value, now); !live {
				return true
			}
		}
		if match == nil || glob.Match(match, sub, false) {
			elems = append(elems, Element{Sub: append([]byte(nil), sub...), Value: append([]byte(nil), value...)})
		}
		return true
	})
	return elems, next, err
}

// RandomElements draws count elements of the collection of type t at key,
// as of one snapshot (see sample): with distinct, min(count, size)
// different ones; without, count that may repeat. It hands them to fn in
// chunks of at most SampleChunk until fn returns false; total, the same in
// every call, is how many elements the chunks hold together. fn is not
// called when the key is absent or count is 0. The elements stay valid
// after the call; an element drawn twice shares its bytes, so they must not
// be modified. An error returned after fn was called means the draws
// stopped short of total.
func (db DB) RandomElements(key []byte, t metadata.Type, count int64, distinct bool, fn func(total int64, chunk []Element) bool) error {
	v, err := db.readView(key, t)
	if err != nil || v == nil {
		return err
	}
	defer v.release()
	if m := v.meta; m.FieldTTL && (m.Persist == m.Size || db.now() <= m.LowerTTL) {
		// No field has expired: draw from the records, without their
		// expiry prefixes.
		return v.sample(CFDefault, count, distinct, func(total int64, chunk []Element) bool {
			for i := range chunk {
				_, chunk[i].Value = v.splitField(chunk[i].Value)
			}
			return fn(total, chunk)
		})
	}
	if v.meta.FieldTTL {
		// Some may have: draw from the live fields, read whole, until
		// the sweep recounted the hash.
		db.s.fieldReaps.note(db.ns, key)
		var live []Element
		now := db.now()
		err := v.eachAt(CFDefault, nil, 0, func(sub, raw []byte) bool {
			if value, ok := v.liveValue(raw, now); ok {
				live = append(live, copyElement(sub, value))
			}
			return true
		})
		if err != nil {
			return err
		}
		return sampleLive(live, count, distinct, fn)
	}
	return v.sample(CFDefault, count, distinct, fn)
}
