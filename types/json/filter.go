package json

import (
	"math"
	"regexp"
	"strings"
)

// exprKind is the kind of a node of a filter expression.
type exprKind uint8

const (
	exprLiteral exprKind = iota
	exprPath
	exprUnary
	exprBinary
	exprCall
	exprRegex
)

// expr is a node of a filter expression.
type expr struct {
	kind  exprKind
	value *Value // a literal
	path  *Path
	op    string // unary or binary operator, function name
	args  []*expr
	re    *regexp.Regexp
}

// binaryPrecedence gives each binary operator's binding strength, as
// jsoncons orders them.
var binaryPrecedence = map[string]int{
	"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, "<=": 4, ">": 4, ">=": 4,
	"+": 5, "-": 5, "*": 6, "/": 6, "%": 6, "=~": 7,
}

// functionArity is the number of arguments of each function jsoncons
// knows.
var functionArity = map[string]int{
	"abs": 1, "avg": 1, "ceil": 1, "contains": 2, "ends_with": 2, "floor": 1, "keys": 1,
	"length": 1, "max": 1, "min": 1, "prod": 1, "starts_with": 2, "sum": 1, "to_number": 1, "tokenize": 2,
}

// operator returns the binary operator at p.i, if any.
func (p *pathParser) operator() string {
	for _, op := range []string{"||", "&&", "==", "!=", "<=", ">=", "=~", "<", ">", "+", "-", "*", "/", "%"} {
		if strings.HasPrefix(p.s[p.i:], op) {
			return op
		}
	}
	return ""
}

// expression parses operators binding tighter than min by precedence
// climbing.
func (p *pathParser) expression(min int) (*expr, error) {
	left, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		p.spaces()
		if p.eof() {
			return left, nil
		}
		if isNameByte(p.peek()) && left.kind == exprPath {
			return nil, p.fail(msgExpectedSep, p.i+1)
		}
		op := p.operator()
		prec := binaryPrecedence[op]
		if op == "" || prec <= min {
			return left, nil
		}
		p.i += len(op)
		p.spaces()
		var right *expr
		if op == "=~" {
			right, err = p.regex()
		} else {
			right, err = p.expression(prec)
		}
		if err != nil {
			return nil, err
		}
		left = &expr{kind: exprBinary, op: op, args: []*expr{left, right}}
	}
}

// primary parses an operand: a parenthesised expression, a unary
// operator, a path, a function call or a JSON literal.
func (p *pathParser) primary() (*expr, error) {
	p.spaces()
	if p.eof() {
		return nil, p.fail(msgPathSyntax, p.i+1)
	}
	switch c := p.peek(); {
	case c == '(':
		p.i++
		e, err := p.expression(0)
		if err != nil {
			return nil, err
		}
		p.spaces()
		if p.eof() || p.peek() != ')' {
			return nil, p.fail(msgExpectedParen, p.i+1)
		}
		p.i++
		return e, nil
	case c == '!' || (c == '-' && p.i+1 < len(p.s) && !isDigit(p.s[p.i+1])):
		p.i++
		e, err := p.primary()
		if err != nil {
			return nil, err
		}
		return &expr{kind: exprUnary, op: string(c), args: []*expr{e}}, nil
	case c == '@' || c == '$':
		path, err := p.path(true)
		if err != nil {
			return nil, err
		}
		return &expr{kind: exprPath, path: path}, nil
	case c == '\'':
		s, err := p.quoted()
		if err != nil {
			return nil, err
		}
		return &expr{kind: exprLiteral, value: NewString(s)}, nil
	case isNameByte(c) && !isDigit(c):
		return p.callOrWord()
	}
	return p.literal()
}

// callOrWord parses a function call or true, false, null.
func (p *pathParser) callOrWord() (*expr, error) {
	start := p.i
	name := p.name()
	if p.eof() || p.peek() != '(' {
		p.i = start
		return p.literal()
	}
	arity, ok := functionArity[name]
	if !ok {
		return nil, p.fail(msgUnknownFunction, p.i+1)
	}
	p.i++
	call := &expr{kind: exprCall, op: name}
	for {
		arg, err := p.expression(0)
		if err != nil {
			return nil, err
		}
		call.args = append(call.args, arg)
		p.spaces()
		if p.eof() {
			return nil, p.fail(msgPathSyntax, p.i+1)
		}
		if p.peek() == ',' {
			p.i++
			continue
		}
		if p.peek() != ')' {
			return nil, p.fail(msgExpectedParen, p.i+1)
		}
		p.i++
		break
	}
	if len(call.args) != arity {
		return nil, p.fail("Invalid arity", p.i)
	}
	return call, nil
}

// literal parses a JSON value at p.i, as jsoncons does for operands.
func (p *pathParser) literal() (*expr, error) {
	v, n, err := parsePrefix([]byte(p.s[p.i:]))
	if err != nil {
		var pe *ParseError
		if asParseError(err, &pe) { // jsoncons reports it one column on
			return nil, p.fail(pe.Msg, p.i+pe.Column+1)
		}
		return nil, p.fail(msgPathSyntax, p.i+1)
	}
	p.i += n
	return &expr{kind: exprLiteral, value: v}, nil
}

