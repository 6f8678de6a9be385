package search

import "strings"

// Params are the values of a query's parameters (PARAMS n name value
// ...): $name in RediSearch's syntax, @name in SQL. The first value given
// for a name counts.
type Params map[string][]byte

// builder makes the condition a parsed piece of query stands for. The
// parsers return builders, not conditions, so that a query that does not
// parse is refused as such before any of its parameters is looked at, as
// Kvrocks parses the whole text before it transforms it.
type builder func(ps Params) (Expr, error)

func constant(e Expr) builder { return func(Params) (Expr, error) { return e, nil } }

// combine builds each piece in order and joins them with join.
func combine(parts []builder, join func([]Expr) Expr) builder {
	return func(ps Params) (Expr, error) {
		es := make([]Expr, len(parts))
		for i, b := range parts {
			e, err := b(ps)
			if err != nil {
				return nil, err
			}
			es[i] = e
		}
		return join(es), nil
	}
}

func joinAnd(es []Expr) Expr { return &And{es} }
func joinOr(es []Expr) Expr  { return &Or{es} }

// param returns the value of $name (@name), or Kvrocks's error.
func (ps Params) param(name string) ([]byte, error) {
	v, ok := ps[name]
	if !ok {
		return nil, failf(ErrParam, "parameter with name `%s` not found", name)
	}
	return v, nil
}

// number returns the value of a numeric parameter; sigil is $ or @, as
// the error text names it.
func (ps Params) number(sigil, name string) (float64, error) {
	v, err := ps.param(name)
	if err != nil {
		return 0, err
	}
	f, err := parseFloat(v)
	if err != nil {
		return 0, failf(ErrParam, "parameter %s%s is not a number: %v", sigil, name, err)
	}
	return f, nil
}

// ParseQuery parses a query in RediSearch's syntax (DIALECT 2) as Kvrocks
// 5fccd57 does, with the values of its parameters: `*`, `@tag:{a | b}`,
// `@num:[lo hi]` with `(` for an exclusive bound and ±inf,
// `@vec:[VECTOR_RANGE r $blob]`, juxtaposition for AND, `|` for OR, `-`
// for NOT, parentheses, and `*=>[KNN k @vec $blob]`. Vector blobs are
// decoded when the query is checked against its index (Check), which
// knows their element type.
func ParseQuery(text string, ps Params) (Expr, error) {
	p := &scanner{s: text}
	b, ok := parseQueryExpr(p)
	if !ok || p.pos != len(text) {
		return nil, errInvalidSyntax
	}
	return b(ps)
}

// parseQueryExpr: a KNN query or an OR of ANDs.
func parseQueryExpr(p *scanner) (builder, bool) {
	at := p.pos
	if b, ok := parseKNN(p); ok {
		return b, true
	}
	p.pos = at
	return parseOr(p)
}

// parseKNN: `* => [KNN k @field $blob]`, k a number or a parameter.
func parseKNN(p *scanner) (builder, bool) {
	if !p.padded("*") || !p.lit("=>") {
		return nil, false
	}
	p.ws()
	if !p.lit("[") || !p.padded("KNN") {
		return nil, false
	}
	p.ws()
	kText, kParam := "", ""
	if start := p.pos; p.digits() {
		kText = p.s[start:p.pos]
	} else if name, ok := parseParam(p); ok {
		kParam = name
	} else {
		return nil, false
	}
	p.ws()
	field, ok := parseField(p)
	if !ok {
		return nil, false
	}
	p.ws()
	blob, ok := parseParam(p)
	if !ok {
		return nil, false
	}
	p.ws()
	if !p.lit("]") {
		return nil, false
	}
	p.ws()
	return func(ps Params) (Expr, error) {
		var k uint64
		var err error
		if kParam != "" {
			v, perr := ps.param(kParam)
			if perr != nil {
				return nil, perr
			}
			if k, err = parseUint(v); err != nil {
				return nil, failf(ErrParam, "parameter $%s is not an integer: %v", kParam, err)
			}
		} else if k, err = parseUint([]byte(kText)); err != nil {
			return nil, numberError(ErrSyntax, err)
		}
		v, err := ps.param(blob)
		if err != nil {
			return nil, err
		}
		return &VectorKNN{Field: field, K: k, blob: v}, nil
	}, true
}

