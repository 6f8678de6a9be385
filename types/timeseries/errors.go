package timeseries

import "errors"

// Errors of the commands and of stored bytes; compare with errors.Is.
// ReplyText gives the reply RedisTimeSeries sends for each (REDIS-NEW.md
// §9, whose texts keep their inconsistent prefixes: two have no ERR).
var (
	// ErrArity: the command's arity; the handler names the command.
	ErrArity     = errors.New("timeseries: wrong number of arguments")
	ErrKeyExists = errors.New("timeseries: key already exists")
	// ErrNotTSDB: TS.ADD/TS.MADD on a key of another type, TS.MADD on a missing key.
	ErrNotTSDB = errors.New("timeseries: the key is not a TSDB key")
	// ErrWrongType: another type's key elsewhere (with ERR in front, as RedisTimeSeries).
	ErrWrongType      = errors.New("timeseries: wrong type")
	ErrNoKey          = errors.New("timeseries: the key does not exist")
	ErrRetentionParse = errors.New("timeseries: couldn't parse RETENTION")
	// ErrRetentionNegative: without ERR, as RedisTimeSeries.
	ErrRetentionNegative = errors.New("timeseries: negative RETENTION")
	ErrEncoding          = errors.New("timeseries: unknown ENCODING")
	ErrChunkSizeParse    = errors.New("timeseries: couldn't parse CHUNK_SIZE")
	ErrChunkSizeRange    = errors.New("timeseries: CHUNK_SIZE out of range")
	ErrPolicyParse       = errors.New("timeseries: couldn't parse DUPLICATE_POLICY")
	ErrPolicyUnknown     = errors.New("timeseries: unknown DUPLICATE_POLICY")
	ErrIgnoreParse       = errors.New("timeseries: couldn't parse IGNORE")
	ErrIgnoreNegative    = errors.New("timeseries: negative IGNORE")
	ErrLabels            = errors.New("timeseries: couldn't parse LABELS")
	ErrValue             = errors.New("timeseries: invalid value")
	ErrTimestamp         = errors.New("timeseries: invalid timestamp")
	ErrTimestampNegative = errors.New("timeseries: negative timestamp")
	ErrTooOld            = errors.New("timeseries: timestamp older than retention")
	ErrBlocked           = errors.New("timeseries: duplicate blocked")
	ErrIncrValue         = errors.New("timeseries: invalid increase/decrease value")
	// ErrIncrOlder: without ERR, as RedisTimeSeries.
	ErrIncrOlder      = errors.New("timeseries: timestamp below the newest")
	ErrFromTS         = errors.New("timeseries: wrong fromTimestamp")
	ErrToTS           = errors.New("timeseries: wrong toTimestamp")
	ErrDelRetention   = errors.New("timeseries: delete beyond retention")
	ErrSameKey        = errors.New("timeseries: same source and destination")
	ErrSourceIsDest   = errors.New("timeseries: the source is a destination")
	ErrDestHasRules   = errors.New("timeseries: the destination has rules")
	ErrDestHasSource  = errors.New("timeseries: the destination is fed")
	ErrAlignTimestamp = errors.New("timeseries: couldn't parse alignTimestamp")
	ErrNoRule         = errors.New("timeseries: no such rule")
	// ErrTWARule: Basalt's: Kvrocks has no stored code for TWA, so such a rule could not be read back by Kvrocks.
	ErrTWARule            = errors.New("timeseries: twa rule")
	ErrAggParse           = errors.New("timeseries: couldn't parse AGGREGATION")
	ErrAggUnknown         = errors.New("timeseries: unknown aggregation type")
	ErrBucketDuration     = errors.New("timeseries: bucket duration not positive")
	ErrAlignUnknown       = errors.New("timeseries: unknown ALIGN")
	ErrAlignNoAgg         = errors.New("timeseries: ALIGN without AGGREGATION")
	ErrAlignStart         = errors.New("timeseries: start alignment without start")
	ErrAlignEnd           = errors.New("timeseries: end alignment without end")
	ErrBucketTSUnknown    = errors.New("timeseries: unknown BUCKETTIMESTAMP")
	ErrBucketTSPlace      = errors.New("timeseries: misplaced BUCKETTIMESTAMP")
	ErrEmptyPlace         = errors.New("timeseries: misplaced EMPTY")
	ErrCountMissing       = errors.New("timeseries: COUNT argument missing")
	ErrCountParse         = errors.New("timeseries: couldn't parse COUNT")
	ErrCountInvalid       = errors.New("timeseries: invalid COUNT")
	ErrFilterValueMissing = errors.New("timeseries: FILTER_BY_VALUE arguments missing")
	ErrMinParse           = errors.New("timeseries: couldn't parse MIN")
	ErrMaxParse           = errors.New("timeseries: couldn't parse MAX")
	ErrFilterTSMissing    = errors.New("timeseries: FILTER_BY_TS arguments missing")
	ErrGetArgument        = errors.New("timeseries: wrong 3rd argument")
	ErrFilterParse        = errors.New("timeseries: failed parsing labels")
	ErrNoMatcher          = errors.New("timeseries: no positive matcher")
	ErrLabelsTogether     = errors.New("timeseries: WITHLABELS and SELECTED_LABELS")
	ErrSelectedEmpty      = errors.New("timeseries: SELECTED_LABELS without labels")
	ErrReducer            = errors.New("timeseries: invalid reducer")
	ErrMissingFilter      = errors.New("timeseries: missing FILTER")
	ErrFilterNoLabels     = errors.New("timeseries: FILTER without expressions")
	ErrGroupByPlace       = errors.New("timeseries: GROUPBY before FILTER")
	// ErrCorrupt reports stored bytes that are no series record.
	ErrCorrupt = errors.New("timeseries: corrupt record")
)

