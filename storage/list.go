package storage

import (
	"bytes"
	"encoding/binary"
	"math"
	"strconv"

	"github.com/basaltdb/basalt/metadata"
)

// Lists keep their elements at contiguous u64 indexes [head, tail) in the
// default column family (FORMAT.md §4.4): subkey = big-endian index,
// value = the element. Logical position i (0 = left) is at head+i.

// at returns the internal key of list index i.
func (c *collection) at(i uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], i)
	return c.subkey(b[:])
}

// push adds elements at the left (each new one becoming the first, so the
// last argument ends leftmost) or at the right, into b.
func (c *collection) push(b *batch, elems [][]byte, left bool) {
	for _, e := range elems {
		if left {
			c.meta.Head--
			b.put(CFDefault, c.at(c.meta.Head), e)
		} else {
			b.put(CFDefault, c.at(c.meta.Tail), e)
			c.meta.Tail++
		}
	}
	c.meta.Size += uint64(len(elems))
}

// Push implements LPUSH/RPUSH (and the X forms with onlyExisting) and
// returns the new length; 0 when onlyExisting finds no list.
func (db DB) Push(key []byte, elems [][]byte, left, onlyExisting bool) (int64, error) {
	c, err := db.forWrite(key, metadata.TypeList)
	if err != nil || (onlyExisting && !c.exists) {
		return 0, err
	}
	b := db.newBatch(pushLog(left))
	c.push(b, elems, left)
	c.saveMeta(b)
	return int64(c.meta.Size), b.commit()
}

// pop removes up to count elements from one end into b and returns them.
func (c *collection) pop(b *batch, left bool, count int64) ([][]byte, error) {
	n := min(uint64(count), c.meta.Size)
	keys := make([][]byte, n)
	for i := uint64(0); i < n; i++ {
		if left {
			keys[i] = c.at(c.meta.Head + i)
		} else {
			keys[i] = c.at(c.meta.Tail - 1 - i)
		}
	}
	values, err := c.db.multiGet(CFDefault, keys)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		b.del(CFDefault, k)
	}
	if left {
		c.meta.Head += n
	} else {
		c.meta.Tail -= n
	}
	c.meta.Size -= n
	return values, nil
}

// Pop removes up to count elements from one end; nil when the key is
// absent. An emptied list is deleted.
func (db DB) Pop(key []byte, left bool, count int64) ([][]byte, error) {
	c, err := db.forWrite(key, metadata.TypeList)
	if err != nil || !c.exists {
		return nil, err
	}
	b := db.newBatch(popLog(left))
	values, err := c.pop(b, left, count)
	if err != nil {
		return nil, err
	}
	c.saveMeta(b)
	return values, b.commit()
}

// position turns a Redis index (negative counts from the end) into a
// logical position; ok is false when it is out of range.
func (c *collection) position(index int64) (uint64, bool) {
	size := int64(c.meta.Size)
	if index < 0 {
		index += size
	}
	if index < 0 || index >= size {
		return 0, false
	}
	return uint64(index), true
}

// LIndex returns the element at index: one point lookup after the metadata.
func (db DB) LIndex(key []byte, index int64) ([]byte, bool, error) {
	c, err := db.forRead(key, metadata.TypeList)
	if err != nil || c == nil {
		return nil, false, err
	}
	pos, ok := c.position(index)
	if !ok {
		return nil, false, nil
	}
	return db.get(CFDefault, c.at(c.meta.Head+pos), nil)
}

// LSet overwrites the element at index.
func (db DB) LSet(key []byte, index int64, value []byte) error {
	c, err := db.forWrite(key, metadata.TypeList)
	if err != nil {
		return err
	}
	if !c.exists {
		return ErrNoSuchKey
	}
	pos, ok := c.position(index)
	if !ok {
		return ErrIndexOutOfRange
	}
	return db.put(listLog(LogLSet, strconv.FormatUint(pos, 10)), CFDefault, c.at(c.meta.Head+pos), value)
}

// listRange normalises LRANGE/LTRIM bounds to logical positions; ok is
// false when the range is empty.
func listRange(size, start, stop int64) (from, to int64, ok bool) {
	if start < 0 {
		start += size
	}
	if stop < 0 {
		stop += size
	}
	start = max(start, 0)
	if start > stop || start >= size {
		return 0, 0, false
	}
	return start, min(stop, size-1), true
}

// LRange calls fn for the elements from start to stop (inclusive, Redis
// indexes) as of one snapshot, with one bounded iterator, until fn returns
// false. total, the same in every call, is how many elements the range
// holds, known before the first: a reply can announce its length and
// stream. fn's elem is valid only during the call. An error returned after
// fn was called means the range ended short of total.
func (db DB) LRange(key []byte, start, stop int64, fn func(total int64, elem []byte) bool) error {
	v, err := db.readView(key, metadata.TypeList)
	if err != nil || v == nil {
		return err
	}
	defer v.release()
	from, to, ok := listRange(int64(v.meta.Size), start, stop)
	if !ok {
		return nil
	}
	var first [8]byte
	binary.BigEndian.PutUint64(first[:], v.meta.Head+uint64(from))
	total := to - from + 1
	left, stopped := total, false
	err = v.eachAt(CFDefault, first[:], int(left), func(_, value []byte) bool {
		left--
		stopped = !fn(total, value)
		return !stopped && left > 0
	})
	if err == nil && !stopped && left > 0 && left < total {
		err = errFewerElements
	}
	return err
}

