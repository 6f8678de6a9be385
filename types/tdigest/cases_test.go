package tdigest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/basaltdb/basalt/resp"
)

// casesFile is the corpus phase 2's integration test replays on the
// server; the package replays it here on memDB.
const casesFile = "../../it/testdata/tdigest_cases.txt"

// tdCase is one line of the corpus.
type tdCase struct {
	line         int
	args         [][]byte
	resp2, resp3 string
}

// readCases parses the corpus (its syntax is in the file's header).
func readCases(t testing.TB) []tdCase {
	t.Helper()
	data, err := os.ReadFile(casesFile)
	if err != nil {
		t.Fatal(err)
	}
	var cases []tdCase
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) != 2 && len(fields) != 3 {
			t.Fatalf("line %d: %d tab-separated fields", i+1, len(fields))
		}
		c := tdCase{line: i + 1}
		if c.args, err = splitCommand(fields[0]); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if c.resp2, err = strconv.Unquote(fields[1]); err != nil {
			t.Fatalf("line %d: RESP2 reply: %v", i+1, err)
		}
		c.resp3 = c.resp2
		if len(fields) == 3 {
			if c.resp3, err = strconv.Unquote(fields[2]); err != nil {
				t.Fatalf("line %d: RESP3 reply: %v", i+1, err)
			}
		}
		cases = append(cases, c)
	}
	return cases
}

// splitCommand splits a command into words: runs of non-spaces, or
// "double quoted" strings with Go escapes.
func splitCommand(s string) ([][]byte, error) {
	var args [][]byte
	for s = strings.TrimLeft(s, " "); s != ""; s = strings.TrimLeft(s, " ") {
		if s[0] == '"' {
			quoted, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, err
			}
			word, _ := strconv.Unquote(quoted)
			args, s = append(args, []byte(word)), s[len(quoted):]
			continue
		}
		end := strings.IndexByte(s, ' ')
		if end < 0 {
			end = len(s)
		}
		args, s = append(args, []byte(s[:end])), s[end:]
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("no command")
	}
	return args, nil
}

// TestCases replays it/testdata/tdigest_cases.txt once per protocol from
// an empty database, as the handlers will run it: every reply as the
// file says, byte for byte.
func TestCases(t *testing.T) {
	cases := readCases(t)
	if len(cases) < 100 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			db := memDB{}
			for _, c := range cases {
				w := resp.NewWriter()
				w.SetProtocol(proto)
				db.do(c.args, w)
				want := c.resp2
				if proto == 3 {
					want = c.resp3
				}
				if got := string(w.Bytes()); got != want {
					t.Errorf("line %d: %s\n got %q\nwant %q", c.line, c.args, got, want)
				}
			}
		})
	}
}
