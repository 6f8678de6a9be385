package tdigest

import (
	"bytes"
	"fmt"
	"math"
	"slices"
)

// Store is one live t-digest key's records (subkeys after the internal
// key's version, FORMAT.md §2.3) as the engine reads them, all in one
// snapshot. A command reads the buffer only when the metadata says it
// holds values, and the centroids only when it merges or answers from
// them.
type Store interface {
	// Buffer returns the value of the buffer record (BufferSubkey), nil
	// when there is none. The package may keep and append to it.
	Buffer() ([]byte, error)
	// Centroids calls fn with each centroid record (segment
	// SegmentCentroid), subkey and value, in key order, until fn returns
	// false or they end. want, the number the metadata counts (at most
	// 4096), is a read-ahead hint that corrupt metadata may get wrong.
	// sub and value are valid during the call only.
	Centroids(want uint64, fn func(sub, value []byte) bool) error
}

// Record is a record of the default column family to write: its subkey
// (after the internal key's version) and value.
type Record struct{ Sub, Value []byte }

// Change is what a command writes to a key, in one batch: the records of
// Delete deleted first, then those of Put written (a subkey may be in
// both: the new record stays), and the metadata record with Meta as its
// extension. An absent key is written as a new incarnation (new version,
// size 0); an existing one keeps its header (version, expiry). The
// package keeps nothing of a Change.
type Change struct {
	Meta   Meta
	Delete [][]byte
	Put    []Record
}

// Sketch is a t-digest ready to be queried: its buffer merged, its
// centroids read from the store on first need.
type Sketch struct {
	meta   Meta
	store  Store
	d      digest
	loaded bool     // d holds the centroids
	stored [][]byte // the centroid subkeys store holds, once read
}

// Load returns the sketch of a key whose metadata extension is m and
// records s. When the buffer holds values it merges them, as Kvrocks does
// before every query, and returns the change that persists that merge;
// queries (MIN, QUANTILE, ...) write it, so that INFO then shows it.
// TDIGEST.MERGE loads the destination and sources the same way but does
// not write those changes: Merge replaces the destination whole and the
// sources are only read.
func Load(m Meta, s Store) (*Sketch, *Change, error) {
	sk := &Sketch{meta: m, store: s}
	if m.UnmergedNodes == 0 {
		return sk, nil, nil
	}
	ch, err := sk.compress(nil)
	if err != nil {
		return nil, nil, err
	}
	return sk, &ch, nil
}

// Meta is the sketch's metadata, its buffer merged.
func (sk *Sketch) Meta() Meta { return sk.meta }

// digest returns the sketch in memory, reading its centroids once.
func (sk *Sketch) digest() (*digest, error) {
	if sk.loaded {
		return &sk.d, nil
	}
	cs, subs, err := readCentroids(sk.store, readAhead(sk.meta.MergedNodes))
	if err != nil {
		return nil, err
	}
	sk.d = digest{centroids: cs, weight: float64(sk.meta.MergedWeight), min: sk.meta.Min, max: sk.meta.Max}
	sk.stored, sk.loaded = subs, true
	return &sk.d, nil
}

// compress merges the buffered values and extra into the centroids, as
// Kvrocks's ADD does past the buffer's capacity and its queries do with a
// non-empty buffer: every old record deleted, the new centroids written.
func (sk *Sketch) compress(extra []float64) (Change, error) {
	values, err := readBuffer(sk.store, sk.meta.UnmergedNodes, extra)
	if err != nil {
		return Change{}, err
	}
	d, err := sk.digest()
	if err != nil {
		return Change{}, err
	}
	old := append(slices.Clip(sk.stored), BufferSubkey)
	sk.d = mergeValues(*d, sk.meta.Compression, values)
	m := &sk.meta
	m.MergeTimes++
	m.MergedNodes, m.UnmergedNodes = uint64(len(sk.d.centroids)), 0
	m.MergedWeight = uint64(sk.d.weight)
	m.Min, m.Max = sk.d.min, sk.d.max
	return Change{Meta: *m, Delete: old, Put: centroidRecords(sk.d.centroids)}, nil
}