// LTrim keeps only the elements from start to stop, deleting the others
// with two range deletions.
func (db DB) LTrim(key []byte, start, stop int64) error {
	c, err := db.forWrite(key, metadata.TypeList)
	if err != nil || !c.exists {
		return err
	}
	from, to, ok := listRange(int64(c.meta.Size), start, stop)
	if !ok {
		// Kvrocks deletes the key without LogData.
		b := db.newBatch(nil)
		c.meta.Size = 0
		c.saveMeta(b)
		return b.commit()
	}
	// Kvrocks logs the bounds made positive, the start clamped at 0.
	if stop < 0 {
		stop += int64(c.meta.Size)
	}
	b := db.newBatch(listLog(LogLTrim, strconv.FormatInt(from, 10), strconv.FormatInt(stop, 10)))
	newHead, newTail := c.meta.Head+uint64(from), c.meta.Head+uint64(to)+1
	if newHead > c.meta.Head {
		b.delUncachedRange(CFDefault, c.at(c.meta.Head), c.at(newHead))
	}
	if newTail < c.meta.Tail {
		b.delUncachedRange(CFDefault, c.at(newTail), c.at(c.meta.Tail))
	}
	c.meta.Head, c.meta.Tail, c.meta.Size = newHead, newTail, newTail-newHead
	c.saveMeta(b)
	return b.commit()
}

// elementsBetween reads the elements at indexes [from, to).
func (c *collection) elementsBetween(from, to uint64) ([][]byte, error) {
	keys := make([][]byte, 0, to-from)
	for i := from; i < to; i++ {
		keys = append(keys, c.at(i))
	}
	return c.db.multiGet(CFDefault, keys)
}

// LInsert inserts elem before or after the first occurrence of pivot and
// returns the new length, -1 when pivot is absent, 0 when the key is.
// It moves the shorter side of the list by one index (FORMAT.md §4.4).
func (db DB) LInsert(key []byte, before bool, pivot, elem []byte) (int64, error) {
	c, err := db.forWrite(key, metadata.TypeList)
	if err != nil || !c.exists {
		return 0, err
	}
	p, found, err := c.find(pivot)
	if err != nil || !found {
		return -1, err
	}
	q := p
	if !before {
		q++
	}
	b := db.newBatch(listLog(LogLInsert, boolDigit(before), string(pivot), string(elem)))
	if q <= c.meta.Size-q {
		// Move [0, q) down one index.
		moved, err := c.elementsBetween(c.meta.Head, c.meta.Head+q)
		if err != nil {
			return 0, err
		}
		for i, v := range moved {
			b.put(CFDefault, c.at(c.meta.Head-1+uint64(i)), v)
		}
		c.meta.Head--
	} else {
		// Move [q, size) up one index.
		moved, err := c.elementsBetween(c.meta.Head+q, c.meta.Tail)
		if err != nil {
			return 0, err
		}
		for i, v := range moved {
			b.put(CFDefault, c.at(c.meta.Head+q+1+uint64(i)), v)
		}
		c.meta.Tail++
	}
	b.put(CFDefault, c.at(c.meta.Head+q), elem)
	c.meta.Size++
	c.saveMeta(b)
	return int64(c.meta.Size), b.commit()
}

// find returns the logical position of the first element equal to elem.
func (c *collection) find(elem []byte) (uint64, bool, error) {
	var pos uint64
	found := false
	var head [8]byte
	binary.BigEndian.PutUint64(head[:], c.meta.Head)
	err := c.each(CFDefault, nil, head[:], 0, func(_, value []byte) bool {
		if bytes.Equal(value, elem) {
			found = true
			return false
		}
		pos++
		return true
	})
	return pos, found, err
}

// matches returns the indexes of elements equal to elem, walking from the
// left (or the right): skipping the first skip matches, returning at most
// limit (0: all), looking at no more than maxLen elements (0: all).
func (c *collection) matches(elem []byte, fromRight bool, skip, limit, maxLen int64) ([]uint64, error) {
	lower, upper := c.prefix()
	it := c.db.newIterator(CFDefault, lower, upper, nil)
	defer it.close()
	// Seek to the ends the metadata gives, not to the ends of the prefix:
	// pops leave tombstones beyond them.
	if fromRight {
		it.SeekForPrev(c.at(c.meta.Tail - 1))
	} else {
		it.Seek(c.at(c.meta.Head))
	}
	var out []uint64
	seen := int64(0)
	err := it.walk(fromRight, int(min(maxLen, math.MaxInt32)), func(key, value []byte) bool {
		if maxLen != 0 && seen == maxLen {
			return false
		}
		seen++
		if !bytes.Equal(value, elem) {
			return true
		}
		if skip > 0 {
			skip--
			return true
		}
		out = append(out, binary.BigEndian.Uint64(key[len(lower):]))
		return limit == 0 || int64(len(out)) < limit
	})
	return out, err
}

