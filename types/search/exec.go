package search

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
)

// Running a plan: its scans read the index records and the documents as
// of one ReadView, so that a query sees one moment of the database.

// Doc is one document of a query's results: its key and the fields it
// returns, in the order of the query's selection (of the schema when the
// query selects all).
type Doc struct {
	Key    []byte
	Fields []DocField
}

// DocField is a returned field: its name in the reply and its value as
// the document holds it.
type DocField struct {
	Name  string
	Value []byte
}

// Search runs a query on the index ix of namespace db.
func Search(db storage.DB, ix *Index, q *Query) ([]Doc, error) {
	rv := db.ReadView()
	defer rv.Release()
	arena := docArenas.Get().(*docArena)
	r := &runner{db: db, rv: &rv, ix: ix, docs: arena.byKey, arena: arena}
	// The results hold no memory of the arena: their fields' values are
	// the records read, or made for the reply.
	defer r.arena.release()
	plan := Optimize(q, ix.Schema)
	var keys [][]byte
	err := r.run(plan.Root, func(k []byte) (bool, error) {
		keys = append(keys, k)
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	fields := allFields(ix.Schema)
	if q.NoContent {
		fields = nil
	}
	if err := r.load(keys, fields); err != nil {
		return nil, err
	}
	var out []Doc
	for _, k := range keys {
		if d := r.docs[string(k)]; d.exists {
			out = append(out, project(ix.Schema, q, k, d))
		}
	}
	return out, nil
}

// loaded is a document read by a query: whether it is there, and the
// fields of the schema read so far (read, by their index in the schema),
// raw and as the index reads them (fields that do not parse left out).
type loaded struct {
	exists bool
	queued bool // its fields are being asked for, by load
	obj    *storage.Object
	st     docState
	read   []bool
	raw    []rawField
	vals   docValues
}

type runner struct {
	db   storage.DB
	rv   *storage.ReadView
	ix   *Index
	docs map[string]*loaded
	// want is how many keys the operator running now is asked for at
	// most (a LIMIT's offset and count), 0 when its consumer takes all.
	want uint64
	// arena is where the documents read are carved from (nil: allocated).
	arena *docArena
}

// A docArena holds the documents a query reads, by key, with their
// metadata's Objects and their fields' slices, reused from query to
// query: a query over a tag reads hundreds of documents to return ten,
// and allocating them each time made the collector a fifth of its CPU.
type docArena struct {
	byKey map[string]*loaded // the runner's docs
	docs  []loaded
	objs  []storage.Object
	read  []bool
	raws  []rawField
	vals  docValues
}

var docArenas = sync.Pool{New: func() any { return &docArena{byKey: map[string]*loaded{}} }}

// take returns n documents of fields fields each, zeroed: carved from
// the arena, or allocated when it has no room left (what was carved
// before stays in use until the query ends).
func (a *docArena) take(n, fields int) ([]loaded, []storage.Object, []bool, []rawField, docValues) {
	if a == nil || cap(a.docs)-len(a.docs) < n || cap(a.read)-len(a.read) < n*fields {
		if a == nil || n > 4096 {
			return make([]loaded, n), nil, make([]bool, n*fields), make([]rawField, 2*n*fields), make(docValues, n*fields)
		}
		// A block for this and the next ones, the old one left to the
		// documents carved from it.
		size := max(2*cap(a.docs), n, 64)
		a.docs, a.objs, a.read = make([]loaded, 0, size), make([]storage.Object, 0, size), make([]bool, 0, size*fields)
		a.raws, a.vals = make([]rawField, 0, 2*size*fields), make(docValues, 0, size*fields)
	}
	docs := a.docs[len(a.docs) : len(a.docs)+n : len(a.docs)+n]
	objs := a.objs[len(a.objs) : len(a.objs)+n : len(a.objs)+n]
	read := a.read[len(a.read) : len(a.read)+n*fields : len(a.read)+n*fields]
	raws := a.raws[len(a.raws) : len(a.raws)+2*n*fields : len(a.raws)+2*n*fields]
	vals := a.vals[len(a.vals) : len(a.vals)+n*fields : len(a.vals)+n*fields]
	a.docs, a.objs, a.read = a.docs[:len(a.docs)+n], a.objs[:len(a.objs)+n], a.read[:len(a.read)+n*fields]
	a.raws, a.vals = a.raws[:len(a.raws)+2*n*fields], a.vals[:len(a.vals)+n*fields]
	return docs, objs, read, raws, vals
}

// release zeroes what the query used of the arena's block and keeps it
// for the next query, unless it grew past what is worth keeping.
func (a *docArena) release() {
	if cap(a.docs) > 4096 {
		return
	}
	clear(a.byKey)
	clear(a.docs)
	clear(a.objs)
	clear(a.read)
	clear(a.raws)
	clear(a.vals)
	a.docs, a.objs, a.read, a.raws, a.vals = a.docs[:0], a.objs[:0], a.read[:0], a.raws[:0], a.vals[:0]
	docArenas.Put(a)
}

// wanting runs f with want set to n, then restores it.
func (r *runner) wanting(n uint64, f func() error) error {
	saved := r.want
	r.want = n
	defer func() { r.want = saved }()
	return f()
}

// emit takes the keys an operator produces, in its order, until it
// returns false. The key is the caller's to keep.
type emit func(key []byte) (more bool, err error)

// run produces op's keys into out, stopping as soon as out wants no more:
// a query with a LIMIT reads no further than its window.
func (r *runner) run(op Op, out emit) error {
	switch op := op.(type) {
	case Noop:
		return nil
	case *FullScan:
		return r.fullScan(out)
	case *NumericScan:
		return r.numericScan(op, out)
	case *TagScan:
		return r.tagScan(op, out)
	case *KNNScan:
		return r.vectorScan(op.Field, out, func(h *HNSWIndex) ([]Neighbour, error) { return h.KNN(op.Vector, op.K, beam(op.K)) })
	case *RangeScan:
		return r.vectorScan(op.Field, out, func(h *HNSWIndex) ([]Neighbour, error) { return h.Range(op.Vector, op.Range) })
	case *Filter:
		return r.filter(op, out)
	case *Merge:
		more := true
		for _, src := range op.Sources {
			err := r.run(src, func(k []byte) (bool, error) {
				var err error
				more, err = out(k)
				return more, err
			})
			if err != nil || !more {
				return err
			}
		}
		return nil
	case *LimitOp:
		return r.wanting(op.Limit.Offset+op.Limit.Count, func() error { return r.run(op.Source, window(op.Limit, out)) })
	case *Sort:
		return r.wanting(0, func() error { return r.sorted(op.Source, op.By, out) })
	case *TopNSort:
		return r.wanting(0, func() error { return r.sorted(op.Source, op.By, window(op.Limit, out)) })
	}
	return ErrCorrupt
}

// filter passes on the keys of op's source whose documents hold its
// condition. It reads the documents a chunk of keys at a time (two
// RocksDB calls a chunk, not two a document), and of each only the fields
// the condition names. Under a LIMIT the first chunk is the keys the
// limit wants and the next ones what the share of documents that held so
// far says is still needed, so that a query reads little past its
// window; without one, the chunks grow from 8 keys to 128.
//
// When few held, a condition that needs a number in a range (alone or
// ANDed) tries to read the keys of that range from the numeric index,
// for as many entries as the documents still to read are worth
// (narrowBudget); when the range is that small, keys outside it are
// passed over without reading their documents.
func (r *runner) filter(op *Filter, out emit) error {
	fields := r.condFields(op.Cond, nil)
	want := r.want
	var chunk [][]byte
	size, more := chunkSize(want, 0, 0, 0), true
	var read, held uint64
	var inRange map[string]bool // nil: not narrowed (yet)
	tried := 0                  // the largest budget tried
	flush := func() error {
		if err := r.load(chunk, fields); err != nil {
			return err
		}
		read += uint64(len(chunk))
		for _, k := range chunk {
			if d := r.docs[string(k)]; !d.exists || !r.holds(op.Cond, d.vals) {
				continue
			}
			held++
			var err error
			if more, err = out(k); err != nil || !more {
				return err
			}
		}
		// Tried again when the documents still to read grew fourfold
		// since: the cost of the tries stays a third of the last one's.
		if budget := narrowBudget(want, read, held); inRange == nil && want > held && budget >= max(4*tried, 64) {
			tried = budget
			var err error
			if inRange, err = r.narrow(op.Cond, budget); err != nil {
				return err
			}
			if inRange != nil {
				read = held // the share that holds starts again, among the range's keys
			}
		}
		chunk, size = chunk[:0], chunkSize(want, read, held, size)
		return nil
	}
	err := r.wanting(0, func() error {
		return r.run(op.Source, func(k []byte) (bool, error) {
			if inRange != nil && !inRange[string(k)] {
				return true, nil
			}
			if chunk = append(chunk, k); len(chunk) < size {
				return true, nil
			}
			err := flush()
			return more, err
		})
	})
	if err != nil || !more || len(chunk) == 0 {
		return err
	}
	return flush()
}

// narrowBudget is how many numeric index entries a filter under a LIMIT
// may read to narrow its keys: three for each document it still expects
// to read (an entry costs about a tenth of a document's reads, so a try
// that finds the range too big adds a third at most).
func narrowBudget(want, read, held uint64) int {
	need := (want - held) * read / max(held, 1)
	return int(min(need*3, 1<<16))
}

// narrow returns the keys whose number is in the range cond needs (alone
// or as one of the conditions it ANDs), read from the numeric index when
// the range has at most budget entries; nil when it has more, or cond
// needs no range.
func (r *runner) narrow(cond Expr, budget int) (map[string]bool, error) {
	field, set, ok := numericConjunct(cond)
	f := r.ix.Schema.Field(field)
	if !ok || f == nil || f.Type != FieldNumeric {
		return nil, nil
	}
	// Counted first: a range over budget costs its entries' reads, not
	// a map of their keys.
	n, err := r.rangeEntries(f, set, budget, nil)
	if err != nil || n > budget {
		return nil, err
	}
	keys := make(map[string]bool, n)
	_, err = r.rangeEntries(f, set, n, keys)
	return keys, err
}

// rangeEntries counts the numeric index entries of field f in set, up to
// one past most, and puts their keys in keys when not nil.
func (r *runner) rangeEntries(f *Field, set intervalSet, most int, keys map[string]bool) (int, error) {
	n := 0
	for _, in := range set {
		lower, upper, parse := r.numericRange(f, in)
		var ferr error
		err := r.db.ScanRange(r.rv, storage.CFSearch, lower, upper, func(k, _ []byte) bool {
			n++
			if keys != nil {
				key, err := parse(k)
				if ferr = err; err != nil {
					return false
				}
				keys[string(key)] = true
			}
			return n <= most
		})
		if err = firstError(err, ferr); err != nil || n > most {
			return n, err
		}
	}
	return n, nil
}

// numericConjunct is the field and set of values of cond when it is a
// numeric condition, or of the first numeric condition among those it
// ANDs.
func numericConjunct(cond Expr) (string, intervalSet, bool) {
	if field, set, ok := numericOf(cond); ok {
		return field, set, true
	}
	if and, ok := cond.(*And); ok {
		for _, c := range and.Inners {
			if field, set, ok := numericOf(c); ok {
				return field, set, true
			}
		}
	}
	return "", nil, false
}

// chunkSize is the number of keys a filter reads next: want is what its
// consumer asks for at most (0: all), read and held how many documents
// it read and how many of them held its condition, last the size of the
// chunk before (0: none yet).
func chunkSize(want, read, held uint64, last int) int {
	const least, most = 8, 128
	switch {
	case want == 0 && last == 0:
		return least
	case want == 0:
		return min(2*last, most)
	case held >= want: // the consumer has all it wanted: it stops the filter
		return least
	case read == 0: // as if every document holds
		return int(min(want, most))
	}
	// A quarter more than the share that held so far says the rest
	// needs (none held: as if one had).
	need := float64(want-held) * float64(read) / float64(max(held, 1))
	return int(min(max(need*1.25, least), most))
}

// condFields appends to out the schema indexes of the fields condition e
// reads.
func (r *runner) condFields(e Expr, out []int) []int {
	switch e := e.(type) {
	case *TagContain:
		return r.fieldIndex(e.Field, out)
	case *NumericCompare:
		return r.fieldIndex(e.Field, out)
	case *VectorRange:
		return r.fieldIndex(e.Field, out)
	case *Not:
		return r.condFields(e.Inner, out)
	case *And:
		for _, c := range e.Inners {
			out = r.condFields(c, out)
		}
	case *Or:
		for _, c := range e.Inners {
			out = r.condFields(c, out)
		}
	}
	return out
}

// fieldIndex appends the schema index of the field a query names.
func (r *runner) fieldIndex(name string, out []int) []int {
	if i := r.ix.Schema.fieldAt(name); i >= 0 && !slices.Contains(out, i) {
		return append(out, i)
	}
	return out
}

// allFields are the schema indexes of every field.
func allFields(s *Schema) []int {
	out := make([]int, len(s.Fields))
	for i := range out {
		out[i] = i
	}
	return out
}

// window passes on the keys of a limit: Offset skipped, Count at most.
func window(l Limit, out emit) emit {
	skipped, passed := uint64(0), uint64(0)
	return func(k []byte) (bool, error) {
		if skipped < l.Offset {
			skipped++
			return true, nil
		}
		if passed >= l.Count {
			return false, nil
		}
		passed++
		more, err := out(k)
		return more && passed < l.Count, err
	}
}

// sorted produces src's keys ordered by a numeric field.
func (r *runner) sorted(src Op, by SortBy, out emit) error {
	var keys [][]byte
	err := r.run(src, func(k []byte) (bool, error) {
		keys = append(keys, k)
		return true, nil
	})
	if err != nil {
		return err
	}
	if keys, err = r.sort(keys, by); err != nil {
		return err
	}
	return emitAll(keys, out)
}

func emitAll(keys [][]byte, out emit) error {
	for _, k := range keys {
		if more, err := out(k); err != nil || !more {
			return err
		}
	}
	return nil
}

// scanKeys produces the keys that parse reads from the records of the
// search column family in [lower, upper).
func (r *runner) scanKeys(lower, upper []byte, parse func(k []byte) ([]byte, error), out emit) error {
	var ferr error
	err := r.db.ScanRange(r.rv, storage.CFSearch, lower, upper, func(k, _ []byte) bool {
		key, err := parse(k)
		if err != nil {
			ferr = err
			return false
		}
		more, err := out(append([]byte(nil), key...))
		ferr = err
		return more && err == nil
	})
	return firstError(err, ferr)
}

// fullScan produces the live documents of the index's kind under its
// prefixes, in key order per prefix.
func (r *runner) fullScan(out emit) error {
	ex, ok := extractors[r.ix.Schema.On]
	if !ok {
		return nil
	}
	prefixes := r.ix.Schema.Prefixes
	if len(prefixes) == 0 {
		prefixes = []string{""}
	}
	layout := r.db.Storage().Layout()
	ns := r.db.Namespace()
	now := time.Now().UnixMilli()
	seen := map[string]bool{}
	for _, p := range prefixes {
		lower := layout.AppendNSKey(nil, ns, []byte(p))
		if layout.Cluster {
			lower = metadata.AppendNamespacePrefix(nil, ns)
		}
		more := true
		var ferr error
		err := r.db.ScanRange(r.rv, storage.CFMetadata, lower, metadata.PrefixEnd(lower), func(nsKey, value []byte) bool {
			m, _, err := metadata.Decode(value)
			if err != nil || m.Type != ex.keyType || m.Dead(now) {
				return true
			}
			_, key, err := layout.ParseNSKey(nsKey)
			if err != nil || !r.ix.Schema.Covers(key) || seen[string(key)] {
				return true
			}
			seen[string(key)] = true
			more, ferr = out(append([]byte(nil), key...))
			return more && ferr == nil
		})
		if err = firstError(err, ferr); err != nil || !more {
			return err
		}
	}
	return nil
}

func (r *runner) numericScan(op *NumericScan, out emit) error {
	f := r.ix.Schema.Field(op.Field)
	if f == nil {
		return ErrCorrupt
	}
	lower, upper, parse := r.numericRange(f, op.Range)
	if !op.Desc {
		return r.scanKeys(lower, upper, parse, out)
	}
	var keys [][]byte
	err := r.scanKeys(lower, upper, parse, func(k []byte) (bool, error) {
		keys = append(keys, k)
		return true, nil
	})
	if err != nil {
		return err
	}
	slices.Reverse(keys)
	return emitAll(keys, out)
}

// numericRange returns the bounds of the numeric index entries of field
// f in the interval in, and how to read the key of one.
func (r *runner) numericRange(f *Field, in interval) (lower, upper []byte, parse func(k []byte) ([]byte, error)) {
	name := r.ix.Schema.Name
	prefixLen := len(FieldDataPrefix(r.ix.NS, name, f.Name))
	parse = func(k []byte) ([]byte, error) {
		_, key, err := ParseNumericEntry(k[prefixLen:])
		return key, err
	}
	return NumericBound(r.ix.NS, name, f.Name, in.lo), NumericBound(r.ix.NS, name, f.Name, in.hi), parse
}

func (r *runner) tagScan(op *TagScan, out emit) error {
	f := r.ix.Schema.Field(op.Field)
	if f == nil {
		return ErrCorrupt
	}
	tag := op.Tag
	if !f.CaseSensitive {
		tag = strings.ToLower(tag)
	}
	prefix := TagPrefix(r.ix.NS, r.ix.Schema.Name, f.Name, []byte(tag))
	return r.scanKeys(prefix, successor(prefix), func(k []byte) ([]byte, error) { return ParseSizedKey(k[len(prefix):]) }, out)
}

// vectorScan runs a search of a vector field's graph. The graph is read
// as last applied, through the graph cache, under the graph lock: so
// that no write is halfway (the documents found are then read as of the
// query's view).
func (r *runner) vectorScan(field string, out emit, search func(h *HNSWIndex) ([]Neighbour, error)) error {
	f := r.ix.Schema.Field(field)
	if f == nil {
		return ErrCorrupt
	}
	reg := registryOf(r.db.Storage())
	st := r.db.Storage()
	reg.graph.RLock()
	gen, lockless := reg.graphs.gen, st.LocklessWrites()
	found, g, err := r.searchGraph(reg, f, lockless, search)
	reg.graph.RUnlock()
	if err != nil {
		return err
	}
	if len(g.fetched) > 0 || len(g.stored) > 0 {
		reg.graph.Lock()
		reg.graphs.fillFrom(g, gen, lockless, st.LocklessWrites())
		reg.graph.Unlock()
	}
	keys := make([][]byte, len(found))
	for i, n := range found {
		keys[i] = n.Key
	}
	return emitAll(keys, out)
}

// searchGraph runs search on the graph of vector field f, through the
// graph cache when it is the storage's as of lockless; the caller holds
// the graph lock's read side. The graph returned holds what the search
// read from the database.
func (r *runner) searchGraph(reg *registry, f *Field, lockless uint64, search func(h *HNSWIndex) ([]Neighbour, error)) ([]Neighbour, *storeGraph, error) {
	g := newStoreGraph(r.db, nil, r.ix, f.Name)
	g.fetched = map[string]cachedNode{}
	vals, err := r.db.GetMany(nil, storage.CFSearch, [][]byte{FieldMetaKey(r.ix.NS, r.ix.Schema.Name, f.Name)})
	if err != nil {
		return nil, g, err
	}
	stored := *f
	if vals[0] != nil {
		if stored, err = DecodeFieldMeta(f.Name, vals[0]); err != nil {
			return nil, g, err
		}
	}
	if reg.graphs.lockless == lockless {
		g.cache = &reg.graphs
	}
	found, err := search(&HNSWIndex{Graph: g, Params: &stored.Vector})
	return found, g, err
}

// holds evaluates a condition on a document's values.
func (r *runner) holds(e Expr, v docValues) bool {
	switch e := e.(type) {
	case *BoolLit:
		return e.Val
	case *TagContain:
		i := r.ix.Schema.fieldAt(e.Field)
		val, ok := v.at(i)
		return ok && hasTag(&r.ix.Schema.Fields[i], val.tags, e.Tag)
	case *NumericCompare:
		val, ok := v.at(r.ix.Schema.fieldAt(e.Field))
		return ok && compare(val.num, e.Op, e.Value)
	case *VectorRange:
		i := r.ix.Schema.fieldAt(e.Field)
		val, ok := v.at(i)
		return ok && len(val.vector) == len(e.Vector) && Distance(r.ix.Schema.Fields[i].Vector.Metric, val.vector, e.Vector) <= e.Range
	case *Not:
		return !r.holds(e.Inner, v)
	case *And:
		for _, c := range e.Inners {
			if !r.holds(c, v) {
				return false
			}
		}
		return true
	case *Or:
		for _, c := range e.Inners {
			if r.holds(c, v) {
				return true
			}
		}
	}
	return false
}

func compare(a float64, op CompareOp, b float64) bool {
	switch op {
	case OpEQ:
		return a == b
	case OpNE:
		return a != b
	case OpLT:
		return a < b
	case OpLE:
		return a <= b
	case OpGT:
		return a > b
	case OpGE:
		return a >= b
	}
	return false
}

// sort orders keys by a numeric field; documents without it come last.
func (r *runner) sort(keys [][]byte, by SortBy) ([][]byte, error) {
	field := r.ix.Schema.fieldAt(by.Field)
	if err := r.load(keys, r.fieldIndex(by.Field, nil)); err != nil {
		return nil, err
	}
	nums := make([]float64, len(keys))
	for i, k := range keys {
		d := r.docs[string(k)]
		nums[i] = math.NaN()
		if v, ok := d.vals.at(field); ok {
			nums[i] = v.num
		}
	}
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := nums[idx[a]], nums[idx[b]]
		if math.IsNaN(x) || math.IsNaN(y) {
			return !math.IsNaN(x) && math.IsNaN(y)
		}
		if by.Desc {
			return x > y
		}
		return x < y
	})
	out := make([][]byte, len(keys))
	for i, j := range idx {
		out[i] = keys[j]
	}
	return out, nil
}

