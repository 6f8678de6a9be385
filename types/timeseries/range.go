package timeseries

import "slices"

// Run streams the query's result over a series to emit, in the query's
// order, until the result ends or emit returns false (the client went
// away). Samples are read chunk by chunk as they are emitted, so a range
// of any length holds one chunk and one bucket at a time.
func (q *Query) Run(src Source, emit func(Sample) bool) error {
	v, err := open(src, q.From, q.To, q.Latest)
	if err != nil {
		return err
	}
	limit := q.limiter(emit)
	if q.Agg == AggNone {
		return v.walk(q.Reverse, func(s Sample) bool {
			return !q.keep(s) || limit(s)
		})
	}
	b := newBucketer(q, limit)
	if q.Agg == AggTWA {
		out, err := q.neighbour(&v, q.Reverse)
		if err != nil {
			return err
		}
		if out != nil {
			b.prevOut, b.hasPrev = *out, true
		}
	}
	stopped := false
	err = v.walk(q.Reverse, func(s Sample) bool {
		if !q.keep(s) {
			return true
		}
		stopped = !b.add(s)
		return !stopped
	})
	if err != nil || stopped || b.open == nil {
		return err
	}
	var next *Sample
	if q.Agg == AggTWA {
		if next, err = q.neighbour(&v, !q.Reverse); err != nil {
			return err
		}
	}
	b.flush(next)
	return nil
}

// neighbour is TWA's sample beyond the range (after: past to, else
// before from): the series's nearest one, if it passes the filters.
func (q *Query) neighbour(v *view, after bool) (*Sample, error) {
	s, err := v.outside(after)
	if err != nil || s == nil || !q.keep(*s) {
		return nil, err
	}
	return s, nil
}

// keep reports whether s passes FILTER_BY_TS and FILTER_BY_VALUE.
func (q *Query) keep(s Sample) bool {
	if q.FilterTS != nil {
		if _, ok := slices.BinarySearch(q.FilterTS, s.TS); !ok {
			return false
		}
	}
	return !q.FilterValue || (s.V >= q.MinValue && s.V <= q.MaxValue)
}

// limiter wraps emit so that it stops after COUNT samples.
func (q *Query) limiter(emit func(Sample) bool) func(Sample) bool {
	if q.Count == 0 {
		return emit
	}
	sent := uint64(0)
	return func(s Sample) bool {
		sent++
		return emit(s) && sent < q.Count
	}
}

// bucketer turns a walk of samples (either direction) into the buckets
// of an aggregation, one open bucket at a time.
type bucketer struct {
	q    *Query
	emit func(Sample) bool
	acc  acc
	// open is the start of the bucket acc holds, nil before the first
	// sample.
	open  *int64
	start int64
	// prevOut (when hasPrev) is the sample just before the open bucket
	// in walking order (older when forward, newer when reverse): TWA's
	// neighbour and EMPTY's "last" for the gaps. recent is the last
	// sample added.
	prevOut Sample
	hasPrev bool
	recent  Sample
}

func newBucketer(q *Query, emit func(Sample) bool) *bucketer {
	return &bucketer{q: q, emit: emit, acc: newAcc(q.Agg)}
}

// add takes the next sample of the walk; false stops the walk.
func (b *bucketer) add(s Sample) bool {
	start := bucketStart(s.TS, b.q.Align, b.q.Bucket)
	if b.open != nil && start != b.start {
		if !b.flush(&s) || !b.fill(start, s) {
			return false
		}
	}
	if b.open == nil {
		b.start = start
		b.open = &b.start
	}
	b.acc.add(s)
	b.recent = s
	return true
}

// flush emits the open bucket; next is the first sample after it in
// walking order, if any.
func (b *bucketer) flush(next *Sample) bool {
	var v float64
	if b.q.Agg == AggTWA {
		var prev *Sample
		if b.hasPrev {
			prev = &b.prevOut
		}
		older, newer := prev, next
		if b.q.Reverse {
			older, newer = next, prev
		}
		v = b.acc.twaValue(b.start, b.end(b.start), older, newer)
	} else {
		v = b.acc.value()
	}
	b.prevOut, b.hasPrev = b.recent, true
	b.acc.reset()
	b.open = nil
	return b.emit(Sample{TS: b.q.reportedTS(b.start), V: v})
}

// fill emits, with EMPTY, the empty buckets between the one just flushed
// (b.start) and the one s opens (start).
func (b *bucketer) fill(start int64, s Sample) bool {
	if !b.q.Empty {
		return true
	}
	last, d := b.start, b.q.Bucket
	older, newer := b.prevOut, s
	if b.q.Reverse {
		older, newer = s, b.prevOut
	}
	for {
		gap := b.nextStart(last)
		if (!b.q.Reverse && gap >= start) || (b.q.Reverse && gap <= start) {
			return true
		}
		var v float64
		if b.q.Agg == AggTWA {
			v = twaEmpty(gap, gap+d, &older, &newer)
		} else {
			v = emptyValue(b.q.Agg, &older)
		}
		if !b.emit(Sample{TS: b.q.reportedTS(gap), V: v}) {
			return false
		}
		last = gap
	}
}

// nextStart is the start of the bucket after (reverse: before) the one
// starting at start.
func (b *bucketer) nextStart(start int64) int64 {
	if b.q.Reverse {
		return bucketStart(start-1, b.q.Align, b.q.Bucket)
	}
	return b.end(start)
}

// end is where the bucket starting at start ends (exclusive): the first
// bucket starts at 0 but ends where a whole bucket would.
func (b *bucketer) end(start int64) int64 {
	if start == 0 {
		return unclampedStart(0, b.q.Align, b.q.Bucket) + b.q.Bucket
	}
	return satAdd(start, b.q.Bucket)
}

// unclampedStart is bucketStart without the clamp at 0 (it may be
// negative).
func unclampedStart(ts, align, d int64) int64 {
	m := (ts - align%d) % d
	if m < 0 {
		m += d
	}
	return ts - m
}
