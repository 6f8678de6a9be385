package search

// ParseSQL parses FT.SEARCHSQL's statement as Kvrocks 5fccd57 does, with
// the values of its @parameters:
//
//	select * | f1, f2 from index [where cond] [order by f [asc|desc] |
//	order by vec <-> [x, ...]] [limit [offset,] count]
//
// cond is true, false, (cond), cond and cond, cond or cond, not cond,
// `tagfield hastag "x"`, a numeric comparison (< <= > >= = !=) of a field
// and a number, or `vec <-> [x, ...] < r`. Keywords are lower case and
// need no space around them, as in Kvrocks. An ORDER BY on a vector with
// a LIMIT is a KNN query of offset+count neighbours.
func ParseSQL(text string, ps Params) (*Query, error) {
	p := &scanner{s: text}
	b, ok := parseStatement(p)
	if !ok || p.pos != len(text) {
		return nil, errInvalidSyntax
	}
	return b(ps)
}

type sqlBuilder func(ps Params) (*Query, error)

func parseStatement(p *scanner) (sqlBuilder, bool) {
	q := &Query{}
	if !p.padded("select") {
		return nil, false
	}
	p.ws()
	if p.lit("*") {
		p.ws()
	} else {
		for {
			p.ws()
			name, ok := p.ident()
			if !ok {
				return nil, false
			}
			p.ws()
			q.Select = append(q.Select, name)
			if !p.lit(",") {
				break
			}
		}
	}
	if !p.padded("from") {
		return nil, false
	}
	index, ok := p.ident()
	if !ok {
		return nil, false
	}
	p.ws()
	q.Index = index
	var where builder
	if at := p.pos; p.padded("where") {
		if where, ok = parseSQLOr(p); !ok {
			p.pos = at
		}
	}
	order, orderOK := parseOrderBy(p)
	limit, limitOK := parseLimit(p)
	return func(ps Params) (*Query, error) {
		out := *q
		out.Where = &BoolLit{true}
		if where != nil {
			e, err := where(ps)
			if err != nil {
				return nil, err
			}
			out.Where = e
		}
		if orderOK {
			out.SortBy = order
		}
		if limitOK {
			l, err := limit()
			if err != nil {
				return nil, err
			}
			out.Limit = l
		}
		if err := sqlKNN(&out, where != nil); err != nil {
			return nil, err
		}
		return &out, nil
	}, true
}

// sqlKNN turns ORDER BY vec <-> [...] LIMIT into the KNN query it means.
func sqlKNN(q *Query, hasWhere bool) error {
	if q.SortBy == nil || q.SortBy.Vector == nil {
		return nil
	}
	if q.Limit == nil {
		return fail(ErrQuery, "expect a LIMIT clause for vector field to construct a KNN search")
	}
	if hasWhere {
		return fail(ErrQuery, "KNN search cannot be combined with other query expressions")
	}
	q.Where = &VectorKNN{Field: q.SortBy.Field, Vector: q.SortBy.Vector, K: q.Limit.Offset + q.Limit.Count, fromSQL: true}
	q.SortBy = nil
	return nil
}

// parseOrderBy: order by f [asc|desc], or order by vec <-> [x, ...].
func parseOrderBy(p *scanner) (*SortBy, bool) {
	at := p.pos
	p.ws()
	if !p.lit("order") {
		p.pos = at
		return nil, false
	}
	if p.pos >= len(p.s) || !isSpace(p.s[p.pos]) {
		p.pos = at
		return nil, false
	}
	p.ws()
	if !p.lit("by") {
		p.pos = at
		return nil, false
	}
	p.ws()
	field, ok := p.ident()
	if !ok {
		p.pos = at
		return nil, false
	}
	p.ws()
	if p.lit("<->") {
		v, ok := parseVectorLiteral(p)
		if !ok {
			p.pos = at
			return nil, false
		}
		return &SortBy{Field: field, Vector: v}, true
	}
	s := &SortBy{Field: field}
	if p.padded("asc") {
	} else if p.padded("desc") {
		s.Desc = true
	}
	return s, true
}

// parseLimit: limit [offset,] count.
func parseLimit(p *scanner) (func() (*Limit, error), bool) {
	at := p.pos
	if !p.padded("limit") {
		return nil, false
	}
	first, ok := sqlUnsigned(p)
	if !ok {
		p.pos = at
		return nil, false
	}
	p.ws()
	second := ""
	if p.lit(",") {
		p.ws()
		if second, ok = sqlUnsigned(p); !ok {
			p.pos = at
			return nil, false
		}
		p.ws()
	}
	return func() (*Limit, error) {
		a, err := parseUint([]byte(first))
		if err != nil {
			return nil, numberError(ErrSyntax, err)
		}
		if second == "" {
			return &Limit{Count: a}, nil
		}
		b, err := parseUint([]byte(second))
		if err != nil {
			return nil, numberError(ErrSyntax, err)
		}
		return &Limit{Offset: a, Count: b}, nil
	}, true
}

func sqlUnsigned(p *scanner) (string, bool) {
	start := p.pos
	if !p.digits() {
		return "", false
	}
	return p.s[start:p.pos], true
}

// parseVectorLiteral: [x, y, ...] of numbers, white space allowed.
func parseVectorLiteral(p *scanner) ([]float64, bool) {
	at := p.pos
	p.ws()
	if !p.lit("[") {
		p.pos = at
		return nil, false
	}
	var v []float64
	for {
		p.ws()
		text, ok := p.number()
		if !ok {
			p.pos = at
			return nil, false
		}
		f, err := literalNumber(text)
		if err != nil {
			p.pos = at
			return nil, false
		}
		v = append(v, f)
		p.ws()
		if !p.lit(",") {
			break
		}
	}
	if !p.lit("]") {
		p.pos = at
		return nil, false
	}
	p.ws()
	return v, true
}

