package timeseries

import (
	"bytes"
	"math"
)

// Aggregator is an aggregation function of AGGREGATION, TS.CREATERULE and
// (some of them) REDUCE. Its value is Kvrocks's stored code (§6.2); TWA
// has none, Kvrocks having no time-weighted average.
type Aggregator uint8

// The aggregators, numbered as Kvrocks stores them.
const (
	AggNone  Aggregator = 0
	AggSum   Aggregator = 1
	AggMin   Aggregator = 2
	AggMax   Aggregator = 3
	AggCount Aggregator = 4
	AggFirst Aggregator = 5
	AggLast  Aggregator = 6
	AggAvg   Aggregator = 7
	AggRange Aggregator = 8
	AggStdP  Aggregator = 9
	AggStdS  Aggregator = 10
	AggVarP  Aggregator = 11
	AggVarS  Aggregator = 12
	// AggTWA is the time-weighted average, for queries only: no code of
	// Kvrocks's stores it, so no rule can use it.
	AggTWA Aggregator = 0xf0
)

var aggNames = map[Aggregator]string{
	AggSum: "sum", AggMin: "min", AggMax: "max", AggCount: "count", AggFirst: "first",
	AggLast: "last", AggAvg: "avg", AggRange: "range", AggStdP: "std.p", AggStdS: "std.s",
	AggVarP: "var.p", AggVarS: "var.s", AggTWA: "twa",
}

// String is the aggregator's name in lower case, as the arguments and
// RESP3's "aggregators" give it; TS.INFO's rules print it upper case.
func (a Aggregator) String() string {
	if n, ok := aggNames[a]; ok {
		return n
	}
	return "none"
}

// parseAggregator reads an aggregator's name, case-insensitively.
func parseAggregator(b []byte) (Aggregator, bool) {
	for a, n := range aggNames {
		if bytes.EqualFold(b, []byte(n)) {
			return a, true
		}
	}
	return AggNone, false
}

// storable reports whether a stored rule can hold a.
func (a Aggregator) storable() bool { return a >= AggSum && a <= AggVarS }

// acc accumulates the samples of one bucket. It takes them in any order:
// first and last go by timestamp, so a reverse walk gives what a forward
// one does.
type acc struct {
	agg        Aggregator
	n          uint64
	sum, sumsq float64
	min, max   float64
	first      Sample
	last       Sample
	twa        twaAcc
}

func newAcc(agg Aggregator) acc {
	return acc{agg: agg, min: math.NaN(), max: math.NaN()}
}

func (a *acc) reset() { *a = newAcc(a.agg) }

func (a *acc) empty() bool { return a.n == 0 }

func (a *acc) add(s Sample) {
	if a.n == 0 || s.TS < a.first.TS {
		a.first = s
	}
	if a.n == 0 || s.TS >= a.last.TS {
		a.last = s
	}
	if a.n == 0 || s.V < a.min {
		a.min = s.V
	}
	if a.n == 0 || s.V > a.max {
		a.max = s.V
	}
	a.n++
	a.sum += s.V
	a.sumsq += s.V * s.V
	if a.agg == AggTWA {
		a.twa.add(s)
	}
}

// value is the bucket's aggregate; a.n > 0. TWA's needs the bucket's
// edges and neighbours: twaValue.
func (a *acc) value() float64 {
	switch a.agg {
	case AggSum:
		return a.sum
	case AggCount:
		return float64(a.n)
	case AggMin:
		return a.min
	case AggMax:
		return a.max
	case AggFirst:
		return a.first.V
	case AggLast:
		return a.last.V
	case AggAvg:
		return a.sum / float64(a.n)
	case AggRange:
		return a.max - a.min
	case AggVarP, AggVarS, AggStdP, AggStdS:
		return variance(a.agg, a.n, a.sum, a.sumsq)
	}
	return math.NaN()
}

// variance is RedisTimeSeries's variance from the running sums; one
// sample has none (0).
func variance(agg Aggregator, n uint64, sum, sumsq float64) float64 {
	if n < 2 {
		return 0
	}
	f := float64(n)
	d := sumsq - sum*sum/f
	if d < 0 {
		d = 0 // rounding of nearly equal values
	}
	switch agg {
	case AggVarP:
		return d / f
	case AggVarS:
		return d / (f - 1)
	case AggStdP:
		return math.Sqrt(d / f)
	}
	return math.Sqrt(d / (f - 1))
}

// emptyValue is the value EMPTY reports for a bucket with no sample:
// sum and count 0, last the value before it, others NaN (§9.5).
func emptyValue(agg Aggregator, prev *Sample) float64 {
	switch agg {
	case AggSum, AggCount:
		return 0
	case AggLast:
		if prev != nil {
			return prev.V
		}
	}
	return math.NaN()
}

// twaAcc sums the area under the line through a bucket's samples. Areas
// between neighbours do not depend on the order they come in, so a
// reverse walk adds up the same trapezoids.
type twaAcc struct {
	area   float64
	recent Sample // the sample added last
	seen   bool
}

func (t *twaAcc) add(s Sample) {
	if t.seen {
		t.area += trapezoid(t.recent, s)
	}
	t.recent, t.seen = s, true
}

func trapezoid(a, b Sample) float64 {
	return (a.V + b.V) / 2 * math.Abs(float64(b.TS-a.TS))
}

// interpolate is the value at ts on the line through a and b.
func interpolate(a, b Sample, ts int64) float64 {
	if a.TS == b.TS {
		return a.V
	}
	return a.V + (b.V-a.V)*float64(ts-a.TS)/float64(b.TS-a.TS)
}

// twaValue is the time-weighted average over [start, end) of a bucket
// whose samples a holds, prev and next being the samples just outside it
// (nil when none): the line through the samples, extended to the bucket's
// edges by interpolation with the neighbours; with no neighbour on a side
// the average starts (ends) at the bucket's first (last) sample
// [inferred from RedisTimeSeries's documentation].
func (a *acc) twaValue(start, end int64, prev, next *Sample) float64 {
	area := a.twa.area
	from, to := a.first.TS, a.last.TS
	if prev != nil {
		edge := interpolate(*prev, a.first, start)
		area += trapezoid(Sample{start, edge}, a.first)
		from = start
	}
	if next != nil {
		edge := interpolate(a.last, *next, end)
		area += trapezoid(a.last, Sample{end, edge})
		to = end
	}
	if to == from {
		return a.first.V
	}
	return area / float64(to-from)
}

// twaEmpty is the value EMPTY reports for a TWA bucket with no sample:
// the average of the line between its neighbours over the bucket, NaN
// without both.
func twaEmpty(start, end int64, prev, next *Sample) float64 {
	if prev == nil || next == nil {
		return math.NaN()
	}
	return (interpolate(*prev, *next, start) + interpolate(*prev, *next, end)) / 2
}
