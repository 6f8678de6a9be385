package timeseries

import (
	"bytes"
	"math"
	"slices"

	"github.com/basaltdb/basalt/num"
)

// BucketTimestamp is which timestamp of its bucket an aggregate reports.
type BucketTimestamp uint8

// The BUCKETTIMESTAMP choices.
const (
	BucketStart BucketTimestamp = iota
	BucketEnd
	BucketMid
)

// maxFilterTS is how many timestamps FILTER_BY_TS takes at most.
const maxFilterTS = 128

// Query is a parsed TS.RANGE or TS.REVRANGE (and the range part of
// TS.MRANGE): which samples, filtered how, aggregated how.
type Query struct {
	From, To int64
	Reverse  bool
	Latest   bool
	// FilterTS, when not nil, keeps only these timestamps (sorted,
	// unique).
	FilterTS []int64
	// FilterValue keeps only values in [MinValue, MaxValue].
	FilterValue        bool
	MinValue, MaxValue float64
	// Count is at most how many samples (buckets) are returned; 0: all.
	Count    uint64
	Agg      Aggregator // AggNone: the raw samples
	Bucket   int64
	Align    int64
	BucketTS BucketTimestamp
	Empty    bool
}

// ParseRange parses the arguments after TS.RANGE's key (reverse:
// TS.REVRANGE's): from to [options].
func ParseRange(args [][]byte, reverse bool) (Query, error) {
	if len(args) < 2 {
		return Query{}, ErrArity
	}
	return parseQuery(args, reverse)
}

// parseQuery reads from, to and the range options after them.
func parseQuery(args [][]byte, reverse bool) (Query, error) {
	q := Query{Reverse: reverse}
	from, fromExplicit, err := parseBound(args[0], ErrFromTS)
	if err != nil {
		return q, err
	}
	to, toExplicit, err := parseBound(args[1], ErrToTS)
	if err != nil {
		return q, err
	}
	q.From, q.To = from, to
	opts := args[2:]
	q.Latest = argIndex(opts, "LATEST") >= 0
	if err := q.parseFilterTS(opts); err != nil {
		return q, err
	}
	if err := q.parseFilterValue(opts); err != nil {
		return q, err
	}
	if err := q.parseCount(opts); err != nil {
		return q, err
	}
	if err := q.parseAggregation(opts); err != nil {
		return q, err
	}
	return q, q.parseAlign(opts, fromExplicit, toExplicit)
}

func (q *Query) parseFilterTS(args [][]byte) error {
	i := argIndex(args, "FILTER_BY_TS")
	if i < 0 {
		return nil
	}
	var ts []int64
	for _, a := range args[i+1 : min(len(args), i+1+maxFilterTS)] {
		n, ok := num.ParseInt(a)
		if !ok {
			break
		}
		ts = append(ts, n)
	}
	if len(ts) == 0 {
		return ErrFilterTSMissing
	}
	slices.Sort(ts)
	q.FilterTS = slices.Compact(ts)
	return nil
}

func (q *Query) parseFilterValue(args [][]byte) error {
	i := argIndex(args, "FILTER_BY_VALUE")
	if i < 0 {
		return nil
	}
	if i+2 >= len(args) {
		return ErrFilterValueMissing
	}
	lo, ok := num.ParseFloat(args[i+1])
	if !ok {
		return ErrMinParse
	}
	hi, ok := num.ParseFloat(args[i+2])
	if !ok {
		return ErrMaxParse
	}
	q.FilterValue, q.MinValue, q.MaxValue = true, lo, hi
	return nil
}

func (q *Query) parseCount(args [][]byte) error {
	v, found, ok := after(args, "COUNT")
	if !found {
		return nil
	}
	if !ok {
		return ErrCountMissing
	}
	n, isInt := num.ParseInt(v)
	switch {
	case !isInt:
		return ErrCountParse
	case n <= 0:
		return ErrCountInvalid
	}
	q.Count = uint64(n)
	return nil
}

// parseAggregation reads AGGREGATION agg d and the BUCKETTIMESTAMP and
// EMPTY that may follow it at their places.
func (q *Query) parseAggregation(args [][]byte) error {
	i := argIndex(args, "AGGREGATION")
	if i < 0 {
		return nil
	}
	if i+2 >= len(args) {
		return ErrAggParse
	}
	agg, d, err := parseAggregation(args[i+1], args[i+2])
	if err != nil {
		return err
	}
	q.Agg, q.Bucket = agg, d
	if j := argIndex(args, "BUCKETTIMESTAMP"); j >= 0 {
		if j != i+3 && j != i+4 {
			return ErrBucketTSPlace
		}
		if j+1 >= len(args) {
			return ErrBucketTSUnknown
		}
		switch string(bytes.ToLower(args[j+1])) {
		case "start", "-":
			q.BucketTS = BucketStart
		case "end", "+":
			q.BucketTS = BucketEnd
		case "mid", "~":
			q.BucketTS = BucketMid
		default:
			return ErrBucketTSUnknown
		}
	}
	if j := argIndex(args, "EMPTY"); j >= 0 {
		if j != i+3 && j != i+5 {
			return ErrEmptyPlace
		}
		q.Empty = true
	}
	return nil
}

