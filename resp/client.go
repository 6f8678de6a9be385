package resp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"time"

	"github.com/basaltdb/basalt/num"
)

// Client is Basalt's side of a connection to another Redis-protocol server:
// MIGRATE's target, a slot migration's destination, a replica's master. It
// writes commands as multibulk requests and reads RESP2 replies, and the
// unframed parts of Kvrocks's replication protocol: raw lines, streamed
// bulk strings, file bytes. Every length the peer sends is checked against
// a limit before it sizes anything, and a buffer grows as the bytes it
// holds arrive, so a hostile or broken peer cannot make it allocate more
// than it sent.
//
// A Client is used by one goroutine, except that one goroutine may read
// while another writes (Append, Queued, Flush).
type Client struct {
	conn net.Conn
	rd   *bufio.Reader
	out  []byte
	// deadline bounds the read in progress (zero: none).
	deadline time.Time

	// MaxBulk bounds a bulk string (default 512 MB, Redis's
	// proto-max-bulk-len).
	MaxBulk int64
	// ReadTimeout, when set, bounds each wait for bytes from the peer,
	// within the deadline of the read: a peer that goes silent is given
	// up on, one that keeps sending is not.
	ReadTimeout time.Duration
	// OnRead, when set, is called after every read from the connection
	// that returned bytes.
	OnRead func()
}

// Limits of a reply that do not depend on configuration.
const (
	// maxReplyDepth bounds the nesting of arrays in a reply.
	maxReplyDepth = 16
	// maxReplyElems bounds an array's count, as a request's
	// ("invalid multibulk length").
	maxReplyElems = math.MaxInt32
	// clientBufSize is the read buffer: a replica's stream of small
	// batches is read this much at a time.
	clientBufSize = 64 << 10
	// rawChunk is how much of an unframed transfer must arrive within
	// ReadTimeout.
	rawChunk = 1 << 20
	// releaseOut is the queue's capacity past which a flush lets it go.
	releaseOut = 1 << 20
)

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
	c := &Client{conn: conn, MaxBulk: 512 << 20}
	c.rd = bufio.NewReaderSize(connReader{c}, clientBufSize)
	return c
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

// Queued returns the bytes queued and not flushed yet.
func (c *Client) Queued() int { return len(c.out) }

// Flush sends the queued commands, by deadline.
func (c *Client) Flush(deadline time.Time) error {
	if len(c.out) == 0 {
		return nil
	}
	c.conn.SetWriteDeadline(deadline)
	_, err := c.conn.Write(c.out)
	c.out = c.out[:0]
	if cap(c.out) > releaseOut {
		c.out = nil
	}
	return err
}

// Buffered returns the bytes received and not read yet.
func (c *Client) Buffered() int { return c.rd.Buffered() }

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

// Read reads one reply, by deadline (zero: none).
func (c *Client) Read(deadline time.Time) (Reply, error) {
	c.deadline = deadline
	return c.readReply(0)
}

// ReadLine reads a line of at most max bytes, without its CRLF, by
// deadline: a reply read as raw bytes, as Kvrocks's replication protocol
// has them. The line is valid until the next read.
func (c *Client) ReadLine(deadline time.Time, max int) ([]byte, error) {
	c.deadline = deadline
	return c.line(max)
}

// ReadBulk reads a bulk string reply, by deadline, into dst's storage and
// returns it; dst's storage grows as the bytes arrive, never ahead of
// them, so a caller that passes the slice back each time reads a stream
// of bulks without an allocation. On an error, the storage is returned
// empty. A reply of another kind, a null, or a length past MaxBulk is a
// ProtocolError.
func (c *Client) ReadBulk(deadline time.Time, dst []byte) ([]byte, error) {
	c.deadline = deadline
	line, err := c.line(MaxInlineSize)
	if err != nil {
		return dst[:0], err
	}
	if len(line) == 0 || line[0] != '$' {
		return dst[:0], ProtocolError(fmt.Sprintf("expected a bulk string, got %q", line))
	}
	n, ok := num.ParseInt(line[1:])
	if !ok || !c.bulkLen(n) {
		return dst[:0], ProtocolError(fmt.Sprintf("invalid bulk length %q", line))
	}
	return c.appendBulk(dst[:0], n)
}

