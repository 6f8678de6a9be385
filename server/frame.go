package server

import (
	"errors"
	"net"
	"sync/atomic"
)

// Redis's protocol limits that do not depend on configuration.
const (
	maxInlineSize    = 64 * 1024   // PROTO_INLINE_MAX_SIZE
	maxMultibulkLen  = 1024 * 1024 // arguments in one request
	maxNumberLineLen = 32          // "*<count>" and "$<len>" lines
	// Before AUTH a client may only send short requests (Redis 7).
	unauthMultibulkLen = 10
	unauthBulkLen      = 16384
)

var errProtocol = errors.New("server: protocol limit exceeded")

// frameConn watches the bytes a client sends and refuses a request that
// breaks a protocol limit (notably a bulk longer than proto-max-bulk-len)
// as soon as its header arrives: it replies Redis's protocol error and
// fails the read, so the request is never buffered. It also counts the
// bytes in and out. Reads happen on the connection's goroutine only.
type frameConn struct {
	net.Conn
	maxBulk func() int64
	authed  func() bool
	in, out *atomic.Int64

	state     frameState
	number    int64 // the number being read on a header line
	negative  bool
	digits    int
	remaining int64 // arguments left in the current request
	skip      int64 // payload bytes (plus CRLF) left in the current bulk
	inline    int   // bytes of the current inline request
	failed    bool
}

type frameState int

const (
	stStart     frameState = iota // at the first byte of a request
	stMultiLen                    // reading "*<count>\r\n"
	stBulkStart                   // expecting '$'
	stBulkLen                     // reading "$<len>\r\n"
	stBulkData                    // skipping a bulk payload
	stInline                      // inside an inline request
	stPassive                     // malformed: redcon reports it
)

func (c *frameConn) Read(p []byte) (int, error) {
	if c.failed {
		return 0, errProtocol
	}
	n, err := c.Conn.Read(p)
	c.in.Add(int64(n))
	if msg := c.scan(p[:n]); msg != "" {
		c.failed = true
		c.Conn.Write([]byte("-ERR Protocol error: " + msg + "\r\n"))
		return 0, errProtocol
	}
	return n, err
}

func (c *frameConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.out.Add(int64(n))
	return n, err
}

// scan advances the frame state over b and returns a protocol error
// message when a limit is broken.
func (c *frameConn) scan(b []byte) string {
	for i := 0; i < len(b); i++ {
		ch := b[i]
		switch c.state {
		case stStart:
			if ch == '*' {
				c.startNumber(stMultiLen)
			} else {
				c.state, c.inline = stInline, 0
				i--
			}
		case stInline:
			c.inline++
			if ch == '\n' {
				c.state = stStart
			} else if c.inline > maxInlineSize {
				return "too big inline request"
			}
		case stMultiLen, stBulkLen:
			done, ok := c.numberByte(ch)
			if !ok {
				if c.state == stMultiLen {
					return "invalid multibulk length"
				}
				return "invalid bulk length"
			}
			if done {
				if msg := c.endNumber(); msg != "" {
					return msg
				}
			}
		case stBulkStart:
			if ch != '$' {
				c.state = stPassive
				return ""
			}
			c.startNumber(stBulkLen)
		case stBulkData:
			// Skip as much of the payload as this read holds at once.
			step := min(c.skip, int64(len(b)-i))
			c.skip -= step
			i += int(step) - 1
			if c.skip == 0 {
				c.nextArgument()
			}
		case stPassive:
			return ""
		}
	}
	return ""
}

func (c *frameConn) startNumber(s frameState) {
	c.state, c.number, c.negative, c.digits = s, 0, false, 0
}

// numberByte consumes one byte of a header line; done at its '\n'.
func (c *frameConn) numberByte(ch byte) (done, ok bool) {
	c.digits++
	switch {
	case c.digits > maxNumberLineLen:
		return false, false
	case ch == '\n':
		return true, true
	case ch == '\r':
		return false, true
	case ch == '-' && c.digits == 1:
		c.negative = true
		return false, true
	case ch >= '0' && ch <= '9':
		c.number = c.number*10 + int64(ch-'0')
		return false, true
	}
	// Not a number: leave the request to redcon's parser, which rejects it.
	c.state = stPassive
	return false, true
}

// endNumber acts on a completed "*<count>" or "$<len>" line.
func (c *frameConn) endNumber() string {
	if c.state == stPassive {
		return ""
	}
	if c.state == stMultiLen {
		switch {
		case c.negative || c.number <= 0:
			c.state = stStart
		case c.number > maxMultibulkLen:
			return "invalid multibulk length"
		case !c.authed() && c.number > unauthMultibulkLen:
			return "unauthenticated multibulk length"
		default:
			c.remaining = c.number
			c.state = stBulkStart
		}
		return ""
	}
	switch {
	case c.negative || c.number > c.maxBulk():
		return "invalid bulk length"
	case !c.authed() && c.number > unauthBulkLen:
		return "unauthenticated bulk length"
	}
	c.skip = c.number + 2
	c.state = stBulkData
	return ""
}

func (c *frameConn) nextArgument() {
	c.remaining--
	if c.remaining == 0 {
		c.state = stStart
	} else {
		c.state = stBulkStart
	}
}
