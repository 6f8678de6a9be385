package search

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// scanner is the cursor of the two query parsers, which are PEG parsers
// like Kvrocks's (PEGTL): every rule either consumes what it matched or
// leaves the position where it was, and alternatives are tried in order.
type scanner struct {
	s   string
	pos int
}

// ws skips Kvrocks's white space: space, tab, line feed, carriage return.
func (p *scanner) ws() {
	for p.pos < len(p.s) && isSpace(p.s[p.pos]) {
		p.pos++
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// lit consumes t if the input continues with it.
func (p *scanner) lit(t string) bool {
	if strings.HasPrefix(p.s[p.pos:], t) {
		p.pos += len(t)
		return true
	}
	return false
}

// padded consumes t with white space around it.
func (p *scanner) padded(t string) bool {
	at := p.pos
	p.ws()
	if !p.lit(t) {
		p.pos = at
		return false
	}
	p.ws()
	return true
}

func isIdentFirst(c byte) bool { return c == '_' || (c|0x20) >= 'a' && (c|0x20) <= 'z' }
func isIdentOther(c byte) bool { return isIdentFirst(c) || c >= '0' && c <= '9' }

// ident consumes an identifier: [A-Za-z_][A-Za-z0-9_]*.
func (p *scanner) ident() (string, bool) {
	if p.pos >= len(p.s) || !isIdentFirst(p.s[p.pos]) {
		return "", false
	}
	start := p.pos
	for p.pos < len(p.s) && isIdentOther(p.s[p.pos]) {
		p.pos++
	}
	return p.s[start:p.pos], true
}

func (p *scanner) digits() bool {
	start := p.pos
	for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
		p.pos++
	}
	return p.pos > start
}

// number consumes -?digits(.digits)?([eE][-+]?digits)? and returns its
// text.
func (p *scanner) number() (string, bool) {
	start := p.pos
	p.lit("-")
	if !p.digits() {
		p.pos = start
		return "", false
	}
	if at := p.pos; p.lit(".") && !p.digits() {
		p.pos = at
	}
	if at := p.pos; p.pos < len(p.s) && (p.s[p.pos]|0x20) == 'e' {
		p.pos++
		if p.pos < len(p.s) && (p.s[p.pos] == '-' || p.s[p.pos] == '+') {
			p.pos++
		}
		if !p.digits() {
			p.pos = at
		}
	}
	return p.s[start:p.pos], true
}

// stringLit consumes a double-quoted string with the escapes \" \\ \b \f
// \n \r \t and \uXXXX, and returns its text undecoded (between the quotes).
func (p *scanner) stringLit() (string, bool) {
	start := p.pos
	if !p.lit(`"`) {
		return "", false
	}
	for p.pos < len(p.s) {
		switch c := p.s[p.pos]; {
		case c == '"':
			p.pos++
			return p.s[start+1 : p.pos-1], true
		case c == '\\':
			if p.pos+1 >= len(p.s) {
				p.pos = start
				return "", false
			}
			switch p.s[p.pos+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				p.pos += 2
			case 'u':
				if p.pos+6 > len(p.s) || !isHex4(p.s[p.pos+2:p.pos+6]) {
					p.pos = start
					return "", false
				}
				p.pos += 6
			default:
				p.pos = start
				return "", false
			}
		default:
			p.pos++
		}
	}
	p.pos = start
	return "", false
}

func isHex4(s string) bool {
	for i := 0; i < 4; i++ {
		if digitValue(s[i]) >= 16 {
			return false
		}
	}
	return true
}

// unescape decodes the text of a string literal; a \u escape of a
// surrogate is refused with Kvrocks's text.
func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			cp, _ := strconv.ParseUint(s[i+1:i+5], 16, 32)
			if !utf8.ValidRune(rune(cp)) {
				return "", failf(ErrSyntax, "invalid Unicode code point '%s' in string literal", s[i+1:i+5])
			}
			b.WriteRune(rune(cp))
			i += 4
		default: // " and \
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

// literalNumber converts the text of a number literal; one too large for
// a double is refused (Kvrocks crashes on it).
func literalNumber(text string) (float64, error) {
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return 0, fail(ErrSyntax, "number "+text+" is out of range")
	}
	return f, nil
}
