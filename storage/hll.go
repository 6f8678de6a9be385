package storage

import (
	"errors"
	"fmt"
	"math"

	"github.com/basaltdb/basalt/metadata"
	"github.com/linxGnu/grocksdb"
)

// HyperLogLogs keep Redis's dense registers in 16 segments of 768 bytes
// (FORMAT.md §4.9, metadata/hll.go): PFADD reads and writes only the
// segments its elements fall in; PFCOUNT and PFMERGE merge their keys one
// segment at a time. The estimate is Redis's (hllCount), from the same
// registers Redis computes for the same elements.

// ErrNotHLL refuses a HyperLogLog command on a string: Redis's
// HyperLogLogs are strings, and no string Basalt holds is one.
var ErrNotHLL = errors.New("storage: key is not a valid HyperLogLog string value")

// hllSegmentKeys returns the internal keys of the 16 segments of c.
func hllSegmentKeys(c *collection) [][]byte {
	keys := make([][]byte, metadata.HLLSegments)
	for i := range keys {
		var buf [2]byte
		keys[i] = c.subkey(metadata.AppendHLLSegment(buf[:0], i))
	}
	return keys
}

// hllCollection decodes the metadata record raw of key (nil: absent) as a
// HyperLogLog; the collection is nil when the key does not exist.
func (db DB) hllCollection(nsKey, key, raw []byte) (*collection, error) {
	if raw == nil {
		return nil, nil
	}
	rec, found, err := decodeRecord(raw)
	if err != nil || !found {
		return nil, err
	}
	switch rec.meta.Type {
	case metadata.TypeHyperLogLog:
	case metadata.TypeString, metadata.TypeBitmap:
		return nil, ErrNotHLL
	default:
		return nil, ErrWrongType
	}
	if len(rec.rest) < 1 || rec.rest[0] != metadata.HLLDense {
		return nil, fmt.Errorf("%w: HyperLogLog %q of encoding %x", ErrCorrupt, key, rec.rest)
	}
	return &collection{db: db, nsKey: nsKey, key: key, meta: rec.meta, stored: rec.meta, exists: true}, nil
}

// hllSegment checks a segment read from disk: absent (nil) or 768 bytes.
func hllSegment(key []byte, seg int, v []byte) ([]byte, error) {
	if v != nil && len(v) != metadata.HLLSegmentBytes {
		return nil, fmt.Errorf("%w: HyperLogLog %q segment %d of %d bytes", ErrCorrupt, key, seg, len(v))
	}
	return v, nil
}

// newHLLMeta returns the metadata value of a new HyperLogLog.
func newHLLMeta(m metadata.Metadata) []byte {
	return append(m.AppendTo(nil), metadata.HLLDense)
}

