package json

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// ErrParse is the error of a JSON text that does not parse; its message,
// after the package prefix, is jsoncons's with the line and column.
var ErrParse = errors.New("json: bad JSON")

// ErrEmptyText is the error of an empty JSON text (Kvrocks's own message).
var ErrEmptyText = fmt.Errorf("%w: Failed to parse json string: Source error", ErrParse)

// ParseError is a JSON text error at a position, worded as jsoncons words
// it.
type ParseError struct {
	Msg          string
	Line, Column int
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s at line %d and column %d", e.Msg, e.Line, e.Column)
}

// Unwrap makes a ParseError an ErrParse.
func (e *ParseError) Unwrap() error { return ErrParse }

// The messages of jsoncons's JSON parser.
const (
	msgEOF             = "Unexpected end of file"
	msgSyntax          = "JSON syntax_error"
	msgExtra           = "Unexpected non-whitespace character after JSON text"
	msgDepth           = "Data item nesting exceeds limit in options"
	msgExtraComma      = "Extra comma"
	msgExpectedKey     = "Expected object member key"
	msgExpectedValue   = "Expected value"
	msgInvalidValue    = "Invalid value"
	msgExpectedColon   = "Expected name separator ':'"
	msgControl         = "Illegal control character in string"
	msgEscape          = "Illegal escaped character in string"
	msgSurrogate       = "Invalid codepoint, expected another \\u token to begin the second half of a codepoint surrogate pair."
	msgHex             = "Invalid codepoint, expected four hexadecimal digits."
	msgLeadingZero     = "A number cannot have a leading zero"
	msgInvalidNumber   = "Invalid number"
	msgCommaOrBrace    = "Expected comma or right brace '}'"
	msgCommaOrBracket  = "Expected comma or right bracket ']'"
	msgUnexpectedBrace = "Unexpected right brace '}'"
	msgUnexpectedBrack = "Unexpected right bracket ']'"
	msgBadUTF8         = "Illegal codepoint (>= 0xd800 && <= 0xdfff)"
)

// DefaultMaxDepth is jsoncons's nesting limit, the one stored documents
// are read with.
const DefaultMaxDepth = 1024

