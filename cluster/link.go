package cluster

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/basaltdb/basalt/resp"
)

// link is the migration's connection to the destination node: a
// resp.Client that keeps up to window commands in flight. A goroutine
// reads the replies as they come, so that the destination applies one
// batch while the next is read and sent.
type link struct {
	c       *resp.Client
	timeout time.Duration
	window  int
	pending int // commands sent whose replies are not consumed
	replies chan result
	closed  chan struct{}
}

// result is one reply, or the error that ended the reading.
type result struct {
	reply resp.Reply
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

const (
	// maxReplyBulk bounds a bulk string the destination sends: its
	// replies are short (OK, integers, COMMAND INFO).
	maxReplyBulk = 1 << 20
	// flushAt is how much is queued before it is sent without waiting
	// for the window to fill.
	flushAt = 64 << 10
)

// errReply is an error reply of the destination.
type errReply string

func (e errReply) Error() string { return "destination replied: " + string(e) }

func dialLink(addr string, timeout time.Duration, window int) (*link, error) {
	c, err := resp.Dial(addr, timeout)
	if err != nil {
		return nil, fmt.Errorf("failed to connect to the destination node: %w", dialError{err})
	}
	c.MaxBulk = maxReplyBulk
	l := &link{c: c, timeout: timeout, window: max(window, 1),
		replies: make(chan result, max(window, 1)), closed: make(chan struct{})}
	go l.readLoop()
	return l, nil
}

func (l *link) close() {
	close(l.closed)
	l.c.Close()
}

// readLoop hands every reply to the sender until the connection fails.
// An error reply is the command's error; any other error ends the link.
func (l *link) readLoop() {
	for {
		r, err := l.c.Read(time.Time{})
		fatal := err != nil
		if fatal {
			err = fmt.Errorf("read reply: %w", err)
		} else if r.Kind == '-' {
			err = errReply(r.Str)
		}
		select {
		case l.replies <- result{r, err}:
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
	l.c.Append(args...)
	l.pending++
	if l.c.Queued() >= flushAt {
		return l.flush()
	}
	return nil
}

func (l *link) flush() error {
	if err := l.c.Flush(time.Now().Add(l.timeout)); err != nil {
		return fmt.Errorf("send: %w", err)
	}
	return nil
}

// next consumes the oldest pending reply.
func (l *link) next() (resp.Reply, error) {
	select {
	case r := <-l.replies:
		l.pending--
		return r.reply, r.err
	case <-time.After(l.timeout):
		return resp.Reply{}, fmt.Errorf("no reply from the destination in %v", l.timeout)
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
func (l *link) do(args ...[]byte) (resp.Reply, error) {
	if err := l.drain(); err != nil {
		return resp.Reply{}, err
	}
	if err := l.send(args...); err != nil {
		return resp.Reply{}, err
	}
	if err := l.flush(); err != nil {
		return resp.Reply{}, err
	}
	return l.next()
}
