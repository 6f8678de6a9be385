package timeseries

import (
	"bytes"
	"slices"
)

// Matcher is one filter expression (REDIS-NEW.md §9.6): label=value,
// label=(v1,v2), label!=value, label!=(v1,v2), label= (absent) and
// label!= (present). An empty Values is the absent/present form.
type Matcher struct {
	Label  []byte
	Values [][]byte
	Not    bool
}

// Filter is the expressions of a FILTER (or TS.QUERYINDEX), all of which
// a series must match.
type Filter struct {
	Matchers []Matcher
}

// ParseFilter parses filter expressions; at least one must be positive
// (label=value or label=(...)).
func ParseFilter(exprs [][]byte) (Filter, error) {
	f := Filter{Matchers: make([]Matcher, 0, len(exprs))}
	positive := false
	for _, e := range exprs {
		m, err := parseMatcher(e)
		if err != nil {
			return Filter{}, err
		}
		positive = positive || m.positive()
		f.Matchers = append(f.Matchers, m)
	}
	if !positive {
		return Filter{}, ErrNoMatcher
	}
	return f, nil
}

func (m *Matcher) positive() bool { return !m.Not && len(m.Values) > 0 }

func parseMatcher(e []byte) (Matcher, error) {
	var m Matcher
	i := bytes.IndexByte(e, '=')
	if i <= 0 {
		return m, ErrFilterParse
	}
	name, value := e[:i], e[i+1:]
	if name[len(name)-1] == '!' {
		m.Not, name = true, name[:len(name)-1]
	}
	if len(name) == 0 || bytes.ContainsAny(name, "!()") {
		return m, ErrFilterParse
	}
	m.Label = bytes.Clone(unquote(name))
	if len(value) == 0 {
		return m, nil
	}
	if value[0] != '(' {
		v := unquote(value)
		if bytes.ContainsAny(v, "()") {
			return m, ErrFilterParse
		}
		if len(v) > 0 {
			m.Values = [][]byte{bytes.Clone(v)}
		}
		return m, nil
	}
	if len(value) < 2 || value[len(value)-1] != ')' {
		return m, ErrFilterParse
	}
	for _, v := range bytes.Split(value[1:len(value)-1], []byte(",")) {
		v = unquote(v)
		if bytes.ContainsAny(v, "()") {
			return m, ErrFilterParse
		}
		if len(v) > 0 {
			m.Values = append(m.Values, bytes.Clone(v))
		}
	}
	return m, nil
}

// unquote drops one pair of surrounding double or single quotes.
func unquote(b []byte) []byte {
	if len(b) >= 2 && (b[0] == '"' || b[0] == '\'') && b[len(b)-1] == b[0] {
		return b[1 : len(b)-1]
	}
	return b
}

// label is the value of name among labels (sorted by name), nil when
// absent.
func label(labels []Label, name []byte) ([]byte, bool) {
	i, ok := slices.BinarySearchFunc(labels, name, func(l Label, n []byte) int { return bytes.Compare(l.Name, n) })
	if !ok {
		return nil, false
	}
	return labels[i].Value, true
}

// Match reports whether a series with these labels (sorted by name, as
// a series's label subkeys are) matches m.
func (m *Matcher) Match(labels []Label) bool {
	v, has := label(labels, m.Label)
	if len(m.Values) == 0 {
		return has == m.Not // label= wants it absent, label!= present
	}
	in := has && slices.ContainsFunc(m.Values, func(w []byte) bool { return bytes.Equal(v, w) })
	return in != m.Not
}

// Match reports whether a series with these labels (sorted by name)
// matches every expression.
func (f *Filter) Match(labels []Label) bool {
	for i := range f.Matchers {
		if !f.Matchers[i].Match(labels) {
			return false
		}
	}
	return true
}

// Seeks is the label and values whose index entries (AppendIndexPrefix)
// hold every series the filter can match: those of its first positive
// expression. The engine reads those entries, takes each series once and
// checks its live labels with Match.
func (f *Filter) Seeks() (label []byte, values [][]byte) {
	for _, m := range f.Matchers {
		if m.positive() {
			return m.Label, m.Values
		}
	}
	return nil, nil
}
