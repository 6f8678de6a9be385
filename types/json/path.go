package json

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// ErrPath is the error of a JSONPath that does not parse; its message,
// after the package prefix, is jsoncons's with the line and column.
var ErrPath = errors.New("json: bad path")

// PathError is a JSONPath syntax error at a column, worded as jsoncons
// words it.
type PathError struct {
	Msg    string
	Column int
}

func (e *PathError) Error() string { return fmt.Sprintf("%s at line 1 and column %d", e.Msg, e.Column) }

// Unwrap makes a PathError an ErrPath.
func (e *PathError) Unwrap() error { return ErrPath }

// The messages of jsoncons's JSONPath parser.
const (
	msgExpectedRoot     = "Expected '$' or function expression"
	msgPathSyntax       = "Syntax error"
	msgExpectedSelector = "Expected index, single or double quoted name, expression, filter, absolute ('$') path or relative ('@') path"
	msgStepZero         = "Slice step cannot be zero"
	msgExpectedParen    = "Expected )"
	msgExpectedSep      = "Expected dot or left bracket separator"
	msgUnknownFunction  = "Unknown function"
	msgNotNormalized    = "Expected '[' or '.'"
)

// Path is a compiled JSONPath.
type Path struct {
	Text     string
	relative bool // starts with @
	steps    []*step
	call     *expr // a path that is a function expression, such as length($.a)
}

type stepKind uint8

const (
	stepName stepKind = iota
	stepIndex
	stepWildcard
	stepSlice
	stepUnion
	stepFilter
	stepExpr // [(expression)]: an index or a name computed from the node
	stepPath // a path inside a union: $… from the root, @… from the node
	stepSelf // a trailing .., which selects the containers
)

// step is one selector of a path.
type step struct {
	kind    stepKind
	descent bool // applied at the node and every node below it (..)
	name    string
	index   int
	slice   [3]*int // start, end, step; nil where omitted
	union   []*step
	expr    *expr
	path    *Path
}

// ParsePath compiles a JSONPath as jsoncons does; the error is a
// *PathError.
func ParsePath(text string) (*Path, error) {
	if !utf8.ValidString(text) { // names become members, which must be UTF-8
		for i := range text {
			if r, n := utf8.DecodeRuneInString(text[i:]); r == utf8.RuneError && n <= 1 {
				return nil, &PathError{Msg: msgPathSyntax, Column: i + 1}
			}
		}
	}
	p := &pathParser{s: text}
	path, err := p.path(false)
	if err != nil {
		return nil, err
	}
	if p.i < len(p.s) {
		return nil, p.fail(msgPathSyntax, p.i+1)
	}
	path.Text = text
	return path, nil
}

type pathParser struct {
	s string
	i int
}

func (p *pathParser) fail(msg string, col int) error { return &PathError{Msg: msg, Column: col} }
func (p *pathParser) eof() bool                      { return p.i >= len(p.s) }
func (p *pathParser) peek() byte                     { return p.s[p.i] }

func (p *pathParser) spaces() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 0x80 || isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