// PFAdd adds elements to the HyperLogLog at key, creating it, and reports
// whether a register changed or the key was created.
func (db DB) PFAdd(key []byte, elems [][]byte) (bool, error) {
	nsKey := db.nsKey(key)
	raw, _, err := db.get(CFMetadata, nsKey, nil)
	if err != nil {
		return false, err
	}
	c, err := db.hllCollection(nsKey, key, raw)
	if err != nil {
		return false, err
	}
	created := c == nil
	if created {
		m := metadata.New(metadata.TypeHyperLogLog, db.s.versions.Next(nowTime()))
		c = &collection{db: db, nsKey: nsKey, key: key, meta: m}
	}
	type position struct {
		reg  int
		rank uint8
	}
	pos := make([]position, len(elems))
	var touched [metadata.HLLSegments]bool
	var want []int // segments touched, in order of first touch
	for i, e := range elems {
		reg, rank := metadata.HLLPosition(e)
		pos[i] = position{reg, rank}
		if seg := reg / metadata.HLLSegmentRegisters; !touched[seg] {
			touched[seg] = true
			want = append(want, seg)
		}
	}
	segs := make([][]byte, metadata.HLLSegments)
	if !created && len(want) > 0 {
		keys := make([][]byte, len(want))
		for i, s := range want {
			var buf [2]byte
			keys[i] = c.subkey(metadata.AppendHLLSegment(buf[:0], s))
		}
		vals, err := db.multiGet(CFDefault, keys)
		if err != nil {
			return false, err
		}
		for i, s := range want {
			if segs[s], err = hllSegment(key, s, vals[i]); err != nil {
				return false, err
			}
		}
	}
	var dirty [metadata.HLLSegments]bool
	for _, p := range pos {
		seg, r := p.reg/metadata.HLLSegmentRegisters, p.reg%metadata.HLLSegmentRegisters
		if segs[seg] == nil {
			segs[seg] = make([]byte, metadata.HLLSegmentBytes)
		}
		if metadata.HLLRegister(segs[seg], r) < p.rank {
			metadata.SetHLLRegister(segs[seg], r, p.rank)
			dirty[seg] = true
		}
	}
	b := db.newBatch(typeLog(metadata.TypeHyperLogLog))
	changed := created
	for _, s := range want {
		if dirty[s] {
			var buf [2]byte
			b.put(CFDefault, c.subkey(metadata.AppendHLLSegment(buf[:0], s)), segs[s])
			changed = true
		}
	}
	if created {
		b.put(CFMetadata, nsKey, newHLLMeta(c.meta))
	}
	return changed, b.commit()
}

// hllSources reads the metadata of keys and returns the HyperLogLogs among
// them (absent keys are left out), checking them in order as Redis does.
func (db DB) hllSources(ro *grocksdb.ReadOptions, keys [][]byte) ([]*collection, error) {
	nsKeys := make([][]byte, len(keys))
	for i, k := range keys {
		nsKeys[i] = db.nsKey(k)
	}
	var raws [][]byte
	var err error
	if ro != nil {
		raws, err = db.s.multiGetWith(ro, CFMetadata, nsKeys)
	} else {
		raws, err = db.multiGet(CFMetadata, nsKeys)
	}
	if err != nil {
		return nil, err
	}
	var out []*collection
	for i, raw := range raws {
		c, err := db.hllCollection(nsKeys[i], keys[i], raw)
		if err != nil {
			return nil, err
		}
		if c != nil {
			out = append(out, c)
		}
	}
	return out, nil
}

// mergeHLLSegment reads segment seg of every source (one round trip) and
// returns the register-wise maximum, nil when no source has the segment.
func (db DB) mergeHLLSegment(ro *grocksdb.ReadOptions, srcs []*collection, seg int) ([]byte, error) {
	keys := make([][]byte, len(srcs))
	for i, c := range srcs {
		var buf [2]byte
		keys[i] = c.subkey(metadata.AppendHLLSegment(buf[:0], seg))
	}
	var vals [][]byte
	var err error
	if ro != nil {
		vals, err = db.s.multiGetWith(ro, CFDefault, keys)
	} else {
		vals, err = db.multiGet(CFDefault, keys)
	}
	if err != nil {
		return nil, err
	}
	var merged []byte
	for i, v := range vals {
		if v, err = hllSegment(srcs[i].key, seg, v); err != nil || v == nil {
			if err != nil {
				return nil, err
			}
			continue
		}
		if merged == nil {
			merged = v
			continue
		}
		for r := 0; r < metadata.HLLSegmentRegisters; r++ {
			if x := metadata.HLLRegister(v, r); x > metadata.HLLRegister(merged, r) {
				metadata.SetHLLRegister(merged, r, x)
			}
		}
	}
	return merged, nil
}

