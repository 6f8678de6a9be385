package storage

import (
	"bytes"
	"math/rand/v2"
	"sort"

	"github.com/basaltdb/basalt/metadata"
	"github.com/linxGnu/grocksdb"
)

// Sets keep one record per member in the default column family: subkey =
// member, empty value.

// SAdd adds members and returns how many were new.
func (db DB) SAdd(key []byte, members [][]byte) (int64, error) {
	c, err := db.forWrite(key, metadata.TypeSet)
	if err != nil {
		return 0, err
	}
	return c.setElements(unique(members), nil, true)
}

// unique returns members without repetitions, in first-seen order.
func unique(members [][]byte) [][]byte {
	if len(members) < 2 {
		return members // the common single-member command needs no set
	}
	seen := make(map[string]bool, len(members))
	out := members[:0:0]
	for _, m := range members {
		if !seen[string(m)] {
			seen[string(m)] = true
			out = append(out, m)
		}
	}
	return out
}

// SRem removes members and returns how many existed; an emptied set is
// deleted.
func (db DB) SRem(key []byte, members [][]byte) (int64, error) {
	c, err := db.forWrite(key, metadata.TypeSet)
	if err != nil || !c.exists {
		return 0, err
	}
	return c.deleteElements(members)
}

// SMIsMember reports for each member whether it is in the set.
func (db DB) SMIsMember(key []byte, members [][]byte) ([]bool, error) {
	out := make([]bool, len(members))
	c, err := db.forRead(key, metadata.TypeSet)
	if err != nil || c == nil {
		return out, err
	}
	values, err := c.getElements(members)
	for i, v := range values {
		out[i] = v != nil
	}
	return out, err
}

// spopWindow is how many live members at the front of a large set SPOP
// chooses from: picking there, rather than anywhere, keeps the tombstones
// it leaves behind the pop hint (see popHints).
const spopWindow = 8

// SPop removes and returns up to count random members. Small sets, and
// pops of a large share of a set, draw uniformly; a few pops from a large
// set draw at random among the first spopWindow+count live members.
func (db DB) SPop(key []byte, count int64) ([][]byte, error) {
	c, err := db.forWrite(key, metadata.TypeSet)
	if err != nil || !c.exists {
		return nil, err
	}
	// SPOP holds the key's lock, so the latest state is consistent without
	// a snapshot.
	v := &view{collection: c}
	var elems []Element
	if v.meta.Size > exactSampleLimit && uint64(count) <= v.meta.Size/4 {
		elems, err = v.frontSample(count)
	} else {
		elems, err = v.sampleList(CFDefault, count)
	}
	if err != nil || len(elems) == 0 {
		return nil, err
	}
	b := db.newBatch(typeLogs[metadata.TypeSet])
	members := make([][]byte, len(elems))
	for i, e := range elems {
		members[i] = e.Sub
		b.del(CFDefault, v.subkey(e.Sub))
	}
	v.meta.Size -= uint64(len(elems))
	v.saveMeta(b)
	return members, b.commit()
}

// frontSample draws count distinct members among the first count +
// spopWindow live ones, found from the pop hint.
func (v *view) frontSample(count int64) ([]Element, error) {
	lower, upper := v.prefix()
	it := v.db.newIterator(CFDefault, lower, upper, v.snap)
	defer it.close()
	var window []Element
	v.seekEnd(it, lower, CFDefault, false)
	err := it.walk(false, int(count+spopWindow), func(key, _ []byte) bool {
		window = append(window, Element{Sub: append([]byte(nil), key[len(lower):]...)})
		return int64(len(window)) < count+spopWindow
	})
	if err != nil {
		return nil, err
	}
	rand.Shuffle(len(window), func(i, j int) { window[i], window[j] = window[j], window[i] })
	return window[:min(int64(len(window)), count)], nil
}

