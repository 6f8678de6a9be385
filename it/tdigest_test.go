package it

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// tdigestCorpora are the TDIGEST.* corpora TestTDigestCommands replays:
// the package's (types/tdigest replays it on memory) and the server's.
var tdigestCorpora = []string{"testdata/tdigest_cases.txt", "testdata/tdigest_wire.txt"}

// replyCase is one line of a corpus of expected replies: the command,
// and the RESP2 and RESP3 replies it gets.
type replyCase struct {
	line         int
	args         []string
	resp2, resp3 string
}

// readReplyCases parses a corpus whose syntax tdigest_cases.txt's header
// gives: tab-separated command (words, or "Go-quoted" strings), RESP2
// reply and, when it differs, RESP3 reply, both Go-quoted.
func readReplyCases(t *testing.T, file string) []replyCase {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var cases []replyCase
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		c := replyCase{line: i + 1}
		if len(fields) == 2 || len(fields) == 3 {
			c.args, err = splitCaseCommand(fields[0])
		} else {
			err = fmt.Errorf("%d tab-separated fields", len(fields))
		}
		if err == nil {
			c.resp2, err = strconv.Unquote(fields[1])
		}
		c.resp3 = c.resp2
		if err == nil && len(fields) == 3 {
			c.resp3, err = strconv.Unquote(fields[2])
		}
		if err != nil {
			t.Fatalf("%s:%d: %v", file, i+1, err)
		}
		cases = append(cases, c)
	}
	return cases
}

// splitCaseCommand splits a corpus command into words: runs of
// non-spaces, or "double quoted" strings with Go escapes.
func splitCaseCommand(s string) ([]string, error) {
	var args []string
	for s = strings.TrimLeft(s, " "); s != ""; s = strings.TrimLeft(s, " ") {
		word := s
		if s[0] == '"' {
			quoted, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, err
			}
			word, _ = strconv.Unquote(quoted)
			s = s[len(quoted):]
		} else if end := strings.IndexByte(s, ' '); end >= 0 {
			word, s = s[:end], s[end:]
		} else {
			s = ""
		}
		args = append(args, word)
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("no command")
	}
	return args, nil
}

// TestTDigestCommands replays the TDIGEST.* corpora on bin/basalt, each
// from an empty database once per protocol: every reply byte for byte as
// the file says (each group of lines cites where its answer comes from:
// no server has a t-digest to diff against).
func TestTDigestCommands(t *testing.T) {
	p := startBasalt(t)
	for _, file := range tdigestCorpora {
		cases := readReplyCases(t, file)
		for _, proto := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s/RESP%d", strings.TrimPrefix(file, "testdata/"), proto), func(t *testing.T) {
				c := dial(t, p)
				if r := c.do("FLUSHALL"); r != "+OK\r\n" {
					t.Fatalf("FLUSHALL: %q", r)
				}
				if proto == 3 {
					c.do("HELLO", "3")
				}
				for _, tc := range cases {
					want := tc.resp2
					if proto == 3 {
						want = tc.resp3
					}
					if got := c.do(tc.args...); got != want {
						t.Errorf("line %d: %q\n got %q\nwant %q", tc.line, tc.args, got, want)
					}
				}
			})
		}
	}
}
