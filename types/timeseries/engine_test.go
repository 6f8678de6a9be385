package timeseries

import (
	"bytes"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/reply"
)

// memDB runs the TS commands over series kept in memory, calling the
// package as the command handlers of phase 2 will, with the engine's
// part (key lookups, the index column family, batches) done by hand. It
// is how the cases of it/testdata/timeseries_cases.txt are checked
// before the server has the commands.
type memDB struct {
	t      testing.TB
	series map[string]*memSeries
	others map[string]bool // keys of other types
	index  map[string]bool // the index column family's keys
}

type memSeries struct {
	meta   Meta
	size   uint64
	chunks *memChunks
	labels []Label
	rules  map[string][]byte // rule values by destination
}

func newMemDB(t testing.TB) *memDB {
	return &memDB{t: t, series: map[string]*memSeries{}, others: map[string]bool{}, index: map[string]bool{}}
}

const testNS = metadata.DefaultNamespace

// clock is the server time "*" stands for in memDB.
const clock = 1_700_000_000_000

func (db *memDB) rules(s *memSeries) []Rule {
	dests := make([]string, 0, len(s.rules))
	for d := range s.rules {
		dests = append(dests, d)
	}
	sort.Strings(dests)
	out := make([]Rule, 0, len(dests))
	for _, d := range dests {
		r, err := DecodeRule(AppendRuleSubkey(nil, []byte(d)), s.rules[d])
		if err != nil {
			db.t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// lookup finds a series: errMissing when the key does not exist,
// errOther when it holds another type.
func (db *memDB) lookup(key []byte, errMissing, errOther error) (*memSeries, error) {
	if db.others[string(key)] {
		return nil, errOther
	}
	s := db.series[string(key)]
	if s == nil {
		return nil, errMissing
	}
	return s, nil
}

func (db *memDB) create(key []byte, o *Options) *memSeries {
	s := &memSeries{meta: NewMeta(), chunks: newMemChunks(), rules: map[string][]byte{}}
	o.Apply(&s.meta)
	db.series[string(key)] = s
	db.setLabels(key, s, o.Labels)
	return s
}

func (db *memDB) setLabels(key []byte, s *memSeries, labels []Label) {
	_, index := LabelChanges(testNS, key, s.labels, labels)
	for _, c := range index {
		if c.Delete {
			delete(db.index, string(c.Subkey))
		} else {
			db.index[string(c.Subkey)] = true
		}
	}
	s.labels = labels
}

// batch is the series one command writes, committed together.
type batch struct {
	db     *memDB
	open   map[string]*Series
	order  []string
	failed bool
}

func (db *memDB) begin() *batch { return &batch{db: db, open: map[string]*Series{}} }

func (b *batch) series(key []byte, s *memSeries) *Series {
	if w := b.open[string(key)]; w != nil {
		return w
	}
	w := OpenSeries(bytes.Clone(key), s.meta, s.size, b.db.rules(s), s.chunks)
	b.open[string(key)] = w
	b.order = append(b.order, string(key))
	return w
}

// flushRules applies the destination writes of w's rules to their
// destinations, skipping those gone or fed by another source.
func (b *batch) flushRules(w *Series) {
	for _, d := range w.DestWrites() {
		dest := b.db.series[string(d.Dest)]
		if dest == nil || !bytes.Equal(dest.meta.SourceKey, w.Key) {
			continue
		}
		if err := b.series(d.Dest, dest).Apply(d); err != nil {
			b.db.t.Fatal(err)
		}
	}
}

func (b *batch) commit() {
	for _, k := range b.order {
		w, s := b.open[k], b.db.series[k]
		s.chunks.apply(b.db.t, w.Changes(), s.rules)
		s.meta, s.size = w.Meta, w.Size
	}
}

// latest is LATEST's sample of a series: its source's open bucket.
func (db *memDB) latest(s *memSeries, dest []byte) *Sample {
	src := db.series[string(s.meta.SourceKey)]
	if len(s.meta.SourceKey) == 0 || src == nil {
		return nil
	}
	for _, r := range db.rules(src) {
		if bytes.Equal(r.Dest, dest) {
			if l, ok := r.Latest(); ok {
				return &l
			}
		}
	}
	return nil
}

// exec runs one command, writing its reply to w.
func (db *memDB) exec(w reply.Sink, args [][]byte) {
	name := strings.ToLower(string(args[0]))
	err := db.run(w, name, args[1:])
	if err == nil {
		return
	}
	text, ok := ReplyText(err, name)
	if !ok {
		db.t.Fatalf("%s: %v", name, err)
	}
	w.Error(text)
}

func (db *memDB) run(w reply.Sink, name string, args [][]byte) error {
	if len(args) == 0 && name != "ts.madd" {
		return ErrArity
	}
	switch name {
	case "set": // a key of another type
		db.others[string(args[0])] = true
		w.OK()
		return nil
	case "del":
		delete(db.series, string(args[0]))
		delete(db.others, string(args[0]))
		w.Int(1)
		return nil
	case "ts.create":
		return db.tsCreate(w, args)
	case "ts.alter":
		return db.tsAlter(w, args)
	case "ts.add":
		return db.tsAdd(w, args)
	case "ts.madd":
		return db.tsMAdd(w, args)
	case "ts.incrby", "ts.decrby":
		return db.tsIncr(w, args, name == "ts.decrby")
	case "ts.del":
		return db.tsDel(w, args)
	case "ts.get":
		return db.tsGet(w, args)
	case "ts.range", "ts.revrange":
		return db.tsRange(w, args, name == "ts.revrange")
	case "ts.mget":
		return db.tsMGet(w, args)
	case "ts.mrange", "ts.mrevrange":
		return db.tsMRange(w, args, name == "ts.mrevrange")
	case "ts.queryindex":
		f, err := ParseQueryIndex(args)
		if err != nil {
			return err
		}
		WriteKeys(w, db.query(&f))
		return nil
	case "ts.info":
		return db.tsInfo(w, args)
	case "ts.createrule":
		return db.tsCreateRule(w, args)
	case "ts.deleterule":
		return db.tsDeleteRule(w, args)
	}
	db.t.Fatalf("no command %s", name)
	return nil
}

func (db *memDB) tsCreate(w reply.Sink, args [][]byte) error {
	o, err := ParseCreate(args[1:])
	if err != nil {
		return err
	}
	if db.others[string(args[0])] || db.series[string(args[0])] != nil {
		return ErrKeyExists
	}
	db.create(args[0], &o)
	w.OK()
	return nil
}

func (db *memDB) tsAlter(w reply.Sink, args [][]byte) error {
	o, err := ParseAlter(args[1:])
	if err != nil {
		return err
	}
	s, err := db.lookup(args[0], ErrNoKey, ErrWrongType)
	if err != nil {
		return err
	}
	o.Apply(&s.meta)
	if o.HasLabels {
		db.setLabels(args[0], s, o.Labels)
	}
	w.OK()
	return nil
}

func (db *memDB) tsAdd(w reply.Sink, args [][]byte) error {
	a, err := ParseAdd(args[1:])
	if err != nil {
		return err
	}
	if a.TS == Now {
		a.TS = clock
	}
	s, err := db.lookup(args[0], nil, ErrNotTSDB)
	if err != nil {
		return err
	}
	if s == nil {
		s = db.create(args[0], &a.Create)
		a.OnDup = PolicyNone
	}
	b := db.begin()
	sw := b.series(args[0], s)
	res, err := sw.Add(Sample{TS: a.TS, V: a.Value}, a.OnDup)
	if err != nil {
		return err
	}
	b.flushRules(sw)
	b.commit()
	w.Int(res.TS)
	return nil
}

func (db *memDB) tsMAdd(w reply.Sink, args [][]byte) error {
	samples, err := ParseMAdd(args)
	if err != nil {
		return err
	}
	b := db.begin()
	w.Array(len(samples))
	for _, smp := range samples {
		if smp.TS == Now {
			smp.TS = clock // one clock read per command
		}
		err := smp.Err
		var s *memSeries
		if err == nil {
			s, err = db.lookup(smp.Key, ErrNotTSDB, ErrNotTSDB)
		}
		var res AddResult
		if err == nil {
			res, err = b.series(smp.Key, s).Add(Sample{TS: smp.TS, V: smp.Value}, PolicyNone)
		}
		if err != nil {
			text, _ := ReplyText(err, "ts.madd")
			w.Error(text)
			continue
		}
		w.Int(res.TS)
	}
	for _, k := range slices.Clone(b.order) {
		b.flushRules(b.open[k])
	}
	b.commit()
	return nil
}

func (db *memDB) tsIncr(w reply.Sink, args [][]byte, decrement bool) error {
	in, err := ParseIncr(args[1:], decrement)
	if err != nil {
		return err
	}
	if in.TS == Now {
		in.TS = clock
	}
	s, err := db.lookup(args[0], nil, ErrWrongType)
	if err != nil {
		return err
	}
	if s == nil {
		s = db.create(args[0], &in.Create)
	}
	b := db.begin()
	sw := b.series(args[0], s)
	smp, err := sw.Incr(in.TS, in.Delta)
	if err != nil {
		return err
	}
	b.flushRules(sw)
	b.commit()
	w.Int(smp.TS)
	return nil
}

func (db *memDB) tsDel(w reply.Sink, args [][]byte) error {
	d, err := ParseDel(args[1:])
	if err != nil {
		return err
	}
	s, err := db.lookup(args[0], ErrNoKey, ErrWrongType)
	if err != nil {
		return err
	}
	b := db.begin()
	sw := b.series(args[0], s)
	n, err := sw.Delete(d.From, d.To)
	if err != nil {
		return err
	}
	b.flushRules(sw)
	b.commit()
	w.Int(n)
	return nil
}

func (db *memDB) source(key []byte, s *memSeries) Source {
	return Source{Chunks: s.chunks, Meta: &s.meta, Latest: db.latest(s, key)}
}

func (db *memDB) get(key []byte, s *memSeries, latest bool) (Sample, bool) {
	q := Query{From: 0, To: 1<<63 - 1, Reverse: true, Latest: latest, Count: 1}
	var got Sample
	ok := false
	if err := q.Run(db.source(key, s), func(x Sample) bool { got, ok = x, true; return false }); err != nil {
		db.t.Fatal(err)
	}
	return got, ok
}

func (db *memDB) tsGet(w reply.Sink, args [][]byte) error {
	latest, err := ParseGet(args[1:])
	if err != nil {
		return err
	}
	s, err := db.lookup(args[0], ErrNoKey, ErrWrongType)
	if err != nil {
		return err
	}
	smp, ok := db.get(args[0], s, latest)
	WriteGet(w, smp, ok)
	return nil
}

func (db *memDB) tsRange(w reply.Sink, args [][]byte, reverse bool) error {
	q, err := ParseRange(args[1:], reverse)
	if err != nil {
		return err
	}
	s, err := db.lookup(args[0], ErrNoKey, ErrWrongType)
	if err != nil {
		return err
	}
	return WriteRange(w, &q, db.source(args[0], s))
}

// query is the keys of the series a filter matches, in order, found
// through the index entries of its first positive expression.
func (db *memDB) query(f *Filter) [][]byte {
	label, values := f.Seeks()
	seen := map[string]bool{}
	var keys [][]byte
	for _, v := range values {
		prefix := AppendIndexPrefix(nil, testNS, label, v)
		for entry := range db.index {
			if !strings.HasPrefix(entry, string(prefix)) {
				continue
			}
			e, err := ParseIndexKey([]byte(entry))
			if err != nil {
				db.t.Fatal(err)
			}
			s := db.series[string(e.Key)]
			if s == nil || seen[string(e.Key)] || !f.Match(s.labels) {
				continue
			}
			seen[string(e.Key)] = true
			keys = append(keys, bytes.Clone(e.Key))
		}
	}
	slices.SortFunc(keys, bytes.Compare)
	return keys
}

func (db *memDB) tsMGet(w reply.Sink, args [][]byte) error {
	m, err := ParseMGet(args)
	if err != nil {
		return err
	}
	keys := db.query(&m.Filter)
	MultiRows(w, len(keys))
	for _, k := range keys {
		s := db.series[string(k)]
		smp, ok := db.get(k, s, m.Query.Latest)
		WriteMGetRow(w, &m, k, s.labels, smp, ok)
	}
	return nil
}

func (db *memDB) tsMRange(w reply.Sink, args [][]byte, reverse bool) error {
	m, err := ParseMRange(args, reverse)
	if err != nil {
		return err
	}
	keys := db.query(&m.Filter)
	if m.GroupBy == nil {
		MultiRows(w, len(keys))
		for _, k := range keys {
			s := db.series[string(k)]
			if err := WriteMRangeRow(w, &m, k, s.labels, db.source(k, s)); err != nil {
				return err
			}
		}
		return nil
	}
	groups := map[string]*Group{}
	var names []string
	for _, k := range keys {
		s := db.series[string(k)]
		v, ok := label(s.labels, m.GroupBy)
		if !ok {
			continue
		}
		g := groups[string(v)]
		if g == nil {
			g = &Group{Value: v}
			groups[string(v)] = g
			names = append(names, string(v))
		}
		g.Keys = append(g.Keys, k)
		g.Sources = append(g.Sources, db.source(k, s))
	}
	sort.Strings(names)
	MultiRows(w, len(names))
	for _, n := range names {
		if err := WriteGroupRow(w, &m, groups[n]); err != nil {
			return err
		}
	}
	return nil
}

func (db *memDB) tsInfo(w reply.Sink, args [][]byte) error {
	debug := ParseInfo(args[1:])
	s, err := db.lookup(args[0], ErrNoKey, ErrWrongType)
	if err != nil {
		return err
	}
	in := Info{Key: args[0], Meta: s.meta, Labels: s.labels, Rules: db.rules(s)}
	if err := in.Survey(s.chunks, debug); err != nil {
		return err
	}
	WriteInfo(w, &in, debug)
	return nil
}

func (db *memDB) tsCreateRule(w reply.Sink, args [][]byte) error {
	src, r, err := ParseCreateRule(args)
	if err != nil {
		return err
	}
	s, errS := db.lookup(src, ErrNoKey, ErrWrongType)
	d, errD := db.lookup(r.Dest, ErrNoKey, ErrWrongType)
	if errS != nil {
		return errS
	}
	if errD != nil {
		return errD
	}
	if err := CheckCreateRule(&s.meta, &d.meta, len(d.rules) > 0); err != nil {
		return err
	}
	s.rules[string(r.Dest)] = r.AppendValue(nil)
	d.meta.SourceKey = bytes.Clone(src)
	w.OK()
	return nil
}

func (db *memDB) tsDeleteRule(w reply.Sink, args [][]byte) error {
	src, dest, err := ParseDeleteRule(args)
	if err != nil {
		return err
	}
	s, err := db.lookup(src, ErrNoKey, ErrWrongType)
	if err != nil {
		return err
	}
	if _, ok := s.rules[string(dest)]; !ok {
		return ErrNoRule
	}
	delete(s.rules, string(dest))
	if d := db.series[string(dest)]; d != nil && bytes.Equal(d.meta.SourceKey, src) {
		d.meta.SourceKey = nil
	}
	w.OK()
	return nil
}
