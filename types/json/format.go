package json

import (
	"bytes"
	"math"
	"strconv"
	"unicode/utf8"
)

// Style is how JSON text is laid out: JSON.GET's INDENT, NEWLINE and
// SPACE. The zero Style is the compact form Kvrocks stores.
type Style struct {
	Indent  string // before a member or element, once per level
	Newline string // before each member or element and before the closing bracket
	Space   string // after the colon of a member
}

func (s Style) compact() bool { return s.Indent == "" && s.Newline == "" && s.Space == "" }

// Text returns v as compact JSON text, as Kvrocks stores and prints it.
func Text(v *Value) []byte { return AppendText(nil, v, Style{}) }

// AppendText appends v laid out in style st.
func AppendText(dst []byte, v *Value, st Style) []byte {
	if st.compact() {
		return appendCompact(dst, v)
	}
	return appendPretty(dst, v, st, 0)
}

func appendCompact(dst []byte, v *Value) []byte {
	switch v.Kind {
	case KindArray:
		dst = append(dst, '[')
		for i, e := range v.Elems {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendCompact(dst, e)
		}
		return append(dst, ']')
	case KindObject:
		dst = append(dst, '{')
		for i, m := range v.Fields {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendQuoted(dst, m.Key)
			dst = append(dst, ':')
			dst = appendCompact(dst, m.Val)
		}
		return append(dst, '}')
	}
	return appendScalar(dst, v)
}

func appendPretty(dst []byte, v *Value, st Style, depth int) []byte {
	switch {
	case v.Kind == KindArray && len(v.Elems) > 0:
		dst = append(dst, '[')
		for i, e := range v.Elems {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendBreak(dst, st, depth+1)
			dst = appendPretty(dst, e, st, depth+1)
		}
		dst = appendBreak(dst, st, depth)
		return append(dst, ']')
	case v.Kind == KindObject && len(v.Fields) > 0:
		dst = append(dst, '{')
		for i, m := range v.Fields {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendBreak(dst, st, depth+1)
			dst = appendQuoted(dst, m.Key)
			dst = append(dst, ':')
			dst = append(dst, st.Space...)
			dst = appendPretty(dst, m.Val, st, depth+1)
		}
		dst = appendBreak(dst, st, depth)
		return append(dst, '}')
	}
	return appendCompact(dst, v)
}

func appendBreak(dst []byte, st Style, depth int) []byte {
	dst = append(dst, st.Newline...)
	for i := 0; i < depth; i++ {
		dst = append(dst, st.Indent...)
	}
	return dst
}

func appendScalar(dst []byte, v *Value) []byte {
	switch v.Kind {
	case KindNull:
		return append(dst, "null"...)
	case KindBool:
		return strconv.AppendBool(dst, v.Bool)
	case KindInt:
		return strconv.AppendInt(dst, v.Int, 10)
	case KindUint:
		return strconv.AppendUint(dst, v.Uint, 10)
	case KindFloat:
		return appendFloat(dst, v.Float)
	}
	return appendQuoted(dst, v.Str)
}

// appendQuoted writes s as a JSON string: the two-character escapes,
// \u00XX in upper-case hex for the other control characters and DEL,
// everything else (slash and non-ASCII included) as it is.
func appendQuoted(dst []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			switch {
			case c < 0x20 || c == 0x7f:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			case c >= 0x80:
				n := validUTF8At(s, i)
				if n > 0 {
					dst = append(dst, s[i:i+n]...)
					i += n - 1
					break
				}
				// Bytes no parser takes back as UTF-8 are escaped: a
				// lone surrogate (a \u escape's, kept in its three-byte
				// form) as itself, which reads back the same; any other
				// byte as the code point of its value.
				r, size := rune(c), 1
				if c == 0xed && i+2 < len(s) && s[i+1] >= 0xa0 && s[i+1] <= 0xbf && s[i+2] >= 0x80 && s[i+2] <= 0xbf {
					r, size = rune(c&0x0f)<<12|rune(s[i+1]&0x3f)<<6|rune(s[i+2]&0x3f), 3
				}
				dst = append(dst, '\\', 'u', hex[r>>12], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
				i += size - 1
			default:
				dst = append(dst, c)
			}
		}
	}
	return append(dst, '"')
}

// validUTF8At returns the length of the UTF-8 sequence at s[i], 0 when
// it is none.
func validUTF8At(s string, i int) int {
	r, n := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && n <= 1 {
		return 0
	}
	return n
}

// appendFloat writes a double as jsoncons does: null for infinities and
// NaN, 0.0 for either zero, else the shortest digits that read back as
// the same double, laid out plainly for decimal exponents from -4 up to
// 16 (with .0 on integral values) and as d.ddde±XX beyond.
func appendFloat(dst []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(dst, "null"...)
	}
	if f == 0 {
		return append(dst, "0.0"...)
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	var buf [32]byte
	digits, exp := shortest(buf[:0], f)
	return prettify(dst, digits, exp)
}

// shortest returns the shortest decimal digits of f > 0, in buf's
// memory, and the exponent k such that f = digits × 10^k.
func shortest(buf []byte, f float64) ([]byte, int) {
	s := strconv.AppendFloat(buf, f, 'e', -1, 64) // d[.ddd]e±XX
	at := bytes.IndexByte(s, 'e')
	e := 0
	for _, c := range s[at+2:] {
		e = 10*e + int(c-'0')
	}
	if s[at+1] == '-' {
		e = -e
	}
	digits := s[:at]
	if len(digits) > 1 { // d.ddd: the point out
		digits = append(digits[:1], digits[2:]...)
	}
	return digits, e - len(digits) + 1
}

// prettify lays out digits × 10^k as jsoncons's prettify_string does
// (minimum exponent -4, maximum 17).
func prettify(dst []byte, digits []byte, k int) []byte {
	const minExp, maxExp = -4, 17
	n := len(digits)
	kk := n + k // the decimal point's position
	switch {
	case n <= kk && kk <= maxExp:
		dst = append(dst, digits...)
		for i := n; i < kk; i++ {
			dst = append(dst, '0')
		}
		return append(dst, '.', '0')
	case 0 < kk && kk <= maxExp:
		dst = append(dst, digits[:kk]...)
		dst = append(dst, '.')
		return append(dst, digits[kk:]...)
	case minExp < kk && kk <= 0:
		dst = append(dst, '0', '.')
		for i := kk; i < 0; i++ {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	dst = append(dst, digits[0])
	if n > 1 {
		dst = append(dst, '.')
		dst = append(dst, digits[1:]...)
	}
	dst = append(dst, 'e')
	return appendExponent(dst, kk-1)
}

// appendExponent writes a decimal exponent with its sign and at least
// two digits, as printf does.
func appendExponent(dst []byte, e int) []byte {
	if e < 0 {
		dst = append(dst, '-')
		e = -e
	} else {
		dst = append(dst, '+')
	}
	if e < 10 {
		dst = append(dst, '0')
	}
	return strconv.AppendInt(dst, int64(e), 10)
}