// Parse parses a JSON text as jsoncons does: comments allowed, a leading
// byte order mark skipped, the first of duplicate members kept, integers
// beyond 64 bits kept as bignum strings, containers nested at most
// maxDepth deep. The error is a *ParseError or ErrEmptyText.
func Parse(text []byte, maxDepth int) (*Value, error) {
	p := &parser{s: text, line: 1, col: 1, maxDepth: maxDepth, afterNum: -1}
	if len(text) >= 3 && text[0] == 0xef && text[1] == 0xbb && text[2] == 0xbf {
		p.i = 3
	}
	if p.onlySpaces() {
		return nil, ErrEmptyText
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.i >= len(p.s) {
		return nil, p.fail(msgEOF)
	}
	var v *Value
	var err error
	switch c := p.s[p.i]; {
	case c == '{' || c == '[' || c == '"' || c == '-' || isDigit(c) || c == 't' || c == 'f' || c == 'n':
		v, err = p.value(0)
	case c == ']':
		return nil, p.fail(msgUnexpectedBrack)
	case c == '}':
		return nil, p.fail(msgUnexpectedBrace)
	default:
		return nil, p.fail(msgSyntax)
	}
	if err != nil {
		return nil, err
	}
	// jsoncons reports trailing text at the column where the root value
	// ended (a number having taken the character that ended it).
	line, col := p.line, p.col
	if p.numberEnd >= 0 && p.numberEnd < len(p.s) {
		p.advance()
		line, col = p.line, p.col
	}
	for p.i < len(p.s) {
		if !isSpace(p.s[p.i]) {
			return nil, &ParseError{Msg: msgExtra, Line: line, Column: col}
		}
		p.i++
	}
	return v, nil
}

type parser struct {
	s         []byte
	i         int
	line, col int
	maxDepth  int
	afterNum  int // where the last number ended
	numberEnd int // where the root number ended, -1 when the root is not a number
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *parser) onlySpaces() bool {
	for _, c := range p.s[p.i:] {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// failAfterNumber reports an unexpected byte; right after a number
// jsoncons has already taken it, and reports the column after it.
func (p *parser) failAfterNumber(msg string) error {
	if p.i == p.afterNum {
		p.advance()
	}
	return p.fail(msg)
}

func (p *parser) fail(msg string) error { return &ParseError{Msg: msg, Line: p.line, Column: p.col} }

// advance moves past one byte, counting lines as jsoncons does: \r and
// \n each start a line, the \n of \r\n only moves the column.
func (p *parser) advance() {
	c := p.s[p.i]
	p.i++
	switch {
	case c == '\n' && p.i >= 2 && p.s[p.i-2] == '\r':
		p.col++
	case c == '\n' || c == '\r':
		p.line++
		p.col = 1
	default:
		p.col++
	}
}

// skip skips white space and comments.
func (p *parser) skip() error {
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case isSpace(c):
			p.advance()
		case c == '/':
			if err := p.comment(); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return nil
}

func (p *parser) comment() error {
	p.advance()
	if p.i >= len(p.s) {
		return p.fail(msgEOF)
	}
	switch p.s[p.i] {
	case '/':
		for p.i < len(p.s) && p.s[p.i] != '\n' && p.s[p.i] != '\r' {
			p.advance()
		}
		return nil
	case '*':
		p.advance()
		for {
			if p.i >= len(p.s) {
				return p.fail(msgEOF)
			}
			if p.s[p.i] == '*' && p.i+1 < len(p.s) && p.s[p.i+1] == '/' {
				p.advance()
				p.advance()
				return nil
			}
			p.advance()
		}
	}
	return p.fail(msgSyntax)
}

// value parses the value at p.i, which starts with a valid first byte.
func (p *parser) value(depth int) (*Value, error) {
	p.numberEnd = -1
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return NewString(s), nil
	case c == 't':
		return p.literal("true", NewBool(true))
	case c == 'f':
		return p.literal("false", NewBool(false))
	case c == 'n':
		return p.literal("null", Null())
	}
	return p.number(depth)
}

// startsValue reports whether c can begin a value inside a container.
func startsValue(c byte) bool {
	return c == '{' || c == '[' || c == '"' || c == '-' || isDigit(c) || c == 't' || c == 'f' || c == 'n'
}

func (p *parser) open(depth int) error {
	p.advance()
	if depth > p.maxDepth {
		return p.fail(msgDepth)
	}
	return nil
}

func (p *parser) array(depth int) (*Value, error) {
	if err := p.open(depth); err != nil {
		return nil, err
	}
	arr := NewArray()
	arr.Elems = []*Value{}
	afterComma := false
	for {
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.i >= len(p.s) {
			return nil, p.fail(msgEOF)
		}
		c := p.s[p.i]
		if c == ']' {
			if afterComma { // jsoncons reports it past the bracket
				p.advance()
				return nil, p.fail(msgExtraComma)
			}
			p.advance()
			return arr, nil
		}
		if len(arr.Elems) > 0 && !afterComma {
			if c != ',' {
				return nil, p.failAfterNumber(msgCommaOrBracket)
			}
			p.advance()
			afterComma = true
			continue
		}
		if !startsValue(c) {
			return nil, p.fail(msgExpectedValue)
		}
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		arr.Elems = append(arr.Elems, v)
		afterComma = false
	}
}

func (p *parser) object(depth int) (*Value, error) {
	if err := p.open(depth); err != nil {
		return nil, err
	}
	obj := NewObject()
	afterComma, members := false, 0
	for {
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.i >= len(p.s) {
			return nil, p.fail(msgEOF)
		}
		c := p.s[p.i]
		if c == '}' && (members == 0 || !afterComma) {
			if afterComma {
				return nil, p.fail(msgExtraComma)
			}
			p.advance()
			return obj, nil
		}
		if c == '}' {
			return nil, p.fail(msgExtraComma)
		}
		if members > 0 && !afterComma {
			if c != ',' {
				return nil, p.failAfterNumber(msgCommaOrBrace)
			}
			p.advance()
			afterComma = true
			continue
		}
		if c != '"' {
			return nil, p.fail(msgExpectedKey)
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.i >= len(p.s) {
			return nil, p.fail(msgEOF)
		}
		if p.s[p.i] != ':' {
			return nil, p.fail(msgExpectedColon)
		}
		p.advance()
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.i >= len(p.s) {
			return nil, p.fail(msgEOF)
		}
		if !startsValue(p.s[p.i]) {
			return nil, p.fail(msgExpectedValue)
		}
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		obj.insertFirst(key, v)
		members++
		afterComma = false
	}
}

// literal parses true, false or null: jsoncons compares the whole word
// when the text holds enough bytes for it, byte by byte otherwise, and
// reports a mismatch where its comparison failed.
func (p *parser) literal(word string, v *Value) (*Value, error) {
	if len(p.s)-p.i >= len(word) {
		if string(p.s[p.i:p.i+len(word)]) != word {
			return nil, p.fail(msgInvalidValue)
		}
		for range word {
			p.advance()
		}
		return v, nil
	}
	for k := 0; k < len(word); k++ {
		if p.i >= len(p.s) {
			return nil, p.fail(msgEOF)
		}
		if p.s[p.i] != word[k] {
			return nil, p.fail(msgInvalidValue)
		}
		p.advance()
	}
	return v, nil
}

// endsNumber reports whether c may follow a number.
func endsNumber(c byte) bool {
	return isSpace(c) || c == ',' || c == ']' || c == '}' || c == '/'
}

func (p *parser) number(depth int) (*Value, error) {
	start := p.i
	float := false
	if p.s[p.i] == '-' {
		p.advance()
	}
	// the integer part
	switch {
	case p.i >= len(p.s):
		return nil, p.fail(msgEOF)
	case p.s[p.i] == '0':
		p.advance()
		if p.i < len(p.s) && isDigit(p.s[p.i]) {
			return nil, p.fail(msgLeadingZero)
		}
	case isDigit(p.s[p.i]):
		for p.i < len(p.s) && isDigit(p.s[p.i]) {
			p.advance()
		}
	default:
		return nil, p.fail(msgExpectedValue)
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		float = true
		p.advance()
		if p.i >= len(p.s) {
			return nil, p.fail(msgEOF)
		}
		if !isDigit(p.s[p.i]) {
			return nil, p.fail(msgInvalidNumber)
		}
		for p.i < len(p.s) && isDigit(p.s[p.i]) {
			p.advance()
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		float = true
		p.advance()
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.advance()
		}
		if p.i >= len(p.s) {
			return nil, p.fail(msgEOF)
		}
		if !isDigit(p.s[p.i]) {
			return nil, p.fail(msgExpectedValue)
		}
		for p.i < len(p.s) && isDigit(p.s[p.i]) {
			p.advance()
		}
	}
	if p.i < len(p.s) && !endsNumber(p.s[p.i]) {
		return nil, p.fail(msgInvalidNumber)
	}
	if p.i >= len(p.s) && depth > 0 {
		return nil, p.fail(msgEOF)
	}
	if depth == 0 {
		p.numberEnd = p.i
	}
	p.afterNum = p.i
	return numberValue(string(p.s[start:p.i]), float), nil
}

// numberValue converts valid number text as jsoncons does.
func numberValue(text string, float bool) *Value {
	if float {
		f, _ := strconv.ParseFloat(text, 64) // out of range gives ±Inf or 0, as strtod
		return NewFloat(f)
	}
	if text[0] == '-' {
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return NewInt(n)
		}
	} else if u, err := strconv.ParseUint(text, 10, 64); err == nil {
		return newUint(u)
	}
	return &Value{Kind: KindString, Str: text, BigInt: true}
}

// str parses a string at p.i (its opening quote). Raw bytes must be
// UTF-8, which jsoncons checks once the string is closed.
func (p *parser) str() (string, error) {
	p.advance()
	var out []byte
	valid, run := true, p.i
	endRun := func() {
		valid = valid && utf8.Valid(p.s[run:p.i])
	}
	for {
		if p.i >= len(p.s) {
			return "", p.fail(msgEOF)
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			endRun()
			p.advance()
			if !valid {
				return "", p.fail(msgBadUTF8)
			}
			return string(out), nil
		case c == '\\':
			endRun()
			r, err := p.escape()
			if err != nil {
				return "", err
			}
			out = append(out, r...)
			run = p.i
		case c < 0x20: // reported past the character, as jsoncons does
			p.advance()
			return "", p.fail(msgControl)
		default:
			out = append(out, c)
			p.advance()
		}
	}
}

// simpleEscapes are the one-letter escapes and what they stand for.
var simpleEscapes = map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// escape parses an escape sequence at p.i and returns its UTF-8 bytes.
func (p *parser) escape() ([]byte, error) {
	p.advance()
	if p.i >= len(p.s) {
		return nil, p.fail(msgEOF)
	}
	c := p.s[p.i]
	if r, ok := simpleEscapes[c]; ok {
		p.advance()
		return []byte{r}, nil
	}
	if c != 'u' {
		return nil, p.fail(msgEscape)
	}
	p.advance()
	hi, err := p.hex4()
	if err != nil {
		return nil, err
	}
	if hi < 0xd800 || hi > 0xdbff {
		return encodeCodepoint(hi), nil
	}
	if p.i >= len(p.s) {
		return nil, p.fail(msgEOF)
	}
	if p.s[p.i] != '\\' {
		return nil, p.fail(msgSurrogate)
	}
	p.advance()
	if p.i >= len(p.s) {
		return nil, p.fail(msgEOF)
	}
	if p.s[p.i] != 'u' {
		return nil, p.fail(msgSurrogate)
	}
	p.advance()
	lo, err := p.hex4()
	if err != nil {
		return nil, err
	}
	// jsoncons combines the pair without checking the second half.
	return encodeCodepoint(0x10000 + (hi&0x3ff)<<10 + lo&0x3ff), nil
}

func (p *parser) hex4() (rune, error) {
	var r rune
	for k := 0; k < 4; k++ {
		if p.i >= len(p.s) {
			return 0, p.fail(msgEOF)
		}
		c := p.s[p.i]
		var d byte
		switch {
		case isDigit(c):
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, p.fail(msgHex)
		}
		r = r<<4 | rune(d)
		p.advance()
	}
	return r, nil
}

// encodeCodepoint writes a code point as UTF-8, a lone surrogate as its
// three-byte form (as jsoncons does, where Go would write U+FFFD).
func encodeCodepoint(r rune) []byte {
	if r >= 0xd800 && r <= 0xdfff {
		return []byte{0xe0 | byte(r>>12), 0x80 | byte(r>>6)&0x3f, 0x80 | byte(r)&0x3f}
	}
	return utf8.AppendRune(nil, r)
}

// parsePrefix parses the JSON value at the start of text and returns it
// with the number of bytes it took, as jsoncons reads a filter's
// literals (a number ends where the number syntax does).
func parsePrefix(text []byte) (*Value, int, error) {
	p := &parser{s: text, line: 1, col: 1, maxDepth: DefaultMaxDepth}
	if len(text) == 0 {
		return nil, 0, p.fail(msgEOF)
	}
	if c := text[0]; c == '-' || isDigit(c) {
		n, float := numberPrefix(text)
		if n == 0 {
			return nil, 0, p.fail(msgSyntax)
		}
		return numberValue(string(text[:n]), float), n, nil
	}
	if !startsValue(text[0]) {
		return nil, 0, p.fail(msgSyntax)
	}
	v, err := p.value(0)
	return v, p.i, err
}

// numberPrefix returns the length of the number at the start of s, and
// whether it has a fraction or an exponent.
func numberPrefix(s []byte) (int, bool) {
	i := 0
	digits := func() int {
		start := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		return i - start
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i < len(s) && s[i] == '0' {
		i++
	} else if digits() == 0 {
		return 0, false
	}
	end, float := i, false
	if i < len(s) && s[i] == '.' {
		i++
		if digits() > 0 {
			end, float = i, true
		}
	}
	i = end
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() > 0 {
			end, float = i, true
		}
	}
	return end, float
}

// asParseError reports whether err is a *ParseError and sets *pe to it.
func asParseError(err error, pe **ParseError) bool { return errors.As(err, pe) }
