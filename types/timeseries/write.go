package timeseries

import (
	"errors"
	"math"
	"slices"
)

// The write rules (KVROCKS-TYPES.md §6.4, REDIS-NEW.md §9.3–9.4), applied
// by Series as one command's samples arrive:
//
//  1. A sample older than newest − retention is refused (ErrTooOld),
//     newest being the series's newest sample as the batch leaves it.
//  2. A timestamp the series holds follows the duplicate policy: ON_DUPLICATE,
//     else the series's. BLOCK refuses, FIRST keeps, LAST replaces, MIN and
//     MAX keep the smaller or larger, SUM adds.
//  3. IGNORE (TS.ADD, TS.MADD): with policy LAST, a sample at or after the
//     newest, within IgnoreTime of it and IgnoreValue of its value, is not
//     stored; the reply is the newest timestamp.
//  4. A sample goes into the last chunk whose id (first timestamp) is at
//     most its own, or the first chunk when it is older than all; a chunk
//     whose first timestamp changes is re-keyed. The latest chunk is cut
//     into pieces of exactly ChunkSize samples; an older chunk only when
//     it holds more than 2 × ChunkSize, into count/ChunkSize nearly equal
//     pieces. The header's size counts the chunks.
//  5. Compaction rules: a sample in the rule's open bucket joins its
//     running aggregate; one in a later bucket closes the open bucket,
//     whose aggregate is written to the destination at the bucket's start
//     (policy LAST), and opens its own; one in an earlier, closed bucket
//     updates that bucket in the destination: SUM, COUNT, MIN and MAX
//     send the sample's part with policy SUM, SUM, MIN and MAX, the others
//     recompute the bucket from the retained samples (policy LAST). A
//     replaced value (rule 2) always recomputes its bucket.
//  6. TS.DEL recomputes every bucket it took a sample from (removing the
//     destination's sample of a bucket it emptied), and is refused when
//     the series has rules and a retention and the range (or its first
//     bucket) starts before newest − retention.

// Series is one series as one command writes it: its extension, its
// rules, and the chunks it changed, kept until Changes.
type Series struct {
	Key  []byte
	Meta Meta
	// Size is the metadata header's size: the number of chunks.
	Size  uint64
	Rules []Rule

	chunks *overlay
	newest *Sample // nil: not read yet; see newestSample
	empty  bool    // the series has no sample (when newest is read)
	dests  []DestWrite
}

// OpenSeries starts a write of a series: key its user key, meta its
// extension, size the header's size, rules its rule subkeys decoded
// (DecodeRule), chunks its stored chunks.
func OpenSeries(key []byte, meta Meta, size uint64, rules []Rule, chunks Chunks) *Series {
	if meta.ChunkSize == 0 {
		meta.ChunkSize = DefaultChunkSize // no Kvrocks writes 0; never divide by it
	}
	return &Series{Key: key, Meta: meta, Size: size, Rules: rules, chunks: newOverlay(chunks)}
}

// Chunks is the series as the command leaves it, for reads in the same
// command.
func (s *Series) Chunks() Chunks { return s.chunks }

// newestSample is the series's newest sample; ok is false when it has
// none.
func (s *Series) newestSample() (Sample, bool, error) {
	if s.newest == nil && !s.empty {
		n, ok, err := Newest(s.chunks)
		if err != nil {
			return Sample{}, false, err
		}
		s.newest, s.empty = &n, !ok
	}
	if s.empty {
		return Sample{}, false, nil
	}
	return *s.newest, true, nil
}

// AddResult is how a sample was taken.
type AddResult struct {
	// TS is what TS.ADD replies: the sample's timestamp, or the newest
	// one when IGNORE dropped the sample.
	TS      int64
	Ignored bool
}

// change is what an upsert did to a timestamp.
type change uint8

const (
	unchanged change = iota
	inserted
	replaced
)

// Add is TS.ADD's (and TS.MADD's) write of one sample, policy being
// ON_DUPLICATE (PolicyNone: the series's own).
func (s *Series) Add(smp Sample, policy Policy) (AddResult, error) {
	if policy == PolicyNone {
		policy = s.Meta.Duplicate
	}
	newest, has, err := s.newestSample()
	if err != nil {
		return AddResult{}, err
	}
	if has && s.ignores(smp, newest, policy) {
		return AddResult{TS: newest.TS, Ignored: true}, nil
	}
	if err := s.Upsert(smp, policy); err != nil {
		return AddResult{}, err
	}
	return AddResult{TS: smp.TS}, nil
}

