// Package glob matches Redis-style glob patterns (KEYS, SCAN MATCH,
// CONFIG GET): '*' any run of bytes, '?' one byte, '[abc]', '[^a-z]'
// classes, and '\' escaping the next byte. It is pure and imports nothing of
// Basalt's.
package glob

// Match reports whether s matches pattern. With nocase, ASCII letters match
// regardless of case. It runs in O(len(pattern)*len(s)): on a mismatch only
// the most recent '*' is retried, which is enough because every other token
// consumes exactly one byte.
func Match(pattern, s []byte, nocase bool) bool {
	p := pattern
	var starP, starS []byte
	starSet := false
	for {
		if len(p) > 0 && p[0] == '*' {
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			if len(p) == 0 {
				return true
			}
			starP, starS, starSet = p, s, true
			continue
		}
		if len(p) == 0 && len(s) == 0 {
			return true
		}
		if rest, ok := matchOne(p, s, nocase); ok {
			p, s = rest, s[1:]
			continue
		}
		if !starSet || len(starS) == 0 {
			return false
		}
		starS = starS[1:]
		p, s = starP, starS
	}
}

// matchOne matches the single-byte token at the start of p against s[0] and
// returns the pattern after the token.
func matchOne(p, s []byte, nocase bool) ([]byte, bool) {
	if len(p) == 0 || len(s) == 0 {
		return nil, false
	}
	switch p[0] {
	case '?':
		return p[1:], true
	case '[':
		ok, rest := matchClass(p[1:], s[0], nocase)
		return rest, ok
	case '\\':
		if len(p) >= 2 {
			p = p[1:]
		}
	}
	return p[1:], equal(p[0], s[0], nocase)
}

// matchClass matches c against the class that starts after '[' and returns
// the pattern after the closing ']' (or the end, for an unclosed class).
func matchClass(p []byte, c byte, nocase bool) (bool, []byte) {
	not := len(p) > 0 && p[0] == '^'
	if not {
		p = p[1:]
	}
	matched := false
	for len(p) > 0 && p[0] != ']' {
		switch {
		case p[0] == '\\' && len(p) >= 2:
			if equal(p[1], c, nocase) {
				matched = true
			}
			p = p[2:]
		case len(p) >= 3 && p[1] == '-':
			lo, hi := p[0], p[2]
			if lo > hi {
				lo, hi = hi, lo
			}
			if nocase {
				lo, hi, c = lower(lo), lower(hi), lower(c)
			}
			if c >= lo && c <= hi {
				matched = true
			}
			p = p[3:]
		default:
			if equal(p[0], c, nocase) {
				matched = true
			}
			p = p[1:]
		}
	}
	if len(p) > 0 {
		p = p[1:] // the ']'
	}
	return matched != not, p
}

func equal(a, b byte, nocase bool) bool {
	if nocase {
		return lower(a) == lower(b)
	}
	return a == b
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// LiteralPrefix returns the bytes every match of pattern starts with: the
// pattern up to its first special character, with escapes resolved. A scan
// can seek to it and stop after it.
func LiteralPrefix(pattern []byte) []byte {
	var out []byte
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '*', '?', '[':
			return out
		case '\\':
			if i+1 >= len(pattern) {
				return out
			}
			i++
		}
		out = append(out, pattern[i])
	}
	return out
}

// IsLiteral reports whether pattern matches exactly one string (itself,
// after escapes).
func IsLiteral(pattern []byte) bool {
	return len(LiteralPrefix(pattern)) == literalLen(pattern)
}

func literalLen(pattern []byte) int {
	n := 0
	for i := 0; i < len(pattern); i++ {
		if pattern[i] == '\\' && i+1 < len(pattern) {
			i++
		}
		n++
	}
	return n
}
