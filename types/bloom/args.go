package bloom

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Error is a refusal of a BF command; its text is the exact error reply
// Kvrocks gives. Compare with errors.Is; reply with string(err).
type Error string

func (e Error) Error() string { return string(e) }

// The errors of the BF commands, with Kvrocks's texts.
const (
	ErrBadErrorRate   Error = "ERR Bad error rate"
	ErrErrorRateRange Error = "ERR error rate should be between 0 and 1"
	ErrBadCapacity    Error = "ERR Bad capacity"
	ErrCapacityRange  Error = "ERR capacity should be larger than 0"
	ErrBadExpansion   Error = "ERR Bad expansion"
	ErrExpansionRange Error = "ERR expansion should be greater or equal to 1"
	ErrCannotExpand   Error = "ERR nonscaling filters cannot expand"
	ErrSyntax         Error = "ERR syntax error"
	ErrNoItems        Error = "ERR num of items should be greater than 0"
	ErrWrongArgs      Error = "ERR wrong number of arguments"
	ErrInfoArgument   Error = "ERR Invalid info argument"
	// ErrNotFound answers BF.INFO, and BF.INSERT with NOCREATE, on a
	// missing key.
	ErrNotFound Error = "ERR key is not found"
	// ErrExists answers BF.RESERVE on an existing filter.
	ErrExists Error = "ERR Invalid argument: the key already exists"
	// ErrFull is the reply for an item that a full non-scaling filter
	// refused (Result Full).
	ErrFull Error = "ERR nonscaling filter is full"
	// ErrExhausted is Basalt's reply for an item that needs a 65536th
	// sub-filter (Result Exhausted): Kvrocks's u16 count would wrap to 0
	// and lose the chain.
	ErrExhausted Error = "ERR the filter cannot open more than 65535 sub-filters"
	// ErrTooLarge refuses an insertion that would open more than
	// MaxOpenBytes of sub-filters; nothing is written.
	ErrTooLarge Error = "ERR Operation aborted: Memory limit reached"
)

// ParseReserve parses BF.RESERVE's arguments after the key:
// error_rate capacity [EXPANSION expansion] [NONSCALING]. Each is checked
// as it comes, as Kvrocks does, so the first bad one is the error.
func ParseReserve(args [][]byte) (Options, error) {
	if len(args) < 2 {
		return Options{}, ErrWrongArgs
	}
	o := Defaults
	var err error
	if o.ErrorRate, err = parseErrorRate(args[0]); err != nil {
		return o, err
	}
	if o.Capacity, err = parseCapacity(args[1]); err != nil {
		return o, err
	}
	var nonScaling, expansion bool
	for i := 2; i < len(args); i++ {
		switch {
		case equalFold(args[i], "nonscaling"):
			nonScaling = true
		case equalFold(args[i], "expansion"):
			i++
			if o.Expansion, err = parseExpansion(args, i); err != nil {
				return o, err
			}
			expansion = true
		default:
			return o, ErrSyntax
		}
	}
	return o, nonScalingOptions(&o, nonScaling, expansion)
}

// InsertArgs are BF.INSERT's arguments after the key.
type InsertArgs struct {
	// Options are used only when the key is created.
	Options  Options
	NoCreate bool
	Items    [][]byte // alias the arguments
}

// ParseInsert parses BF.INSERT's arguments after the key: [CAPACITY c]
// [ERROR p] [EXPANSION e] [NOCREATE] [NONSCALING] ITEMS item [item ...],
// options in any order, each checked as it comes; every argument after
// ITEMS is an item.
func ParseInsert(args [][]byte) (InsertArgs, error) {
	a := InsertArgs{Options: Defaults}
	o := &a.Options
	var nonScaling, expansion, items bool
	var err error
	for i := 0; i < len(args) && !items; i++ {
		switch {
		case equalFold(args[i], "capacity"):
			i++
			if o.Capacity, err = parseCapacity(arg(args, i)); err != nil {
				return a, err
			}
		case equalFold(args[i], "error"):
			i++
			if o.ErrorRate, err = parseErrorRate(arg(args, i)); err != nil {
				return a, err
			}
		case equalFold(args[i], "expansion"):
			i++
			if o.Expansion, err = parseExpansion(args, i); err != nil {
				return a, err
			}
			expansion = true
		case equalFold(args[i], "nocreate"):
			a.NoCreate = true
		case equalFold(args[i], "nonscaling"):
			nonScaling = true
		case equalFold(args[i], "items"):
			a.Items, items = args[i+1:], true
		default:
			return a, ErrSyntax
		}
	}
	if err := nonScalingOptions(o, nonScaling, expansion); err != nil {
		return a, err
	}
	switch {
	case !items:
		return a, ErrSyntax
	case len(a.Items) == 0:
		return a, ErrNoItems
	}
	return a, nil
}

// nonScalingOptions applies NONSCALING, which no EXPANSION may come with.
func nonScalingOptions(o *Options, nonScaling, expansion bool) error {
	if !nonScaling {
		return nil
	}
	if expansion {
		return ErrCannotExpand
	}
	o.Expansion = 0
	return nil
}

// InfoField is what BF.INFO reports.
type InfoField uint8

// BF.INFO's fields; InfoAll is all of them.
const (
	InfoAll InfoField = iota
	InfoCapacity
	InfoSize
	InfoFilters
	InfoItems
	InfoExpansion
)

