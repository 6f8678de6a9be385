package timeseries

import (
	"bytes"
	"math"
	"slices"

	"github.com/basaltdb/basalt/num"
)

// Arguments are read as RedisTimeSeries reads them (REDIS-NEW.md §9.1):
// options are found by keyword (case-insensitive, the first occurrence)
// anywhere after the command's fixed arguments, words that are no option
// are ignored, and LABELS takes everything after it. Integers are Redis's
// strict integers (RedisModule_StringToLongLong), values whole-argument
// doubles.

// Label is one label of a series.
type Label struct {
	Name, Value []byte
}

// Options are the create options (TS.CREATE, and TS.ADD, TS.INCRBY and
// TS.DECRBY when they create; TS.ALTER's subset). Has* say which were
// given.
type Options struct {
	Retention    int64
	HasRetention bool
	Encoding     Encoding
	HasEncoding  bool
	ChunkSize    uint64
	HasChunkSize bool
	Duplicate    Policy // PolicyNone when not given
	IgnoreTime   int64
	IgnoreValue  float64
	HasIgnore    bool
	// Labels are sorted by name, one per name (the last given wins),
	// as the label subkeys hold them.
	Labels    []Label
	HasLabels bool
}

// Apply sets the given options on a series's extension.
func (o *Options) Apply(m *Meta) {
	if o.HasRetention {
		m.Retention = o.Retention
	}
	if o.HasEncoding {
		m.Encoding = o.Encoding
	}
	if o.HasChunkSize {
		m.ChunkSize = o.ChunkSize
	}
	if o.Duplicate != PolicyNone {
		m.Duplicate = o.Duplicate
	}
	if o.HasIgnore {
		m.IgnoreTime, m.IgnoreValue = o.IgnoreTime, o.IgnoreValue
	}
}

// Chunk sizes CHUNK_SIZE accepts (RedisTimeSeries's byte bounds; Kvrocks
// keeps the number as samples per chunk).
const (
	minChunkSize = 48
	maxChunkSize = 1048576
)

// keywords are every option word of the TS commands: a SELECTED_LABELS
// list ends at one of them.
var keywords = []string{
	"RETENTION", "ENCODING", "UNCOMPRESSED", "CHUNK_SIZE", "DUPLICATE_POLICY", "ON_DUPLICATE",
	"IGNORE", "LABELS", "LATEST", "FILTER_BY_TS", "FILTER_BY_VALUE", "COUNT", "ALIGN",
	"AGGREGATION", "BUCKETTIMESTAMP", "EMPTY", "WITHLABELS", "SELECTED_LABELS", "FILTER",
	"GROUPBY", "REDUCE", "TIMESTAMP",
}

func isKeyword(b []byte) bool {
	for _, k := range keywords {
		if bytes.EqualFold(b, []byte(k)) {
			return true
		}
	}
	return false
}

// argIndex is the index of the first args[i] equal to word, -1 when none.
func argIndex(args [][]byte, word string) int {
	for i, a := range args {
		if bytes.EqualFold(a, []byte(word)) {
			return i
		}
	}
	return -1
}

// after returns the argument after the first word, ok false when word is
// there but last; found false when it is not there.
func after(args [][]byte, word string) (v []byte, found, ok bool) {
	i := argIndex(args, word)
	if i < 0 {
		return nil, false, false
	}
	if i+1 >= len(args) {
		return nil, true, false
	}
	return args[i+1], true, true
}

// ParseCreate parses the create options (the arguments after TS.CREATE's
// key; after TS.ADD's value, TS.INCRBY's addend).
func ParseCreate(args [][]byte) (Options, error) {
	o := Options{Duplicate: PolicyNone}
	opts := args
	if i := argIndex(args, "LABELS"); i >= 0 {
		labels, err := parseLabels(args[i+1:])
		if err != nil {
			return o, err
		}
		o.Labels, o.HasLabels, opts = labels, true, args[:i]
	}
	if err := o.parseRetention(opts); err != nil {
		return o, err
	}
	if err := o.parseChunkSize(opts); err != nil {
		return o, err
	}
	if err := o.parseEncoding(opts); err != nil {
		return o, err
	}
	p, err := parsePolicy(opts, "DUPLICATE_POLICY")
	if err != nil {
		return o, err
	}
	o.Duplicate = p
	return o, o.parseIgnore(opts)
}

