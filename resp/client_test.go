package resp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/basaltdb/basalt/resp/resptest"
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

func TestClientReadLine(t *testing.T) {
	for _, tt := range []struct {
		in   string
		max  int
		want string // or "error"
	}{
		{"change.me.db\r\n", 64, "change.me.db"},
		{"\r\n", 64, ""},
		{"-ERR x\r\n", 64, "-ERR x"},
		{"a,b\r\nrest", 3, "a,b"},
		{"a,bc\r\n", 3, "error"},
		{strings.Repeat("x", 70000) + "\r\n", 70000, strings.Repeat("x", 70000)},
		{strings.Repeat("x", 70001) + "\r\n", 70000, "error"},
		{"abc\n", 64, "error"},
		{"abc", 64, "error"},
	} {
		line, err := replyClient([]byte(tt.in)).ReadLine(time.Time{}, tt.max)
		got := string(line)
		if err != nil {
			got = "error"
		}
		if got != tt.want {
			t.Errorf("%.40q max %d: got %.40q, want %.40q", tt.in, tt.max, got, tt.want)
		}
	}
}

func TestClientReadBulk(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string // or "error"
	}{
		{"$4\r\nping\r\n", "ping"},
		{"$0\r\n\r\n", ""},
		{"$-1\r\n", "error"},
		{"$-2\r\n", "error"},
		{"$x\r\n", "error"},
		{"$\r\n", "error"},
		{"+OK\r\n", "error"},
		{"*1\r\n$1\r\na\r\n", "error"},
		{"$2000000\r\nab", "error"}, // past MaxBulk
		{"$4\r\npingXY", "error"},
		{"$4\r\npi", "error"},
	} {
		b, err := replyClient([]byte(tt.in)).ReadBulk(time.Time{}, nil)
		got := string(b)
		if err != nil {
			got = "error"
		}
		if got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestClientReadBulkReuses reads a stream of bulk strings as a replica
// reads its master's batches: once the buffer is large enough, not one
// allocation per bulk.
func TestClientReadBulkReuses(t *testing.T) {
	one := "$5\r\nbatch\r\n$3000\r\n" + strings.Repeat("b", 3000) + "\r\n"
	c := replyClient([]byte(strings.Repeat(one, 102)))
	var buf []byte
	allocs := testing.AllocsPerRun(100, func() {
		var err error
		for _, want := range []int{5, 3000} {
			if buf, err = c.ReadBulk(time.Time{}, buf); err != nil || len(buf) != want {
				t.Fatalf("read %d bytes, %v; want %d", len(buf), err, want)
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per two bulks", allocs)
	}
}

// hostilePeer answers the first request of each connection with answer,
// then holds the connection open until the test ends.
func hostilePeer(t *testing.T, answer string) *Client {
	t.Helper()
	addr := resptest.Serve(t, func(conn net.Conn) {
		rd := NewReader(conn)
		if _, err := rd.ReadRequest(); err != nil {
			return
		}
		conn.Write([]byte(answer))
		io.Copy(io.Discard, conn)
	})
	c, err := Dial(addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.Append([]byte("PING"))
	if err := c.Flush(time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestClientClaimsAreNotAllocated: a peer that claims a 1 GB bulk string
// (a reply, or a streamed batch) and sends 10 bytes makes the read wait
// and fail, with a megabyte allocated, not a gigabyte.
func TestClientClaimsAreNotAllocated(t *testing.T) {
	for name, read := range map[string]func(c *Client, deadline time.Time) error{
		"Read": func(c *Client, deadline time.Time) error {
			_, err := c.Read(deadline)
			return err
		},
		"ReadBulk": func(c *Client, deadline time.Time) error {
			_, err := c.ReadBulk(deadline, nil)
			return err
		},
	} {
		c := hostilePeer(t, "$1073741824\r\n0123456789")
		c.MaxBulk = 2 << 30
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := read(c, time.Now().Add(200*time.Millisecond))
		runtime.ReadMemStats(&after)
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			t.Errorf("%s: %v, want a timeout", name, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
			t.Errorf("%s: %d bytes allocated", name, grew)
		}
	}
}

// TestClientReadTimeout: ReadTimeout gives up on a peer that stops
// sending, and OnRead learns of every read that brought bytes.
func TestClientReadTimeout(t *testing.T) {
	c := hostilePeer(t, "$10\r\n01234")
	c.ReadTimeout = 100 * time.Millisecond
	reads := 0
	c.OnRead = func() { reads++ }
	start := time.Now()
	_, err := c.ReadBulk(time.Time{}, nil)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("a stalled bulk: %v, want a timeout", err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("a stalled bulk failed after %v", took)
	}
	if reads == 0 {
		t.Error("OnRead was not called")
	}
}

// TestClientReadRaw reads unframed bytes after a line, as a replica
// reads a checkpoint file after its size: what is buffered first, then
// from the socket; a peer that sends less fails it.
func TestClientReadRaw(t *testing.T) {
	file := strings.Repeat("0123456789", 300000)
	c := hostilePeer(t, "3000000\r\n"+file+"tail")
	line, err := c.ReadLine(time.Time{}, 64)
	if err != nil || string(line) != "3000000" {
		t.Fatalf("size line %q, %v", line, err)
	}
	var got bytes.Buffer
	deadline := time.Now().Add(time.Minute)
	if n, err := c.ReadRaw(deadline, &got, int64(len(file))); err != nil || n != int64(len(file)) || got.String() != file {
		t.Fatalf("ReadRaw: %d bytes, %v", n, err)
	}
	got.Reset()
	if n, err := c.ReadRaw(time.Now().Add(200*time.Millisecond), &got, 10); err == nil || n != 4 || got.String() != "tail" {
		t.Errorf("ReadRaw past the bytes sent: %d bytes %q, %v", n, got.String(), err)
	}
}

// FuzzClientReply: no input makes the readers panic or allocate far
// beyond what they were given.
func FuzzClientReply(f *testing.F) {
	for _, seed := range []string{"+OK\r\n", "-ERR x\r\n", ":1\r\n", "$3\r\nabc\r\n", "*2\r\n$-1\r\n*-1\r\n", "$999999\r\nab", "*3\r\n*1\r\n", "db\r\n$4\r\nping\r\n"} {
		f.Add([]byte(seed), uint8(0))
		f.Add([]byte(seed), uint8(0x1b))
	}
	f.Fuzz(func(t *testing.T, data []byte, how uint8) {
		c := replyClient(data)
		var buf []byte
		for i := 0; i < 4; i++ {
			var err error
			switch how >> (2 * i) & 3 {
			case 0:
				_, err = c.readReply(0)
			case 1:
				_, err = c.ReadLine(time.Time{}, 100)
			default:
				buf, err = c.ReadBulk(time.Time{}, buf)
			}
			if limit := max(2*len(data), bigArgFirstChunk); cap(buf) > limit {
				t.Fatalf("a buffer of %d bytes from %d bytes of input", cap(buf), len(data))
			}
			if err != nil {
				return
			}
		}
	})
}
