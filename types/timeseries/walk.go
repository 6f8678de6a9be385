package timeseries

import "math"

// Chunks is one live series's chunk records as the engine reads them in
// one snapshot: the subkeys 00|id of the series's current version, in
// RocksDB's order. A value passed to fn is valid only during the call.
type Chunks interface {
	// Forward calls fn with the chunks in ascending id order, starting
	// at the last chunk whose id is at most ts (at the first chunk when
	// there is none), until fn returns false or the chunks end.
	Forward(ts int64, fn func(id int64, value []byte) bool) error
	// Backward calls fn with the chunks in descending id order, starting
	// at the last chunk whose id is at most ts.
	Backward(ts int64, fn func(id int64, value []byte) bool) error
}

// walk calls fn with the samples in [from, to], ascending (reverse:
// descending), until fn returns false. A chunk that does not parse ends
// the walk with ErrCorrupt.
func walk(c Chunks, from, to int64, reverse bool, fn func(Sample) bool) error {
	if from > to {
		return nil
	}
	var corrupt error
	visit := func(_ int64, value []byte) bool {
		ch, err := ParseChunk(value)
		if err != nil {
			corrupt = err
			return false
		}
		if reverse {
			return walkChunkBackward(ch, from, to, fn)
		}
		return walkChunkForward(ch, from, to, fn)
	}
	var err error
	if reverse {
		err = c.Backward(to, visit)
	} else {
		err = c.Forward(from, visit)
	}
	if err != nil {
		return err
	}
	return corrupt
}

// walkChunkForward passes ch's samples in [from, to] to fn and reports
// whether later chunks may hold more.
func walkChunkForward(ch Chunk, from, to int64, fn func(Sample) bool) bool {
	for i := ch.Search(from); i < ch.Len(); i++ {
		s := ch.At(i)
		if s.TS > to || !fn(s) {
			return false
		}
	}
	return true
}

// walkChunkBackward passes ch's samples in [from, to] to fn, newest
// first, and reports whether earlier chunks may hold more.
func walkChunkBackward(ch Chunk, from, to int64, fn func(Sample) bool) bool {
	i := ch.Search(to)
	if i < ch.Len() && ch.TS(i) == to {
		i++
	}
	for i--; i >= 0; i-- {
		s := ch.At(i)
		if s.TS < from || !fn(s) {
			return false
		}
	}
	return ch.Len() == 0 || ch.TS(0) > from
}

// Newest is the series's newest sample; ok is false when it has none.
func Newest(c Chunks) (s Sample, ok bool, err error) {
	err = walk(c, 0, math.MaxInt64, true, func(x Sample) bool {
		s, ok = x, true
		return false
	})
	return s, ok, err
}

// retained is the oldest timestamp a series whose newest sample is at
// newest still shows: newest − retention, or 0 when it keeps everything.
func retained(retention, newest int64) int64 {
	if retention <= 0 || newest < retention {
		return 0
	}
	return newest - retention
}

// Source is a series as a range read sees it.
type Source struct {
	Chunks Chunks
	Meta   *Meta
	// Latest is LATEST's sample for a compaction destination: its
	// source's open bucket (Rule.Latest); nil otherwise.
	Latest *Sample
}

// view is the part of a series a query reads: the retained samples in
// [from, to], plus LATEST's.
type view struct {
	src      Source
	floor    int64 // the oldest timestamp retention lets reads show
	from, to int64
	latest   *Sample // LATEST's sample when it is in [from, to]
	after    *Sample // LATEST's sample when it is past to
}

// open clips [from, to] to what the series retains (reads never show
// samples past retention, whatever the compaction filter has dropped
// yet), and places LATEST's sample.
func open(src Source, from, to int64, latest bool) (view, error) {
	v := view{src: src, from: from, to: to}
	newest, ok, err := Newest(src.Chunks)
	if err != nil {
		return v, err
	}
	if ok {
		v.floor = retained(src.Meta.Retention, newest.TS)
		v.from = max(from, v.floor)
	}
	l := src.Latest
	if !latest || l == nil || (ok && l.TS <= newest.TS) || l.TS < v.from {
		return v, nil
	}
	if l.TS <= to {
		v.latest = l
	} else {
		v.after = l
	}
	return v, nil
}

// walk calls fn with the view's samples in order.
func (v *view) walk(reverse bool, fn func(Sample) bool) error {
	more := true
	if reverse && v.latest != nil {
		more = fn(*v.latest)
	}
	if !more {
		return nil
	}
	err := walk(v.src.Chunks, v.from, v.to, reverse, func(s Sample) bool {
		more = fn(s)
		return more
	})
	if err != nil || !more || reverse || v.latest == nil {
		return err
	}
	fn(*v.latest)
	return nil
}

// outside returns the series's nearest retained sample before from
// (after: after to), for TWA's edges; nil when there is none.
func (v *view) outside(after bool) (*Sample, error) {
	var found *Sample
	take := func(s Sample) bool {
		found = &s
		return false
	}
	if after {
		if v.to == math.MaxInt64 {
			return nil, nil
		}
		if err := walk(v.src.Chunks, v.to+1, math.MaxInt64, false, take); err != nil || found != nil {
			return found, err
		}
		return v.after, nil
	}
	if v.from == 0 {
		return nil, nil
	}
	err := walk(v.src.Chunks, v.floor, v.from-1, true, take)
	return found, err
}
