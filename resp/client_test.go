package resp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// replyClient reads replies from data.
func replyClient(data []byte) *Client {
	return &Client{rd: bufio.NewReader(bytes.NewReader(data)), MaxBulk: 1 << 20}
}

func TestClientReadReply(t *testing.T) {
	long := strings.Repeat("x", 70000)
	for _, tt := range []struct {
		in   string
		want string // rendered, or "error"
	}{
		{"+OK\r\n", "+OK"},
		{"-ERR no\r\n", "-ERR no"},
		{":-42\r\n", ":-42"},
		{"$3\r\nabc\r\n", "$abc"},
		{"$0\r\n\r\n", "$"},
		{"$-1\r\n", "null"},
		{"*-1\r\n", "null"},
		{"*2\r\n$1\r\na\r\n*1\r\n:1\r\n", "[$a [:1]]"},
		{"$" + "70000\r\n" + long + "\r\n", "$" + long},
		{"$3\r\nabcd\r\n", "error"},         // no CRLF after the bytes
		{"$5\r\nab", "error"},               // cut short
		{"$2000000\r\nab\r\n", "error"},     // past MaxBulk
		{"$-2\r\n", "error"},                // bad length
		{"*x\r\n", "error"},                 // bad count
		{"*99999999999\r\n:1\r\n", "error"}, // a count the bytes do not back
		{"?\r\n", "error"},
		{"+OK\n", "error"},
		{"\r\n", "error"},
		{strings.Repeat("*1\r\n", 20) + ":1\r\n", "error"}, // too deep
		{"+" + strings.Repeat("a", MaxInlineSize) + "\r\n", "error"},
	} {
		r, err := replyClient([]byte(tt.in)).readReply(0)
		got := "error"
		if err == nil {
			got = render(r)
		}
		if got != tt.want {
			t.Errorf("%q: got %.80q, want %.80q", tt.in, got, tt.want)
		}
	}
}

func render(r Reply) string {
	switch {
	case r.Null:
		return "null"
	case r.Kind == ':':
		return ":" + strconv.FormatInt(r.Int, 10)
	case r.Kind == '*':
		parts := make([]string, len(r.Elems))
		for i, e := range r.Elems {
			parts[i] = render(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return string(r.Kind) + string(r.Str)
}

// TestClientRoundTrip sends pipelined commands over TCP to a peer that
// answers each with a canned reply, and reads them back.
func TestClientRoundTrip(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			got <- err.Error()
			return
		}
		defer conn.Close()
		want := "*2\r\n$4\r\nPING\r\n$0\r\n\r\n*1\r\n$3\r\nGET\r\n"
		buf := make([]byte, len(want))
		_, err = io.ReadFull(conn, buf)
		got <- string(buf)
		if err == nil {
			conn.Write([]byte("+PONG\r\n-WRONGTYPE no\r\n"))
		}
	}()
	c, err := Dial(ln.Addr().String(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Append([]byte("PING"), []byte{})
	c.Append([]byte("GET"))
	deadline := time.Now().Add(time.Minute)
	if err := c.Flush(deadline); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "*2\r\n$4\r\nPING\r\n$0\r\n\r\n*1\r\n$3\r\nGET\r\n" {
		t.Fatalf("the peer read %q", s)
	}
	if r, err := c.Read(deadline); err != nil || r.Kind != '+' || string(r.Str) != "PONG" || r.Err() != nil {
		t.Errorf("first reply %+v, %v", r, err)
	}
	r, err := c.Read(deadline)
	if err != nil || !errors.Is(r.Err(), ErrReply) || !strings.Contains(r.Err().Error(), "WRONGTYPE no") {
		t.Errorf("second reply %+v, %v", r, err)
	}
	if _, err := c.Read(time.Now().Add(50 * time.Millisecond)); err == nil {
		t.Error("a read past the replies succeeded")
	}
}

// FuzzClientReply: no input makes the reply reader panic or allocate far
// beyond what it was given.
func FuzzClientReply(f *testing.F) {
	for _, seed := range []string{"+OK\r\n", "-ERR x\r\n", ":1\r\n", "$3\r\nabc\r\n", "*2\r\n$-1\r\n*-1\r\n", "$999999\r\nab", "*3\r\n*1\r\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := replyClient(data)
		for i := 0; i < 4; i++ {
			if _, err := c.readReply(0); err != nil {
				return
			}
		}
	})
}
