package resp

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll reads requests until an error and renders them as
// "arg arg|arg|..." followed by the error: "EOF" or the protocol error.
func readAll(r *Reader) string {
	var out []string
	for {
		args, err := r.ReadRequest()
		if err != nil {
			var pe ProtocolError
			switch {
			case errors.As(err, &pe):
				out = append(out, "ERR "+pe.Error())
			case errors.Is(err, ErrBudget):
				out = append(out, "BUDGET")
			case errors.Is(err, io.EOF):
				out = append(out, "EOF")
			default:
				out = append(out, "error "+err.Error())
			}
			return strings.Join(out, "|")
		}
		words := make([]string, len(args))
		for i, a := range args {
			words[i] = string(a)
		}
		out = append(out, strings.Join(words, " "))
	}
}

// chunked delivers its input in pieces of the given sizes, cycling.
type chunked struct {
	data  []byte
	sizes []int
	i     int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.data), c.sizes[c.i%len(c.sizes)])
	c.i++
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

func TestReaderRequests(t *testing.T) {
	big := strings.Repeat("v", 100000)
	tests := []struct {
		name    string
		in      string
		unauth  bool
		maxBulk int64
		want    string
	}{
		{"one request", "*1\r\n$4\r\nPING\r\n", false, 0, "PING|EOF"},
		{"pipeline", "*1\r\n$4\r\nPING\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n", false, 0, "PING|SET k |EOF"},
		{"binary payload", "*2\r\n$4\r\nECHO\r\n$4\r\n\r\n\r\n\r\n", false, 0, "ECHO \r\n\r\n|EOF"},
		{"big bulk", "*2\r\n$4\r\nECHO\r\n$100000\r\n" + big + "\r\n*1\r\n$4\r\nPING\r\n", false, 0, "ECHO " + big + "|PING|EOF"},
		{"payload end unchecked", "*1\r\n$4\r\nPINGxx*1\r\n$4\r\nPING\r\n", false, 0, "PING|PING|EOF"},
		{"*0 ignored", "*0\r\n*1\r\n$4\r\nPING\r\n", false, 0, "PING|EOF"},
		{"*-1 ignored", "*-1\r\n*1\r\n$4\r\nPING\r\n", false, 0, "PING|EOF"},
		{"*-5 ignored", "*-5\r\nPING\r\n", false, 0, "PING|EOF"},
		{"bulk length overflowing int64", "*1\r\n$9223372036854775808\r\nxxxxxxxx\r\n", false, 0, "ERR Protocol error: invalid bulk length"},
		{"bulk length past 2^64", "*1\r\n$18446744073709551621\r\nxxxxx\r\n", false, 0, "ERR Protocol error: invalid bulk length"},
		{"negative bulk", "*1\r\n$-1\r\n", false, 0, "ERR Protocol error: invalid bulk length"},
		{"bulk with plus", "*1\r\n$+4\r\nPING\r\n", false, 0, "ERR Protocol error: invalid bulk length"},
		{"bulk with leading zero", "*1\r\n$04\r\nPING\r\n", false, 0, "ERR Protocol error: invalid bulk length"},
		{"bulk with space", "*1\r\n$4 \r\nPING\r\n", false, 0, "ERR Protocol error: invalid bulk length"},
		{"bulk over proto-max-bulk-len", "*1\r\n$1048577\r\n", false, 1 << 20, "ERR Protocol error: invalid bulk length"},
		{"multibulk past INT_MAX", "*3000000000\r\n", false, 0, "ERR Protocol error: invalid multibulk length"},
		{"multibulk -0", "*-0\r\n", false, 0, "ERR Protocol error: invalid multibulk length"},
		{"multibulk leading zero", "*01\r\n", false, 0, "ERR Protocol error: invalid multibulk length"},
		{"multibulk with LF only", "*1\n$4\r\nPING\r\n", false, 0, "ERR Protocol error: invalid multibulk length"},
		{"expected dollar", "*1\r\nx4\r\nPING\r\n", false, 0, "ERR Protocol error: expected '$', got 'x'"},
		{"unauthenticated multibulk", "*11\r\n", true, 0, "ERR Protocol error: unauthenticated multibulk length"},
		{"unauthenticated ten arguments", "*10\r\n", true, 0, "EOF"},
		{"unauthenticated bulk", "*2\r\n$4\r\nAUTH\r\n$16385\r\n", true, 0, "ERR Protocol error: unauthenticated bulk length"},
		{"mbulk count line without CRLF", "*" + strings.Repeat("1", MaxInlineSize+1), false, 0, "ERR Protocol error: too big mbulk count string"},
		{"bulk count line without CRLF", "*1\r\n$" + strings.Repeat("1", MaxInlineSize+1), false, 0, "ERR Protocol error: too big bulk count string"},
		{"inline", "PING\r\nSET a b\nGET a\r\n", false, 0, "PING|SET a b|GET a|EOF"},
		{"inline blank lines", "\r\n\r\n   \r\nPING\r\n", false, 0, "PING|EOF"},
		{"inline too big", strings.Repeat("a", MaxInlineSize+1), false, 0, "ERR Protocol error: too big inline request"},
		{"inline quotes", `SET "a b" 'c d' "\x41\n" 'it\'s'` + "\r\n", false, 0, "SET a b c d A\n it's|EOF"},
		{"inline unbalanced quotes", "SET a \"b\r\n", false, 0, "ERR Protocol error: unbalanced quotes in request"},
		{"inline text after closing quote", "ECHO \"a\"b\r\n", false, 0, "ERR Protocol error: unbalanced quotes in request"},
		{"unfinished request", "*2\r\n$3\r\nGET\r\n", false, 0, "EOF"},
	}
	splits := map[string][]int{"whole": {1 << 30}, "bytes": {1}, "uneven": {3, 7, 1, 5000, 2}}
	for _, tt := range tests {
		for split, sizes := range splits {
			t.Run(tt.name+"/"+split, func(t *testing.T) {
				r := NewReader(&chunked{data: []byte(tt.in), sizes: sizes})
				r.Authed = !tt.unauth
				if tt.maxBulk > 0 {
					r.MaxBulk = tt.maxBulk
				}
				if got := readAll(r); got != tt.want {
					t.Fatalf("got  %q\nwant %q", abbrev(got), abbrev(tt.want))
				}
			})
		}
	}
}

