package hyperloglog

import (
	"errors"
	"fmt"
	"math"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
)

// HyperLogLogs keep Redis's dense registers in 16 segments of 768 bytes
// (FORMAT.md §4.9, metadata/hll.go): PFADD reads and writes only the
// segments its elements fall in; PFCOUNT and PFMERGE merge their keys one
// segment at a time. The estimate is Redis's (hllCount), from the same
// registers Redis computes for the same elements.

// ErrNotHLL refuses a HyperLogLog command on a string: Redis's
// HyperLogLogs are strings, and no string Basalt holds is one.
var ErrNotHLL = errors.New("hyperloglog: key is not a valid HyperLogLog string value")

// check checks that o (nil: absent) is a HyperLogLog.
func check(o *storage.Object) error {
	if o == nil {
		return nil
	}
	switch o.Meta().Type {
	case metadata.TypeHyperLogLog:
	case metadata.TypeString, metadata.TypeBitmap:
		return ErrNotHLL
	default:
		return storage.ErrWrongType
	}
	if ext := o.Ext(); len(ext) < 1 || ext[0] != metadata.HLLDense {
		return fmt.Errorf("%w: HyperLogLog %q of encoding %x", storage.ErrCorrupt, o.Key(), ext)
	}
	return nil
}

// hllSegment checks a segment read from disk: absent (nil) or 768 bytes.
func hllSegment(key []byte, seg int, v []byte) ([]byte, error) {
	if v != nil && len(v) != metadata.HLLSegmentBytes {
		return nil, fmt.Errorf("%w: HyperLogLog %q segment %d of %d bytes", storage.ErrCorrupt, key, seg, len(v))
	}
	return v, nil
}

// newHLLMeta returns the metadata value of a new HyperLogLog.
func newHLLMeta(m *metadata.Metadata) []byte {
	return append(m.AppendTo(nil), metadata.HLLDense)
}

// segKey returns the key of segment seg of c.
func segKey(c *storage.Object, seg int) []byte {
	var buf [2]byte
	return c.Subkey(metadata.AppendHLLSegment(buf[:0], seg))
}

// Add adds elements to the HyperLogLog at key, creating it, and reports
// whether a register changed or the key was created (PFADD).
func Add(db storage.DB, key []byte, elems [][]byte) (bool, error) {
	c, err := db.LookupOrNew(key, metadata.TypeHyperLogLog)
	if err != nil {
		return false, err
	}
	created := !c.Exists()
	if !created {
		if err := check(c); err != nil {
			return false, err
		}
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
			keys[i] = segKey(c, s)
		}
		vals, err := c.GetElements(keys)
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
	b := db.NewBatch(storage.TypeLog(metadata.TypeHyperLogLog))
	changed := created
	for _, s := range want {
		if dirty[s] {
			b.Put(storage.CFDefault, segKey(c, s), segs[s])
			changed = true
		}
	}
	if created {
		b.Put(storage.CFMetadata, c.NSKey(), newHLLMeta(c.Meta()))
	}
	if changed {
		cards(db).forget(c.NSKey())
	}
	return changed, b.Commit()
}

// sources reads the metadata of keys as of rv (nil: the latest) and
// returns the HyperLogLogs among them (absent keys are left out),
// checking them in order as Redis does.
func sources(db storage.DB, rv *storage.ReadView, keys [][]byte) ([]*storage.Object, error) {
	out := make([]*storage.Object, 0, len(keys))
	err := db.LookupMany(rv, keys, func(_ int, o *storage.Object) error {
		if err := check(o); err != nil || o == nil {
			return err
		}
		out = append(out, o)
		return nil
	})
	return out, err
}

// hllRegisters are the registers of a whole HyperLogLog, one a byte.
type hllRegisters [metadata.HLLRegisters]uint8

// segment returns the registers of segment seg.
func (r *hllRegisters) segment(seg int) *[metadata.HLLSegmentRegisters]uint8 {
	return (*[metadata.HLLSegmentRegisters]uint8)(r[seg*metadata.HLLSegmentRegisters:])
}

// mergeHLL raises the registers of regs to those of the HyperLogLog c,
// read as of rv (nil: the latest) by one walk over its segments, merged
// one at a time as they come; present marks the segments c has. raw, when
// not nil, receives copies of the segments as stored.
func mergeHLL(rv *storage.ReadView, c *storage.Object, regs *hllRegisters, present *[metadata.HLLSegments]bool, raw *[metadata.HLLSegments][]byte) error {
	var bad error
	err := c.Each(rv, storage.CFDefault, nil, metadata.HLLSegments, func(sub, value []byte) bool {
		seg, ok := metadata.ParseHLLSegment(sub)
		if !ok || len(value) != metadata.HLLSegmentBytes {
			bad = fmt.Errorf("%w: HyperLogLog %q segment %q of %d bytes", storage.ErrCorrupt, c.Key(), sub, len(value))
			return false
		}
		metadata.HLLMerge(value, regs.segment(seg))
		present[seg] = true
		if raw != nil {
			raw[seg] = append([]byte(nil), value...)
		}
		return true
	})
	if bad != nil {
		return bad
	}
	return err
}

