package sortedint

import (
	"bytes"
	"math"
)

// The arguments are read as Kvrocks 5fccd57 reads them. Ids, SIRANGE's
// offset and limit and its cursor are C's strtoull over the whole
// argument (Kvrocks's ParseInt<uint64_t>): leading blanks and a sign are
// taken, and a minus wraps around, so "-1" is 2^64-1. LIMIT's offset and
// count are strtoll checked into the int range. Options are read only at
// their exact place: SIRANGE reads CURSOR only as its fifth and sixth
// argument and BYVALUE reads LIMIT only as its fifth to seventh; with any
// other number of arguments Kvrocks ignores what follows the bounds, and
// so does this package.

// Range is a SIRANGE or SIREVRANGE query.
type Range struct {
	Reverse bool
	// Cursor is where the walk starts: the first id at or above it
	// (Reverse: at or below it; 0 then means from the top). An id equal
	// to Cursor is never returned, so SIRANGE without a cursor never
	// returns id 0, as in Kvrocks.
	Cursor uint64
	Offset uint64 // ids skipped after the cursor
	Limit  uint64 // at most this many ids returned; 0: no limit
}

// ValueRange is a SIRANGEBYVALUE or SIREVRANGEBYVALUE query: the ids in
// [Min, Max], either end exclusive, ascending (Reverse: descending).
type ValueRange struct {
	Reverse                    bool
	Min, Max                   uint64
	MinExclusive, MaxExclusive bool
	Offset                     uint64 // ids of the range skipped first
	Count                      uint64 // at most this many returned; 0: no limit
}

// ParseIDs parses the ids of SIADD, SIREM or SIEXISTS (the arguments
// after the key); one bad id refuses them all.
func ParseIDs(args [][]byte) ([]uint64, error) {
	if len(args) == 0 {
		return nil, ErrArity
	}
	ids := make([]uint64, len(args))
	for i, a := range args {
		id, ok := parseU64(a)
		if !ok {
			return nil, ErrNotInteger
		}
		ids[i] = id
	}
	return ids, nil
}

// ParseRange parses the arguments after the key of SIRANGE (reverse:
// SIREVRANGE): offset limit [CURSOR id].
func ParseRange(args [][]byte, reverse bool) (Range, error) {
	if len(args) < 2 {
		return Range{}, ErrArity
	}
	offset, okOffset := parseU64(args[0])
	limit, okLimit := parseU64(args[1])
	if !okOffset || !okLimit {
		return Range{}, ErrNotInteger
	}
	q := Range{Reverse: reverse, Offset: offset, Limit: limit}
	if len(args) == 4 {
		if !isWord(args[2], "cursor") {
			return Range{}, ErrSyntax
		}
		cursor, ok := parseU64(args[3])
		if !ok {
			return Range{}, ErrNotInteger
		}
		q.Cursor = cursor
	}
	return q, nil
}

// ParseValueRange parses the arguments after the key of SIRANGEBYVALUE
// (min max) or, reverse, SIREVRANGEBYVALUE (max min), then [LIMIT offset
// count]. A bound is -inf, +inf, or an id optionally preceded by "(" for
// an exclusive end. A negative offset counts as 0, a count of 0 or less
// as no limit.
func ParseValueRange(args [][]byte, reverse bool) (ValueRange, error) {
	if len(args) < 2 {
		return ValueRange{}, ErrArity
	}
	lo, hi := args[0], args[1]
	if reverse {
		lo, hi = hi, lo
	}
	if string(lo) == "+inf" || string(hi) == "-inf" {
		return ValueRange{}, ErrMinAboveMax
	}
	q := ValueRange{Reverse: reverse}
	var ok bool
	if q.Min, q.MinExclusive, ok = parseBound(lo, "-inf", 0); !ok {
		return ValueRange{}, ErrMinNotInteger
	}
	if q.Max, q.MaxExclusive, ok = parseBound(hi, "+inf", math.MaxUint64); !ok {
		return ValueRange{}, ErrMaxNotInteger
	}
	if len(args) == 5 {
		if !isWord(args[2], "limit") {
			return ValueRange{}, ErrSyntax
		}
		offset, okOffset := parseInt32(args[3])
		count, okCount := parseInt32(args[4])
		if !okOffset || !okCount {
			return ValueRange{}, ErrNotInteger
		}
		q.Offset, q.Count = uint64(max(offset, 0)), uint64(max(count, 0))
	}
	return q, nil
}

// parseBound reads one end of a value range: inf (the whole argument)
// stands for infinite. Kvrocks reads the number after the optional "(" as
// a C string, so it ends at a NUL byte.
func parseBound(b []byte, inf string, infinite uint64) (id uint64, exclusive, ok bool) {
	if string(b) == inf {
		return infinite, false, true
	}
	if len(b) > 0 && b[0] == '(' {
		exclusive, b = true, b[1:]
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	id, ok = parseU64(b)
	return id, exclusive, ok
}

// isWord reports whether b is word (lower case) in any ASCII case, as
// Kvrocks's util::ToLower compares option names.
func isWord(b []byte, word string) bool {
	if len(b) != len(word) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != word[i] {
			return false
		}
	}
	return true
}

// isSpace is C's isspace, whose characters strtoull and strtoll skip.
func isSpace(c byte) bool { return c == ' ' || ('\t' <= c && c <= '\r') }

// parseDecimal reads b whole as C's strtoull and strtoll read base 10:
// blanks, an optional sign, at least one digit and nothing else; the
// magnitude must fit 64 bits (ERANGE otherwise).
func parseDecimal(b []byte) (neg bool, n uint64, ok bool) {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	if i == len(b) {
		return false, 0, false
	}
	for ; i < len(b); i++ {
		d := b[i] - '0'
		if d > 9 || n > (math.MaxUint64-uint64(d))/10 {
			return false, 0, false
		}
		n = n*10 + uint64(d)
	}
	return neg, n, true
}

// parseU64 is Kvrocks's ParseInt<uint64_t>: strtoull, a minus wrapping
// around as in C.
func parseU64(b []byte) (uint64, bool) {
	neg, n, ok := parseDecimal(b)
	if neg {
		n = -n
	}
	return n, ok
}

// parseInt32 is Kvrocks's ParseInt<int>: strtoll, then the range of int.
func parseInt32(b []byte) (int32, bool) {
	neg, n, ok := parseDecimal(b)
	switch {
	case !ok || n > 1<<31 || (!neg && n == 1<<31):
		return 0, false
	case neg:
		return int32(-int64(n)), true
	}
	return int32(n), true
}