// load reads, as of the query's view, the documents of keys not read
// yet (their metadata, in one call), then the fields of the schema among
// fields (by index) that each has not read yet (in one more call).
func (r *runner) load(keys [][]byte, fields []int) error {
	ex, ok := extractors[r.ix.Schema.On]
	if !ok {
		return nil
	}
	if err := r.lookup(keys, ex); err != nil {
		return err
	}
	s := r.ix.Schema
	// The fields' keys are built into one buffer; a document listed
	// twice in keys is asked for once (queued).
	var buf []byte
	var ends []int
	var at []*loaded
	var idx []int
	for _, k := range keys {
		d := r.docs[string(k)]
		if !d.exists || d.obj.Meta().Type.SingleKV() || d.queued {
			continue
		}
		d.queued = true
		for _, i := range fields {
			if !d.read[i] {
				if at == nil {
					at, idx, ends = make([]*loaded, 0, len(keys)*len(fields)), make([]int, 0, len(keys)*len(fields)), make([]int, 0, len(keys)*len(fields))
				}
				buf = d.obj.AppendSubkey(buf, []byte(s.Fields[i].Name))
				ends, at, idx = append(ends, len(buf)), append(at, d), append(idx, i)
			}
		}
	}
	for _, d := range at {
		d.queued = false
	}
	if len(at) > 0 {
		subs := make([][]byte, len(ends))
		from := 0
		for j, end := range ends {
			subs[j], from = buf[from:end:end], end
		}
		vals, err := r.db.GetElementsAt(r.rv, subs)
		if err != nil {
			return err
		}
		for j, v := range vals {
			if v != nil {
				at[j].st.setField(idx[j], at[j].obj.Meta(), v)
			}
		}
	}
	for _, k := range keys {
		if d := r.docs[string(k)]; d.exists {
			d.readFields(ex, s, fields)
		}
	}
	return nil
}

