package timeseries

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/reply"
	"github.com/basaltdb/basalt/storage"
)

// The commands over storage's engine API. A series is its metadata
// record and its subkeys in the default column family (chunks, labels,
// rules, in that order under its version); its labels have entries in
// the index column family. Every write of a command, the series's, its
// rules' destinations' and the index entries, is one batch; reads run in
// one ReadView and stream a range chunk by chunk into the reply.

// logWrite is the LogData Kvrocks writes before a series's records.
var logWrite = storage.TypeLog(TypeNumber)

// stored is the Chunks of a series as the engine holds it: its chunk
// subkeys, read as of rv (nil: the latest, through the write's pending
// records). A write's (tail set) keeps the newest chunks it read: the
// Series asks for the chunks around a new sample again and again, and
// in-order samples all go to the newest ones.
type stored struct {
	o    *storage.Object
	rv   *storage.ReadView
	tail *tail
}

// tail is the newest chunks of a series, newest first, without a gap,
// and the last run of older chunks a seek read.
type tail struct {
	recs []chunkRec
	all  bool // recs holds every chunk
	// near is a run of chunks adjacent in the store, oldest first, read by
	// the last seek below the tail: an out-of-order sample's chunk, asked
	// for again and again by one write (its id, its samples, whether a
	// chunk follows it). The store holds no chunk in (its last id, upto].
	near []chunkRec
	upto int64
}

// nearAt is the index in near of the newest chunk at or before ts, or
// ok false when near cannot tell.
func (t *tail) nearAt(ts int64) (i int, ok bool) {
	if len(t.near) == 0 || ts < t.near[0].id || ts > t.upto {
		return 0, false
	}
	i = len(t.near) - 1
	for t.near[i].id > ts {
		i--
	}
	return i, true
}

type chunkRec struct {
	id    int64
	value []byte
}

// maxTail bounds the chunks a write keeps: past them, it iterates.
const maxTail = 16

// grow reads more of the older chunks into the tail (the newest alone
// first, then 4 at a time); false when
// the tail may not grow (full).
func (c stored) grow() (bool, error) {
	t := c.tail
	if t.all || len(t.recs) >= maxTail {
		return false, nil
	}
	from := AppendChunkSubkey(nil, 1<<63-1)
	if n := len(t.recs); n > 0 {
		if t.recs[n-1].id == 0 {
			t.all = true
			return true, nil
		}
		from = AppendChunkSubkey(nil, t.recs[n-1].id-1)
	}
	step := 4
	if len(t.recs) == 0 {
		step = 1 // the newest chunk is most writes' only one
	}
	read := 0
	var bad error
	err := c.o.EachBack(c.rv, storage.CFDefault, from, step, func(sub, value []byte) bool {
		if len(sub) == 0 || sub[0] != kindChunk {
			return false
		}
		id, err := ParseChunkSubkey(sub)
		if err != nil {
			bad = err
			return false
		}
		t.recs = append(t.recs, chunkRec{id, bytes.Clone(value)})
		read++
		return read < step
	})
	if err == nil {
		err = bad
	}
	t.all = err == nil && read < step
	return true, err
}

// cached finds in the tail the newest chunk at or before ts: its index,
// or ok false when the tail cannot tell (it does not reach back so far).
// Only an empty tail grows here, by the newest chunk: an older sample's
// chunk is one seek away, where growing the tail would copy every chunk
// in between.
func (c stored) cached(ts int64) (i int, ok bool, err error) {
	for {
		for i, r := range c.tail.recs {
			if r.id <= ts {
				return i, true, nil
			}
		}
		if c.tail.all {
			return len(c.tail.recs), true, nil
		}
		if len(c.tail.recs) > 0 {
			return 0, false, nil
		}
		grown, err := c.grow()
		if err != nil || !grown {
			return 0, false, err
		}
	}
}