// ignores is rule 3.
func (s *Series) ignores(smp, newest Sample, policy Policy) bool {
	m := &s.Meta
	if (m.IgnoreTime == 0 && m.IgnoreValue == 0) || policy != PolicyLast || smp.TS < newest.TS {
		return false
	}
	return smp.TS-newest.TS <= m.IgnoreTime && math.Abs(smp.V-newest.V) <= m.IgnoreValue
}

// Incr is TS.INCRBY's (TS.DECRBY's) write: the newest value plus delta
// at ts, which may not be older than the newest sample.
func (s *Series) Incr(ts int64, delta float64) (Sample, error) {
	newest, has, err := s.newestSample()
	if err != nil {
		return Sample{}, err
	}
	v := delta
	if has {
		if ts < newest.TS {
			return Sample{}, ErrIncrOlder
		}
		v += newest.V
	}
	smp := Sample{TS: ts, V: v}
	return smp, s.Upsert(smp, PolicyLast)
}

// Upsert writes one sample with a duplicate policy (rules 1, 2, 4, 5).
func (s *Series) Upsert(smp Sample, policy Policy) error {
	newest, has, err := s.newestSample()
	if err != nil {
		return err
	}
	if has && s.Meta.Retention > 0 && newest.TS-smp.TS > s.Meta.Retention {
		return ErrTooOld
	}
	id, samples, stored, err := s.target(smp.TS)
	if err != nil {
		return err
	}
	samples, now, how, err := upsertSample(samples, smp, policy)
	if err != nil || how == unchanged {
		return err
	}
	latest := !has || smp.TS >= newest.TS || s.isLatestChunk(id)
	s.store(id, samples, stored, latest)
	if !has || smp.TS >= newest.TS {
		s.newest, s.empty = &now, false
	}
	for i := range s.Rules {
		if err := s.compact(&s.Rules[i], now, how); err != nil {
			return err
		}
	}
	return nil
}

func cmpTS(s Sample, ts int64) int {
	switch {
	case s.TS < ts:
		return -1
	case s.TS > ts:
		return 1
	}
	return 0
}

// isLatestChunk reports whether no chunk starts after id.
func (s *Series) isLatestChunk(id int64) bool {
	later := false
	_ = s.chunks.Forward(id, func(cid int64, _ []byte) bool {
		later = cid > id
		return cid <= id
	})
	return !later
}

// target is the chunk a sample at ts goes into (rule 4): its id, a copy
// of its samples, and whether the store holds it. A series with no chunk
// gets a new one, id ts.
func (s *Series) target(ts int64) (id int64, samples []Sample, stored bool, err error) {
	id, ok, err := s.chunks.lastAtOrBefore(ts)
	if err == nil && !ok {
		id, ok, err = s.chunks.first()
	}
	if err != nil || !ok {
		return ts, nil, false, err
	}
	samples, stored, err = s.chunks.load(id)
	return id, samples, stored, err
}

// upsertSample applies a sample to a chunk's samples under a policy; now
// is the sample as stored.
func upsertSample(samples []Sample, smp Sample, policy Policy) (out []Sample, now Sample, how change, err error) {
	k, found := slices.BinarySearchFunc(samples, smp.TS, cmpTS)
	if !found {
		return slices.Insert(samples, k, smp), smp, inserted, nil
	}
	old := samples[k]
	v := old.V
	switch policy {
	case PolicyBlock:
		return samples, old, unchanged, ErrBlocked
	case PolicyLast:
		v = smp.V
	case PolicyMin:
		v = math.Min(old.V, smp.V)
	case PolicyMax:
		v = math.Max(old.V, smp.V)
	case PolicySum:
		v = old.V + smp.V
	}
	if math.Float64bits(v) == math.Float64bits(old.V) {
		return samples, old, unchanged, nil
	}
	samples[k].V = v
	return samples, samples[k], replaced, nil
}

// store records a chunk's new samples under their first timestamp,
// splitting it by rule 4.
func (s *Series) store(id int64, samples []Sample, stored, latest bool) {
	pieces := split(samples, s.Meta.ChunkSize, latest)
	if len(pieces) == 0 || pieces[0][0].TS != id {
		s.setChunk(id, nil, stored)
	}
	for _, p := range pieces {
		// A piece other than the first starts inside the chunk, and a
		// re-keyed first piece before every chunk: the store holds
		// neither id.
		s.setChunk(p[0].TS, p, p[0].TS == id && stored)
	}
}

// setChunk records the samples of the chunk id (nil: removed), keeping
// the chunk count.
func (s *Series) setChunk(id int64, samples []Sample, stored bool) {
	wasLive := stored
	if cur, seen := s.chunks.chunks[id]; seen {
		wasLive = cur != nil
	}
	s.chunks.set(id, samples, stored)
	switch {
	case wasLive && samples == nil && s.Size > 0:
		s.Size--
	case !wasLive && samples != nil:
		s.Size++
	}
}