// readBuffer returns the buffered values (none read when the metadata
// counts none) followed by extra.
func readBuffer(s Store, unmerged uint64, extra []float64) ([]float64, error) {
	if unmerged == 0 {
		return append([]float64(nil), extra...), nil
	}
	buf, err := s.Buffer()
	if err != nil {
		return nil, err
	}
	values, err := ParseBuffer(make([]float64, 0, len(buf)/8+len(extra)), buf)
	return append(values, extra...), err
}

// readAhead bounds the centroids a walk expects by what the metadata
// counts, which is never trusted to size anything.
func readAhead(count uint64) uint64 { return min(count, 4096) }

// readCentroids reads every centroid record: the centroids and copies of
// their subkeys. want is the read-ahead hint (readAhead).
func readCentroids(s Store, want uint64) ([]Centroid, [][]byte, error) {
	cs := make([]Centroid, 0, want)
	subs := make([][]byte, 0, want)
	var bad error
	err := s.Centroids(want, func(sub, value []byte) bool {
		c, err := ParseCentroid(sub, value)
		if err != nil {
			bad = err
			return false
		}
		cs = append(cs, c)
		subs = append(subs, bytes.Clone(sub))
		return true
	})
	if err == nil {
		err = bad
	}
	return cs, subs, err
}

// centroidRecords returns the records of centroids, positions from 0.
func centroidRecords(cs []Centroid) []Record {
	recs := make([]Record, len(cs))
	for i, c := range cs {
		recs[i] = Record{Sub: AppendCentroidSubkey(nil, c.Mean, uint32(i)), Value: AppendCentroidValue(nil, c.Weight)}
	}
	return recs
}

// Add returns the change of TDIGEST.ADD values (parsed by ParseValues) on
// a key whose metadata extension is m and records s: the values appended
// to the buffer while it has room for all of them, else the buffer and
// the values merged into the centroids.
func Add(m Meta, s Store, values []float64) (Change, error) {
	n := uint64(len(values))
	m.TotalObservations += n
	m.TotalWeight += n
	if room := uint64(m.Capacity); n <= room && m.UnmergedNodes <= room-n {
		var buf []byte
		if m.UnmergedNodes > 0 {
			var err error
			if buf, err = s.Buffer(); err != nil {
				return Change{}, err
			}
			if len(buf)%8 != 0 {
				return Change{}, fmt.Errorf("%w: buffer of %d bytes", ErrCorrupt, len(buf))
			}
		}
		m.UnmergedNodes += n
		return Change{Meta: m, Put: []Record{{Sub: BufferSubkey, Value: AppendBufferValues(buf, values)}}}, nil
	}
	sk := &Sketch{meta: m, store: s}
	return sk.compress(values)
}

// Reset returns the change of TDIGEST.RESET: every record deleted, the
// counters zeroed, compression and capacity kept.
func Reset(m Meta, s Store) (Change, error) {
	del := [][]byte{BufferSubkey}
	err := s.Centroids(readAhead(m.MergedNodes), func(sub, _ []byte) bool {
		del = append(del, bytes.Clone(sub))
		return true
	})
	if err != nil {
		return Change{}, err
	}
	m.clear()
	return Change{Meta: m, Delete: del}, nil
}