func (q *Query) parseAlign(args [][]byte, fromExplicit, toExplicit bool) error {
	v, found, ok := after(args, "ALIGN")
	switch {
	case !found:
		return nil
	case q.Agg == AggNone:
		return ErrAlignNoAgg
	case !ok:
		return ErrAlignUnknown
	}
	switch string(bytes.ToLower(v)) {
	case "start", "-":
		if !fromExplicit {
			return ErrAlignStart
		}
		q.Align = q.From
	case "end", "+":
		if !toExplicit {
			return ErrAlignEnd
		}
		q.Align = q.To
	default:
		n, isInt := num.ParseInt(v)
		if !isInt {
			return ErrAlignUnknown
		}
		q.Align = n
	}
	return nil
}

// LabelMode is which labels a multi-series reply shows.
type LabelMode uint8

// The label modes.
const (
	NoLabels LabelMode = iota
	WithLabels
	SelectedLabels
)

// Multi is a parsed TS.MGET, TS.MRANGE or TS.MREVRANGE.
type Multi struct {
	Query    Query // MRANGE's; MGET's only Latest
	Labels   LabelMode
	Selected [][]byte
	Filter   Filter
	// GroupBy, when not nil, is the label series are grouped by, whose
	// rows Reducer reduces.
	GroupBy []byte
	Reducer Aggregator
}

// ParseMGet parses TS.MGET's arguments: [LATEST] [WITHLABELS |
// SELECTED_LABELS label ...] FILTER expr ...
func ParseMGet(args [][]byte) (Multi, error) {
	var m Multi
	fi := argIndex(args, "FILTER")
	if fi < 0 {
		return m, ErrArity
	}
	head := args[:fi]
	m.Query.Latest = argIndex(head, "LATEST") >= 0
	if err := m.parseLabelMode(head); err != nil {
		return m, err
	}
	if fi+1 == len(args) {
		return m, ErrFilterNoLabels
	}
	f, err := ParseFilter(args[fi+1:])
	m.Filter = f
	return m, err
}

// ParseMRange parses TS.MRANGE's (reverse: TS.MREVRANGE's) arguments:
// from to [range options] [WITHLABELS | SELECTED_LABELS label ...] FILTER
// expr ... [GROUPBY label REDUCE reducer].
func ParseMRange(args [][]byte, reverse bool) (Multi, error) {
	var m Multi
	if len(args) < 3 {
		return m, ErrArity
	}
	// FILTER and GROUPBY are looked for after from and to, which are
	// never taken for them.
	fi := argIndex(args[2:], "FILTER")
	gi := argIndex(args[2:], "GROUPBY")
	if fi >= 0 {
		fi += 2
	}
	if gi >= 0 {
		gi += 2
	}
	switch {
	case fi < 0:
		return m, ErrMissingFilter
	case gi >= 0 && gi < fi:
		return m, ErrGroupByPlace
	}
	end := len(args)
	if gi >= 0 {
		end = gi
	}
	if fi+1 == end {
		return m, ErrFilterNoLabels
	}
	var err error
	if m.Query, err = parseQuery(args[:fi], reverse); err != nil {
		return m, err
	}
	if err := m.parseLabelMode(args[2:fi]); err != nil {
		return m, err
	}
	if m.Filter, err = ParseFilter(args[fi+1 : end]); err != nil {
		return m, err
	}
	if gi >= 0 {
		return m, m.parseGroupBy(args[gi+1:])
	}
	return m, nil
}

func (m *Multi) parseLabelMode(args [][]byte) error {
	wi := argIndex(args, "WITHLABELS")
	si := argIndex(args, "SELECTED_LABELS")
	switch {
	case wi >= 0 && si >= 0:
		return ErrLabelsTogether
	case wi >= 0:
		m.Labels = WithLabels
	case si >= 0:
		for _, a := range args[si+1:] {
			if isKeyword(a) {
				break
			}
			m.Selected = append(m.Selected, bytes.Clone(a))
		}
		if len(m.Selected) == 0 {
			return ErrSelectedEmpty
		}
		m.Labels = SelectedLabels
	}
	return nil
}

// reducers are the aggregators REDUCE accepts.
var reducers = []Aggregator{AggAvg, AggSum, AggMin, AggMax, AggRange, AggCount, AggStdP, AggStdS, AggVarP, AggVarS}

func (m *Multi) parseGroupBy(args [][]byte) error {
	if len(args) != 3 || !bytes.EqualFold(args[1], []byte("REDUCE")) {
		return ErrArity
	}
	r, ok := parseAggregator(args[2])
	if !ok || !slices.Contains(reducers, r) {
		return ErrReducer
	}
	m.GroupBy, m.Reducer = bytes.Clone(args[0]), r
	return nil
}

// ParseQueryIndex parses TS.QUERYINDEX's arguments: expr ...
func ParseQueryIndex(args [][]byte) (Filter, error) {
	if len(args) == 0 {
		return Filter{}, ErrArity
	}
	return ParseFilter(args)
}

// bucketStart is the start of the bucket holding ts: ts − ((ts − align)
// mod d), floor modulo, never below 0 (§9.4).
func bucketStart(ts, align, d int64) int64 {
	return max(0, unclampedStart(ts, align, d))
}

// reportedTS is the timestamp a bucket starting at start is reported
// at.
func (q *Query) reportedTS(start int64) int64 {
	switch q.BucketTS {
	case BucketEnd:
		return satAdd(start, q.Bucket)
	case BucketMid:
		return satAdd(start, q.Bucket/2)
	}
	return start
}

// satAdd adds two non-negative timestamps, stopping at the largest.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
