package timeseries

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/reply"
)

// casesFile is the TS commands with their expected replies, as data for
// the integration test of phase 2 (its header documents the syntax).
const casesFile = "../../it/testdata/timeseries_cases.txt"

// tsCase is one command line with its expected replies.
type tsCase struct {
	line       int
	section    string
	args       [][]byte
	want2      []string
	want3      []string
	raw2, raw3 string
}

// parseCases reads the cases file.
func parseCases(t testing.TB, path string) []tsCase {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []tsCase
	section := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "== "):
			section = strings.TrimPrefix(line, "== ")
		case strings.HasPrefix(line, "=> "), strings.HasPrefix(line, "2> "), strings.HasPrefix(line, "3> "):
			if len(out) == 0 {
				t.Fatalf("line %d: a reply before any command", n)
			}
			c := &out[len(out)-1]
			toks, err := splitWords(line[3:])
			if err != nil {
				t.Fatalf("line %d: %v", n, err)
			}
			if line[0] != '3' {
				c.want2, c.raw2 = toks, line[3:]
			}
			if line[0] != '2' {
				c.want3, c.raw3 = toks, line[3:]
			}
		default:
			words, err := splitWords(line)
			if err != nil {
				t.Fatalf("line %d: %v", n, err)
			}
			c := tsCase{line: n, section: section}
			for _, w := range words {
				c.args = append(c.args, []byte(w))
			}
			out = append(out, c)
		}
	}
	return out
}

// splitWords splits a line into words: bare, or double-quoted with Go
// escapes; a quote may follow a one-character reply prefix ($"a b").
func splitWords(s string) ([]string, error) {
	var out []string
	for s = strings.TrimLeft(s, " "); s != ""; s = strings.TrimLeft(s, " ") {
		prefix := ""
		if len(s) > 1 && s[1] == '"' && strings.ContainsRune("+-$", rune(s[0])) {
			prefix, s = s[:1], s[1:]
		}
		if s[0] == '"' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, fmt.Errorf("bad quoting in %q", s)
			}
			u, _ := strconv.Unquote(q)
			out = append(out, prefix+u)
			s = s[len(q):]
			continue
		}
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			i = len(s)
		}
		out = append(out, prefix+s[:i])
		s = s[i:]
	}
	return out, nil
}

// tokens flattens replies into the cases' notation for protocol proto.
func tokens(vals []reply.Value, proto int) []string {
	var out []string
	var add func(v reply.Value)
	add = func(v reply.Value) {
		switch v.Kind {
		case reply.KindSimple:
			out = append(out, "+"+v.Str)
		case reply.KindError:
			out = append(out, "-"+v.Str)
		case reply.KindInt:
			out = append(out, ":"+strconv.FormatInt(v.Int, 10))
		case reply.KindBulk:
			out = append(out, "$"+v.Str)
		case reply.KindNull:
			out = append(out, map[int]string{2: "$-1", 3: "_"}[proto])
		case reply.KindNullArray:
			out = append(out, map[int]string{2: "*-1", 3: "_"}[proto])
		case reply.KindShortDouble:
			if proto == 2 {
				out = append(out, "$"+string(num.AppendShortDouble(nil, v.Float)))
			} else {
				out = append(out, ","+string(num.AppendShortDouble(nil, v.Float)))
			}
		case reply.KindArray:
			out = append(out, "*"+strconv.Itoa(len(v.Elems)))
		case reply.KindMap:
			if proto == 2 {
				out = append(out, "*"+strconv.Itoa(len(v.Elems)))
			} else {
				out = append(out, "%"+strconv.Itoa(len(v.Elems)/2))
			}
		case reply.KindSet:
			if proto == 2 {
				out = append(out, "*"+strconv.Itoa(len(v.Elems)))
			} else {
				out = append(out, "~"+strconv.Itoa(len(v.Elems)))
			}
		default:
			out = append(out, fmt.Sprintf("?%v", v.Kind))
		}
		for _, e := range v.Elems {
			add(e)
		}
	}
	for _, v := range vals {
		add(v)
	}
	return out
}

// TestCases runs it/testdata/timeseries_cases.txt through the package
// (memDB standing in for the engine and the handlers) in RESP2 and
// RESP3, each section on fresh series, and compares every reply.
func TestCases(t *testing.T) {
	cases := parseCases(t, casesFile)
	if len(cases) < 100 {
		t.Fatalf("only %d cases", len(cases))
	}
	var db2, db3 *memDB
	section := "\x00"
	for _, c := range cases {
		if c.section != section {
			section, db2, db3 = c.section, newMemDB(t), newMemDB(t)
		}
		if c.want2 == nil || c.want3 == nil {
			t.Errorf("line %d: no reply for one of the protocols", c.line)
			continue
		}
		for _, p := range []struct {
			db    *memDB
			proto int
			want  []string
			raw   string
		}{{db2, 2, c.want2, c.raw2}, {db3, 3, c.want3, c.raw3}} {
			w := reply.NewCapture(p.proto)
			p.db.exec(w, c.args)
			got := tokens(w.Values(), p.proto)
			if strings.Join(got, "\x00") != strings.Join(p.want, "\x00") {
				t.Errorf("line %d (%s) RESP%d: %s\n got %s\nwant %s", c.line, section, p.proto, c.args, render(got), p.raw)
			}
		}
	}
}

// render writes tokens back in the cases' notation.
func render(toks []string) string {
	out := make([]string, len(toks))
	for i, tok := range toks {
		if len(tok) > 1 && strings.ContainsRune("+-$", rune(tok[0])) && strings.ContainsAny(tok[1:], " \"\\") {
			out[i] = tok[:1] + strconv.Quote(tok[1:])
		} else {
			out[i] = tok
		}
	}
	return strings.Join(out, " ")
}