// ReadRaw copies the next n bytes, unframed, to w, by deadline: what is
// buffered, then straight from the connection (which the kernel splices
// into a file), a chunk at a time so that each chunk gets ReadTimeout.
// It returns the bytes copied.
func (c *Client) ReadRaw(deadline time.Time, w io.Writer, n int64) (int64, error) {
	c.deadline = deadline
	done, err := io.CopyN(w, c.rd, min(int64(c.rd.Buffered()), n))
	for err == nil && done < n {
		c.setReadDeadline()
		var got int64
		got, err = io.CopyN(w, c.conn, min(n-done, rawChunk))
		done += got
		if got > 0 && c.OnRead != nil {
			c.OnRead()
		}
	}
	return done, err
}

func (c *Client) readReply(depth int) (Reply, error) {
	line, err := c.line(MaxInlineSize)
	if err != nil {
		return Reply{}, err
	}
	if len(line) == 0 {
		return Reply{}, ProtocolError("empty reply line")
	}
	r := Reply{Kind: line[0]}
	switch r.Kind {
	case '+', '-':
		r.Str = append([]byte(nil), line[1:]...)
		return r, nil
	}
	n, ok := num.ParseInt(line[1:])
	if !ok {
		return r, ProtocolError(fmt.Sprintf("bad length or integer %q", line))
	}
	switch {
	case r.Kind == ':':
		r.Int = n
	case (r.Kind == '$' || r.Kind == '*') && n == -1:
		r.Null = true
	case r.Kind == '$' && c.bulkLen(n):
		r.Str, err = c.appendBulk(nil, n)
	case r.Kind == '*' && n >= 0 && n <= maxReplyElems && depth < maxReplyDepth:
		// The elements are appended as they arrive: a count alone
		// allocates nothing.
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

// line reads a CRLF-terminated line of at most max bytes, without its
// CRLF. A line the read buffer holds whole is returned in place, valid
// until the next read; a longer one is gathered, growing as it arrives.
func (c *Client) line(max int) ([]byte, error) {
	line, err := c.rd.ReadSlice('\n')
	if err != nil {
		line = append([]byte(nil), line...)
		for errors.Is(err, bufio.ErrBufferFull) && len(line) <= max+2 {
			var part []byte
			part, err = c.rd.ReadSlice('\n')
			line = append(line, part...)
		}
	}
	switch {
	case len(line) > max+2:
		return nil, ProtocolError(fmt.Sprintf("line longer than %d bytes", max))
	case err != nil:
		return nil, err
	case len(line) < 2 || line[len(line)-2] != '\r':
		return nil, ProtocolError(fmt.Sprintf("line without CRLF %q", line))
	}
	return line[:len(line)-2], nil
}

// bulkLen reports whether a bulk string of n bytes may be read.
func (c *Client) bulkLen(n int64) bool { return n >= 0 && n <= c.MaxBulk && n <= math.MaxInt64-2 }

// appendBulk reads n bytes and their CRLF into dst's storage, and
// returns dst with the n bytes; the storage grows with the bytes that
// arrive, not with what n claims. On an error it is returned empty.
func (c *Client) appendBulk(dst []byte, n int64) ([]byte, error) {
	buf := dst[:0]
	if int64(cap(buf)) < min(n+2, bigArgFirstChunk) {
		buf = make([]byte, 0, min(n+2, bigArgFirstChunk))
	}
	for int64(len(buf)) < n+2 {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		end := min(int64(cap(buf)), n+2)
		m, err := io.ReadFull(c.rd, buf[len(buf):end])
		buf = buf[:len(buf)+m]
		if err != nil {
			return buf[:0], err
		}
	}
	if buf[n] != '\r' || buf[n+1] != '\n' {
		return buf[:0], ProtocolError("bulk string without CRLF")
	}
	return buf[:n], nil
}

// setReadDeadline gives the next read from the connection the read's
// deadline, or ReadTimeout from now if that comes first.
func (c *Client) setReadDeadline() {
	d := c.deadline
	if c.ReadTimeout > 0 {
		if t := time.Now().Add(c.ReadTimeout); d.IsZero() || t.Before(d) {
			d = t
		}
	}
	c.conn.SetReadDeadline(d)
}

// connReader is the connection as the read buffer reads it.
type connReader struct{ c *Client }

func (r connReader) Read(p []byte) (int, error) {
	c := r.c
	c.setReadDeadline()
	n, err := c.conn.Read(p)
	if n > 0 && c.OnRead != nil {
		c.OnRead()
	}
	return n, err
}