// ParseAlter parses TS.ALTER's options: the create options less ENCODING,
// which no series changes (an ENCODING word is ignored).
func ParseAlter(args [][]byte) (Options, error) {
	o, err := ParseCreate(args)
	o.Encoding, o.HasEncoding = 0, false
	return o, err
}

func (o *Options) parseRetention(args [][]byte) error {
	v, found, ok := after(args, "RETENTION")
	if !found {
		return nil
	}
	n, isInt := num.ParseInt(v)
	switch {
	case !ok || !isInt:
		return ErrRetentionParse
	case n < 0:
		return ErrRetentionNegative
	}
	o.Retention, o.HasRetention = n, true
	return nil
}

func (o *Options) parseChunkSize(args [][]byte) error {
	v, found, ok := after(args, "CHUNK_SIZE")
	if !found {
		return nil
	}
	n, isInt := num.ParseInt(v)
	switch {
	case !ok || !isInt:
		return ErrChunkSizeParse
	case n < minChunkSize || n > maxChunkSize || n%8 != 0:
		return ErrChunkSizeRange
	}
	o.ChunkSize, o.HasChunkSize = uint64(n), true
	return nil
}

func (o *Options) parseEncoding(args [][]byte) error {
	if argIndex(args, "UNCOMPRESSED") >= 0 {
		o.Encoding, o.HasEncoding = Uncompressed, true
	}
	v, found, ok := after(args, "ENCODING")
	switch {
	case !found:
		return nil
	case !ok:
		return ErrArity
	case bytes.EqualFold(v, []byte("COMPRESSED")):
		o.Encoding = Compressed
	case bytes.EqualFold(v, []byte("UNCOMPRESSED")):
		o.Encoding = Uncompressed
	default:
		return ErrEncoding
	}
	o.HasEncoding = true
	return nil
}

func (o *Options) parseIgnore(args [][]byte) error {
	i := argIndex(args, "IGNORE")
	if i < 0 {
		return nil
	}
	if i+2 >= len(args) {
		return ErrIgnoreParse
	}
	t, okT := num.ParseInt(args[i+1])
	v, okV := num.ParseFloat(args[i+2])
	switch {
	case !okT || !okV:
		return ErrIgnoreParse
	case t < 0 || v < 0:
		return ErrIgnoreNegative
	}
	o.IgnoreTime, o.IgnoreValue, o.HasIgnore = t, v, true
	return nil
}

// parsePolicy reads the policy after word (DUPLICATE_POLICY or
// ON_DUPLICATE); PolicyNone when the word is not there.
func parsePolicy(args [][]byte, word string) (Policy, error) {
	v, found, ok := after(args, word)
	if !found {
		return PolicyNone, nil
	}
	if !ok {
		return PolicyNone, ErrPolicyParse
	}
	for p, name := range policyNames {
		if bytes.EqualFold(v, []byte(name)) {
			return Policy(p), nil
		}
	}
	return PolicyNone, ErrPolicyUnknown
}

// parseLabels reads LABELS's pairs; a trailing odd word is dropped.
func parseLabels(args [][]byte) ([]Label, error) {
	labels := make([]Label, 0, len(args)/2)
	for i := 0; i+1 < len(args); i += 2 {
		name, value := args[i], args[i+1]
		if len(name) == 0 || len(value) == 0 || bytes.ContainsAny(value, "(),") {
			return nil, ErrLabels
		}
		labels = append(labels, Label{Name: bytes.Clone(name), Value: bytes.Clone(value)})
	}
	// Keep the last of each name, as puts of the same subkey in one batch do.
	slices.Reverse(labels)
	slices.SortStableFunc(labels, func(a, b Label) int { return bytes.Compare(a.Name, b.Name) })
	return slices.CompactFunc(labels, func(a, b Label) bool { return bytes.Equal(a.Name, b.Name) }), nil
}