func parseSQLOr(p *scanner) (builder, bool) {
	return parseSQLList(p, "or", parseSQLAnd, joinOr)
}

func parseSQLAnd(p *scanner) (builder, bool) {
	return parseSQLList(p, "and", parseSQLBoolean, joinAnd)
}

// parseSQLList parses item (sep item)*; several items are joined.
func parseSQLList(p *scanner, sep string, item func(*scanner) (builder, bool), join func([]Expr) Expr) (builder, bool) {
	first, ok := item(p)
	if !ok {
		return nil, false
	}
	parts := []builder{first}
	for {
		at := p.pos
		if !p.lit(sep) {
			break
		}
		next, ok := item(p)
		if !ok {
			p.pos = at
			break
		}
		parts = append(parts, next)
	}
	if len(parts) == 1 {
		return first, true
	}
	return combine(parts, join), true
}

// parseSQLBoolean: an atom (hastag, vector range, comparison, true,
// false), (cond) or not cond.
func parseSQLBoolean(p *scanner) (builder, bool) {
	at := p.pos
	for _, atom := range []func(*scanner) (builder, bool){parseHasTag, parseSQLVectorRange, parseComparison, parseSQLBool} {
		if b, ok := atom(p); ok {
			return b, true
		}
		p.pos = at
	}
	if p.padded("(") {
		if b, ok := parseSQLOr(p); ok && p.lit(")") {
			p.ws()
			return b, true
		}
	}
	p.pos = at
	if p.padded("not") {
		if b, ok := parseSQLBoolean(p); ok {
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
	return nil, false
}

func parseSQLBool(p *scanner) (builder, bool) {
	switch {
	case p.padded("true"):
		return constant(&BoolLit{true}), true
	case p.padded("false"):
		return constant(&BoolLit{false}), true
	}
	return nil, false
}

// parseHasTag: field hastag "x" | field hastag @param.
func parseHasTag(p *scanner) (builder, bool) {
	p.ws()
	field, ok := p.ident()
	if !ok || !p.padded("hastag") {
		return nil, false
	}
	if s, ok := p.stringLit(); ok {
		p.ws()
		return func(Params) (Expr, error) {
			text, err := unescape(s)
			if err != nil {
				return nil, err
			}
			return tagContain(field, text)
		}, true
	}
	name, ok := sqlParam(p)
	if !ok {
		return nil, false
	}
	p.ws()
	return func(ps Params) (Expr, error) {
		v, err := ps.param(name)
		if err != nil {
			return nil, err
		}
		return tagContain(field, string(v))
	}, true
}

func sqlParam(p *scanner) (string, bool) {
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

// parseSQLVectorRange: vec <-> [x, ...] < r, r a number or @param.
func parseSQLVectorRange(p *scanner) (builder, bool) {
	p.ws()
	field, ok := p.ident()
	if !ok {
		return nil, false
	}
	p.ws()
	if !p.lit("<->") {
		return nil, false
	}
	v, ok := parseVectorLiteral(p)
	if !ok || !p.lit("<") {
		return nil, false
	}
	p.ws()
	a, ok := parseAtom(p)
	if !ok || a.ident != "" {
		return nil, false
	}
	p.ws()
	return func(ps Params) (Expr, error) {
		r, err := a.value(ps)
		if err != nil {
			return nil, err
		}
		return &VectorRange{Field: field, Vector: v, Range: r}, nil
	}, true
}

// sqlAtom is a side of a comparison: a number, a field or a parameter.
type sqlAtom struct{ num, ident, param string }

func parseAtom(p *scanner) (sqlAtom, bool) {
	if num, ok := p.number(); ok {
		return sqlAtom{num: num}, true
	}
	if name, ok := p.ident(); ok {
		return sqlAtom{ident: name}, true
	}
	if name, ok := sqlParam(p); ok {
		return sqlAtom{param: name}, true
	}
	return sqlAtom{}, false
}

func (a sqlAtom) value(ps Params) (float64, error) {
	if a.param != "" {
		return ps.number("@", a.param)
	}
	return literalNumber(a.num)
}

var sqlOps = []struct {
	text string
	op   CompareOp
}{{"!=", OpNE}, {"<=", OpLE}, {">=", OpGE}, {"=", OpEQ}, {"<", OpLT}, {">", OpGT}}

// parseComparison: a op b, one side a field and the other a number.
func parseComparison(p *scanner) (builder, bool) {
	p.ws()
	lhs, ok := parseAtom(p)
	if !ok {
		return nil, false
	}
	p.ws()
	var op CompareOp
	found := false
	for _, o := range sqlOps {
		if p.lit(o.text) {
			op, found = o.op, true
			break
		}
	}
	if !found {
		return nil, false
	}
	p.ws()
	rhs, ok := parseAtom(p)
	if !ok {
		return nil, false
	}
	p.ws()
	return func(ps Params) (Expr, error) {
		field, num, op := lhs, rhs, op
		if field.ident == "" {
			field, num, op = rhs, lhs, op.flip()
		}
		if field.ident == "" || num.ident != "" {
			return nil, fail(ErrQuery, "the left and right side of numeric comparison should be an identifier and a number")
		}
		v, err := num.value(ps)
		if err != nil {
			return nil, err
		}
		return &NumericCompare{Field: field.ident, Op: op, Value: v}, nil
	}, true
}