// split cuts a chunk's samples by rule 4.
func split(samples []Sample, size uint64, latest bool) [][]Sample {
	n := uint64(len(samples))
	if latest {
		var out [][]Sample
		for len(samples) > 0 {
			k := min(uint64(len(samples)), size)
			out = append(out, samples[:k:k])
			samples = samples[k:]
		}
		return out
	}
	if n <= 2*size {
		return [][]Sample{samples}
	}
	parts := n / size
	out := make([][]Sample, 0, parts)
	for p := uint64(0); p < parts; p++ {
		lo, hi := n*p/parts, n*(p+1)/parts
		out = append(out, samples[lo:hi:hi])
	}
	return out
}

// Delete is TS.DEL: it removes the samples in [from, to] and returns how
// many it removed (rule 6).
func (s *Series) Delete(from, to int64) (int64, error) {
	newest, has, err := s.newestSample()
	if err != nil || !has || from > to {
		return 0, err
	}
	if floor := retained(s.Meta.Retention, newest.TS); len(s.Rules) > 0 && s.Meta.Retention > 0 {
		if from < floor || slices.ContainsFunc(s.Rules, func(r Rule) bool {
			return bucketStart(from, r.Align, r.Bucket) < floor
		}) {
			return 0, ErrDelRetention
		}
	}
	from = max(from, retained(s.Meta.Retention, newest.TS)) // what reads show
	var removed []Sample
	for {
		id, samples, stored, err := s.targetIn(from, to)
		if err != nil || samples == nil {
			if err == nil && len(removed) > 0 {
				err = s.afterDelete(removed)
			}
			return int64(len(removed)), err
		}
		lo, _ := slices.BinarySearchFunc(samples, from, cmpTS)
		hi, found := slices.BinarySearchFunc(samples, to, cmpTS)
		if found {
			hi++
		}
		removed = append(removed, samples[lo:hi]...)
		kept := slices.Delete(samples, lo, hi)
		if len(kept) == 0 || kept[0].TS != id {
			s.setChunk(id, nil, stored)
		}
		if len(kept) > 0 {
			s.setChunk(kept[0].TS, kept, kept[0].TS == id && stored)
		}
	}
}

// targetIn finds a chunk holding a sample in [from, to]; samples is nil
// when none does.
func (s *Series) targetIn(from, to int64) (id int64, samples []Sample, stored bool, err error) {
	found := false
	err = s.chunks.Forward(from, func(cid int64, value []byte) bool {
		if cid > to {
			return false
		}
		ch, perr := ParseChunk(value)
		if perr != nil {
			err = perr
			return false
		}
		k := ch.Search(from)
		if k < ch.Len() && ch.TS(k) <= to {
			id, found = cid, true
			return false
		}
		return true
	})
	if err != nil || !found {
		return 0, nil, false, err
	}
	samples, stored, err = s.chunks.load(id)
	return id, samples, stored, err
}

// afterDelete refreshes the newest sample and the rules' buckets after
// samples were removed.
func (s *Series) afterDelete(removed []Sample) error {
	s.newest, s.empty = nil, false
	if _, _, err := s.newestSample(); err != nil {
		return err
	}
	newest, has, _ := s.newestSample()
	for i := range s.Rules {
		r := &s.Rules[i]
		last := int64(-1)
		for _, smp := range removed {
			b := bucketStart(smp.TS, r.Align, r.Bucket)
			if b == last {
				continue
			}
			last = b
			if err := s.recompute(r, b); err != nil {
				return err
			}
		}
		if r.state.open < 0 && has {
			// The open bucket was emptied: the newest sample's bucket,
			// closed before, is open again.
			r.state.open = bucketStart(newest.TS, r.Align, r.Bucket)
			if err := s.recompute(r, r.state.open); err != nil {
				return err
			}
		}
	}
	return nil
}

// compact is rule 5 for one rule and one sample as stored. The open
// bucket is always the one of the series's newest sample.
func (s *Series) compact(r *Rule, smp Sample, how change) error {
	st := &r.state
	b := bucketStart(smp.TS, r.Align, r.Bucket)
	if newest := bucketStart(s.newest.TS, r.Align, r.Bucket); st.open != newest {
		if st.open >= 0 && st.open < newest {
			s.emit(r, Sample{TS: st.open, V: st.acc.value()}, PolicyLast)
		}
		// The new open bucket may hold samples already (written before
		// the rule, or left when TS.DEL emptied the open one).
		st.open = newest
		if err := s.recompute(r, newest); err != nil || b == newest {
			return err
		}
	} else if b == st.open && how == inserted {
		st.acc.add(smp)
		st.dirty = true
		return nil
	}
	if b < st.open && how == inserted {
		if p, ok := incremental(r.Agg, smp); ok {
			s.emit(r, p, policyOf(r.Agg))
			return nil
		}
	}
	return s.recompute(r, b)
}

