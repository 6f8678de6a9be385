// Package num parses and formats numbers exactly as Redis does, so that
// replies and stored values match redis-server byte for byte. It is pure and
// imports nothing of Basalt's.
package num

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// ParseInt parses a decimal int64 with Redis's strict rules (string2ll): an
// optional '-', no '+', no leading zeros, no spaces, at most 20 digits.
func ParseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || b[0] < '1' || b[0] > '9' {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (math.MaxUint64-9)/10 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// ParseFloat parses a double with the rules of Redis's getDoubleFromObject:
// strtod syntax (including inf and hex floats), no surrounding spaces, no
// NaN, and no overflow or underflow.
func ParseFloat(b []byte) (float64, bool) {
	if len(b) == 0 || isSpace(b[0]) || isSpace(b[len(b)-1]) {
		return 0, false
	}
	if f, ok := smallInteger(b); ok {
		return f, true
	}
	s := string(b)
	if strings.ContainsRune(s, '_') {
		return 0, false
	}
	if isHex(s) && !strings.ContainsAny(s, "pP") {
		s += "p0" // strtod reads hex without a binary exponent; Go needs one
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) {
		return 0, false
	}
	if f == 0 && hasNonZeroDigit(s) {
		return 0, false // underflow, which strtod reports as ERANGE
	}
	return f, true
}

// smallInteger reads a decimal integer of at most 15 digits, which a
// double holds exactly: the common case of ParseFloat, without strconv.
// "-0" is left to strtod's rules (it is -0).
func smallInteger(b []byte) (float64, bool) {
	digits := b
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if len(digits) < len(b) {
		if n == 0 {
			return 0, false
		}
		n = -n
	}
	return float64(n), true
}

func hasNonZeroDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 'e' || c == 'E' || c == 'p' || c == 'P' {
			return false
		}
		if c >= '1' && c <= '9' {
			return true
		}
	}
	return false
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// longDoublePrec is the mantissa precision of the x87 long double that
// Redis's INCRBYFLOAT computes in; big.Float at this precision rounds the
// same way, so results and their printed digits match Redis.
const longDoublePrec = 64

// maxLongDoubleExp is the binary exponent above which a long double
// overflows to infinity.
const maxLongDoubleExp = 16384

// ParseLongDouble parses a number for INCRBYFLOAT (string2ld): decimal
// syntax or inf, no spaces, no NaN.
func ParseLongDouble(b []byte) (*big.Float, bool) {
	if len(b) == 0 || isSpace(b[0]) || isSpace(b[len(b)-1]) {
		return nil, false
	}
	s := strings.ToLower(string(b))
	base := 10
	if isHex(s) {
		base = 0 // big.ParseFloat reads the 0x prefix itself in base 0
	}
	if strings.ContainsAny(s, "_") || (base == 10 && strings.ContainsAny(s, "xn") && !isInfWord(s)) {
		return nil, false
	}
	f, _, err := big.ParseFloat(s, base, longDoublePrec, big.ToNearestEven)
	if err != nil {
		return nil, false
	}
	if !f.IsInf() && f.MantExp(nil) > maxLongDoubleExp {
		return nil, false
	}
	return f, true
}

// isHex reports whether s is a hexadecimal number ("0x1f", "-0X1p3").
func isHex(s string) bool {
	s = strings.TrimLeft(s, "+-")
	return len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')
}

func isInfWord(s string) bool {
	s = strings.TrimLeft(s, "+-")
	return s == "inf" || s == "infinity"
}

// AddLongDouble returns a+b rounded to long double precision, and false when
// the result is infinite (Redis refuses NaN and infinity results).
func AddLongDouble(a, b *big.Float) (*big.Float, bool) {
	if a.IsInf() || b.IsInf() {
		return nil, false
	}
	sum := new(big.Float).SetPrec(longDoublePrec).SetMode(big.ToNearestEven).Add(a, b)
	if sum.MantExp(nil) > maxLongDoubleExp {
		return nil, false
	}
	return sum, true
}

// FormatLongDouble renders a value as Redis's ld2string in human mode:
// "%.17Lf" with trailing zeros (and a trailing '.') removed, "-0" as "0".
func FormatLongDouble(f *big.Float) string {
	s := f.Text('f', 17)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// AppendHumanDouble appends a finite f as Redis's ld2string in human mode
// prints it: "%.17Lf" (the exact value rounded to 17 decimals), trailing
// zeros and a trailing '.' removed, "-0" as "0".
func AppendHumanDouble(dst []byte, f float64) []byte {
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'f', 17, 64)
	for dst[len(dst)-1] == '0' {
		dst = dst[:len(dst)-1]
	}
	if dst[len(dst)-1] == '.' {
		dst = dst[:len(dst)-1]
	}
	if string(dst[start:]) == "-0" {
		dst = append(dst[:start], '0')
	}
	return dst
}

// AppendDouble appends f formatted like C's "%.17g" (Redis's reply format
// for scores), with infinities as "inf" and "-inf".
func AppendDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case math.IsNaN(f):
		return append(dst, "nan"...)
	}
	return strconv.AppendFloat(dst, f, 'g', 17, 64)
}