func (p *pathParser) name() string {
	start := p.i
	for p.i < len(p.s) && isNameByte(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// path parses a path at p.i. Inside a filter (nested) it stops before
// what cannot continue a path, for the expression parser to read.
func (p *pathParser) path(nested bool) (*Path, error) {
	path := &Path{}
	if p.eof() {
		return nil, p.fail(msgExpectedRoot, p.i+1)
	}
	switch c := p.peek(); {
	case c == '$':
		p.i++
	case c == '@':
		p.i++
		path.relative = true
	case !nested && isNameByte(c) && !isDigit(c):
		e, err := p.callAt()
		if err != nil {
			return nil, err
		}
		path.call = e
		return path, nil
	default:
		return nil, p.fail(msgExpectedRoot, p.i+1)
	}
	for !p.eof() {
		c := p.peek()
		switch {
		case c == '.':
			st, err := p.dotted()
			if err != nil {
				return nil, err
			}
			path.steps = append(path.steps, st)
		case c == '[':
			st, err := p.bracket()
			if err != nil {
				return nil, err
			}
			path.steps = append(path.steps, st)
		case nested:
			return path, nil
		default:
			return nil, p.fail(msgPathSyntax, p.i+2)
		}
	}
	return path, nil
}

// callAt parses a function expression used as a whole path.
func (p *pathParser) callAt() (*expr, error) {
	start := p.i
	name := p.name()
	if p.eof() || p.peek() != '(' {
		return nil, p.fail(msgPathSyntax, p.i+1)
	}
	p.i = start
	_ = name
	return p.primary()
}

// dotted parses .name, .*, ..name, ..*, ..[…] and a trailing .. at p.i.
func (p *pathParser) dotted() (*step, error) {
	p.i++ // .
	descent := false
	if !p.eof() && p.peek() == '.' {
		p.i++
		descent = true
		if p.eof() {
			return &step{kind: stepSelf, descent: true}, nil
		}
		if p.peek() == '[' {
			st, err := p.bracket()
			if err != nil {
				return nil, err
			}
			st.descent = true
			return st, nil
		}
	}
	if p.eof() {
		return nil, p.fail(msgPathSyntax, p.i+1)
	}
	if p.peek() == '*' {
		p.i++
		return &step{kind: stepWildcard, descent: descent}, nil
	}
	if !isNameByte(p.peek()) {
		return nil, p.fail(msgPathSyntax, p.i+1)
	}
	return &step{kind: stepName, name: p.name(), descent: descent}, nil
}

// bracket parses […] at p.i: one selector or a union of several.
func (p *pathParser) bracket() (*step, error) {
	p.i++ // [
	var sels []*step
	for {
		p.spaces()
		if p.eof() {
			return nil, p.fail(msgPathSyntax, p.i+1)
		}
		sel, err := p.selector()
		if err != nil {
			return nil, err
		}
		sels = append(sels, sel)
		p.spaces()
		if p.eof() {
			return nil, p.fail(msgPathSyntax, p.i+1)
		}
		switch p.peek() {
		case ',':
			p.i++
			continue
		case ']':
			p.i++
			if len(sels) == 1 {
				return sels[0], nil
			}
			return &step{kind: stepUnion, union: sels}, nil
		}
		return nil, p.fail(msgPathSyntax, p.i+1)
	}
}

func (p *pathParser) selector() (*step, error) {
	switch c := p.peek(); {
	case c == '*':
		p.i++
		return &step{kind: stepWildcard}, nil
	case c == '\'' || c == '"':
		s, err := p.quoted()
		if err != nil {
			return nil, err
		}
		return &step{kind: stepName, name: s}, nil
	case c == '?':
		p.i++
		p.spaces()
		e, err := p.expression(0)
		if err != nil {
			return nil, err
		}
		return &step{kind: stepFilter, expr: e}, nil
	case c == '(':
		e, err := p.primary()
		if err != nil {
			return nil, err
		}
		return &step{kind: stepExpr, expr: e}, nil
	case c == '$' || c == '@':
		sub, err := p.path(true)
		if err != nil {
			return nil, err
		}
		return &step{kind: stepPath, path: sub}, nil
	case c == '-' || c == ':' || isDigit(c):
		return p.indexOrSlice()
	}
	return nil, p.fail(msgExpectedSelector, p.i+1)
}

// quoted parses a 'name' or "name" with backslash escapes.
func (p *pathParser) quoted() (string, error) {
	q := p.peek()
	p.i++
	var out []byte
	for {
		if p.eof() {
			return "", p.fail(msgPathSyntax, p.i+1)
		}
		c := p.peek()
		p.i++
		switch {
		case c == q:
			return string(out), nil
		case c == '\\' && !p.eof():
			e := p.peek()
			p.i++
			if r, ok := simpleEscapes[e]; ok {
				out = append(out, r)
			} else if e == '\'' {
				out = append(out, '\'')
			} else {
				out = append(out, '\\', e)
			}
		default:
			out = append(out, c)
		}
	}
}

// integer parses an optionally negative integer; ok is false when there
// is none.
func (p *pathParser) integer() (int, bool, error) {
	start := p.i
	if !p.eof() && p.peek() == '-' {
		p.i++
	}
	digits := p.i
	for !p.eof() && isDigit(p.peek()) {
		p.i++
	}
	if p.i == digits {
		if p.i > start {
			return 0, false, p.fail(msgExpectedSelector, start+1)
		}
		return 0, false, nil
	}
	n, err := strconv.Atoi(p.s[start:p.i])
	if err != nil {
		return 0, false, p.fail(msgPathSyntax, p.i+1)
	}
	return n, true, nil
}

func (p *pathParser) indexOrSlice() (*step, error) {
	var st step
	n, ok, err := p.integer()
	if err != nil {
		return nil, err
	}
	p.spaces()
	if p.eof() || p.peek() != ':' {
		if !ok {
			return nil, p.fail(msgExpectedSelector, p.i+1)
		}
		return &step{kind: stepIndex, index: n}, nil
	}
	st.kind = stepSlice
	if ok {
		st.slice[0] = &n
	}
	for part := 1; part < 3 && !p.eof() && p.peek() == ':'; part++ {
		p.i++
		p.spaces()
		m, ok, err := p.integer()
		if err != nil {
			return nil, err
		}
		if ok {
			v := m
			st.slice[part] = &v
		}
		p.spaces()
	}
	if st.slice[2] != nil && *st.slice[2] == 0 {
		return nil, p.fail(msgStepZero, p.i+1)
	}
	return &st, nil
}