func abbrev(s string) string {
	if len(s) > 200 {
		return fmt.Sprintf("%s...(%d bytes)", s[:200], len(s))
	}
	return s
}

// An AUTH lifts the unauthenticated limits from the next request on, even
// when both came in one read.
func TestReaderLimitsFollowAuth(t *testing.T) {
	in := "*2\r\n$4\r\nAUTH\r\n$2\r\npw\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$20000\r\n" + strings.Repeat("v", 20000) + "\r\n"
	r := NewReader(strings.NewReader(in))
	r.Authed = false
	args, err := r.ReadRequest()
	if err != nil || string(args[0]) != "AUTH" {
		t.Fatalf("AUTH: %q %v", args, err)
	}
	r.Authed = true
	args, err = r.ReadRequest()
	if err != nil || len(args) != 3 || len(args[2]) != 20000 {
		t.Fatalf("SET after AUTH: %d args, %v", len(args), err)
	}
}

// The budget sees every byte the reader holds, refuses growth past its
// limit, and gets everything back when the reader closes.
func TestReaderBudget(t *testing.T) {
	var held int64
	limit := int64(1 << 20)
	budget := func(delta int64) error {
		if delta > 0 && held+delta > limit {
			return errors.New("over")
		}
		held += delta
		return nil
	}
	in := "*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$2000000\r\n" + strings.Repeat("x", 1500000)
	r := NewReader(iotest.HalfReader(strings.NewReader(in)))
	r.Budget = budget
	if _, err := r.ReadRequest(); err != nil {
		t.Fatal(err)
	}
	if held != r.Held() || held == 0 {
		t.Fatalf("budget %d, reader %d", held, r.Held())
	}
	if _, err := r.ReadRequest(); !errors.Is(err, ErrBudget) {
		t.Fatalf("got %v, want ErrBudget", err)
	}
	if held > limit {
		t.Fatalf("held %d past the limit %d", held, limit)
	}
	r.Close()
	if held != 0 {
		t.Fatalf("%d bytes still accounted after Close", held)
	}
}

// A big bulk's header alone does not make the reader allocate its length.
func TestReaderBigBulkGrowsWithItsBytes(t *testing.T) {
	r := NewReader(strings.NewReader("*2\r\n$4\r\nECHO\r\n$500000000\r\n" + strings.Repeat("x", 1000)))
	if _, err := r.ReadRequest(); !errors.Is(err, io.EOF) {
		t.Fatalf("got %v", err)
	}
	if r.Held() > 2*bigArgFirstChunk {
		t.Fatalf("holds %d bytes after a 500 MB header and 1000 bytes", r.Held())
	}
}

// Many small requests do not grow the buffer: it is reused.
func TestReaderReusesItsBuffer(t *testing.T) {
	in := strings.Repeat("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n", 10000)
	r := NewReader(&chunked{data: []byte(in), sizes: []int{4096, 333}})
	n := 0
	for {
		if _, err := r.ReadRequest(); err != nil {
			break
		}
		n++
	}
	if n != 10000 || r.Held() > initialBufSize+1024 {
		t.Fatalf("%d requests, %d bytes held", n, r.Held())
	}
}

func TestSplitArgs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		ok   bool
	}{
		{"", nil, true},
		{"  a  b\tc ", []string{"a", "b", "c"}, true},
		{`"a\"b" "\x4a\x4B\xzz"`, []string{`a"b`, "JKxzz"}, true},
		{`a"b c"`, []string{"ab c"}, true},
		{`'a\nb'`, []string{`a\nb`}, true},
		{`""`, []string{""}, true},
		{"a\x00 b", []string{"a"}, true},
		{`"abc`, nil, false},
		{`'abc`, nil, false},
		{`'a'b`, nil, false},
		{`"a\"`, nil, false},
	}
	for _, tt := range tests {
		args, ok := SplitArgs([]byte(tt.in))
		got := make([]string, len(args))
		for i, a := range args {
			got[i] = string(a)
		}
		if ok != tt.ok || fmt.Sprint(got) != fmt.Sprint(tt.want) || (tt.want == nil && len(got) != 0) {
			t.Errorf("SplitArgs(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