// PFCount returns the estimated cardinality of the union of the
// HyperLogLogs at keys (absent keys count as empty), merged one segment at
// a time as of one snapshot.
func (db DB) PFCount(keys [][]byte) (int64, error) {
	snap := db.snapshot()
	defer db.s.db.ReleaseSnapshot(snap)
	ro := grocksdb.NewDefaultReadOptions()
	ro.SetSnapshot(snap)
	defer ro.Destroy()
	srcs, err := db.hllSources(ro, keys)
	if err != nil || len(srcs) == 0 {
		return 0, err
	}
	var histo [64]int
	if len(srcs) == 1 {
		// One key: its segments in one round trip.
		vals, err := db.s.multiGetWith(ro, CFDefault, hllSegmentKeys(srcs[0]))
		if err != nil {
			return 0, err
		}
		for seg, v := range vals {
			if v, err = hllSegment(srcs[0].key, seg, v); err != nil {
				return 0, err
			}
			addHistogram(&histo, v)
		}
		return hllEstimate(&histo), nil
	}
	for seg := 0; seg < metadata.HLLSegments; seg++ {
		merged, err := db.mergeHLLSegment(ro, srcs, seg)
		if err != nil {
			return 0, err
		}
		addHistogram(&histo, merged)
	}
	return hllEstimate(&histo), nil
}

// PFMerge merges the HyperLogLogs at srcs into the one at dst, which is a
// source too and keeps its version and expiry, as in Redis; an absent dst
// is created. Only changed segments are written.
func (db DB) PFMerge(dst []byte, srcs [][]byte) error {
	keys := append([][]byte{dst}, srcs...)
	cs, err := db.hllSources(nil, keys)
	if err != nil {
		return err
	}
	var d *collection
	if len(cs) > 0 && string(cs[0].key) == string(dst) {
		d = cs[0] // dst exists: it is the first source found
	}
	var old [][]byte
	if d == nil {
		m := metadata.New(metadata.TypeHyperLogLog, db.s.versions.Next(nowTime()))
		d = &collection{db: db, nsKey: db.nsKey(dst), key: dst, meta: m}
	} else if old, err = db.multiGet(CFDefault, hllSegmentKeys(d)); err != nil {
		return err
	}
	b := db.newBatch(typeLog(metadata.TypeHyperLogLog))
	for seg := 0; seg < metadata.HLLSegments; seg++ {
		merged, err := db.mergeHLLSegment(nil, cs, seg)
		if err != nil {
			return err
		}
		if merged == nil || (old != nil && string(old[seg]) == string(merged)) {
			continue
		}
		var buf [2]byte
		b.put(CFDefault, d.subkey(metadata.AppendHLLSegment(buf[:0], seg)), merged)
	}
	// The metadata is written even when no register changed, so that the
	// write is seen (WATCH), as Redis signals it.
	b.put(CFMetadata, d.nsKey, newHLLMeta(d.meta))
	return b.commit()
}

func addHistogram(histo *[64]int, seg []byte) {
	if seg == nil {
		histo[0] += metadata.HLLSegmentRegisters
		return
	}
	for r := 0; r < metadata.HLLSegmentRegisters; r++ {
		histo[metadata.HLLRegister(seg, r)]++
	}
}

// hllEstimate is Redis's hllCount: Otmar Ertl's improved estimator
// ("New cardinality estimation algorithms for HyperLogLog sketches") over
// the register histogram, computed in the same order of double operations
// (products are not fused) so that the result is Redis's to the unit.
func hllEstimate(histo *[64]int) int64 {
	const alphaInf = 0.721347520444481703680
	m := float64(metadata.HLLRegisters)
	z := float64(m * hllTau((m-float64(histo[metadata.HLLMaxRank]))/m))
	for j := metadata.HLLMaxRank - 1; j >= 1; j-- {
		z += float64(histo[j])
		z *= 0.5
	}
	z += float64(m * hllSigma(float64(histo[0])/m))
	return int64(math.Round(float64(float64(alphaInf*m)*m) / z))
}

func hllSigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x = float64(x * x)
		prev := z
		z += float64(x * y)
		y += y
		if prev == z {
			return z
		}
	}
}

func hllTau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		prev := z
		y *= 0.5
		d := 1 - x
		z -= float64(float64(d*d) * y)
		if prev == z {
			return z / 3
		}
	}
}