// Forward implements Chunks.
func (c stored) Forward(ts int64, fn func(id int64, value []byte) bool) error {
	if c.tail != nil && ts >= 0 {
		i, ok, err := c.cached(ts)
		if err != nil {
			return err
		}
		if ok {
			if i == len(c.tail.recs) { // older than every chunk: from the first
				i--
			}
			for ; i >= 0; i-- {
				if !fn(c.tail.recs[i].id, c.tail.recs[i].value) {
					break
				}
			}
			return nil
		}
	}
	if c.tail != nil && ts >= 0 {
		return c.forwardNear(ts, fn)
	}
	start := []byte(nil)
	if ts >= 0 {
		err := c.o.EachBack(c.rv, storage.CFDefault, AppendChunkSubkey(nil, ts), 1, func(sub, _ []byte) bool {
			if len(sub) == ChunkSubkeyLen && sub[0] == kindChunk {
				start = bytes.Clone(sub)
			}
			return false
		})
		if err != nil {
			return err
		}
	}
	if start == nil {
		start = ChunkPrefix
	}
	return c.each(false, start, fn)
}

// forwardNear is a write's Forward from a chunk below the tail: from the
// near run, read by a seek back from ts when it does not hold ts, then on
// from the store, the chunks read joining the run.
func (c stored) forwardNear(ts int64, fn func(id int64, value []byte) bool) error {
	t := c.tail
	i, ok := t.nearAt(ts)
	if !ok {
		if err := c.seekNear(ts); err != nil {
			return err
		}
		if i, ok = t.nearAt(ts); !ok { // older than every chunk: from the first
			return c.collect(false, ChunkPrefix, fn)
		}
	}
	for ; i < len(t.near); i++ {
		if !fn(t.near[i].id, t.near[i].value) {
			return nil
		}
	}
	return c.collect(false, AppendChunkSubkey(nil, t.near[len(t.near)-1].id+1), fn)
}

// seekNear makes near the newest chunk at or before ts alone (none when
// there is none), up to ts.
func (c stored) seekNear(ts int64) error {
	t := c.tail
	t.near, t.upto = t.near[:0], ts
	return c.collect(true, AppendChunkSubkey(nil, ts), func(int64, []byte) bool { return false })
}

// collect is each for a write: the chunks it reads join near, which a
// backward walk (from upto, set by the caller) replaces and a forward
// one, from the chunk after near's last, extends, up to maxTail of them.
func (c stored) collect(back bool, from []byte, fn func(id int64, value []byte) bool) error {
	t := c.tail
	if back {
		t.near = t.near[:0]
	}
	var run []chunkRec
	ended, whole := true, true
	err := c.each(back, from, func(id int64, value []byte) bool {
		if len(t.near)+len(run) < maxTail {
			run = append(run, chunkRec{id, bytes.Clone(value)})
		} else {
			whole = false
		}
		ended = fn(id, value)
		return ended
	})
	if err != nil || len(run) == 0 {
		return err
	}
	if back { // from upto down, which the caller set
		slices.Reverse(run)
		t.near = run
		return nil
	}
	t.near = append(t.near, run...)
	t.upto = t.near[len(t.near)-1].id
	if ended && whole {
		t.upto = 1<<63 - 1 // walked past the last chunk
	}
	return nil
}

// Backward implements Chunks.
func (c stored) Backward(ts int64, fn func(id int64, value []byte) bool) error {
	if ts < 0 {
		return nil
	}
	if c.tail != nil {
		i, ok, err := c.cached(ts)
		if err != nil {
			return err
		}
		for ok {
			for ; i < len(c.tail.recs); i++ {
				if !fn(c.tail.recs[i].id, c.tail.recs[i].value) {
					return nil
				}
			}
			if c.tail.all {
				return nil
			}
			grown, err := c.grow()
			if err != nil {
				return err
			}
			ok = grown
		}
		if n := len(c.tail.recs); n > 0 {
			if c.tail.recs[n-1].id == 0 {
				return nil
			}
			ts = min(ts, c.tail.recs[n-1].id-1)
		}
		return c.backwardNear(ts, fn)
	}
	return c.each(true, AppendChunkSubkey(nil, ts), fn)
}

