package num

import (
	"math"
	"strconv"
)

// AppendShortDouble appends f as Redis 7.2+ prints a double reply
// (d2string, REDIS-NEW.md §0.4), as modules' doubles reach clients of
// Redis 8 (RedisModule_ReplyWithDouble): nan, inf, -inf, 0 and -0; an integral value within ±(2^63−1)/2 as an
// integer; otherwise the shortest digits that read back as f (Redis's
// fpconv uses Grisu2, which in rare cases gives a longer string than the
// shortest Go finds), in plain decimal unless the exponent is far from
// the digits, then as d.ddde±x (1.5e-7, 1e+21).
func AppendShortDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case f == 0 && math.Signbit(f):
		return append(dst, "-0"...)
	case f >= -math.MaxInt64/2 && f <= math.MaxInt64/2 && f == math.Trunc(f):
		return strconv.AppendInt(dst, int64(f), 10)
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64) // d[.ddd]e±xx
	mant, exp := e, 0
	for i, c := range e {
		if c == 'e' {
			mant = e[:i]
			n, _ := strconv.Atoi(string(e[i+1:]))
			exp = n
			break
		}
	}
	digits := make([]byte, 0, len(mant))
	for _, c := range mant {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	return appendDigits(dst, digits, exp-(len(digits)-1))
}

// appendDigits writes the value digits·10^k as fpconv's emit_digits
// does: an integer with k zeros, a decimal when the point falls near the
// digits, else scientific notation with an unpadded exponent.
func appendDigits(dst, digits []byte, k int) []byte {
	n := len(digits)
	exp := k + n - 1 // the exponent of the first digit
	absExp := max(exp, -exp)
	switch {
	case k >= 0 && absExp < n+7:
		dst = append(dst, digits...)
		for range k {
			dst = append(dst, '0')
		}
		return dst
	case k < 0 && (k > -7 || absExp < 4):
		point := n + k // digits before the point
		if point <= 0 {
			dst = append(dst, '0', '.')
			for range -point {
				dst = append(dst, '0')
			}
			return append(dst, digits...)
		}
		dst = append(dst, digits[:point]...)
		dst = append(dst, '.')
		return append(dst, digits[point:]...)
	}
	dst = append(dst, digits[0])
	if n > 1 {
		dst = append(dst, '.')
		dst = append(dst, digits[1:]...)
	}
	dst = append(dst, 'e')
	if exp < 0 {
		dst = append(dst, '-')
	} else {
		dst = append(dst, '+')
	}
	return strconv.AppendInt(dst, int64(absExp), 10)
}
