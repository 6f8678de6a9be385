package server

import (
	"strings"
	"sync/atomic"
	"testing"
)

func newScanner(maxBulk int64, authed bool) *frameConn {
	return &frameConn{maxBulk: func() int64 { return maxBulk }, authed: func() bool { return authed }, in: new(atomic.Int64), out: new(atomic.Int64)}
}

// scanSplit feeds input cut at position cut, as two reads would deliver it.
func scanSplit(fc *frameConn, input string, cut int) string {
	if msg := fc.scan([]byte(input[:cut])); msg != "" {
		return msg
	}
	return fc.scan([]byte(input[cut:]))
}

func TestFrameScanner(t *testing.T) {
	big := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + "20" + "\r\n" + strings.Repeat("v", 20) + "\r\n"
	tests := []struct {
		name    string
		input   string
		maxBulk int64
		authed  bool
		want    string
	}{
		{"valid pipeline", "*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", 512, true, ""},
		{"bulk at the limit", big, 20, true, ""},
		{"bulk over the limit", big, 19, true, "invalid bulk length"},
		{"negative bulk", "*1\r\n$-5\r\n", 512, true, "invalid bulk length"},
		{"too many arguments", "*1048577\r\n", 512, true, "invalid multibulk length"},
		{"number line too long", "*" + strings.Repeat("1", 40) + "\r\n", 512, true, "invalid multibulk length"},
		{"inline", "PING\r\nSET a b\r\n", 512, true, ""},
		{"inline too big", strings.Repeat("a", maxInlineSize+1), 512, true, "too big inline request"},
		{"unauthenticated multibulk", "*11\r\n", 512, false, "unauthenticated multibulk length"},
		{"unauthenticated bulk", "*2\r\n$4\r\nAUTH\r\n$16385\r\n", 1 << 20, false, "unauthenticated bulk length"},
		{"binary payload with CRLF inside", "*2\r\n$4\r\nECHO\r\n$4\r\n\r\n\r\n\r\n*1\r\n$4\r\nPING\r\n", 512, true, ""},
	}
	for _, tt := range tests {
		for _, cut := range cuts(len(tt.input)) {
			fc := newScanner(tt.maxBulk, tt.authed)
			if got := scanSplit(fc, tt.input, cut); got != tt.want {
				t.Fatalf("%s (cut at %d): got %q, want %q", tt.name, cut, got, tt.want)
			}
		}
	}
}

// cuts returns every split point of a short input, and a few of a long one.
func cuts(n int) []int {
	if n > 1000 {
		return []int{0, 1, n / 2, n - 1, n}
	}
	out := make([]int, n+1)
	for i := range out {
		out[i] = i
	}
	return out
}

func TestFrameScannerReturnsToStartBetweenRequests(t *testing.T) {
	fc := newScanner(512, true)
	for i := 0; i < 3; i++ {
		if msg := fc.scan([]byte("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n")); msg != "" || fc.state != stStart {
			t.Fatalf("request %d: msg %q state %d", i, msg, fc.state)
		}
	}
}