// Count returns the estimated cardinality of the union of the
// HyperLogLogs at keys (absent keys count as empty) as of one snapshot:
// each key's segments are merged into one set of registers as they are
// read, one key after the other (PFCOUNT).
func Count(db storage.DB, keys [][]byte) (int64, error) {
	if len(keys) == 1 && !db.InWrite() {
		// Under the key's lock, so that no PFADD of it is half applied
		// while its cached cardinality is read or filled (card.go).
		var card int64
		var cerr error
		err := db.Storage().Update(&storage.Write{NS: db.Namespace(), Keys: keys}, func(in storage.DB) { card, cerr = countOne(in, keys[0]) })
		if err == nil {
			err = cerr
		}
		return card, err
	}
	return countUnion(db, keys)
}

// countOne is PFCOUNT of one key, answered from the cached cardinality
// when the key's segments did not change since it was counted. The caller
// holds the key's lock.
func countOne(db storage.DB, key []byte) (int64, error) {
	c, err := db.Lookup(key)
	if err == nil {
		err = check(c)
	}
	if err != nil || c == nil {
		return 0, err
	}
	cache := cards(db)
	if card, ok := cache.get(db, c.NSKey(), c.Meta().Version); ok {
		return card, nil
	}
	gen := db.Storage().LocklessWrites()
	card, err := countUnion(db, [][]byte{key})
	if err == nil {
		cache.put(db, c.NSKey(), c.Meta().Version, gen, card)
	}
	return card, err
}

// countUnion counts the union of the HyperLogLogs at keys.
func countUnion(db storage.DB, keys [][]byte) (int64, error) {
	rv := db.ReadView()
	defer rv.Release()
	srcs, err := sources(db, &rv, keys)
	if err != nil || len(srcs) == 0 {
		return 0, err
	}
	var regs hllRegisters
	var present [metadata.HLLSegments]bool
	for _, c := range srcs {
		if err := mergeHLL(&rv, c, &regs, &present, nil); err != nil {
			return 0, err
		}
	}
	var histo [64]int
	for seg := range present {
		if present[seg] {
			addHistogram(&histo, regs.segment(seg))
		} else {
			histo[0] += metadata.HLLSegmentRegisters
		}
	}
	return hllEstimate(&histo), nil
}

// Merge merges the HyperLogLogs at srcs into the one at dst, which is a
// source too and keeps its version and expiry, as in Redis; an absent dst
// is created. Only changed segments are written (PFMERGE).
func Merge(db storage.DB, dst []byte, srcs [][]byte) error {
	keys := append([][]byte{dst}, srcs...)
	cs, err := sources(db, nil, keys)
	if err != nil {
		return err
	}
	var d *storage.Object
	var old [metadata.HLLSegments][]byte
	var regs hllRegisters
	var present [metadata.HLLSegments]bool
	if len(cs) > 0 && string(cs[0].Key()) == string(dst) {
		d = cs[0] // dst exists: it is the first source found
		if err := mergeHLL(nil, d, &regs, &present, &old); err != nil {
			return err
		}
		cs = cs[1:]
	} else {
		d = db.NewObject(dst, metadata.TypeHyperLogLog)
	}
	for _, c := range cs {
		if err := mergeHLL(nil, c, &regs, &present, nil); err != nil {
			return err
		}
	}
	b := db.NewBatch(storage.TypeLog(metadata.TypeHyperLogLog))
	for seg := range present {
		if !present[seg] {
			continue
		}
		merged := make([]byte, metadata.HLLSegmentBytes)
		metadata.HLLPack(regs.segment(seg), merged)
		if string(old[seg]) == string(merged) {
			continue
		}
		b.Put(storage.CFDefault, segKey(d, seg), merged)
	}
	// The metadata is written even when no register changed, so that the
	// write is seen (WATCH), as Redis signals it.
	b.Put(storage.CFMetadata, d.NSKey(), newHLLMeta(d.Meta()))
	cards(db).forget(d.NSKey())
	return b.Commit()
}

func addHistogram(histo *[64]int, regs *[metadata.HLLSegmentRegisters]uint8) {
	var h [4][64]int32
	for i := 0; i < len(regs); i += 4 {
		h[0][regs[i]&63]++
		h[1][regs[i+1]&63]++
		h[2][regs[i+2]&63]++
		h[3][regs[i+3]&63]++
	}
	for v := range histo {
		histo[v] += int(h[0][v] + h[1][v] + h[2][v] + h[3][v])
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
