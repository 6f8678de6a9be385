package it

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The TS.* commands (issue 43). Neither redis-server 7.0 nor Kvrocks
// 5fccd57 has them, so the replies are the data of
// testdata/timeseries_cases.txt (RedisTimeSeries's, REDIS-NEW.md §9,
// written in phase 1) and testdata/timeseries_wire.txt (the engine's
// part: keys around the series, bad input, namespaces), whose header
// says the syntax.

// tsCase is one command with its expected reply tokens per protocol.
type tsCase struct {
	file    string
	line    int
	section string
	args    []string
	want    [4][]string // by protocol, 2 and 3
}

func tsParseCases(t *testing.T, path string) []tsCase {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []tsCase
	section := ""
	for n, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(raw)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "== "):
			section = strings.TrimPrefix(line, "== ")
		case strings.HasPrefix(line, "=> "), strings.HasPrefix(line, "2> "), strings.HasPrefix(line, "3> "):
			if len(out) == 0 {
				t.Fatalf("%s:%d: a reply before any command", path, n+1)
			}
			toks, err := tsSplit(line[3:])
			if err != nil {
				t.Fatalf("%s:%d: %v", path, n+1, err)
			}
			c := &out[len(out)-1]
			if line[0] != '3' {
				c.want[2] = toks
			}
			if line[0] != '2' {
				c.want[3] = toks
			}
		default:
			words, err := tsSplit(line)
			if err != nil {
				t.Fatalf("%s:%d: %v", path, n+1, err)
			}
			out = append(out, tsCase{file: path, line: n + 1, section: section, args: words})
		}
	}
	return out
}

// tsSplit splits a line into words: bare, or double-quoted with Go
// escapes, a quote possibly after a one-character reply prefix ($"a b").
func tsSplit(s string) ([]string, error) {
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
			out, s = append(out, prefix+u), s[len(q):]
			continue
		}
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			i = len(s)
		}
		out, s = append(out, prefix+s[:i]), s[i:]
	}
	return out, nil
}

// tsConn is a raw connection that reads replies as the cases' tokens.
type tsConn struct {
	c net.Conn
	r *bufio.Reader
}

func tsDial(t *testing.T, p *proc) *tsConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", p.Addr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &tsConn{c: nc, r: bufio.NewReader(nc)}
}

// do sends a command and returns its reply's tokens.
func (c *tsConn) do(args ...string) ([]string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	c.c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.c.Write([]byte(b.String())); err != nil {
		return nil, err
	}
	var toks []string
	return toks, c.read(&toks)
}

// read appends the tokens of one reply: the header line of each value
// (a bulk string as $ and its bytes), then its elements.
func (c *tsConn) read(toks *[]string) error {
	line, err := c.r.ReadString('\n')
	if err != nil {
		return err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return fmt.Errorf("empty reply line")
	}
	n, _ := strconv.Atoi(line[1:])
	switch line[0] {
	case '$':
		if n < 0 {
			*toks = append(*toks, "$-1")
			return nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, buf); err != nil {
			return err
		}
		*toks = append(*toks, "$"+string(buf[:n]))
		return nil
	case '*', '~':
		*toks = append(*toks, line)
		for i := 0; i < n; i++ {
			if err := c.read(toks); err != nil {
				return err
			}
		}
		return nil
	case '%':
		*toks = append(*toks, line)
		for i := 0; i < 2*n; i++ {
			if err := c.read(toks); err != nil {
				return err
			}
		}
		return nil
	}
	*toks = append(*toks, line)
	return nil
}

// tsRun replays cases on p in one protocol, with a FLUSHALL at each
// section.
func tsRun(t *testing.T, p *proc, cases []tsCase, proto int) {
	c := tsDial(t, p)
	if proto == 3 {
		if _, err := c.do("HELLO", "3"); err != nil {
			t.Fatal(err)
		}
	}
	section := "\x00"
	for _, tc := range cases {
		if tc.section != section {
			section = tc.section
			if _, err := c.do("FLUSHALL"); err != nil {
				t.Fatal(err)
			}
		}
		got, err := c.do(tc.args...)
		if err != nil {
			t.Fatalf("%s:%d: %q: %v", tc.file, tc.line, tc.args, err)
		}
		if tc.want[proto] == nil {
			t.Errorf("%s:%d: no RESP%d reply given", tc.file, tc.line, proto)
			continue
		}
		if !slices.Equal(got, tc.want[proto]) {
			t.Errorf("%s:%d (%s) RESP%d: %q\n got %q\nwant %q", tc.file, tc.line, tc.section, proto, tc.args, got, tc.want[proto])
		}
	}
}

// TestTimeSeriesCommands replays the TS corpora on Basalt in RESP2 and
// RESP3.
func TestTimeSeriesCommands(t *testing.T) {
	p := startBasalt(t)
	defer p.Stop()
	var cases []tsCase
	for _, f := range []string{"testdata/timeseries_cases.txt", "testdata/timeseries_wire.txt"} {
		cases = append(cases, tsParseCases(t, f)...)
	}
	if len(cases) < 250 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, proto := range []int{2, 3} {
		tsRun(t, p, cases, proto)
	}
}