// replies are the error replies, as RedisTimeSeries words them.
var replies = []struct {
	err  error
	text string
}{
	{ErrKeyExists, "ERR TSDB: key already exists"},
	{ErrNotTSDB, "ERR TSDB: the key is not a TSDB key"},
	{ErrWrongType, "ERR WRONGTYPE Operation against a key holding the wrong kind of value"},
	{ErrNoKey, "ERR TSDB: the key does not exist"},
	{ErrRetentionParse, "ERR TSDB: Couldn't parse RETENTION"},
	{ErrRetentionNegative, "TSDB: Couldn't parse RETENTION"},
	{ErrEncoding, "ERR TSDB: unknown ENCODING parameter"},
	{ErrChunkSizeParse, "ERR TSDB: Couldn't parse CHUNK_SIZE"},
	{ErrChunkSizeRange, "ERR TSDB: CHUNK_SIZE value must be a multiple of 8 in the range [48 .. 1048576]"},
	{ErrPolicyParse, "ERR TSDB: Couldn't parse DUPLICATE_POLICY"},
	{ErrPolicyUnknown, "ERR TSDB: Unknown DUPLICATE_POLICY"},
	{ErrIgnoreParse, "ERR TSDB: Couldn't parse IGNORE"},
	{ErrIgnoreNegative, "ERR TSDB: IGNORE arguments cannot be negative"},
	{ErrLabels, "ERR TSDB: Couldn't parse LABELS"},
	{ErrValue, "ERR TSDB: invalid value"},
	{ErrTimestamp, "ERR TSDB: invalid timestamp"},
	{ErrTimestampNegative, "ERR TSDB: invalid timestamp, must be a nonnegative integer"},
	{ErrTooOld, "ERR TSDB: Timestamp is older than retention"},
	{ErrBlocked, "ERR TSDB: Error at upsert, update is not supported when DUPLICATE_POLICY is set to BLOCK mode"},
	{ErrIncrValue, "ERR TSDB: invalid increase/decrease value"},
	{ErrIncrOlder, "TSDB: timestamp must be equal to or higher than the maximum existing timestamp"},
	{ErrFromTS, "ERR TSDB: wrong fromTimestamp"},
	{ErrToTS, "ERR TSDB: wrong toTimestamp"},
	{ErrDelRetention, "ERR TSDB: When a series has compactions, deleting samples or compaction buckets beyond the series retention period is not possible"},
	{ErrSameKey, "ERR TSDB: the source key and destination key should be different"},
	{ErrSourceIsDest, "ERR TSDB: the source key already has a source rule"},
	{ErrDestHasRules, "ERR TSDB: the destination key already has a dst rule"},
	{ErrDestHasSource, "ERR TSDB: the destination key already has a src rule"},
	{ErrAlignTimestamp, "ERR TSDB: Couldn't parse alignTimestamp"},
	{ErrNoRule, "ERR TSDB: compaction rule does not exist"},
	{ErrTWARule, "ERR TSDB: twa is not supported by compaction rules"},
	{ErrAggParse, "ERR TSDB: Couldn't parse AGGREGATION"},
	{ErrAggUnknown, "ERR TSDB: Unknown aggregation type"},
	{ErrBucketDuration, "ERR TSDB: bucketDuration must be greater than zero"},
	{ErrAlignUnknown, "ERR TSDB: unknown ALIGN parameter"},
	{ErrAlignNoAgg, "ERR TSDB: ALIGN parameter can only be used with AGGREGATION"},
	{ErrAlignStart, "ERR TSDB: start alignment can only be used with explicit start timestamp"},
	{ErrAlignEnd, "ERR TSDB: end alignment can only be used with explicit end timestamp"},
	{ErrBucketTSUnknown, "ERR TSDB: unknown BUCKETTIMESTAMP parameter"},
	{ErrBucketTSPlace, "ERR TSDB: BUCKETTIMESTAMP flag should be the 3rd or 4th flag after AGGREGATION flag"},
	{ErrEmptyPlace, "ERR TSDB: EMPTY flag should be the 3rd or 5th flag after AGGREGATION flag"},
	{ErrCountMissing, "ERR TSDB: COUNT argument is missing"},
	{ErrCountParse, "ERR TSDB: Couldn't parse COUNT"},
	{ErrCountInvalid, "ERR TSDB: Invalid COUNT value"},
	{ErrFilterValueMissing, "ERR TSDB: FILTER_BY_VALUE one or more arguments are missing"},
	{ErrMinParse, "ERR TSDB: Couldn't parse MIN"},
	{ErrMaxParse, "ERR TSDB: Couldn't parse MAX"},
	{ErrFilterTSMissing, "ERR TSDB: FILTER_BY_TS one or more arguments are missing"},
	{ErrGetArgument, "ERR TSDB: wrong 3rd argument"},
	{ErrFilterParse, "ERR TSDB: failed parsing labels"},
	{ErrNoMatcher, "ERR TSDB: please provide at least one matcher"},
	{ErrLabelsTogether, "ERR TSDB: cannot accept WITHLABELS and SELECT_LABELS together"},
	{ErrSelectedEmpty, "ERR TSDB: SELECT_LABELS should have at least 1 parameter"},
	{ErrReducer, "ERR TSDB: Invalid reducer type"},
	{ErrMissingFilter, "ERR TSDB: missing FILTER argument"},
	{ErrFilterNoLabels, "ERR TSDB: missing labels for filter argument"},
	{ErrGroupByPlace, "ERR TSDB: GROUPBY should always come after filter"},
	{ErrCorrupt, "ERR TSDB: corrupt series record"},
}

// ReplyText is the error reply for err, with the command's name (lower
// case, as "ts.add") for arity errors; ok is false for errors that are
// not this package's (the engine's, to be rendered by the caller).
func ReplyText(err error, command string) (text string, ok bool) {
	if errors.Is(err, ErrArity) {
		return "ERR wrong number of arguments for '" + command + "' command", true
	}
	for _, r := range replies {
		if errors.Is(err, r.err) {
			return r.text, true
		}
	}
	return "", false
}
