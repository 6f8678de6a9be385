package resp

import "bytes"

// SplitArgs splits an inline request line into arguments the way Redis's
// sdssplitargs does: arguments are separated by blanks; "double quotes"
// take the escapes \n \r \t \b \a \xHH and \<any>; 'single quotes' take
// only \'; a closing quote must be followed by a blank or the end. ok is
// false for unbalanced quotes. A NUL byte ends the line, as it ends the C
// string Redis parses. The arguments are new allocations.
func SplitArgs(line []byte) (args [][]byte, ok bool) {
	if i := bytes.IndexByte(line, 0); i >= 0 {
		line = line[:i]
	}
	p := 0
	for {
		for p < len(line) && isBlank(line[p]) {
			p++
		}
		if p == len(line) {
			return args, true
		}
		var arg []byte
		switch line[p] {
		case '"':
			arg, p, ok = doubleQuoted(line, p+1)
		case '\'':
			arg, p, ok = singleQuoted(line, p+1)
		default:
			arg, p, ok = unquoted(line, p)
		}
		if !ok {
			return nil, false
		}
		args = append(args, arg)
	}
}

// isBlank is C's isspace.
func isBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// unquoted reads an argument from p up to a separator; a quote inside it
// starts a quoted part that continues the same argument.
func unquoted(line []byte, p int) ([]byte, int, bool) {
	arg := []byte{}
	for p < len(line) {
		switch c := line[p]; c {
		case ' ', '\n', '\r', '\t':
			return arg, p, true
		case '"', '\'':
			var quoted []byte
			var ok bool
			if c == '"' {
				quoted, p, ok = doubleQuoted(line, p+1)
			} else {
				quoted, p, ok = singleQuoted(line, p+1)
			}
			return append(arg, quoted...), p, ok
		default:
			arg = append(arg, c)
			p++
		}
	}
	return arg, p, true
}

// doubleQuoted reads from just after an opening '"' through its closing
// quote.
func doubleQuoted(line []byte, p int) ([]byte, int, bool) {
	arg := []byte{}
	for p < len(line) {
		c := line[p]
		switch {
		case c == '\\' && p+3 < len(line) && line[p+1] == 'x' && isHex(line[p+2]) && isHex(line[p+3]):
			arg = append(arg, unhex(line[p+2])<<4|unhex(line[p+3]))
			p += 4
		case c == '\\' && p+1 < len(line):
			arg = append(arg, unescape(line[p+1]))
			p += 2
		case c == '"':
			return closeQuote(arg, line, p)
		default:
			arg = append(arg, c)
			p++
		}
	}
	return nil, p, false
}

// singleQuoted reads from just after an opening single quote through its
// closing quote.
func singleQuoted(line []byte, p int) ([]byte, int, bool) {
	arg := []byte{}
	for p < len(line) {
		c := line[p]
		switch {
		case c == '\\' && p+1 < len(line) && line[p+1] == '\'':
			arg = append(arg, '\'')
			p += 2
		case c == '\'':
			return closeQuote(arg, line, p)
		default:
			arg = append(arg, c)
			p++
		}
	}
	return nil, p, false
}

// closeQuote ends a quoted argument at the quote at p, which must be
// followed by a blank or the end of the line.
func closeQuote(arg, line []byte, p int) ([]byte, int, bool) {
	if p+1 < len(line) && !isBlank(line[p+1]) {
		return nil, p, false
	}
	return arg, p + 1, true
}

func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'a':
		return '\a'
	}
	return c
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