// LRem removes count occurrences of elem (all with 0; from the right when
// negative) and returns how many it removed. Survivors are shifted over the
// gaps from the shorter side (FORMAT.md §4.4).
func (db DB) LRem(key []byte, count int64, elem []byte) (int64, error) {
	c, err := db.forWrite(key, metadata.TypeList)
	if err != nil || !c.exists {
		return 0, err
	}
	limit := count
	if count < 0 {
		limit = -count
	}
	hits, err := c.matches(elem, count < 0, 0, limit, 0)
	if err != nil || len(hits) == 0 {
		return 0, err
	}
	k := uint64(len(hits))
	b := db.newBatch(listLog(LogLRem, strconv.FormatInt(count, 10), string(elem)))
	if k == c.meta.Size {
		c.meta.Size = 0
		c.saveMeta(b)
		return int64(k), b.commit()
	}
	removed := make(map[uint64]bool, k)
	lo, hi := hits[0], hits[0]
	for _, h := range hits {
		removed[h] = true
		lo, hi = min(lo, h), max(hi, h)
	}
	if hi-c.meta.Head <= c.meta.Tail-1-lo {
		// Shift the survivors left of hi up over the gaps; head moves up.
		span, err := c.elementsBetween(c.meta.Head, hi+1)
		if err != nil {
			return 0, err
		}
		w := hi
		for i := hi + 1; i > c.meta.Head; i-- {
			idx := i - 1
			if removed[idx] {
				continue
			}
			if idx != w {
				b.put(CFDefault, c.at(w), span[idx-c.meta.Head])
			}
			w--
		}
		for i := c.meta.Head; i < c.meta.Head+k; i++ {
			b.del(CFDefault, c.at(i))
		}
		c.meta.Head += k
	} else {
		// Shift the survivors right of lo down over the gaps; tail moves down.
		span, err := c.elementsBetween(lo, c.meta.Tail)
		if err != nil {
			return 0, err
		}
		w := lo
		for idx := lo; idx < c.meta.Tail; idx++ {
			if removed[idx] {
				continue
			}
			if idx != w {
				b.put(CFDefault, c.at(w), span[idx-lo])
			}
			w++
		}
		for i := c.meta.Tail - k; i < c.meta.Tail; i++ {
			b.del(CFDefault, c.at(i))
		}
		c.meta.Tail -= k
	}
	c.meta.Size -= k
	c.saveMeta(b)
	return int64(k), b.commit()
}

// LPos returns the positions of elements equal to elem: skipping the first
// rank-1 matches (from the right when rank < 0), at most count of them
// (0: all), looking at no more than maxLen elements (0: all).
func (db DB) LPos(key, elem []byte, rank, count, maxLen int64) ([]int64, error) {
	c, err := db.forRead(key, metadata.TypeList)
	if err != nil || c == nil {
		return nil, err
	}
	fromRight := rank < 0
	skip := rank - 1
	if fromRight {
		skip = -rank - 1
	}
	hits, err := c.matches(elem, fromRight, skip, count, maxLen)
	positions := make([]int64, len(hits))
	for i, h := range hits {
		positions[i] = int64(h - c.meta.Head)
	}
	return positions, err
}

// LMove pops an element from one end of src and pushes it at one end of
// dst (the same list rotates) in one batch; found is false when src is
// absent. dst must hold a list or be absent.
func (db DB) LMove(src, dst []byte, srcLeft, dstLeft bool) (elem []byte, found bool, err error) {
	from, err := db.forWrite(src, metadata.TypeList)
	if err != nil || !from.exists {
		return nil, false, err
	}
	to := from
	if !bytes.Equal(src, dst) {
		if to, err = db.forWrite(dst, metadata.TypeList); err != nil {
			return nil, false, err
		}
	}
	b := db.newBatch(listLog(LogLMove, string(src), string(dst), side(srcLeft), side(dstLeft)))
	values, err := from.pop(b, srcLeft, 1)
	if err != nil {
		return nil, false, err
	}
	to.push(b, values, dstLeft)
	from.saveMeta(b)
	if to != from {
		to.saveMeta(b)
	}
	return values[0], true, b.commit()
}

// ListStore replaces dst, of any type, by a list of elems (SORT ... STORE):
// a new version without TTL, or no key at all when elems is empty. It
// returns the length.
func (db DB) ListStore(dst []byte, elems [][]byte) (int64, error) {
	c := &collection{db: db, nsKey: db.nsKey(dst), key: dst, writer: true}
	_, found, err := db.lookup(c.nsKey)
	if err != nil {
		return 0, err
	}
	// Nothing onto nothing writes nothing (saveMeta), so that, as in
	// Redis, a WATCH of dst is not touched.
	c.exists = found
	c.meta = metadata.New(metadata.TypeList, db.s.versions.Next(nowTime()))
	b := db.newBatch(logRightPush)
	c.push(b, elems, false)
	c.saveMeta(b)
	return int64(len(elems)), b.commit()
}
