package cluster

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"
)

// TestReadReplyBounds feeds readReply what a hostile destination could
// send: lengths and counts past the bounds, and deep nesting, fail
// without allocating what they announce.
func TestReadReplyBounds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // the reply printed, or "error"
	}{
		{"+OK\r\n", "OK"},
		{":-7\r\n", "-7"},
		{"$3\r\nabc\r\n", "abc"},
		{"$-1\r\n", "<nil>"},
		{"*2\r\n:1\r\n*1\r\n+x\r\n", "[1 [x]]"},
		{"-ERR no\r\n", "error"},
		{"$9223372036854775807\r\n", "error"},
		{fmt.Sprintf("$%d\r\n", maxReplyBulk+1), "error"},
		{"*4611686018427387904\r\n", "error"},
		{fmt.Sprintf("*%d\r\n", maxReplyItems+1), "error"},
		{strings.Repeat("*1\r\n", maxReplyDepth+1) + ":1\r\n", "error"},
		{strings.Repeat("*1\r\n", maxReplyDepth) + ":1\r\n", "[[[[[[[[1]]]]]]]]"},
		{"$5\r\nab", "error"},
		{"?\r\n", "error"},
	} {
		v, err := readReply(bufio.NewReader(strings.NewReader(tc.in)), 0)
		got := fmt.Sprint(v)
		if err != nil {
			got = "error"
		}
		if got != tc.want {
			t.Errorf("%q: %s (%v), want %s", tc.in, got, err, tc.want)
		}
	}
}

// TestDialErrorText words a refused connection as Kvrocks does.
func TestDialErrorText(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = dialLink(addr, 0, 1)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial a closed port: %v", err)
	}
	if want := "failed to connect to the destination node: Connection refused"; err.Error() != want {
		t.Errorf("dial a closed port: %q, want %q", err, want)
	}
}
