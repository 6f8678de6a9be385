package cluster

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// link is the migration's connection to the destination node: a minimal
// RESP2 client that keeps up to window commands in flight. A goroutine
// reads the replies as they come, so that the destination applies one
// batch while the next is read and sent.
type link struct {
	conn    net.Conn
	w       *bufio.Writer
	timeout time.Duration
	window  int
	pending int // commands sent whose replies are not consumed
	replies chan result
	closed  chan struct{}
}

// result is one reply, or the error that ended the reading.
type result struct {
	value any
	err   error
}

// dialError words a failed connection as Kvrocks does: the system's
// message alone ("Connection refused"), without Go's address prefix.
type dialError struct{ err error }

func (e dialError) Error() string {
	var errno syscall.Errno
	if !errors.As(e.err, &errno) {
		return e.err.Error()
	}
	msg := errno.Error()
	return strings.ToUpper(msg[:1]) + msg[1:]
}

func (e dialError) Unwrap() error { return e.err }

// Bounds on what the destination's replies may announce: its replies are
// short (OK, integers, COMMAND INFO), and a peer's length must never size
// an allocation unchecked.
const (
	maxReplyBulk  = 1 << 20
	maxReplyItems = 1 << 10
	maxReplyDepth = 8
)

// errReply is an error reply of the destination.
type errReply string

func (e errReply) Error() string { return "destination replied: " + string(e) }

func dialLink(addr string, timeout time.Duration, window int) (*link, error) {
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, fmt.Errorf("failed to connect to the destination node: %w", dialError{err})
	}
	l := &link{conn: conn, w: bufio.NewWriterSize(conn, 64<<10), timeout: timeout, window: max(window, 1),
		replies: make(chan result, max(window, 1)), closed: make(chan struct{})}
	go l.readLoop(bufio.NewReaderSize(conn, 16<<10))
	return l, nil
}

func (l *link) close() {
	close(l.closed)
	l.conn.Close()
}

// readLoop hands every reply to the sender until the connection fails.
func (l *link) readLoop(r *bufio.Reader) {
	for {
		v, err := readReply(r, 0)
		var bad errReply
		fatal := err != nil && !errors.As(err, &bad)
		select {
		case l.replies <- result{v, err}:
		case <-l.closed:
			return
		}
		if fatal {
			return
		}
	}
}

// send queues one command, first waiting for a reply if window commands
// are in flight.
func (l *link) send(args ...[]byte) error {
	if l.pending >= l.window {
		if err := l.flush(); err != nil {
			return err
		}
		if _, err := l.next(); err != nil {
			return err
		}
	}
	l.conn.SetWriteDeadline(time.Now().Add(l.timeout))
	l.w.WriteString("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		l.w.WriteString("$" + strconv.Itoa(len(a)) + "\r\n")
		l.w.Write(a)
		if _, err := l.w.WriteString("\r\n"); err != nil {
			return fmt.Errorf("send: %w", err)
		}
	}
	l.pending++
	return nil
}

func (l *link) flush() error {
	l.conn.SetWriteDeadline(time.Now().Add(l.timeout))
	if err := l.w.Flush(); err != nil {
		return fmt.Errorf("send: %w", err)
	}
	return nil
}

// next consumes the oldest pending reply.
func (l *link) next() (any, error) {
	select {
	case r := <-l.replies:
		l.pending--
		return r.value, r.err
	case <-time.After(l.timeout):
		return nil, fmt.Errorf("no reply from the destination in %v", l.timeout)
	}
}

// drain sends what is queued and consumes every pending reply; the first
// error fails it.
func (l *link) drain() error {
	if err := l.flush(); err != nil {
		return err
	}
	for l.pending > 0 {
		if _, err := l.next(); err != nil {
			return err
		}
	}
	return nil
}

// do sends one command and returns its reply.
func (l *link) do(args ...[]byte) (any, error) {
	if err := l.drain(); err != nil {
		return nil, err
	}
	if err := l.send(args...); err != nil {
		return nil, err
	}
	if err := l.flush(); err != nil {
		return nil, err
	}
	return l.next()
}

// readReply parses one reply: a string, an int64, nil, []any, or
// errReply. Lengths, counts and nesting beyond the bounds above fail it.
func readReply(r *bufio.Reader, depth int) (any, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("read reply: %w", err)
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("read reply: malformed line %q", line)
	}
	kind, body := line[0], line[1:len(line)-2]
	switch kind {
	case '+':
		return body, nil
	case '-':
		return nil, errReply(body)
	case ':':
		return strconv.ParseInt(body, 10, 64)
	case '$', '*':
		n, err := strconv.Atoi(body)
		switch {
		case err != nil:
			return nil, fmt.Errorf("read reply: bad length %q", body)
		case n < 0:
			return nil, nil
		case kind == '$' && n > maxReplyBulk, kind == '*' && n > maxReplyItems:
			return nil, fmt.Errorf("read reply: length %d past the bound", n)
		case kind == '*' && depth >= maxReplyDepth:
			return nil, fmt.Errorf("read reply: nested deeper than %d", maxReplyDepth)
		}
		if kind == '$' {
			buf := make([]byte, n+2)
			if _, err := io.ReadFull(r, buf); err != nil {
				return nil, fmt.Errorf("read reply: %w", err)
			}
			return string(buf[:n]), nil
		}
		items := make([]any, n)
		for i := range items {
			if items[i], err = readReply(r, depth+1); err != nil {
				return nil, err
			}
		}
		return items, nil
	}
	return nil, fmt.Errorf("read reply: unexpected %q", line)
}