func parseField(p *scanner) (string, bool) {
	at := p.pos
	if !p.lit("@") {
		return "", false
	}
	name, ok := p.ident()
	if !ok {
		p.pos = at
	}
	return name, ok
}

func parseParam(p *scanner) (string, bool) {
	at := p.pos
	if !p.lit("$") {
		return "", false
	}
	name, ok := p.ident()
	if !ok {
		p.pos = at
	}
	return name, ok
}

func parseOr(p *scanner) (builder, bool) {
	first, ok := parseAnd(p)
	if !ok {
		return nil, false
	}
	parts := []builder{first}
	for {
		at := p.pos
		if !p.lit("|") {
			break
		}
		next, ok := parseAnd(p)
		if !ok {
			p.pos = at
			break
		}
		parts = append(parts, next)
	}
	if len(parts) == 1 {
		return first, true
	}
	return combine(parts, joinOr), true
}

func parseAnd(p *scanner) (builder, bool) {
	var parts []builder
	for {
		at := p.pos
		b, ok := parseBoolean(p)
		if !ok {
			p.pos = at
			break
		}
		parts = append(parts, b)
	}
	switch len(parts) {
	case 0:
		return nil, false
	case 1:
		return parts[0], true
	}
	return combine(parts, joinAnd), true
}

// parseBoolean: a field condition, a parenthesised query, a negation or *.
func parseBoolean(p *scanner) (builder, bool) {
	at := p.pos
	if b, ok := parseFieldQuery(p); ok {
		return b, true
	}
	p.pos = at
	if p.padded("(") {
		if b, ok := parseQueryExpr(p); ok && p.lit(")") {
			p.ws()
			return b, true
		}
	}
	p.pos = at
	if p.padded("-") {
		if b, ok := parseBoolean(p); ok {
			return func(ps Params) (Expr, error) {
				e, err := b(ps)
				if err != nil {
					return nil, err
				}
				return &Not{e}, nil
			}, true
		}
	}
	p.pos = at
	if p.padded("*") {
		return constant(&BoolLit{true}), true
	}
	p.pos = at
	return nil, false
}

// parseFieldQuery: @field:[VECTOR_RANGE ...], @field:{tags} or
// @field:[numeric range].
func parseFieldQuery(p *scanner) (builder, bool) {
	p.ws()
	field, ok := parseField(p)
	if !ok {
		return nil, false
	}
	p.ws()
	if !p.lit(":") {
		return nil, false
	}
	p.ws()
	at := p.pos
	b, ok := parseVectorRange(p, field)
	if !ok {
		p.pos = at
		b, ok = parseTagList(p, field)
	}
	if !ok {
		p.pos = at
		b, ok = parseNumericRange(p, field)
	}
	if !ok {
		return nil, false
	}
	p.ws()
	return b, true
}

func parseVectorRange(p *scanner, field string) (builder, bool) {
	if !p.lit("[") || !p.padded("VECTOR_RANGE") {
		return nil, false
	}
	num, param, ok := parseNumberOrParam(p)
	if !ok {
		return nil, false
	}
	p.ws()
	p.ws()
	blob, ok := parseParam(p)
	if !ok {
		return nil, false
	}
	p.ws()
	if !p.lit("]") {
		return nil, false
	}
	return func(ps Params) (Expr, error) {
		r, err := numberValue(ps, num, param)
		if err != nil {
			return nil, err
		}
		v, err := ps.param(blob)
		if err != nil {
			return nil, err
		}
		return &VectorRange{Field: field, Range: r, blob: v}, nil
	}, true
}

func parseNumberOrParam(p *scanner) (num, param string, ok bool) {
	if num, ok = p.number(); ok {
		return num, "", true
	}
	param, ok = parseParam(p)
	return "", param, ok
}

