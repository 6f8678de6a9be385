package resp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// Client is Basalt's side of a connection to another Redis-protocol server
// (MIGRATE's target): it writes commands as multibulk requests and reads
// RESP2 replies. Every length the peer sends is checked against a limit
// before it sizes anything, and an array grows as its elements arrive, so
// a hostile or broken peer cannot make it allocate more than it sent.
//
// A Client is used by one goroutine.
type Client struct {
	conn net.Conn
	rd   *bufio.Reader
	out  []byte
	// MaxBulk bounds a bulk string reply (default 512 MB, Redis's
	// proto-max-bulk-len).
	MaxBulk int64
}

// maxReplyDepth bounds the nesting of arrays in a reply.
const maxReplyDepth = 16

// ErrReply is wrapped by the error of a reply the peer sent as an error.
var ErrReply = errors.New("resp: error reply")

// Dial connects to addr within timeout.
func Dial(addr string, timeout time.Duration) (*Client, error) {
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	return NewClient(conn), nil
}

// NewClient speaks through conn, which it closes on Close.
func NewClient(conn net.Conn) *Client {
	return &Client{conn: conn, rd: bufio.NewReader(conn), MaxBulk: 512 << 20}
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Append queues a command; Flush sends what is queued. The arguments may
// be modified once Append returns.
func (c *Client) Append(args ...[]byte) {
	c.out = append(c.out, '*')
	c.out = strconv.AppendInt(c.out, int64(len(args)), 10)
	c.out = append(c.out, '\r', '\n')
	for _, a := range args {
		c.out = append(c.out, '$')
		c.out = strconv.AppendInt(c.out, int64(len(a)), 10)
		c.out = append(c.out, '\r', '\n')
		c.out = append(c.out, a...)
		c.out = append(c.out, '\r', '\n')
	}
}

// Flush sends the queued commands, by deadline.
func (c *Client) Flush(deadline time.Time) error {
	c.conn.SetWriteDeadline(deadline)
	_, err := c.conn.Write(c.out)
	c.out = c.out[:0]
	return err
}

// Reply is a RESP2 reply. Kind is its type byte: '+' (Str), '-' (Str,
// without the dash), ':' (Int), '$' (Str; Null when nil) or '*' (Elems;
// Null when nil).
type Reply struct {
	Kind  byte
	Str   []byte
	Int   int64
	Elems []Reply
	Null  bool
}

// Err returns the error of an error reply, wrapping ErrReply, or nil.
func (r *Reply) Err() error {
	if r.Kind != '-' {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrReply, r.Str)
}

// Read reads one reply, by deadline.
func (c *Client) Read(deadline time.Time) (Reply, error) {
	c.conn.SetReadDeadline(deadline)
	return c.readReply(0)
}

func (c *Client) readReply(depth int) (Reply, error) {
	line, err := c.line()
	if err != nil {
		return Reply{}, err
	}
	r := Reply{Kind: line[0]}
	switch r.Kind {
	case '+', '-':
		r.Str = line[1:]
		return r, nil
	}
	n, err := strconv.ParseInt(string(line[1:]), 10, 64)
	if err != nil {
		return r, ProtocolError(fmt.Sprintf("bad length or integer %q", line))
	}
	switch {
	case r.Kind == ':':
		r.Int = n
	case (r.Kind == '$' || r.Kind == '*') && n == -1:
		r.Null = true
	case r.Kind == '$' && n >= 0 && n <= c.MaxBulk:
		r.Str, err = c.bulk(n)
	case r.Kind == '*' && n >= 0 && depth < maxReplyDepth:
		for i := int64(0); i < n && err == nil; i++ {
			var e Reply
			e, err = c.readReply(depth + 1)
			r.Elems = append(r.Elems, e)
		}
	default:
		return r, ProtocolError(fmt.Sprintf("unexpected reply %q", line))
	}
	return r, err
}

// line reads a CRLF-terminated line of at most MaxInlineSize bytes,
// without its CRLF.
func (c *Client) line() ([]byte, error) {
	var line []byte
	for {
		part, err := c.rd.ReadSlice('\n')
		line = append(line, part...)
		if len(line) > MaxInlineSize {
			return nil, ProtocolError("reply line too long")
		}
		if err == nil {
			break
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return nil, ProtocolError(fmt.Sprintf("bad reply line %q", line))
	}
	return line[:len(line)-2], nil
}

// bulk reads n bytes and their CRLF; the buffer grows with the bytes that
// arrive, not with what n claims.
func (c *Client) bulk(n int64) ([]byte, error) {
	buf := make([]byte, 0, min(n+2, bigArgFirstChunk))
	for int64(len(buf)) < n+2 {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		end := min(int64(cap(buf)), n+2)
		m, err := io.ReadFull(c.rd, buf[len(buf):end])
		buf = buf[:len(buf)+m]
		if err != nil {
			return nil, err
		}
	}
	if buf[n] != '\r' || buf[n+1] != '\n' {
		return nil, ProtocolError("bulk reply without CRLF")
	}
	return buf[:n], nil
}
