package timeseries

import (
	"math"
	"slices"
)

// overlay is the chunks a command has changed, over the chunks stored:
// a read through it sees the series as the command's batch will leave
// it. It implements Chunks.
type overlay struct {
	stored Chunks
	// chunks holds the changed chunks by id; a nil entry is a chunk
	// removed (re-keyed or emptied). wasStored says which ids the store
	// holds, so that the chunk count can be kept.
	chunks    map[int64][]Sample
	wasStored map[int64]bool
	ids       []int64 // the keys of chunks, sorted; nil when stale
}

func newOverlay(stored Chunks) *overlay {
	return &overlay{stored: stored, chunks: map[int64][]Sample{}, wasStored: map[int64]bool{}}
}

func (o *overlay) sortedIDs() []int64 {
	if o.ids == nil {
		o.ids = make([]int64, 0, len(o.chunks))
		for id := range o.chunks {
			o.ids = append(o.ids, id)
		}
		slices.Sort(o.ids)
	}
	return o.ids
}

// set records the samples of the chunk id (nil: removed); stored says
// whether the store held the id before the command.
func (o *overlay) set(id int64, samples []Sample, stored bool) {
	if _, seen := o.chunks[id]; !seen {
		o.wasStored[id] = stored
		o.ids = nil
	}
	o.chunks[id] = samples
}

// Forward implements Chunks.
func (o *overlay) Forward(ts int64, fn func(id int64, value []byte) bool) error {
	start, ok, err := o.lastAtOrBefore(ts)
	if err != nil {
		return err
	}
	if !ok {
		start = math.MinInt64
	}
	ids := o.sortedIDs()
	next, _ := slices.BinarySearch(ids, start)
	more := true
	// emitUpTo passes the changed chunks with ids below limit.
	emitUpTo := func(limit int64) {
		for ; more && next < len(ids) && ids[next] < limit; next++ {
			if s := o.chunks[ids[next]]; s != nil {
				more = fn(ids[next], AppendChunk(nil, s))
			}
		}
	}
	err = o.stored.Forward(max(start, 0), func(id int64, value []byte) bool {
		if id < start {
			return true
		}
		emitUpTo(id)
		if !more {
			return false
		}
		if _, changed := o.chunks[id]; !changed {
			more = fn(id, value)
		}
		return more
	})
	if err != nil {
		return err
	}
	emitUpTo(math.MaxInt64)
	if more && next < len(ids) && o.chunks[ids[next]] != nil {
		fn(ids[next], AppendChunk(nil, o.chunks[ids[next]]))
	}
	return nil
}

// Backward implements Chunks.
func (o *overlay) Backward(ts int64, fn func(id int64, value []byte) bool) error {
	ids := o.sortedIDs()
	next, found := slices.BinarySearch(ids, ts)
	if !found {
		next--
	}
	more := true
	emitDownTo := func(limit int64) {
		for ; more && next >= 0 && ids[next] > limit; next-- {
			if s := o.chunks[ids[next]]; s != nil {
				more = fn(ids[next], AppendChunk(nil, s))
			}
		}
	}
	err := o.stored.Backward(ts, func(id int64, value []byte) bool {
		emitDownTo(id)
		if !more {
			return false
		}
		if _, changed := o.chunks[id]; !changed {
			more = fn(id, value)
		}
		return more
	})
	if err != nil {
		return err
	}
	emitDownTo(math.MinInt64)
	return nil
}

// lastAtOrBefore is the id of the last live chunk whose id is at most ts.
func (o *overlay) lastAtOrBefore(ts int64) (id int64, ok bool, err error) {
	ids := o.sortedIDs()
	i, found := slices.BinarySearch(ids, ts)
	if !found {
		i--
	}
	for ; i >= 0; i-- {
		if o.chunks[ids[i]] != nil {
			id, ok = ids[i], true
			break
		}
	}
	err = o.stored.Backward(ts, func(sid int64, _ []byte) bool {
		if _, changed := o.chunks[sid]; changed {
			return true
		}
		if !ok || sid > id {
			id, ok = sid, true
		}
		return false
	})
	return id, ok, err
}

// first is the id of the first live chunk.
func (o *overlay) first() (id int64, ok bool, err error) {
	err = o.Forward(0, func(cid int64, _ []byte) bool {
		id, ok = cid, true
		return false
	})
	return id, ok, err
}

// load returns the samples of the chunk id, a copy the caller may
// change, and whether the store holds the id.
func (o *overlay) load(id int64) ([]Sample, bool, error) {
	if s, changed := o.chunks[id]; changed {
		return slices.Clone(s), o.wasStored[id], nil
	}
	var out []Sample
	var perr error
	found := false
	err := o.stored.Backward(id, func(sid int64, value []byte) bool {
		if sid != id {
			return false
		}
		found = true
		ch, err := ParseChunk(value)
		if err != nil {
			perr = err
			return false
		}
		out = ch.Samples()
		return false
	})
	if err == nil {
		err = perr
	}
	return out, found, err
}