// Now is a timestamp argument of "*": the server's clock, read by the
// caller once per command.
const Now int64 = -1

// parseTimestamp reads a sample's timestamp: "*" (Now) or an integer
// at least 0.
func parseTimestamp(b []byte) (int64, error) {
	if len(b) == 1 && b[0] == '*' {
		return Now, nil
	}
	n, ok := num.ParseInt(b)
	switch {
	case !ok:
		return 0, ErrTimestamp
	case n < 0:
		return 0, ErrTimestampNegative
	}
	return n, nil
}

// parseValue reads a sample's value: a finite double.
func parseValue(b []byte) (float64, bool) {
	v, ok := num.ParseFloat(b)
	return v, ok && !math.IsInf(v, 0)
}

// Add is a parsed TS.ADD.
type Add struct {
	TS     int64 // Now for "*"
	Value  float64
	Create Options
	OnDup  Policy // PolicyNone when not given
}

// ParseAdd parses the arguments after TS.ADD's key: timestamp value
// [create options] [ON_DUPLICATE policy].
func ParseAdd(args [][]byte) (Add, error) {
	var a Add
	if len(args) < 2 {
		return a, ErrArity
	}
	v, ok := parseValue(args[1])
	if !ok {
		return a, ErrValue
	}
	ts, err := parseTimestamp(args[0])
	if err != nil {
		return a, err
	}
	a.TS, a.Value = ts, v
	rest := args[2:]
	opts := rest
	if i := argIndex(rest, "LABELS"); i >= 0 {
		opts = rest[:i]
	}
	if a.OnDup, err = parsePolicy(opts, "ON_DUPLICATE"); err != nil {
		return a, err
	}
	a.Create, err = ParseCreate(rest)
	return a, err
}

// MAddSample is one triplet of TS.MADD; Err is its own error, replied in
// its place.
type MAddSample struct {
	Key   []byte
	TS    int64
	Value float64
	Err   error
}

// ParseMAdd parses TS.MADD's arguments (all of them after the command's
// name): key timestamp value, one or more times.
func ParseMAdd(args [][]byte) ([]MAddSample, error) {
	if len(args) == 0 || len(args)%3 != 0 {
		return nil, ErrArity
	}
	out := make([]MAddSample, 0, len(args)/3)
	for i := 0; i < len(args); i += 3 {
		s := MAddSample{Key: args[i]}
		var ok bool
		if s.Value, ok = parseValue(args[i+2]); !ok {
			s.Err = ErrValue
		} else if s.TS, s.Err = parseTimestamp(args[i+1]); s.Err != nil {
			s.TS = 0
		}
		out = append(out, s)
	}
	return out, nil
}

// Incr is a parsed TS.INCRBY or TS.DECRBY (Delta then negated).
type Incr struct {
	Delta  float64
	TS     int64 // Now when not given or "*"
	Create Options
}

// ParseIncr parses the arguments after TS.INCRBY's key (decrement: of
// TS.DECRBY): addend [TIMESTAMP ts] [create options].
func ParseIncr(args [][]byte, decrement bool) (Incr, error) {
	var in Incr
	if len(args) < 1 {
		return in, ErrArity
	}
	v, ok := parseValue(args[0])
	if !ok {
		return in, ErrIncrValue
	}
	if decrement {
		v = -v
	}
	in.Delta, in.TS = v, Now
	rest := args[1:]
	opts := rest
	if i := argIndex(rest, "LABELS"); i >= 0 {
		opts = rest[:i]
	}
	if t, found, ok := after(opts, "TIMESTAMP"); found {
		ts, err := parseTimestamp(t)
		if !ok || err != nil {
			return in, ErrTimestamp
		}
		in.TS = ts
	}
	var err error
	in.Create, err = ParseCreate(rest)
	return in, err
}