// SMove moves member from src to dst and reports whether it was in src
// (moved) and whether dst gained it (added: not when it held it already,
// or is src). As in Redis, an absent src answers false before any type
// check; then both keys must hold sets (dst may be absent).
func (db DB) SMove(src, dst, member []byte) (moved, added bool, err error) {
	from, err := db.forWrite(src, metadata.TypeSet)
	if err == nil && !from.exists {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	to, err := db.forWrite(dst, metadata.TypeSet)
	if err != nil {
		return false, false, err
	}
	if _, found, err := from.getElement(member); err != nil || !found {
		return false, false, err
	}
	if bytes.Equal(src, dst) {
		return true, false, nil
	}
	b := db.newBatch(typeLogs[metadata.TypeSet])
	b.del(CFDefault, from.subkey(member))
	from.meta.Size--
	from.saveMeta(b)
	if _, inDst, err := to.getElement(member); err != nil {
		return false, false, err
	} else if !to.exists || !inDst {
		b.put(CFDefault, to.subkey(member), nil)
		db.s.hints.widen(to, CFDefault, member)
		to.meta.Size++
		to.saveMeta(b)
		added = true
	}
	return true, added, b.commit()
}

// SetOp is a set algebra operation.
type SetOp int

// The set operations of SINTER, SUNION and SDIFF.
const (
	SetInter SetOp = iota
	SetUnion
	SetDiff
)

// membershipChunk is how many members one MultiGet checks against another
// set while intersecting or subtracting.
const membershipChunk = 256

// SetCombine computes op over the sets at keys as of one snapshot and calls
// fn with each member of the result until fn returns false; member is
// valid only during the call. Every key must hold a set or be absent; an
// absent key is an empty set.
func (db DB) SetCombine(op SetOp, keys [][]byte, fn func(member []byte) bool) error {
	snap := db.snapshot()
	defer db.s.db.ReleaseSnapshot(snap)
	sets := make([]*collection, len(keys))
	anyAbsent := false
	for i, k := range keys {
		c, err := db.readAt(snap, k, metadata.TypeSet)
		if err != nil {
			return err
		}
		sets[i] = c
		anyAbsent = anyAbsent || c == nil
	}
	switch op {
	case SetInter:
		if anyAbsent {
			return nil
		}
		sort.SliceStable(sets, func(i, j int) bool { return sets[i].meta.Size < sets[j].meta.Size })
		return filterMembers(snap, sets[0], sets[1:], true, fn)
	case SetDiff:
		if sets[0] == nil {
			return nil
		}
		var others []*collection
		for _, s := range sets[1:] {
			if s != nil {
				others = append(others, s)
			}
		}
		return filterMembers(snap, sets[0], others, false, fn)
	default:
		return unionMembers(snap, sets, fn)
	}
}

// inChunks feeds the items walk yields to flush in chunks of
// membershipChunk, so that lookups in other collections go in batches, and
// stops early once stop reports true. flush must not keep the chunk.
func inChunks[T any](walk func(yield func(T) bool) error, flush func([]T) error, stop func() bool) error {
	chunk := make([]T, 0, membershipChunk)
	var ferr error
	err := walk(func(item T) bool {
		chunk = append(chunk, item)
		if len(chunk) == membershipChunk {
			ferr = flush(chunk)
			chunk = chunk[:0]
		}
		return ferr == nil && !stop()
	})
	if err = firstError(err, ferr); err != nil || stop() {
		return err
	}
	return flush(chunk)
}

// filterMembers walks base and passes on the members that are in every
// other set (keep) or in none of them (!keep).
func filterMembers(snap *grocksdb.Snapshot, base *collection, others []*collection, keep bool, fn func([]byte) bool) error {
	stopped := false
	return inChunks(func(yield func([]byte) bool) error {
		return base.each(CFDefault, snap, nil, 0, func(sub, _ []byte) bool {
			return yield(append([]byte(nil), sub...))
		})
	}, func(chunk [][]byte) error {
		alive := make([]bool, len(chunk))
		for i := range alive {
			alive[i] = true
		}
		for _, o := range others {
			keys := make([][]byte, len(chunk))
			for i, m := range chunk {
				keys[i] = o.subkey(m)
			}
			found, err := o.db.s.multiGetAt(snap, CFDefault, keys)
			if err != nil {
				return err
			}
			for i := range chunk {
				if (found[i] != nil) != keep {
					alive[i] = false
				}
			}
		}
		for i, m := range chunk {
			if alive[i] && !fn(m) {
				stopped = true
				break
			}
		}
		return nil
	}, func() bool { return stopped })
}

// unionMembers passes on each member of any set once.
func unionMembers(snap *grocksdb.Snapshot, sets []*collection, fn func([]byte) bool) error {
	seen := map[string]bool{}
	for _, s := range sets {
		if s == nil {
			continue
		}
		stopped := false
		err := s.each(CFDefault, snap, nil, 0, func(sub, _ []byte) bool {
			if seen[string(sub)] {
				return true
			}
			seen[string(sub)] = true
			stopped = !fn(sub)
			return !stopped
		})
		if err != nil || stopped {
			return err
		}
	}
	return nil
}

func firstError(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// SetStore stores the result of op over keys in dst, replacing whatever dst
// held (a new version, no TTL), and returns its size. An empty result
// deletes dst.
func (db DB) SetStore(op SetOp, dst []byte, keys [][]byte) (int64, error) {
	out := &collection{db: db, nsKey: db.nsKey(dst), key: dst}
	out.meta = metadata.New(metadata.TypeSet, db.s.versions.Next(nowTime()))
	b := db.newBatch(typeLogs[metadata.TypeSet])
	err := db.SetCombine(op, keys, func(m []byte) bool {
		b.put(CFDefault, out.subkey(m), nil)
		out.meta.Size++
		return true
	})
	if err != nil {
		return 0, err
	}
	if out.meta.Size == 0 {
		// Nothing onto nothing writes nothing, so that, as in Redis, a
		// WATCH of dst is not touched.
		if _, found, err := db.lookup(out.nsKey); err != nil || !found {
			return 0, err
		}
		b.del(CFMetadata, out.nsKey)
	} else {
		b.put(CFMetadata, out.nsKey, out.meta.AppendTo(nil))
	}
	return int64(out.meta.Size), b.commit()
}
