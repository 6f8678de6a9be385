package config

import (
	"errors"
	"strings"
)

// parseLine splits one config line into key and value with Kvrocks's rules:
// `#` starts a comment outside quotes; an unquoted value is the rest of the
// line with inner spaces kept; a quoted value ("..." or '...') knows the
// escapes \\ \" \' \t \r \n \v \f \b and must be followed only by blanks or
// a comment. Blank and comment lines return an empty key.
func parseLine(line string) (key, val string, err error) {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' {
		return "", "", nil
	}
	end := strings.IndexAny(line, " \t")
	if end < 0 {
		key, line = line, ""
	} else {
		key, line = line[:end], strings.TrimLeft(line[end:], " \t")
	}
	if i := strings.IndexByte(key, '#'); i >= 0 {
		return key[:i], "", nil
	}
	if line == "" {
		return key, "", nil
	}
	if q := line[0]; q == '"' || q == '\'' {
		val, rest, err := unquote(line)
		if err != nil {
			return "", "", err
		}
		rest = strings.TrimSpace(rest)
		if rest != "" && rest[0] != '#' {
			return "", "", errors.New("more than 2 item in config line")
		}
		return key, val, nil
	}
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	return key, strings.TrimRight(line, " \t"), nil
}

var escapes = map[byte]byte{'\\': '\\', '"': '"', '\'': '\'', 't': '\t', 'r': '\r', 'n': '\n', 'v': '\v', 'f': '\f', 'b': '\b'}

// unquote reads the quoted string at the start of s and returns it and
// what follows the closing quote.
func unquote(s string) (val, rest string, err error) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			if e, ok := escapes[s[i+1]]; ok {
				b.WriteByte(e)
				i++
				continue
			}
			b.WriteByte(c)
		case c == q:
			return b.String(), s[i+1:], nil
		default:
			b.WriteByte(c)
		}
	}
	return "", "", errors.New("unterminated quoted value")
}

// quote renders a value for the config file, quoting it when it holds
// blanks, quotes, '#' or control characters.
func quote(v string) string {
	if v != "" && !strings.ContainsAny(v, " \t\"'#\\\r\n\v\f\b") {
		return v
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\', '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case '\n':
			b.WriteString(`\n`)
		case '\v':
			b.WriteString(`\v`)
		case '\f':
			b.WriteString(`\f`)
		case '\b':
			b.WriteString(`\b`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