var infoFields = [...]string{
	InfoCapacity:  "capacity",
	InfoSize:      "size",
	InfoFilters:   "filters",
	InfoItems:     "items",
	InfoExpansion: "expansion",
}

// ParseInfo parses BF.INFO's arguments after the key: none, or one field
// name in any case. Kvrocks checks them before it looks at the key.
func ParseInfo(args [][]byte) (InfoField, error) {
	switch len(args) {
	case 0:
		return InfoAll, nil
	case 1:
		for f, name := range infoFields {
			if f != int(InfoAll) && equalFold(args[0], name) {
				return InfoField(f), nil
			}
		}
		return InfoAll, ErrInfoArgument
	}
	return InfoAll, ErrWrongArgs
}

func equalFold(b []byte, word string) bool {
	return len(b) == len(word) && strings.EqualFold(string(b), word)
}

// arg returns args[i], or nil past the end (a missing number is a bad
// one, as in Kvrocks).
func arg(args [][]byte, i int) []byte {
	if i < len(args) {
		return args[i]
	}
	return nil
}

func parseErrorRate(b []byte) (float64, error) {
	p, ok := parseDouble(b)
	switch {
	case !ok:
		return 0, ErrBadErrorRate
	case !(p > 0 && p < 1): // NaN too, which Kvrocks accepts (see parseDouble)
		return 0, ErrErrorRateRange
	}
	return p, nil
}

func parseCapacity(b []byte) (uint32, error) {
	n, ok := parseUnsigned(b, math.MaxUint32)
	switch {
	case !ok:
		return 0, ErrBadCapacity
	case n == 0:
		return 0, ErrCapacityRange
	}
	return uint32(n), nil
}

func parseExpansion(args [][]byte, i int) (uint16, error) {
	n, ok := parseUnsigned(arg(args, i), math.MaxUint16)
	switch {
	case !ok:
		return 0, ErrBadExpansion
	case n == 0:
		return 0, ErrExpansionRange
	}
	return uint16(n), nil
}

// parseUnsigned parses a number as Kvrocks does, with C's strtoull in
// base 10, then a range check: leading white space and a sign are
// allowed, nothing may follow the digits, and a negative number is
// negated modulo 2^64 (so "-0" is 0, and "-18446744073709551615" is 1).
func parseUnsigned(b []byte, max uint64) (uint64, bool) {
	s := strings.TrimLeft(string(b), cSpace)
	neg := s != "" && s[0] == '-'
	s = trimSign(s)
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, n <= max
}

// cSpace is what C's isspace accepts in the "C" locale.
const cSpace = " \t\n\v\f\r"

// parseDouble parses a number as Kvrocks does, with C's strtod: leading
// white space allowed, nothing after the number, decimal or hexadecimal
// (with or without a binary exponent), inf and infinity; out of range
// (overflow, or a result below the smallest normal double) is not a
// number, but an exact one is not. strtod reads nan and nan(chars) too, which Kvrocks accepts as
// an error rate and sizes a useless 32-byte filter for: they parse here
// as NaN, which parseErrorRate refuses.
func parseDouble(b []byte) (float64, bool) {
	s := strings.TrimLeft(string(b), cSpace)
	digits := trimSign(s)
	if isNaNWord(digits) {
		return math.NaN(), true
	}
	if digits == "" || strings.ContainsRune(s, '_') {
		return 0, false
	}
	hex := len(digits) > 1 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')
	if hex && !strings.ContainsAny(s, "pP") {
		s += "p0" // strtod reads hex without a binary exponent; Go needs one
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	if abs := math.Abs(f); abs < 0x1p-1022 && (abs != 0 || hasNonZeroDigit(digits)) && !exact(s, f) {
		return 0, false // strtod's underflow: a result below 2^-1022 that is not exact
	}
	return f, true
}

// exact reports whether the number s is exactly f, for a subnormal f: the
// one case where strtod does not report an underflow. The exact decimal
// form of a subnormal has at most 767 significant digits; a longer s is
// taken as inexact rather than weighed in big numbers.
func exact(s string, f float64) bool {
	if f == 0 || len(s) > 1100 {
		return false
	}
	r, ok := new(big.Rat).SetString(s)
	return ok && r.Cmp(new(big.Rat).SetFloat64(f)) == 0
}

// trimSign drops one leading sign.
func trimSign(s string) string {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		return s[1:]
	}
	return s
}

// isNaNWord reports strtod's NaN forms, after the sign: nan and
// nan(chars), chars letters, digits and underscores, in any case.
func isNaNWord(s string) bool {
	if len(s) < 3 || !strings.EqualFold(s[:3], "nan") {
		return false
	}
	rest := s[3:]
	if rest == "" {
		return true
	}
	if len(rest) < 2 || rest[0] != '(' || rest[len(rest)-1] != ')' {
		return false
	}
	for _, c := range rest[1 : len(rest)-1] {
		if !(c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// hasNonZeroDigit reports whether a number's mantissa has a non-zero
// digit (so that a zero result is an underflow).
func hasNonZeroDigit(s string) bool {
	if len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
		for _, c := range s {
			switch {
			case c == 'p' || c == 'P':
				return false
			case c != '0' && c != '.':
				return true
			}
		}
		return false
	}
	for _, c := range s {
		switch {
		case c == 'e' || c == 'E':
			return false
		case c >= '1' && c <= '9':
			return true
		}
	}
	return false
}