// backwardNear is a write's Backward from a chunk below the tail: from
// the near run when it holds ts, else from the store, the chunks read
// becoming the run.
func (c stored) backwardNear(ts int64, fn func(id int64, value []byte) bool) error {
	t := c.tail
	i, ok := t.nearAt(ts)
	if !ok {
		t.upto = ts
		return c.collect(true, AppendChunkSubkey(nil, ts), fn)
	}
	for ; i >= 0; i-- {
		if !fn(t.near[i].id, t.near[i].value) {
			return nil
		}
	}
	if t.near[0].id == 0 {
		return nil
	}
	return c.each(true, AppendChunkSubkey(nil, t.near[0].id-1), fn)
}

// each walks the chunk subkeys from from, in either direction, until fn
// returns false or the chunks end.
func (c stored) each(back bool, from []byte, fn func(id int64, value []byte) bool) error {
	var bad error
	visit := func(sub, value []byte) bool {
		if len(sub) == 0 || sub[0] != kindChunk {
			return false
		}
		id, err := ParseChunkSubkey(sub)
		if err != nil {
			bad = err
			return false
		}
		return fn(id, value)
	}
	var err error
	if back {
		err = c.o.EachBack(c.rv, storage.CFDefault, from, 0, visit)
	} else {
		err = c.o.Each(c.rv, storage.CFDefault, from, 0, visit)
	}
	if err != nil {
		return err
	}
	return bad
}

// stSeries is one live series as read: its object, extension, labels and
// rules.
type stSeries struct {
	o      *storage.Object
	meta   Meta
	labels []Label
	rules  []Rule
}

