package tdigest

import (
	"math"

	"github.com/basaltdb/basalt/num"
)

// The arguments are read as RedisBloom reads them (REDIS-NEW.md §8):
// doubles as Redis's getDoubleFromObject (strtod syntax, inf accepted,
// NaN, blanks and overflow refused), integers as string2ll, keywords in
// any case; each list is checked in order and its first bad element
// answers. Each Parse function takes the arguments after the key (after
// the destination key for MERGE); the counts the command table's arity
// cannot express are ErrArity.

// ParseCreate parses TDIGEST.CREATE's [COMPRESSION compression]: the
// compression, DefaultCompression when not given.
func ParseCreate(args [][]byte) (uint32, error) {
	switch len(args) {
	case 0:
		return DefaultCompression, nil
	case 2:
	default:
		return 0, ErrArity
	}
	if !isWord(args[0], "compression") {
		return 0, ErrWrongKeyword
	}
	return parseCompression(args[1])
}

// parseCompression parses a compression: an integer in [1, MaxCompression].
func parseCompression(b []byte) (uint32, error) {
	n, ok := num.ParseInt(b)
	switch {
	case !ok:
		return 0, ErrCompression
	case n <= 0:
		return 0, ErrCompressionNotPos
	case n > MaxCompression:
		return 0, ErrCompressionTooHigh
	}
	return uint32(n), nil
}

// ParseValues parses TDIGEST.ADD's values: finite doubles.
func ParseValues(args [][]byte) ([]float64, error) {
	return parseDoubles(args, func(f float64, ok bool) error {
		switch {
		case !ok:
			return ErrValue
		case math.IsInf(f, 0):
			return ErrValueNotFinite
		}
		return nil
	})
}

// ParseQuantiles parses TDIGEST.QUANTILE's quantiles: doubles in [0,1].
func ParseQuantiles(args [][]byte) ([]float64, error) {
	return parseDoubles(args, func(f float64, ok bool) error {
		switch {
		case !ok:
			return ErrQuantile
		case f < 0 || f > 1:
			return ErrQuantileRange
		}
		return nil
	})
}

// ParseCDF parses TDIGEST.CDF's values: doubles, infinities included.
func ParseCDF(args [][]byte) ([]float64, error) {
	return parseDoubles(args, refuse(ErrCDF))
}

// ParseRankValues parses the values of TDIGEST.RANK and REVRANK:
// doubles, infinities included.
func ParseRankValues(args [][]byte) ([]float64, error) {
	return parseDoubles(args, refuse(ErrRankValue))
}

// refuse is a check that refuses only what does not parse, with err.
func refuse(err error) func(float64, bool) error {
	return func(_ float64, ok bool) error {
		if !ok {
			return err
		}
		return nil
	}
}

// parseDoubles parses a non-empty list of doubles; check says which
// error, if any, each one (and whether it parsed) is.
func parseDoubles(args [][]byte, check func(f float64, ok bool) error) ([]float64, error) {
	if len(args) == 0 {
		return nil, ErrArity
	}
	out := make([]float64, len(args))
	for i, a := range args {
		f, ok := num.ParseFloat(a)
		if err := check(f, ok); err != nil {
			return nil, err
		}
		out[i] = f
	}
	return out, nil
}

// ParseRanks parses the ranks of TDIGEST.BYRANK and BYREVRANK:
// non-negative integers.
func ParseRanks(args [][]byte) ([]int64, error) {
	if len(args) == 0 {
		return nil, ErrArity
	}
	out := make([]int64, len(args))
	for i, a := range args {
		r, ok := num.ParseInt(a)
		switch {
		case !ok:
			return nil, ErrRank
		case r < 0:
			return nil, ErrRankNegative
		}
		out[i] = r
	}
	return out, nil
}

// ParseTrimmedMean parses TDIGEST.TRIMMED_MEAN's low_cut_percentile and
// high_cut_percentile: fractions with 0 ≤ low < high ≤ 1.
func ParseTrimmedMean(args [][]byte) (low, high float64, err error) {
	if len(args) != 2 {
		return 0, 0, ErrArity
	}
	low, okLow := num.ParseFloat(args[0])
	high, okHigh := num.ParseFloat(args[1])
	switch {
	case !okLow:
		return 0, 0, ErrLowCut
	case !okHigh:
		return 0, 0, ErrHighCut
	case low < 0 || low > 1 || high < 0 || high > 1:
		return 0, 0, ErrCutRange
	case low >= high:
		return 0, 0, ErrCutOrder
	}
	return low, high, nil
}

// MergeArgs is a TDIGEST.MERGE after its destination key.
type MergeArgs struct {
	Sources     [][]byte // the source keys, as named
	Compression uint32   // COMPRESSION's; 0 when not given
	Override    bool
}

// ParseMerge parses what follows TDIGEST.MERGE's destination key:
// numkeys source-key [source-key ...] [COMPRESSION compression]
// [OVERRIDE], the options in any order, the last COMPRESSION winning.
// Sources alias args.
func ParseMerge(args [][]byte) (MergeArgs, error) {
	if len(args) < 2 {
		return MergeArgs{}, ErrArity
	}
	n, ok := num.ParseInt(args[0])
	switch {
	case !ok:
		return MergeArgs{}, ErrNumkeys
	case n <= 0:
		return MergeArgs{}, ErrNumkeysNotPos
	case n > int64(len(args)-1):
		return MergeArgs{}, ErrArity
	}
	a := MergeArgs{Sources: args[1 : 1+n]}
	for rest := args[1+n:]; len(rest) > 0; {
		switch {
		case isWord(rest[0], "override"):
			a.Override = true
			rest = rest[1:]
		case !isWord(rest[0], "compression"):
			return MergeArgs{}, ErrWrongKeyword
		case len(rest) < 2:
			return MergeArgs{}, ErrArity
		default:
			c, err := parseCompression(rest[1])
			if err != nil {
				return MergeArgs{}, err
			}
			a.Compression = c
			rest = rest[2:]
		}
	}
	return a, nil
}

// isWord reports whether b is word (lower case) in any ASCII case.
func isWord(b []byte, word string) bool {
	if len(b) != len(word) {
		return false
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != word[i] {
			return false
		}
	}
	return true
}