// incremental is the part of a bucket a new sample adds, for the
// aggregators whose bucket the destination can merge by policy.
func incremental(agg Aggregator, smp Sample) (Sample, bool) {
	switch agg {
	case AggSum, AggMin, AggMax:
		return smp, true
	case AggCount:
		return Sample{TS: smp.TS, V: 1}, true
	}
	return Sample{}, false
}

func policyOf(agg Aggregator) Policy {
	switch agg {
	case AggMin:
		return PolicyMin
	case AggMax:
		return PolicyMax
	}
	return PolicySum
}

// emit queues a write of the bucket b's value to r's destination; the
// sample's timestamp is turned into the bucket's start.
func (s *Series) emit(r *Rule, smp Sample, policy Policy) {
	smp.TS = bucketStart(smp.TS, r.Align, r.Bucket)
	s.dests = append(s.dests, DestWrite{Dest: r.Dest, Sample: smp, Policy: policy})
}

// recompute aggregates the bucket starting at b from the retained
// samples: the open bucket's state, or a closed bucket's value in the
// destination (removed when the bucket is empty).
func (s *Series) recompute(r *Rule, b int64) error {
	q := Query{From: b, To: bucketEndAt(b, r.Align, r.Bucket) - 1, Agg: r.Agg, Bucket: r.Bucket, Align: r.Align}
	a := newAcc(r.Agg)
	err := q.samples(Source{Chunks: s.chunks, Meta: &s.Meta}, func(smp Sample) bool {
		a.add(smp)
		return true
	})
	if err != nil {
		return err
	}
	if b == r.state.open {
		r.state.acc, r.state.dirty = a, true
		if !a.empty() {
			return nil
		}
		// Emptied by TS.DEL: the destination may hold the bucket from
		// when it was closed once before.
		r.state.open = -1
	} else if b > r.state.open && r.state.open >= 0 {
		return nil // not reached by the rule yet
	}
	if a.empty() {
		s.dests = append(s.dests, DestWrite{Dest: r.Dest, Sample: Sample{TS: b}, Delete: true})
		return nil
	}
	s.emit(r, Sample{TS: b, V: a.value()}, PolicyLast)
	return nil
}

// bucketEndAt is the end (exclusive) of the bucket starting at start.
func bucketEndAt(start, align, d int64) int64 {
	if start == 0 {
		return unclampedStart(0, align, d) + d
	}
	return satAdd(start, d)
}

// samples walks the retained samples of [q.From, q.To] in order, with no
// filter or aggregation.
func (q *Query) samples(src Source, fn func(Sample) bool) error {
	v, err := open(src, q.From, q.To, false)
	if err != nil {
		return err
	}
	return v.walk(false, fn)
}

// Apply is a destination's side of a DestWrite.
func (s *Series) Apply(w DestWrite) error {
	if w.Delete {
		_, err := s.Delete(w.Sample.TS, w.Sample.TS)
		return err
	}
	err := s.Upsert(w.Sample, w.Policy)
	if errors.Is(err, ErrTooOld) {
		return nil // a bucket older than the destination keeps
	}
	return err
}

// DestWrites are the writes the command's samples make to the rules'
// destinations, in order.
func (s *Series) DestWrites() []DestWrite { return s.dests }

// Change is one subkey the command puts (Value) or deletes (Delete).
type Change struct {
	Subkey []byte
	Value  []byte
	Delete bool
}

// Changes are the series's subkeys to write, chunks in id order then
// the rules whose state changed; the caller also stores the metadata
// (Meta, Size), whose LastTimestamp it brings up to date here.
func (s *Series) Changes() []Change {
	var out []Change
	for _, id := range s.chunks.sortedIDs() {
		samples := s.chunks.chunks[id]
		sub := AppendChunkSubkey(nil, id)
		switch {
		case samples != nil:
			out = append(out, Change{Subkey: sub, Value: AppendChunk(nil, samples)})
		case s.chunks.wasStored[id]:
			out = append(out, Change{Subkey: sub, Delete: true})
		}
	}
	for i := range s.Rules {
		r := &s.Rules[i]
		if r.state.dirty {
			out = append(out, Change{Subkey: AppendRuleSubkey(nil, r.Dest), Value: r.AppendValue(nil)})
		}
	}
	if n, ok, err := s.newestSample(); err == nil {
		s.Meta.HasLast = true
		s.Meta.LastTimestamp = 0
		if ok {
			s.Meta.LastTimestamp = n.TS
		}
	}
	return out
}