// asSeries decodes the live key o (nil: absent) as a series; wrongType
// is the error for a key of another type.
func asSeries(o *storage.Object, rv *storage.ReadView, wrongType error) (*stSeries, error) {
	if o == nil {
		return nil, nil
	}
	if o.Meta().Type != TypeNumber {
		return nil, wrongType
	}
	m, err := DecodeMeta(o.Ext())
	if err != nil {
		return nil, fmt.Errorf("%w: series %q: %w", storage.ErrCorrupt, o.Key(), err)
	}
	s := &stSeries{o: o, meta: m}
	err = o.Each(rv, storage.CFDefault, LabelPrefix, 0, func(sub, value []byte) bool {
		switch {
		case len(sub) > 0 && sub[0] == kindLabel:
			l, derr := DecodeLabel(sub, value)
			if err = derr; err == nil {
				s.labels = append(s.labels, l)
			}
		case len(sub) > 0 && sub[0] == kindDownstream:
			r, derr := DecodeRule(sub, value)
			if err = derr; err == nil {
				s.rules = append(s.rules, r)
			}
		default:
			return false
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// load reads the series at key as of rv.
func load(db storage.DB, rv *storage.ReadView, key []byte, wrongType error) (*stSeries, error) {
	var o *storage.Object
	var err error
	if rv == nil {
		o, err = db.Lookup(key)
	} else {
		err = db.LookupMany(rv, [][]byte{key}, func(_ int, obj *storage.Object) error { o = obj; return nil })
	}
	if err != nil {
		return nil, err
	}
	return asSeries(o, rv, wrongType)
}

// mustLoad is load for a key that must exist.
func mustLoad(db storage.DB, rv *storage.ReadView, key []byte) (*stSeries, error) {
	s, err := load(db, rv, key, ErrWrongType)
	if err == nil && s == nil {
		err = ErrNoKey
	}
	return s, err
}

// txn is one command's write: the series it opened, written in one
// batch by commit.
type txn struct {
	db    storage.DB
	open  map[string]*written
	order []*written
}

// written is a series a command writes.
type written struct {
	s      *stSeries
	w      *Series
	subs   []Change // label and rule subkeys besides the series's own
	fresh  bool     // a new incarnation: its record is written whatever changed
	before []byte   // the extension as read
}

func newTxn(db storage.DB) *txn { return &txn{db: db, open: map[string]*written{}} }

// series opens s for writing, once per command.
func (t *txn) series(s *stSeries) *written {
	if w := t.open[string(s.o.Key())]; w != nil {
		return w
	}
	w := &written{s: s, before: s.o.Ext(), fresh: !s.o.Exists(),
		w: OpenSeries(s.o.Key(), s.meta, s.o.Meta().Size, s.rules, stored{o: s.o, tail: &tail{}})}
	t.open[string(s.o.Key())] = w
	t.order = append(t.order, w)
	return w
}

// create makes a new series at key with o's options.
func (t *txn) create(key []byte, o *Options) *written {
	m := NewMeta()
	o.Apply(&m)
	s := &stSeries{o: t.db.NewObject(key, TypeNumber), meta: m}
	w := t.series(s)
	t.setLabels(w, o.Labels)
	return w
}

// setLabels replaces a series's labels; the Indexer (indexer.go) writes
// their index entries.
func (t *txn) setLabels(w *written, labels []Label) {
	subs, _ := LabelChanges(t.db.Namespace(), w.s.o.Key(), w.s.labels, labels)
	w.subs = append(w.subs, subs...)
	w.s.labels = labels
}

// flushRules applies the destination writes of w's rules to their
// destinations, skipping those gone or fed by another source. A
// destination the command's write does not lock fails it with
// storage.ErrUnlocked before anything is written (the rules changed
// since Destinations read them).
func (t *txn) flushRules(w *written) error {
	for _, d := range w.w.DestWrites() {
		dest := t.open[string(d.Dest)]
		if dest == nil && !t.db.Holds(d.Dest) {
			return fmt.Errorf("%w: rule destination %q", storage.ErrUnlocked, d.Dest)
		}
		if dest == nil {
			s, err := load(t.db, nil, d.Dest, ErrWrongType)
			if errors.Is(err, ErrWrongType) || s == nil {
				continue
			}
			if err != nil {
				return err
			}
			dest = t.series(s)
		}
		if !bytes.Equal(dest.w.Meta.SourceKey, w.w.Key) {
			continue
		}
		if err := dest.w.Apply(d); err != nil {
			return err
		}
	}
	return nil
}

// Destinations are the rules' destinations of the series at keys, read
// with no lock held: the keys a write of them may change besides them,
// which it must lock too (the commands' executor.Command.AlsoWrites). A
// key that cannot be read is left to the write, which reads it again.
func Destinations(db storage.DB, keys [][]byte) [][]byte {
	var out [][]byte
	for _, key := range keys {
		o, err := db.Lookup(key)
		if err != nil || o == nil || o.Meta().Type != TypeNumber {
			continue
		}
		_ = o.Each(nil, storage.CFDefault, RulePrefix, 0, func(sub, _ []byte) bool {
			if len(sub) < 2 || sub[0] != kindDownstream {
				return false
			}
			dest := sub[1:]
			if !slices.ContainsFunc(keys, func(k []byte) bool { return bytes.Equal(k, dest) }) &&
				!slices.ContainsFunc(out, func(k []byte) bool { return bytes.Equal(k, dest) }) {
				out = append(out, bytes.Clone(dest))
			}
			return true
		})
	}
	return out
}

// commit writes what the command changed, in one batch.
func (t *txn) commit() error {
	b := t.db.NewBatch(logWrite)
	for _, w := range t.order {
		o := w.s.o
		changes := append(w.w.Changes(), w.subs...)
		for _, c := range changes {
			if c.Delete {
				b.Delete(storage.CFDefault, o.Subkey(c.Subkey))
			} else {
				b.Put(storage.CFDefault, o.Subkey(c.Subkey), c.Value)
			}
		}
		ext := w.w.Meta.AppendTo(nil)
		if !w.fresh && len(changes) == 0 && bytes.Equal(ext, w.before) && o.Meta().Size == w.w.Size {
			continue
		}
		o.Meta().Size = w.w.Size
		b.Put(storage.CFMetadata, o.NSKey(), append(o.Meta().AppendTo(nil), ext...))
	}
	return b.Commit()
}

// Create is TS.CREATE key [options].
func Create(db storage.DB, key []byte, o *Options) error {
	old, err := db.Lookup(key)
	if err != nil {
		return err
	}
	if old != nil {
		return ErrKeyExists
	}
	t := newTxn(db)
	t.create(key, o)
	return t.commit()
}

// Alter is TS.ALTER key [options].
func Alter(db storage.DB, key []byte, o *Options) error {
	s, err := mustLoad(db, nil, key)
	if err != nil {
		return err
	}
	t := newTxn(db)
	w := t.series(s)
	o.Apply(&w.w.Meta)
	if o.HasLabels {
		t.setLabels(w, o.Labels)
	}
	return t.commit()
}

// AddSample is TS.ADD: it creates the series with create when missing
// (ON_DUPLICATE then ignored).
func AddSample(db storage.DB, key []byte, a *Add) (AddResult, error) {
	s, err := load(db, nil, key, ErrNotTSDB)
	if err != nil {
		return AddResult{}, err
	}
	t := newTxn(db)
	var w *written
	policy := a.OnDup
	if s == nil {
		w, policy = t.create(key, &a.Create), PolicyNone
	} else {
		w = t.series(s)
	}
	res, err := w.w.Add(Sample{TS: a.TS, V: a.Value}, policy)
	if err == nil {
		err = t.flushRules(w)
	}
	if err == nil {
		err = t.commit()
	}
	return res, err
}

// MAddResult is one sample of TS.MADD: its reply, a timestamp or an
// error.
type MAddResult struct {
	TS  int64
	Err error
}

// MAdd is TS.MADD over samples, whose Now timestamps are now; the
// per-sample errors are in the results, the command's in err.
func MAdd(db storage.DB, samples []MAddSample, now int64) ([]MAddResult, error) {
	t := newTxn(db)
	out := make([]MAddResult, len(samples))
	for i, smp := range samples {
		if smp.TS == Now {
			smp.TS = now
		}
		err := smp.Err
		var w *written
		if err == nil {
			w = t.open[string(smp.Key)]
		}
		if err == nil && w == nil {
			var s *stSeries
			if s, err = load(db, nil, smp.Key, ErrNotTSDB); err == nil && s == nil {
				err = ErrNotTSDB
			}
			if err == nil {
				w = t.series(s)
			}
		}
		var res AddResult
		if err == nil {
			res, err = w.w.Add(Sample{TS: smp.TS, V: smp.Value}, PolicyNone)
		}
		if err != nil && !isRefusal(err) {
			return nil, err
		}
		out[i] = MAddResult{res.TS, err}
	}
	for _, w := range slices.Clone(t.order) {
		if err := t.flushRules(w); err != nil {
			return nil, err
		}
	}
	return out, t.commit()
}

// isRefusal reports whether err is one of the package's refusals (a
// reply), not the engine's failure.
func isRefusal(err error) bool {
	_, ok := ReplyText(err, "")
	return ok
}

// IncrBy is TS.INCRBY and TS.DECRBY: the sample it wrote.
func IncrBy(db storage.DB, key []byte, in *Incr) (Sample, error) {
	s, err := load(db, nil, key, ErrWrongType)
	if err != nil {
		return Sample{}, err
	}
	t := newTxn(db)
	var w *written
	if s == nil {
		w = t.create(key, &in.Create)
	} else {
		w = t.series(s)
	}
	smp, err := w.w.Incr(in.TS, in.Delta)
	if err == nil {
		err = t.flushRules(w)
	}
	if err == nil {
		err = t.commit()
	}
	return smp, err
}

// DeleteRange is TS.DEL key from to: how many samples it removed.
func DeleteRange(db storage.DB, key []byte, d *Del) (int64, error) {
	s, err := mustLoad(db, nil, key)
	if err != nil {
		return 0, err
	}
	t := newTxn(db)
	w := t.series(s)
	n, err := w.w.Delete(d.From, d.To)
	if err == nil {
		err = t.flushRules(w)
	}
	if err == nil && n > 0 {
		err = t.commit()
	}
	return n, err
}

// CreateRule is TS.CREATERULE src dest AGGREGATION agg bucket [align].
func CreateRule(db storage.DB, src []byte, r *Rule) error {
	s, errS := mustLoad(db, nil, src)
	d, errD := mustLoad(db, nil, r.Dest)
	if errS != nil {
		return errS
	}
	if errD != nil {
		return errD
	}
	if err := CheckCreateRule(&s.meta, &d.meta, len(d.rules) > 0); err != nil {
		return err
	}
	t := newTxn(db)
	ws, wd := t.series(s), t.series(d)
	ws.subs = append(ws.subs, Change{Subkey: AppendRuleSubkey(nil, r.Dest), Value: r.AppendValue(nil)})
	wd.w.Meta.SourceKey = bytes.Clone(src)
	return t.commit()
}

// DeleteRule is TS.DELETERULE src dest.
func DeleteRule(db storage.DB, src, dest []byte) error {
	s, err := mustLoad(db, nil, src)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(s.rules, func(r Rule) bool { return bytes.Equal(r.Dest, dest) }) {
		return ErrNoRule
	}
	t := newTxn(db)
	ws := t.series(s)
	ws.subs = append(ws.subs, Change{Subkey: AppendRuleSubkey(nil, dest), Delete: true})
	// Rules must not write the bucket the rule leaves.
	ws.w.Rules = slices.DeleteFunc(ws.w.Rules, func(r Rule) bool { return bytes.Equal(r.Dest, dest) })
	d, err := load(db, nil, dest, ErrWrongType)
	if err == nil && d != nil && bytes.Equal(d.meta.SourceKey, src) {
		t.series(d).w.Meta.SourceKey = nil
	}
	if err != nil && !errors.Is(err, ErrWrongType) {
		return err
	}
	return t.commit()
}

// reader is one read command's view of the database.
type reader struct {
	db storage.DB
	rv storage.ReadView
}

func newReader(db storage.DB) *reader { return &reader{db: db, rv: db.ReadView()} }

func (r *reader) release() { r.rv.Release() }

// source is s as a range read sees it, with LATEST's sample of a
// compaction destination.
func (r *reader) source(s *stSeries) (Source, error) {
	src := Source{Chunks: stored{o: s.o, rv: &r.rv}, Meta: &s.meta}
	if len(s.meta.SourceKey) == 0 {
		return src, nil
	}
	up, err := load(r.db, &r.rv, s.meta.SourceKey, ErrWrongType)
	if errors.Is(err, ErrWrongType) || up == nil {
		return src, nil
	}
	if err != nil {
		return src, err
	}
	for i := range up.rules {
		if bytes.Equal(up.rules[i].Dest, s.o.Key()) {
			if l, ok := up.rules[i].Latest(); ok {
				src.Latest = &l
			}
		}
	}
	return src, nil
}

// newest is TS.GET's sample of s.
func (r *reader) newest(s *stSeries, latest bool) (Sample, bool, error) {
	src, err := r.source(s)
	if err != nil {
		return Sample{}, false, err
	}
	q := Query{From: 0, To: 1<<63 - 1, Reverse: true, Latest: latest, Count: 1}
	var got Sample
	ok := false
	err = q.Run(src, func(x Sample) bool { got, ok = x, true; return false })
	return got, ok, err
}

// Get is TS.GET key [LATEST], written to w.
func Get(db storage.DB, w reply.Sink, key []byte, latest bool) error {
	r := newReader(db)
	defer r.release()
	s, err := mustLoad(db, &r.rv, key)
	if err != nil {
		return err
	}
	smp, ok, err := r.newest(s, latest)
	if err == nil {
		WriteGet(w, smp, ok)
	}
	return err
}

// Range is TS.RANGE and TS.REVRANGE, written to w. The reply has begun
// when an error comes from reading the chunks (a corrupt record).
func Range(db storage.DB, w reply.Sink, key []byte, q *Query) error {
	r := newReader(db)
	defer r.release()
	s, err := mustLoad(db, &r.rv, key)
	if err != nil {
		return err
	}
	src, err := r.source(s)
	if err != nil {
		return err
	}
	return WriteRange(w, q, src)
}

// query is the series f matches, in key order, found through the index
// entries of its first positive matcher and checked against their live
// labels (an entry may be stale until the compaction filter drops it).
func (r *reader) query(f *Filter) ([]*stSeries, error) {
	label, values := f.Seeks()
	ns := r.db.Namespace()
	seen := map[string]bool{}
	var keys [][]byte
	for _, v := range values {
		prefix := AppendIndexPrefix(nil, ns, label, v)
		var bad error
		err := r.db.ScanRange(&r.rv, storage.CFIndex, prefix, metadata.PrefixEnd(prefix), func(k, _ []byte) bool {
			e, err := ParseIndexKey(k)
			if err != nil {
				bad = err
				return false
			}
			if !seen[string(e.Key)] {
				seen[string(e.Key)] = true
				keys = append(keys, bytes.Clone(e.Key))
			}
			return true
		})
		if err == nil {
			err = bad
		}
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(keys, bytes.Compare)
	var out []*stSeries
	err := r.db.LookupMany(&r.rv, keys, func(_ int, o *storage.Object) error {
		s, err := asSeries(o, &r.rv, ErrWrongType)
		if errors.Is(err, ErrWrongType) || s == nil {
			return nil
		}
		if err == nil && f.Match(s.labels) {
			out = append(out, s)
		}
		return err
	})
	return out, err
}

// QueryIndex is TS.QUERYINDEX filter..., written to w.
func QueryIndex(db storage.DB, w reply.Sink, f *Filter) error {
	r := newReader(db)
	defer r.release()
	found, err := r.query(f)
	if err != nil {
		return err
	}
	keys := make([][]byte, len(found))
	for i, s := range found {
		keys[i] = s.o.Key()
	}
	WriteKeys(w, keys)
	return nil
}

// MGet is TS.MGET, written to w.
func MGet(db storage.DB, w reply.Sink, m *Multi) error {
	r := newReader(db)
	defer r.release()
	found, err := r.query(&m.Filter)
	if err != nil {
		return err
	}
	type row struct {
		smp Sample
		ok  bool
	}
	rows := make([]row, len(found))
	for i, s := range found {
		if rows[i].smp, rows[i].ok, err = r.newest(s, m.Query.Latest); err != nil {
			return err
		}
	}
	MultiRows(w, len(found))
	for i, s := range found {
		WriteMGetRow(w, m, s.o.Key(), s.labels, rows[i].smp, rows[i].ok)
	}
	return nil
}

// MRange is TS.MRANGE and TS.MREVRANGE, written to w.
func MRange(db storage.DB, w reply.Sink, m *Multi) error {
	r := newReader(db)
	defer r.release()
	found, err := r.query(&m.Filter)
	if err != nil {
		return err
	}
	sources := make([]Source, len(found))
	for i, s := range found {
		if sources[i], err = r.source(s); err != nil {
			return err
		}
	}
	if m.GroupBy == nil {
		MultiRows(w, len(found))
		for i, s := range found {
			if err := WriteMRangeRow(w, m, s.o.Key(), s.labels, sources[i]); err != nil {
				return err
			}
		}
		return nil
	}
	var groups []*Group
	byValue := map[string]*Group{}
	for i, s := range found {
		v, ok := label(s.labels, m.GroupBy)
		if !ok {
			continue
		}
		g := byValue[string(v)]
		if g == nil {
			g = &Group{Value: v}
			byValue[string(v)] = g
			groups = append(groups, g)
		}
		g.Keys = append(g.Keys, s.o.Key())
		g.Sources = append(g.Sources, sources[i])
	}
	slices.SortFunc(groups, func(a, b *Group) int { return bytes.Compare(a.Value, b.Value) })
	MultiRows(w, len(groups))
	for _, g := range groups {
		if err := WriteGroupRow(w, m, g); err != nil {
			return err
		}
	}
	return nil
}

// InfoOf is TS.INFO key [DEBUG], written to w.
func InfoOf(db storage.DB, w reply.Sink, key []byte, debug bool) error {
	r := newReader(db)
	defer r.release()
	s, err := mustLoad(db, &r.rv, key)
	if err != nil {
		return err
	}
	in := Info{Key: key, Meta: s.meta, Labels: s.labels, Rules: s.rules}
	if err := in.Survey(stored{o: s.o, rv: &r.rv}, debug); err != nil {
		return err
	}
	WriteInfo(w, &in, debug)
	return nil
}
