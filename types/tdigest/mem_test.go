package tdigest

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/basaltdb/basalt/reply"
)

// memStore is a Store in memory: one key's records by subkey. It counts
// its reads, so tests can hold a command to what it must read.
type memStore struct {
	recs          map[string][]byte
	bufferReads   int
	centroidWalks int
}

func newMemStore() *memStore { return &memStore{recs: map[string][]byte{}} }

func (s *memStore) Buffer() ([]byte, error) {
	s.bufferReads++
	return bytes.Clone(s.recs[string(BufferSubkey)]), nil
}

func (s *memStore) Centroids(want uint64, fn func(sub, value []byte) bool) error {
	if want > 4096 {
		panic("read-ahead hint sized by the metadata")
	}
	s.centroidWalks++
	for _, sub := range s.sorted() {
		if sub[0] == SegmentCentroid && !fn([]byte(sub), s.recs[sub]) {
			break
		}
	}
	return nil
}

// sorted returns the subkeys in RocksDB's order.
func (s *memStore) sorted() []string {
	subs := make([]string, 0, len(s.recs))
	for sub := range s.recs {
		subs = append(subs, sub)
	}
	slices.Sort(subs)
	return subs
}

// apply writes a change's records as the engine would: deletes, then puts.
func (s *memStore) apply(ch Change) {
	for _, sub := range ch.Delete {
		delete(s.recs, string(sub))
	}
	for _, r := range ch.Put {
		s.recs[string(r.Sub)] = bytes.Clone(r.Value)
	}
}

// memKey is a key of memDB: a t-digest (its metadata and records) or,
// when other is set, a key of another type.
type memKey struct {
	meta  Meta
	store *memStore
	other bool
}

// memDB runs the TDIGEST commands (and SET and TYPE, for keys of another
// type) over keys in memory, as the handlers will over the engine: check
// the arity, parse, read the keys, one package call, write the change,
// reply.
type memDB map[string]*memKey

var errWrongType = errors.New("WRONGTYPE Operation against a key holding the wrong kind of value")

// memArity is each command's arity in the command table's convention
// (negative: at least that many).
var memArity = map[string]int{
	"TDIGEST.CREATE": -2, "TDIGEST.ADD": -3, "TDIGEST.RESET": 2, "TDIGEST.MERGE": -4,
	"TDIGEST.MIN": 2, "TDIGEST.MAX": 2, "TDIGEST.INFO": 2, "TDIGEST.QUANTILE": -3,
	"TDIGEST.CDF": -3, "TDIGEST.RANK": -3, "TDIGEST.REVRANK": -3, "TDIGEST.BYRANK": -3,
	"TDIGEST.BYREVRANK": -3, "TDIGEST.TRIMMED_MEAN": 4, "SET": 3, "TYPE": 2,
}

func (db memDB) do(args [][]byte, w reply.Sink) {
	name := strings.ToUpper(string(args[0]))
	arity, known := memArity[name]
	if !known {
		w.Error(fmt.Sprintf("ERR unknown command '%s'", args[0]))
		return
	}
	if n := len(args); (arity > 0 && n != arity) || (arity < 0 && n < -arity) {
		w.Error(fmt.Sprintf("ERR wrong number of arguments for '%s' command", strings.ToLower(name)))
		return
	}
	if err := db.run(name, string(args[1]), args[2:], w); err != nil {
		if text, ok := ReplyText(err); ok {
			w.Error(text)
		} else if errors.Is(err, ErrArity) {
			w.Error(fmt.Sprintf("ERR wrong number of arguments for '%s' command", strings.ToLower(name)))
		} else {
			w.Error(err.Error())
		}
	}
}

// digest returns the t-digest at key: ErrNoKey when absent, WRONGTYPE
// when of another type.
func (db memDB) digest(key string) (*memKey, error) {
	k := db[key]
	switch {
	case k == nil:
		return nil, ErrNoKey
	case k.other:
		return nil, errWrongType
	}
	return k, nil
}

// load is a query's read: the key's sketch, its buffer merge written.
func (db memDB) load(key string) (*Sketch, error) {
	k, err := db.digest(key)
	if err != nil {
		return nil, err
	}
	sk, ch, err := Load(k.meta, k.store)
	if err != nil {
		return nil, err
	}
	if ch != nil {
		db.write(key, *ch)
	}
	return sk, nil
}

func (db memDB) write(key string, ch Change) {
	k := db[key]
	if k == nil || k.other {
		k = &memKey{store: newMemStore()}
		db[key] = k
	}
	k.store.apply(ch)
	k.meta = ch.Meta
}

