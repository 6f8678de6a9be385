package search

import "math"

// ExplainFormat is how FT.EXPLAINSQL prints a plan.
type ExplainFormat uint8

// SIMPLE is one line (FT.EXPLAIN's only format), DOT a Graphviz graph.
const (
	Simple ExplainFormat = iota
	DOT
)

// ParseSearch parses FT.SEARCH's and FT.EXPLAIN's arguments, `index query
// [options]`, into a query of the index (not yet checked against it):
//
//	[RETURNS n f ...] [RETURN n f [AS a] ...] [NOCONTENT] [SORTBY f [ASC|DESC]]
//	[LIMIT offset count] [PARAMS n name value ...] [DIALECT 2]
//
// Kvrocks 5fccd57 knows RETURNS, SORTBY, LIMIT and PARAMS; RETURN (with
// RediSearch's AS), NOCONTENT and DIALECT 2 are RediSearch's, beyond it.
// The options are parsed before the query, as Kvrocks does, so an option
// error wins over a query error.
func ParseSearch(argv [][]byte) (*Query, error) {
	if len(argv) < 2 {
		return nil, fail(ErrSyntax, "wrong number of arguments")
	}
	q := &Query{Index: string(argv[0])}
	p := &args{a: argv[2:]}
	ps := Params{}
	for p.good() {
		var err error
		switch {
		case p.eat("RETURNS"):
			err = parseReturn(p, q, false)
		case p.eat("RETURN"):
			err = parseReturn(p, q, true)
		case p.eat("NOCONTENT"):
			q.NoContent = true
		case p.eat("SORTBY"):
			err = parseSortBy(p, q)
		case p.eat("LIMIT"):
			err = parseLimitOption(p, q)
		case p.eat("PARAMS"):
			err = parseParams(p, ps)
		case p.eat("DIALECT"):
			err = parseDialect(p)
		default:
			return nil, errOptionSyntax
		}
		if err != nil {
			return nil, err
		}
	}
	where, err := ParseQuery(string(argv[1]), ps)
	if err != nil {
		return nil, err
	}
	q.Where = where
	return q, nil
}

// parseReturn: n fields. With RediSearch's RETURN, n counts every word
// of `f AS alias`, and 0 means no fields at all (NOCONTENT); Kvrocks's
// RETURNS 0 returns every field.
func parseReturn(p *args, q *Query, redisearch bool) error {
	n, err := p.takeUint(math.MaxUint64)
	if err != nil {
		return err
	}
	if n == 0 {
		q.Select, q.Aliases = nil, nil
		q.NoContent = q.NoContent || redisearch
		return nil
	}
	sel, aliases := []string{}, []string{}
	for n > 0 {
		f, err := p.take()
		if err != nil {
			return err
		}
		n--
		alias := ""
		if redisearch && n >= 2 && p.eat("AS") {
			a, _ := p.take()
			alias, n = string(a), n-2
		}
		sel, aliases = append(sel, string(f)), append(aliases, alias)
	}
	q.Select, q.Aliases = sel, aliases
	return nil
}

func parseSortBy(p *args, q *Query) error {
	f, err := p.take()
	if err != nil {
		return err
	}
	s := &SortBy{Field: string(f)}
	if p.eat("ASC") {
	} else if p.eat("DESC") {
		s.Desc = true
	}
	q.SortBy = s
	return nil
}

func parseLimitOption(p *args, q *Query) error {
	off, err := p.takeUint(math.MaxUint64)
	if err != nil {
		return err
	}
	count, err := p.takeUint(math.MaxUint64)
	if err != nil {
		return err
	}
	q.Limit = &Limit{off, count}
	return nil
}

// parseParams: n name value ...; the first value of a name counts.
func parseParams(p *args, ps Params) error {
	n, err := p.takeUint(math.MaxUint64)
	if err != nil {
		return err
	}
	if n%2 != 0 {
		return fail(ErrSyntax, "nargs of PARAMS must be multiple of 2")
	}
	for ; n > 0; n -= 2 {
		name, err := p.take()
		if err != nil {
			return err
		}
		value, err := p.take()
		if err != nil {
			return err
		}
		if _, ok := ps[string(name)]; !ok {
			ps[string(name)] = value
		}
	}
	return nil
}

// parseDialect takes DIALECT 2, the one syntax there is; others are
// refused as RediSearch's newer ones would be misread.
func parseDialect(p *args) error {
	d, err := p.takeUint(math.MaxUint64)
	if err != nil {
		return err
	}
	if d != 2 {
		return fail(ErrSyntax, "DIALECT 2 is the only dialect supported")
	}
	return nil
}

// ParseSQLArgs parses FT.SEARCHSQL's arguments, `sql [PARAMS n name value
// ...]`, and, for FT.EXPLAINSQL (explain), a last SIMPLE or DOT.
func ParseSQLArgs(argv [][]byte, explain bool) (*Query, ExplainFormat, error) {
	if len(argv) < 1 {
		return nil, Simple, fail(ErrSyntax, "wrong number of arguments")
	}
	p := &args{a: argv[1:]}
	ps := Params{}
	if p.eat("PARAMS") {
		if err := parseParams(p, ps); err != nil {
			return nil, Simple, err
		}
	}
	format := Simple
	if explain && p.good() {
		switch {
		case p.eat("SIMPLE"):
		case p.eat("DOT"):
			format = DOT
		default:
			return nil, Simple, fail(ErrSyntax, "output format should be SIMPLE or DOT")
		}
	}
	if p.good() {
		return nil, Simple, fail(ErrSyntax, "unexpected arguments in the end")
	}
	q, err := ParseSQL(string(argv[0]), ps)
	return q, format, err
}

// NoIndexError is FT.EXPLAIN's, FT.SEARCH's and the SQL commands' error
// for an index that does not exist.
func NoIndexError(name string) error { return failf(ErrNoIndex, "index `%s` not found", name) }
