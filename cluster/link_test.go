package cluster

import (
	"errors"
	"fmt"
	"net"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/basaltdb/basalt/resp"
	"github.com/basaltdb/basalt/resp/resptest"
)

// TestLinkHostileDestination has the link read what a hostile or broken
// destination could answer a command with, over a real socket: lengths
// and counts past the bounds, garbage and negative lengths, endless
// lines, deep nesting and cut-short replies fail the command, without a
// panic and without allocating what they announce.
func TestLinkHostileDestination(t *testing.T) {
	for _, tc := range []struct {
		answer  string
		endless bool   // then 64 MB of "a", without a line end
		want    string // the reply rendered, or "error"
	}{
		{"+OK\r\n", false, "OK"},
		{":-7\r\n", false, "-7"},
		{"$3\r\nabc\r\n", false, "abc"},
		{"$-1\r\n", false, "<nil>"},
		{"*2\r\n:1\r\n*1\r\n+x\r\n", false, "[1 [x]]"},
		{strings.Repeat("*1\r\n", 16) + ":1\r\n", false, strings.Repeat("[", 16) + "1" + strings.Repeat("]", 16)},
		{"-ERR no\r\n", false, "error"},
		{"$9223372036854775807\r\n", false, "error"},
		{fmt.Sprintf("$%d\r\n0123456789", maxReplyBulk+1), false, "error"},
		{"$1073741824\r\n0123456789", false, "error"},
		{"*4611686018427387904\r\n", false, "error"},
		{"*2147483647\r\n:1\r\n", false, "error"}, // a count the bytes do not back
		{strings.Repeat("*1\r\n", 17) + ":1\r\n", false, "error"},
		{"$-2\r\n", false, "error"},
		{"$x\r\n", false, "error"},
		{"*-7\r\n", false, "error"},
		{":1x\r\n", false, "error"},
		{"$5\r\nab", false, "error"},
		{"$3\r\nabcde\r\n", false, "error"},
		{"+OK\n", false, "error"},
		{"?\r\n", false, "error"},
		{"+", true, "error"},
		{"$3\r\nabc", true, "error"},
	} {
		addr := resptest.Serve(t, func(conn net.Conn) {
			rd := resp.NewReader(conn)
			if _, err := rd.ReadRequest(); err != nil {
				return
			}
			conn.Write([]byte(tc.answer))
			chunk := []byte(strings.Repeat("a", 64<<10))
			for i := 0; tc.endless && i < 1024; i++ {
				if _, err := conn.Write(chunk); err != nil {
					return
				}
			}
		})
		l, err := dialLink(addr, 20*time.Second, 1)
		if err != nil {
			t.Fatal(err)
		}
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		r, err := l.do([]byte("PING"))
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		l.close()
		got := "error"
		if err == nil {
			got = render(r)
		}
		if got != tc.want {
			t.Errorf("%.40q: %s (%v), want %s", tc.answer, got, err, tc.want)
		}
		// TotalAlloc only grows: what the read and the peer allocated.
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
			t.Errorf("%.40q: %d bytes allocated", tc.answer, grew)
		}
	}
}

// render prints a reply as fmt prints Go values.
func render(r resp.Reply) string {
	switch {
	case r.Null:
		return "<nil>"
	case r.Kind == ':':
		return strconv.FormatInt(r.Int, 10)
	case r.Kind == '*':
		parts := make([]string, len(r.Elems))
		for i, e := range r.Elems {
			parts[i] = render(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return string(r.Str)
}

// TestLinkErrorReply: an error reply fails its command with the
// destination's words, and the link goes on.
func TestLinkErrorReply(t *testing.T) {
	addr := resptest.Serve(t, func(conn net.Conn) {
		rd := resp.NewReader(conn)
		for _, answer := range []string{"-ERR no\r\n", "+OK\r\n"} {
			if _, err := rd.ReadRequest(); err != nil {
				return
			}
			conn.Write([]byte(answer))
		}
	})
	l, err := dialLink(addr, 20*time.Second, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	var bad errReply
	if _, err := l.do([]byte("PING")); !errors.As(err, &bad) || err.Error() != "destination replied: ERR no" {
		t.Errorf("an error reply: %v", err)
	}
	if r, err := l.do([]byte("PING")); err != nil || string(r.Str) != "OK" {
		t.Errorf("the command after an error reply: %+v, %v", r, err)
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