// regex parses /pattern/flags; the flag i makes it case-insensitive.
func (p *pathParser) regex() (*expr, error) {
	if p.eof() || p.peek() != '/' {
		return nil, p.fail(msgPathSyntax, p.i+1)
	}
	p.i++
	var pat []byte
	for {
		if p.eof() {
			return nil, p.fail(msgPathSyntax, p.i+1)
		}
		c := p.peek()
		p.i++
		if c == '/' {
			break
		}
		if c == '\\' && !p.eof() && p.peek() == '/' {
			c = '/'
			p.i++
		}
		pat = append(pat, c)
	}
	flags := ""
	for !p.eof() && p.peek() == 'i' {
		flags = "(?i)"
		p.i++
	}
	re, err := regexp.Compile(flags + string(pat))
	if err != nil {
		return nil, p.fail(msgPathSyntax, p.i)
	}
	return &expr{kind: exprRegex, re: re}, nil
}

// truthy is jsoncons's filter truth: false, null, and empty strings,
// arrays and objects are false; every number is true.
func truthy(v *Value) bool {
	switch v.Kind {
	case KindNull:
		return false
	case KindBool:
		return v.Bool
	case KindString:
		return v.Str != ""
	case KindArray:
		return len(v.Elems) > 0
	case KindObject:
		return len(v.Fields) > 0
	}
	return true
}

// eval evaluates an expression with @ at cur.
func (e *expr) eval(root, cur *Value) *Value {
	switch e.kind {
	case exprLiteral:
		return e.value
	case exprPath:
		return pathOperand(e.path, root, cur)
	case exprUnary:
		v := e.args[0].eval(root, cur)
		if e.op == "!" {
			return NewBool(!truthy(v))
		}
		return negate(v)
	case exprCall:
		return callFunction(e, root, cur)
	case exprBinary:
		return evalBinary(e, root, cur)
	}
	return Null()
}

// pathOperand is a path's value inside an expression: null when it
// selects nothing, the node when it selects one, an array of them when
// it selects several.
func pathOperand(path *Path, root, cur *Value) *Value {
	start := root
	if path.relative {
		start = cur
	}
	ms := path.evalFrom(root, start)
	switch len(ms) {
	case 0:
		return Null()
	case 1:
		return ms[0].Val
	}
	arr := NewArray()
	for _, m := range ms {
		arr.Elems = append(arr.Elems, m.Val)
	}
	return arr
}

func negate(v *Value) *Value {
	switch v.Kind {
	case KindInt:
		if v.Int != math.MinInt64 {
			return NewInt(-v.Int)
		}
	case KindFloat:
		return NewFloat(-v.Float)
	}
	if v.IsNumber() {
		return NewFloat(-v.float())
	}
	return Null()
}

func evalBinary(e *expr, root, cur *Value) *Value {
	l := e.args[0].eval(root, cur)
	switch e.op {
	case "&&":
		return NewBool(truthy(l) && truthy(e.args[1].eval(root, cur)))
	case "||":
		return NewBool(truthy(l) || truthy(e.args[1].eval(root, cur)))
	case "=~":
		return NewBool(l.Kind == KindString && e.args[1].re.MatchString(l.Str))
	}
	r := e.args[1].eval(root, cur)
	switch e.op {
	case "==":
		return NewBool(Equal(l, r))
	case "!=":
		return NewBool(!Equal(l, r))
	case "<", "<=", ">", ">=":
		return NewBool(ordered(e.op, l, r))
	}
	return arithmetic(e.op, l, r)
}

// ordered compares two numbers or two strings; other pairs compare
// false, as in jsoncons.
func ordered(op string, l, r *Value) bool {
	var c int
	switch {
	case l.IsNumber() && r.IsNumber() && !(l.Kind == KindString && r.Kind == KindString):
		c = numCompare(l, r)
	case l.Kind == KindString && r.Kind == KindString:
		c = compareStrings(l.Str, r.Str)
	default:
		return false
	}
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}

// arithmetic applies + - * / % to two numbers: in integers when both are
// 64-bit integers and the result fits, in doubles otherwise; null when
// either is not a number.
func arithmetic(op string, l, r *Value) *Value {
	if !l.IsNumber() || !r.IsNumber() {
		return Null()
	}
	if l.Kind == KindInt && r.Kind == KindInt && op != "/" {
		a, b := l.Int, r.Int
		switch op {
		case "+":
			if s := a + b; (s > a) == (b > 0) {
				return NewInt(s)
			}
		case "-":
			if s := a - b; (s < a) == (b > 0) {
				return NewInt(s)
			}
		case "*":
			if a == 0 || (a*b/a == b && !(a == -1 && b == math.MinInt64)) {
				return NewInt(a * b)
			}
		case "%":
			if b != 0 && !(a == math.MinInt64 && b == -1) {
				return NewInt(a % b)
			}
			return Null()
		}
	}
	a, b := l.float(), r.float()
	switch op {
	case "+":
		return NewFloat(a + b)
	case "-":
		return NewFloat(a - b)
	case "*":
		return NewFloat(a * b)
	case "/":
		return NewFloat(a / b)
	}
	return NewFloat(math.Mod(a, b))
}