// Merge returns the change of TDIGEST.MERGE to the destination, whose
// sketch is dest (nil when the key is absent), from sources, in the order
// named (a key named twice counts twice; dest may be one of them).
// Without OVERRIDE an existing destination's own values are merged in
// too, and it keeps its compression unless COMPRESSION is given; else
// the compression is COMPRESSION's or the largest of the sources'. The
// new centroids replace every record of the destination.
func Merge(dest *Sketch, sources []*Sketch, a MergeArgs) (Change, error) {
	keep := dest != nil && !a.Override
	compression := a.Compression
	switch {
	case compression != 0:
	case keep:
		compression = dest.meta.Compression
	default:
		for _, src := range sources {
			compression = max(compression, src.meta.Compression)
		}
	}
	var ds []digest
	var observations, merges uint64
	inputs := sources
	if keep {
		inputs = append([]*Sketch{dest}, sources...)
		merges = dest.meta.MergeTimes
	}
	for _, sk := range inputs {
		d, err := sk.digest()
		if err != nil {
			return Change{}, err
		}
		ds = append(ds, *d)
		observations += sk.meta.TotalObservations
	}
	merged := mergeDigests(ds, compression)
	m := NewMeta(compression)
	m.MergedNodes = uint64(len(merged.centroids))
	m.TotalWeight, m.MergedWeight = uint64(merged.weight), uint64(merged.weight)
	m.Min, m.Max = merged.min, merged.max
	m.TotalObservations, m.MergeTimes = observations, merges+1
	ch := Change{Meta: m, Put: centroidRecords(merged.centroids)}
	if dest != nil {
		if _, err := dest.digest(); err != nil {
			return Change{}, err
		}
		ch.Delete = append(append(ch.Delete, dest.stored...), BufferSubkey)
	}
	return ch, nil
}

// Min is TDIGEST.MIN: the smallest value, NaN when there is none.
func (sk *Sketch) Min() float64 {
	if sk.meta.TotalObservations == 0 {
		return math.NaN()
	}
	return sk.meta.Min
}

// Max is TDIGEST.MAX: the largest value, NaN when there is none.
func (sk *Sketch) Max() float64 {
	if sk.meta.TotalObservations == 0 {
		return math.NaN()
	}
	return sk.meta.Max
}

// Quantiles is TDIGEST.QUANTILE: for each fraction in [0,1] (ParseQuantiles)
// the estimated value below which that fraction lies; NaN each when empty.
func (sk *Sketch) Quantiles(qs []float64) ([]float64, error) {
	return each(sk, qs, (*digest).quantile)
}

// CDF is TDIGEST.CDF: for each value the estimated fraction of the
// values at or below it (half of those equal); NaN each when empty.
func (sk *Sketch) CDF(values []float64) ([]float64, error) {
	return each(sk, values, (*digest).cdf)
}

// Ranks is TDIGEST.RANK (reverse: REVRANK): for each value the estimated
// number of values below it (above it); RankEmpty each when empty,
// RankOut for a value beyond the data on the side counted from.
func (sk *Sketch) Ranks(values []float64, reverse bool) ([]int64, error) {
	return each(sk, values, func(d *digest, x float64) int64 { return d.rank(x, reverse) })
}

// ByRanks is TDIGEST.BYRANK (reverse: BYREVRANK): for each rank (0: the
// smallest value; reverse: the largest) the estimated value of that rank,
// +inf (-inf) past the last, NaN each when empty.
func (sk *Sketch) ByRanks(ranks []int64, reverse bool) ([]float64, error) {
	return each(sk, ranks, func(d *digest, r int64) float64 { return d.byRank(r, reverse) })
}

// TrimmedMean is TDIGEST.TRIMMED_MEAN low high (ParseTrimmedMean): the
// mean of the values between the two fractions; NaN when empty.
func (sk *Sketch) TrimmedMean(low, high float64) (float64, error) {
	d, err := sk.digest()
	if err != nil {
		return 0, err
	}
	return d.trimmedMean(low, high), nil
}

// each answers a query for each argument.
func each[A, R any](sk *Sketch, args []A, query func(*digest, A) R) ([]R, error) {
	d, err := sk.digest()
	if err != nil {
		return nil, err
	}
	out := make([]R, len(args))
	for i, a := range args {
		out[i] = query(d, a)
	}
	return out, nil
}