// lookup reads the metadata of the documents of keys not looked up yet.
func (r *runner) lookup(keys [][]byte, ex extractor) error {
	// The documents of a chunk, and their fields' slices, are carved out
	// of one allocation each rather than several per document.
	s := r.ix.Schema
	n := len(s.Fields)
	var todo [][]byte
	for _, k := range keys {
		if r.docs[string(k)] == nil {
			todo = append(todo, k)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	// never grown: the map keeps pointers into docs
	docs, objs, read, raws, vals := r.arena.take(len(todo), n)
	for i, k := range todo {
		if r.docs[string(k)] == nil { // a key listed twice is read once
			r.docs[string(k)] = &docs[i]
		}
	}
	return r.db.LookupManyIn(r.rv, todo, objs, func(i int, o *storage.Object) error {
		if o != nil && o.Meta().Type == ex.keyType {
			lo, hi := i*n, (i+1)*n
			docs[i] = loaded{exists: true, obj: o, st: docState{schema: s, rest: o.Ext(), fields: raws[2*lo : 2*lo+n : 2*lo+n]},
				read: read[lo:hi:hi], raw: raws[2*lo+n : 2*hi : 2*hi], vals: vals[lo:hi:hi]}
		}
		return nil
	})
}

// readFields extracts the fields among fields not read yet from the
// document's state.
func (d *loaded) readFields(ex extractor, s *Schema, fields []int) {
	for _, i := range fields {
		if d.read[i] {
			continue
		}
		d.read[i] = true
		raw, v, ok, err := ex.field(&d.st, i)
		if !ok {
			continue
		}
		d.raw[i] = rawField{raw, true}
		if err == nil {
			v.has = true
			d.vals[i] = v
		}
	}
}

// project builds a result: the selected fields the document has, under
// their names in the reply.
func project(s *Schema, q *Query, key []byte, d *loaded) Doc {
	out := Doc{Key: key}
	if q.NoContent {
		return out
	}
	if q.Select == nil {
		for i := range s.Fields {
			if v, ok := d.reply(s, i); ok {
				out.Fields = append(out.Fields, DocField{s.Fields[i].QueryName(), v})
			}
		}
		return out
	}
	for i, name := range q.Select {
		v, ok := d.reply(s, s.fieldAt(name))
		if !ok {
			continue
		}
		if i < len(q.Aliases) && q.Aliases[i] != "" {
			name = q.Aliases[i]
		}
		out.Fields = append(out.Fields, DocField{name, v})
	}
	return out
}

// reply is the schema's field i's value (-1: none) as Kvrocks returns it: a number as it prints
// numbers, a vector as its elements with six decimals, a tag field as
// stored.
func (d *loaded) reply(s *Schema, i int) ([]byte, bool) {
	if i < 0 || !d.raw[i].ok {
		return nil, false
	}
	f, raw := &s.Fields[i], d.raw[i].v
	v, parsed := d.vals.at(i)
	switch {
	case !parsed:
		return raw, true
	case f.Type == FieldNumeric:
		return []byte(formatNumber(v.num)), true
	case f.Type == FieldVector:
		var b []byte
		for i, x := range v.vector {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendFixed6(b, x)
		}
		return b, true
	}
	return raw, true
}

// appendFixed6 appends x as C's %f prints it.
func appendFixed6(b []byte, x float64) []byte {
	switch {
	case math.IsNaN(x):
		return append(b, "nan"...)
	case math.IsInf(x, 1):
		return append(b, "inf"...)
	case math.IsInf(x, -1):
		return append(b, "-inf"...)
	}
	return strconv.AppendFloat(b, x, 'f', 6, 64)
}
