package timeseries

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/basaltdb/basalt/metadata"
)

// noBucket is the stored latest_bucket_idx of a rule with no open
// bucket (no sample since the rule was created).
const noBucket = math.MaxUint64

// ruleState is what a rule keeps between writes: its open bucket and
// that bucket's running aggregate.
type ruleState struct {
	open  int64 // the open bucket's start; -1: none
	acc   acc
	dirty bool
}

func freshState(agg Aggregator) ruleState {
	return ruleState{open: -1, acc: newAcc(agg)}
}

// The rule value (§6.2): u8 aggregator | u64 bucket_duration | u64
// alignment | u64 latest_bucket_idx | u8 n_u64 | u8 n_f64 | n_u64 × u64 |
// n_f64 × dbl(). The auxiliary values per aggregator are Kvrocks's:
// SUM and COUNT f64[sum], MIN and MAX f64[v] (NaN: none), FIRST and LAST
// u64[ts] f64[v], AVG u64[n] f64[sum], STD and VAR u64[n] f64[sum,
// sumsq], RANGE f64[min, max]. latest_bucket_idx is [unknown] in the
// doc: Basalt stores the open bucket's start timestamp there, and
// 2^64−1 when no bucket is open.

// AppendValue appends the stored value of the rule to dst.
func (r *Rule) AppendValue(dst []byte) []byte {
	dst = append(dst, byte(r.Agg))
	dst = binary.BigEndian.AppendUint64(dst, uint64(r.Bucket))
	dst = binary.BigEndian.AppendUint64(dst, uint64(r.Align))
	idx := uint64(noBucket)
	if r.state.open >= 0 {
		idx = uint64(r.state.open)
	}
	dst = binary.BigEndian.AppendUint64(dst, idx)
	u, f := r.state.aux()
	dst = append(dst, byte(len(u)), byte(len(f)))
	for _, x := range u {
		dst = binary.BigEndian.AppendUint64(dst, x)
	}
	for _, x := range f {
		dst = metadata.AppendScore(dst, x)
	}
	return dst
}

// aux is the state's auxiliary values as stored.
func (st *ruleState) aux() (u []uint64, f []float64) {
	a := &st.acc
	switch a.agg {
	case AggSum:
		return nil, []float64{a.sum}
	case AggCount:
		return nil, []float64{float64(a.n)}
	case AggMin:
		return nil, []float64{a.min}
	case AggMax:
		return nil, []float64{a.max}
	case AggFirst:
		return []uint64{uint64(a.first.TS)}, []float64{a.first.V}
	case AggLast:
		return []uint64{uint64(a.last.TS)}, []float64{a.last.V}
	case AggAvg:
		return []uint64{a.n}, []float64{a.sum}
	case AggRange:
		return nil, []float64{a.min, a.max}
	}
	return []uint64{a.n}, []float64{a.sum, a.sumsq} // STD and VAR
}

// auxCounts is how many u64 and f64 auxiliary values each aggregator
// stores.
func auxCounts(agg Aggregator) (nu, nf int) {
	switch agg {
	case AggSum, AggCount, AggMin, AggMax:
		return 0, 1
	case AggFirst, AggLast:
		return 1, 1
	case AggAvg:
		return 1, 1
	case AggRange:
		return 0, 2
	}
	return 1, 2
}

// DecodeRule parses a rule subkey (after the key's version) and its
// value. The rule copies what it keeps.
func DecodeRule(sub, value []byte) (Rule, error) {
	dest, err := ParseRuleSubkey(sub)
	if err != nil {
		return Rule{}, err
	}
	bad := fmt.Errorf("%w: rule value %x", ErrCorrupt, value)
	if len(value) < 1+8+8+8+2 {
		return Rule{}, bad
	}
	r := Rule{
		Dest:   bytes.Clone(dest),
		Agg:    Aggregator(value[0]),
		Bucket: int64(binary.BigEndian.Uint64(value[1:])),
		Align:  int64(binary.BigEndian.Uint64(value[9:])),
	}
	idx := binary.BigEndian.Uint64(value[17:])
	nu, nf := int(value[25]), int(value[26])
	wantU, wantF := auxCounts(r.Agg)
	if !r.Agg.storable() || r.Bucket <= 0 || r.Align < 0 || nu != wantU || nf != wantF ||
		len(value) != 27+8*(nu+nf) || (idx != noBucket && idx > math.MaxInt64) {
		return Rule{}, bad
	}
	u := make([]uint64, nu)
	f := make([]float64, nf)
	for i := range u {
		u[i] = binary.BigEndian.Uint64(value[27+8*i:])
	}
	for i := range f {
		f[i], _ = metadata.DecodeScore(value[27+8*(nu+i):])
	}
	r.state = freshState(r.Agg)
	if idx != noBucket {
		r.state.open = int64(idx)
		r.state.acc.restore(u, f)
	}
	return r, nil
}

// restore sets an open bucket's aggregate from its stored values.
func (a *acc) restore(u []uint64, f []float64) {
	a.n = 1 // an open bucket holds a sample
	switch a.agg {
	case AggSum:
		a.sum = f[0]
	case AggCount:
		a.n = uint64(max(f[0], 1))
	case AggMin:
		a.min = f[0]
	case AggMax:
		a.max = f[0]
	case AggFirst:
		a.first = Sample{TS: int64(u[0] &^ (1 << 63)), V: f[0]}
	case AggLast:
		a.last = Sample{TS: int64(u[0] &^ (1 << 63)), V: f[0]}
	case AggAvg:
		a.n, a.sum = max(u[0], 1), f[0]
	case AggRange:
		a.min, a.max = f[0], f[1]
	default:
		a.n, a.sum, a.sumsq = max(u[0], 1), f[0], f[1]
	}
}

// NewRule is a rule of a TS.CREATERULE: no bucket open yet.
func NewRule(dest []byte, agg Aggregator, bucket, align int64) Rule {
	return Rule{Dest: bytes.Clone(dest), Agg: agg, Bucket: bucket, Align: align, state: freshState(agg)}
}

// Latest is LATEST's sample for the rule's destination: the open
// bucket's aggregate at its start; ok is false when no bucket is open.
func (r *Rule) Latest() (s Sample, ok bool) {
	if r.state.open < 0 {
		return Sample{}, false
	}
	return Sample{TS: r.state.open, V: r.state.acc.value()}, true
}

// Dirty reports whether a write changed the rule's state, so that its
// value is to be stored again.
func (r *Rule) Dirty() bool { return r.state.dirty }

// CheckCreateRule is TS.CREATERULE's checks once both series are read:
// src and dest are the series's metadata (nil when the key does not
// exist), destHasRules whether dest is itself the source of a rule.
func CheckCreateRule(src, dest *Meta, destHasRules bool) error {
	switch {
	case src == nil || dest == nil:
		return ErrNoKey
	case len(src.SourceKey) > 0:
		return ErrSourceIsDest
	case len(dest.SourceKey) > 0:
		return ErrDestHasSource
	case destHasRules:
		return ErrDestHasRules
	}
	return nil
}

// DestWrite is what a rule writes to its destination when a source's
// sample closes or changes a bucket: upsert Sample with Policy, or, when
// Delete, remove the sample at Sample.TS (a bucket TS.DEL emptied). The
// engine applies it to the destination (Series.Apply) in the same batch,
// and drops it when the destination is gone or no longer fed by this
// source (its SourceKey differs).
type DestWrite struct {
	Dest   []byte
	Sample Sample
	Policy Policy
	Delete bool
}
