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

// hllCollection decodes the metadata record raw of key (nil: absent) as a
// HyperLogLog; the collection is nil when the key does not exist.
func (db DB) hllCollection(nsKey, key, raw []byte) (*collection, error) {
	if raw == nil {
		return nil, nil
	}
	rec, found, err := decodeRecord(raw, db.now())
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
		vals, err := db.getElements(keys)
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
	if changed {
		db.s.hllCards.forget(nsKey)
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

// hllRegisters are the registers of a whole HyperLogLog, one a byte.
type hllRegisters [metadata.HLLRegisters]uint8

// segment returns the registers of segment seg.
func (r *hllRegisters) segment(seg int) *[metadata.HLLSegmentRegisters]uint8 {
	return (*[metadata.HLLSegmentRegisters]uint8)(r[seg*metadata.HLLSegmentRegisters:])
}

// mergeHLL raises the registers of regs to those of the HyperLogLog c,
// read as of snap (nil: the latest) by one walk over its segments, merged
// one at a time as they come; present marks the segments c has. raw, when
// not nil, receives copies of the segments as stored.
func (db DB) mergeHLL(snap *grocksdb.Snapshot, c *collection, regs *hllRegisters, present *[metadata.HLLSegments]bool, raw *[metadata.HLLSegments][]byte) error {
	lower, upper := c.prefix()
	it := db.newIterator(CFDefault, lower, upper, snap)
	defer it.close()
	it.SeekToFirst()
	var bad error
	err := it.walk(false, metadata.HLLSegments, func(key, value []byte) bool {
		seg, ok := metadata.ParseHLLSegment(key[len(lower):])
		if !ok || len(value) != metadata.HLLSegmentBytes {
			bad = fmt.Errorf("%w: HyperLogLog %q segment %q of %d bytes", ErrCorrupt, c.key, key[len(lower):], len(value))
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

// PFCount returns the estimated cardinality of the union of the
// HyperLogLogs at keys (absent keys count as empty) as of one snapshot:
// each key's segments are merged into one set of registers as they are
// read, one key after the other.
func (db DB) PFCount(keys [][]byte) (int64, error) {
	if len(keys) == 1 && db.g == nil {
		// Under the key's lock, so that no PFADD of it is half applied
		// while its cached cardinality is read or filled (hllcard.go).
		var card int64
		var cerr error
		err := db.s.Update(&Write{NS: db.ns, Keys: keys, Joint: db.joint()}, func(in DB) { card, cerr = in.pfCountOne(keys[0]) })
		if err == nil {
			err = cerr
		}
		return card, err
	}
	return db.pfCountUnion(keys)
}

// pfCountOne is PFCOUNT of one key, answered from the cached cardinality
// when the key's segments did not change since it was counted. The caller
// holds the key's lock.
func (db DB) pfCountOne(key []byte) (int64, error) {
	nsKey := db.nsKey(key)
	raw, _, err := db.get(CFMetadata, nsKey, nil)
	if err != nil {
		return 0, err
	}
	c, err := db.hllCollection(nsKey, key, raw)
	if err != nil || c == nil {
		return 0, err
	}
	if card, ok := db.s.hllCards.get(nsKey, c.meta.Version); ok {
		return card, nil
	}
	gen := db.s.hllCards.generation()
	card, err := db.pfCountUnion([][]byte{key})
	if err == nil {
		db.s.hllCards.put(nsKey, c.meta.Version, gen, card)
	}
	return card, err
}

// pfCountUnion counts the union of the HyperLogLogs at keys.
func (db DB) pfCountUnion(keys [][]byte) (int64, error) {
	snap := db.snapshot()
	defer db.s.db.ReleaseSnapshot(snap)
	ro := grocksdb.NewDefaultReadOptions()
	ro.SetSnapshot(snap)
	defer ro.Destroy()
	srcs, err := db.hllSources(ro, keys)
	if err != nil || len(srcs) == 0 {
		return 0, err
	}
	var regs hllRegisters
	var present [metadata.HLLSegments]bool
	for _, c := range srcs {
		if err := db.mergeHLL(snap, c, &regs, &present, nil); err != nil {
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
	var old [metadata.HLLSegments][]byte
	var regs hllRegisters
	var present [metadata.HLLSegments]bool
	if len(cs) > 0 && string(cs[0].key) == string(dst) {
		d = cs[0] // dst exists: it is the first source found
		if err := db.mergeHLL(nil, d, &regs, &present, &old); err != nil {
			return err
		}
		cs = cs[1:]
	} else {
		m := metadata.New(metadata.TypeHyperLogLog, db.s.versions.Next(nowTime()))
		d = &collection{db: db, nsKey: db.nsKey(dst), key: dst, meta: m}
	}
	for _, c := range cs {
		if err := db.mergeHLL(nil, c, &regs, &present, nil); err != nil {
			return err
		}
	}
	b := db.newBatch(typeLog(metadata.TypeHyperLogLog))
	for seg := range present {
		if !present[seg] {
			continue
		}
		merged := make([]byte, metadata.HLLSegmentBytes)
		metadata.HLLPack(regs.segment(seg), merged)
		if string(old[seg]) == string(merged) {
			continue
		}
		var buf [2]byte
		b.put(CFDefault, d.subkey(metadata.AppendHLLSegment(buf[:0], seg)), merged)
	}
	// The metadata is written even when no register changed, so that the
	// write is seen (WATCH), as Redis signals it.
	b.put(CFMetadata, d.nsKey, newHLLMeta(d.meta))
	db.s.hllCards.forget(d.nsKey)
	return b.commit()
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