func (db memDB) run(name, key string, rest [][]byte, w reply.Sink) error {
	switch name {
	case "SET":
		db[key] = &memKey{other: true}
		w.OK()
	case "TYPE":
		switch k := db[key]; {
		case k == nil:
			w.Simple("none")
		case k.other:
			w.Simple("string")
		default:
			w.Simple(TypeName)
		}
	case "TDIGEST.CREATE":
		c, err := ParseCreate(rest)
		if err != nil {
			return err
		}
		if k := db[key]; k != nil && k.other {
			return errWrongType
		} else if k != nil {
			return ErrKeyExists
		}
		db.write(key, Change{Meta: NewMeta(c)})
		w.OK()
	case "TDIGEST.ADD":
		values, err := ParseValues(rest)
		if err != nil {
			return err
		}
		k, err := db.digest(key)
		if err != nil {
			return err
		}
		ch, err := Add(k.meta, k.store, values)
		if err != nil {
			return err
		}
		db.write(key, ch)
		w.OK()
	case "TDIGEST.RESET":
		k, err := db.digest(key)
		if err != nil {
			return err
		}
		ch, err := Reset(k.meta, k.store)
		if err != nil {
			return err
		}
		db.write(key, ch)
		w.OK()
	case "TDIGEST.INFO":
		k, err := db.digest(key)
		if err != nil {
			return err
		}
		WriteInfo(w, k.meta)
	case "TDIGEST.MERGE":
		return db.merge(key, rest, w)
	default:
		return db.query(name, key, rest, w)
	}
	return nil
}

func (db memDB) merge(dest string, rest [][]byte, w reply.Sink) error {
	a, err := ParseMerge(rest)
	if err != nil {
		return err
	}
	if k := db[dest]; k != nil && k.other {
		return errWrongType
	}
	loaded := map[string]*Sketch{}
	sketch := func(key string) (*Sketch, error) {
		if sk, ok := loaded[key]; ok {
			return sk, nil
		}
		k, err := db.digest(key)
		if err != nil {
			return nil, err
		}
		sk, _, err := Load(k.meta, k.store) // Merge writes no source
		loaded[key] = sk
		return sk, err
	}
	var sources []*Sketch
	for _, src := range a.Sources {
		sk, err := sketch(string(src))
		if err != nil {
			return err
		}
		sources = append(sources, sk)
	}
	var destSketch *Sketch
	if db[dest] != nil {
		if destSketch, err = sketch(dest); err != nil {
			return err
		}
	}
	ch, err := Merge(destSketch, sources, a)
	if err != nil {
		return err
	}
	db.write(dest, ch)
	w.OK()
	return nil
}

func (db memDB) query(name, key string, rest [][]byte, w reply.Sink) error {
	var parse func() error
	var answer func(sk *Sketch) error
	doubles := func(fs []float64, err error) error {
		if err == nil {
			WriteDoubles(w, fs)
		}
		return err
	}
	switch name {
	case "TDIGEST.MIN", "TDIGEST.MAX":
		parse = func() error { return nil }
		answer = func(sk *Sketch) error {
			WriteDouble(w, map[bool]float64{true: sk.Min(), false: sk.Max()}[name == "TDIGEST.MIN"])
			return nil
		}
	case "TDIGEST.QUANTILE", "TDIGEST.CDF":
		var xs []float64
		parse = func() (err error) {
			if name == "TDIGEST.CDF" {
				xs, err = ParseCDF(rest)
			} else {
				xs, err = ParseQuantiles(rest)
			}
			return err
		}
		answer = func(sk *Sketch) error {
			if name == "TDIGEST.CDF" {
				return doubles(sk.CDF(xs))
			}
			return doubles(sk.Quantiles(xs))
		}
	case "TDIGEST.RANK", "TDIGEST.REVRANK":
		var xs []float64
		parse = func() (err error) { xs, err = ParseRankValues(rest); return err }
		answer = func(sk *Sketch) error {
			ranks, err := sk.Ranks(xs, name == "TDIGEST.REVRANK")
			if err == nil {
				WriteRanks(w, ranks)
			}
			return err
		}
	case "TDIGEST.BYRANK", "TDIGEST.BYREVRANK":
		var ranks []int64
		parse = func() (err error) { ranks, err = ParseRanks(rest); return err }
		answer = func(sk *Sketch) error { return doubles(sk.ByRanks(ranks, name == "TDIGEST.BYREVRANK")) }
	case "TDIGEST.TRIMMED_MEAN":
		var low, high float64
		parse = func() (err error) { low, high, err = ParseTrimmedMean(rest); return err }
		answer = func(sk *Sketch) error {
			mean, err := sk.TrimmedMean(low, high)
			if err == nil {
				WriteDouble(w, mean)
			}
			return err
		}
	}
	if err := parse(); err != nil {
		return err
	}
	sk, err := db.load(key)
	if err != nil {
		return err
	}
	return answer(sk)
}