// numberValue is the value of a number literal or of a $parameter.
func numberValue(ps Params, num, param string) (float64, error) {
	if param != "" {
		return ps.number("$", param)
	}
	return literalNumber(num)
}

// parseTagList: {tag | tag ...}, each an identifier, a string or a
// parameter; several make an OR.
func parseTagList(p *scanner, field string) (builder, bool) {
	if !p.lit("{") {
		return nil, false
	}
	var parts []builder
	for {
		p.ws()
		b, ok := parseTag(p, field)
		if !ok {
			return nil, false
		}
		p.ws()
		parts = append(parts, b)
		if !p.lit("|") {
			break
		}
	}
	if !p.lit("}") {
		return nil, false
	}
	if len(parts) == 1 {
		return parts[0], true
	}
	return combine(parts, joinOr), true
}

func parseTag(p *scanner, field string) (builder, bool) {
	tag := func(text string) builder {
		return func(Params) (Expr, error) { return tagContain(field, text) }
	}
	if name, ok := p.ident(); ok {
		return tag(name), true
	}
	if s, ok := p.stringLit(); ok {
		return func(Params) (Expr, error) {
			text, err := unescape(s)
			if err != nil {
				return nil, err
			}
			return tagContain(field, text)
		}, true
	}
	if name, ok := parseParam(p); ok {
		return func(ps Params) (Expr, error) {
			v, err := ps.param(name)
			if err != nil {
				return nil, err
			}
			return tagContain(field, string(v))
		}, true
	}
	return nil, false
}

func tagContain(field, tag string) (Expr, error) {
	if tag == "" {
		return nil, errEmptyTag
	}
	return &TagContain{Field: field, Tag: tag}, nil
}

// rangeBound is one side of a numeric range as written: ±inf, or a
// number or parameter, exclusive after `(`.
type rangeBound struct {
	inf       string // "inf", "+inf" or "-inf"; "" for a number
	exclusive bool
	num       string
	param     string
}

func parseRangeBound(p *scanner) (rangeBound, bool) {
	at := p.pos
	sign := ""
	if p.lit("+") {
		sign = "+"
	} else if p.lit("-") {
		sign = "-"
	}
	if p.lit("inf") {
		return rangeBound{inf: sign + "inf"}, true
	}
	p.pos = at
	var b rangeBound
	b.exclusive = p.lit("(")
	var ok bool
	if b.num, b.param, ok = parseNumberOrParam(p); !ok {
		p.pos = at
	}
	return b, ok
}

// parseNumericRange: [lo hi]. -inf (or inf) as the lower bound and inf
// as the upper one leave that side open; +inf below and -inf above are
// refused.
func parseNumericRange(p *scanner, field string) (builder, bool) {
	if !p.lit("[") {
		return nil, false
	}
	p.ws()
	lo, ok := parseRangeBound(p)
	if !ok {
		return nil, false
	}
	p.ws()
	p.ws()
	hi, ok := parseRangeBound(p)
	if !ok {
		return nil, false
	}
	p.ws()
	if !p.lit("]") {
		return nil, false
	}
	return func(ps Params) (Expr, error) {
		var es []Expr
		if strings.HasPrefix(lo.inf, "+") {
			return nil, fail(ErrQuery, "it's not allowed to set the lower bound as positive infinity")
		}
		if lo.inf == "" {
			v, err := numberValue(ps, lo.num, lo.param)
			if err != nil {
				return nil, err
			}
			op := OpGE
			if lo.exclusive {
				op = OpGT
			}
			es = append(es, &NumericCompare{Field: field, Op: op, Value: v})
		}
		if strings.HasPrefix(hi.inf, "-") {
			return nil, fail(ErrQuery, "it's not allowed to set the upper bound as negative infinity")
		}
		if hi.inf == "" {
			v, err := numberValue(ps, hi.num, hi.param)
			if err != nil {
				return nil, err
			}
			op := OpLE
			if hi.exclusive {
				op = OpLT
			}
			es = append(es, &NumericCompare{Field: field, Op: op, Value: v})
		}
		return andOf(es), nil
	}, true
}