// parseBound reads a range bound: "-" (0), "+" (the largest timestamp)
// or an integer at least 0; explicit is false for "-" and "+".
func parseBound(b []byte, bad error) (ts int64, explicit bool, err error) {
	switch string(b) {
	case "-":
		return 0, false, nil
	case "+":
		return math.MaxInt64, false, nil
	}
	n, ok := num.ParseInt(b)
	if !ok || n < 0 {
		return 0, false, bad
	}
	return n, true, nil
}

// Del is a parsed TS.DEL: the samples in [From, To].
type Del struct {
	From, To int64
}

// ParseDel parses the arguments after TS.DEL's key: from to.
func ParseDel(args [][]byte) (Del, error) {
	if len(args) != 2 {
		return Del{}, ErrArity
	}
	from, _, err := parseBound(args[0], ErrFromTS)
	if err != nil {
		return Del{}, err
	}
	to, _, err := parseBound(args[1], ErrToTS)
	return Del{From: from, To: to}, err
}

// ParseGet parses the arguments after TS.GET's key: [LATEST].
func ParseGet(args [][]byte) (latest bool, err error) {
	switch {
	case len(args) > 1:
		return false, ErrArity
	case len(args) == 0:
		return false, nil
	case !bytes.EqualFold(args[0], []byte("LATEST")):
		return false, ErrGetArgument
	}
	return true, nil
}

// ParseInfo parses the arguments after TS.INFO's key: [DEBUG]. Other
// words are ignored, as RedisTimeSeries does.
func ParseInfo(args [][]byte) (debug bool) {
	return len(args) > 0 && bytes.EqualFold(args[0], []byte("DEBUG"))
}

// Rule is a compaction rule: how its source's samples are downsampled
// into Dest.
type Rule struct {
	Dest   []byte
	Agg    Aggregator
	Bucket int64 // bucket duration, ms
	Align  int64
	state  ruleState
}

// ParseCreateRule parses TS.CREATERULE's arguments after the command's
// name: source dest AGGREGATION aggregator bucketDuration [alignTimestamp].
func ParseCreateRule(args [][]byte) (src []byte, r Rule, err error) {
	if len(args) != 5 && len(args) != 6 {
		return nil, r, ErrArity
	}
	if !bytes.EqualFold(args[2], []byte("AGGREGATION")) {
		return nil, r, ErrArity
	}
	agg, d, err := parseAggregation(args[3], args[4])
	if err != nil {
		return nil, r, err
	}
	r = NewRule(args[1], agg, d, 0)
	if len(args) == 6 {
		n, ok := num.ParseInt(args[5])
		if !ok || n < 0 {
			return nil, r, ErrAlignTimestamp
		}
		r.Align = n
	}
	if !agg.storable() {
		return nil, r, ErrTWARule
	}
	if bytes.Equal(args[0], args[1]) {
		return nil, r, ErrSameKey
	}
	return args[0], r, nil
}

// parseAggregation reads AGGREGATION's aggregator and bucket duration.
func parseAggregation(name, duration []byte) (Aggregator, int64, error) {
	agg, ok := parseAggregator(name)
	if !ok {
		return AggNone, 0, ErrAggUnknown
	}
	d, ok := num.ParseInt(duration)
	switch {
	case !ok:
		return AggNone, 0, ErrAggParse
	case d <= 0:
		return AggNone, 0, ErrBucketDuration
	}
	return agg, d, nil
}

// ParseDeleteRule parses TS.DELETERULE's arguments: source dest.
func ParseDeleteRule(args [][]byte) (src, dest []byte, err error) {
	if len(args) != 2 {
		return nil, nil, ErrArity
	}
	return args[0], args[1], nil
}
