package search

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// formatNumber prints f as the {fmt} library's "{}" does, which is how
// Kvrocks prints every number of a plan: the shortest digits that read
// back as f, in fixed notation when the decimal exponent is in [-4, 16)
// and as d.ddde±XX otherwise; inf, -inf and nan.
func formatNumber(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // -d.ddde±XX
	mant, exp, _ := strings.Cut(e, "e")
	x, _ := strconv.Atoi(exp)
	if x < -4 || x >= 16 {
		sign := "+"
		if x < 0 {
			sign, x = "-", -x
		}
		return fmt.Sprintf("%se%s%02d", mant, sign, x)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// quote prints s between double quotes with Kvrocks's escapes: \" \\ \b
// \f \n \r \t, and \xNN for every other byte that is not printable ASCII.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c >= 0x20 && c < 0x7f {
				b.WriteByte(c)
			} else {
				fmt.Fprintf(&b, `\x%02x`, c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// The errors of Kvrocks's number parsing (strtoull and strtod behind
// util::ParseInt and util::ParseFloat), which it puts in replies as they
// are.
var (
	errNotInteger     = errors.New("not started as an integer")
	errIntegerTrailer = errors.New("encounter non-integer characters")
	errNotNumber      = errors.New("not started as a number")
	errNumberTrailer  = errors.New("encounter non-number characters")
	errRange          = errors.New("Numerical result out of range")
)

func isCSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// parseUint parses s as C's strtoull with base 0 does, then refuses what
// follows the number: leading white space and a sign are taken, 0x means
// hex and a leading 0 octal, and a minus sign negates modulo 2^64 (so -1
// is 18446744073709551615, as Kvrocks answers).
func parseUint(s []byte) (uint64, error) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	base := uint64(10)
	switch {
	case i+1 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && i+2 < len(s) && digitValue(s[i+2]) < 16:
		base, i = 16, i+2
	case i < len(s) && s[i] == '0':
		base = 8
	}
	start := i
	var n uint64
	overflow := false
	for ; i < len(s) && digitValue(s[i]) < base; i++ {
		d := digitValue(s[i])
		if n > (math.MaxUint64-d)/base {
			overflow = true
		}
		n = n*base + d
	}
	switch {
	case i == start:
		return 0, errNotInteger
	case overflow:
		return 0, errRange
	case i < len(s):
		return 0, errIntegerTrailer
	}
	if neg {
		n = -n
	}
	return n, nil
}

func digitValue(c byte) uint64 {
	switch {
	case c >= '0' && c <= '9':
		return uint64(c - '0')
	case c >= 'a' && c <= 'f':
		return uint64(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return uint64(c-'A') + 10
	}
	return 99
}

// parseFloat parses s as C's strtod does (leading white space, a sign,
// decimal or hex digits, inf, infinity and nan in any case), then refuses
// what follows the number, with Kvrocks's texts. A number too large or
// too small for a double is out of range.
func parseFloat(s []byte) (float64, error) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	n := cNumberLen(s[i:])
	if n == 0 {
		return 0, errNotNumber
	}
	text := string(s[i : i+n])
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		// Go refuses what strtod reads, like "0x1" without a p exponent.
		f, err = strconv.ParseFloat(text+"p0", 64)
	}
	if err != nil {
		return 0, errRange
	}
	if f == 0 && hasNonZeroDigit(text) {
		return 0, errRange // underflow: strtod sets ERANGE
	}
	if i+n < len(s) {
		return 0, errNumberTrailer
	}
	return f, nil
}

// cNumberLen is the length of the longest prefix of s that strtod reads
// as a number, 0 if none.
func cNumberLen(s []byte) int {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	rest := strings.ToLower(string(s[i:]))
	switch {
	case strings.HasPrefix(rest, "infinity"):
		return i + 8
	case strings.HasPrefix(rest, "inf"), strings.HasPrefix(rest, "nan"):
		return i + 3
	}
	hex := strings.HasPrefix(rest, "0x")
	base, expChar := uint64(10), byte('e')
	if hex {
		base, expChar = 16, 'p'
		i += 2
	}
	digits := 0
	for ; i < len(s) && digitValue(s[i]) < base; i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for ; i < len(s) && digitValue(s[i]) < base; i++ {
			digits++
		}
	}
	if digits == 0 {
		if hex {
			return 1 + boolInt(s[0] == '+' || s[0] == '-') // the "0" of "0x"
		}
		return 0
	}
	if i < len(s) && (s[i]|0x20) == expChar {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && s[j] >= '0' && s[j] <= '9' {
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			i = j
		}
	}
	return i
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func hasNonZeroDigit(text string) bool {
	t := strings.ToLower(text)
	if strings.HasPrefix(strings.TrimLeft(t, "+-"), "0x") {
		t = strings.TrimLeft(t, "+-")[2:]
		t, _, _ = strings.Cut(t, "p")
	} else {
		t, _, _ = strings.Cut(t, "e")
	}
	return strings.ContainsAny(t, "123456789abcdef")
}
