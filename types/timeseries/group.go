package timeseries

import "iter"

// Reduce streams a GROUPBY row: the query run over each source (its own
// aggregation first), the values the sources have at one timestamp
// reduced by reducer, in the query's order, at most COUNT of them. Each
// source is read as it is merged, never whole.
func Reduce(q *Query, reducer Aggregator, sources []Source, emit func(Sample) bool) error {
	type stream struct {
		next func() (Sample, bool)
		stop func()
		head Sample
		ok   bool
	}
	errs := make([]error, len(sources))
	streams := make([]*stream, len(sources))
	for i, src := range sources {
		seq := func(yield func(Sample) bool) {
			errs[i] = q.Run(src, yield)
		}
		next, stop := iter.Pull(iter.Seq[Sample](seq))
		defer stop()
		st := &stream{next: next, stop: stop}
		st.head, st.ok = next()
		streams[i] = st
	}
	limit := q.limiter(emit)
	for {
		var at int64
		found := false
		for _, st := range streams {
			if st.ok && (!found || (q.Reverse && st.head.TS > at) || (!q.Reverse && st.head.TS < at)) {
				at, found = st.head.TS, true
			}
		}
		if !found {
			break
		}
		a := newAcc(reducer)
		for _, st := range streams {
			if st.ok && st.head.TS == at {
				a.add(st.head)
				st.head, st.ok = st.next()
			}
		}
		if !limit(Sample{TS: at, V: a.value()}) {
			break
		}
	}
	for i, st := range streams {
		st.stop()
		if errs[i] != nil {
			return errs[i]
		}
	}
	return nil
}
