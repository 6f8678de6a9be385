package cluster

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// link is the migration's connection to the destination node: a minimal
// RESP2 client that pipelines commands and checks their replies.
type link struct {
	conn    net.Conn
	r       *bufio.Reader
	w       *bufio.Writer
	pending int // commands sent whose replies are unread
	timeout time.Duration
}

// errReply is an error reply of the destination.
type errReply string

func (e errReply) Error() string { return "destination replied: " + string(e) }

func dialLink(addr string, timeout time.Duration) (*link, error) {
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", addr, err)
	}
	return &link{conn: conn, r: bufio.NewReaderSize(conn, 16<<10), w: bufio.NewWriterSize(conn, 64<<10), timeout: timeout}, nil
}

func (l *link) close() { l.conn.Close() }

// send queues one command.
func (l *link) send(args ...[]byte) error {
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

// drain sends what is queued and reads every pending reply; the first
// error reply fails it.
func (l *link) drain() error {
	l.conn.SetDeadline(time.Now().Add(l.timeout))
	if err := l.w.Flush(); err != nil {
		return fmt.Errorf("send: %w", err)
	}
	var first error
	for ; l.pending > 0; l.pending-- {
		l.conn.SetReadDeadline(time.Now().Add(l.timeout))
		_, err := l.read()
		var bad errReply
		switch {
		case errors.As(err, &bad):
			if first == nil {
				first = err
			}
		case err != nil:
			return err
		}
	}
	return first
}

// do sends one command and returns its reply.
func (l *link) do(args ...[]byte) (any, error) {
	if err := l.drain(); err != nil {
		return nil, err
	}
	if err := l.send(args...); err != nil {
		return nil, err
	}
	if err := l.w.Flush(); err != nil {
		return nil, fmt.Errorf("send: %w", err)
	}
	l.conn.SetReadDeadline(time.Now().Add(l.timeout))
	l.pending--
	return l.read()
}

// read parses one reply: a string, an int64, nil, []any, or errReply.
func (l *link) read() (any, error) {
	line, err := l.r.ReadString('\n')
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
		if err != nil {
			return nil, fmt.Errorf("read reply: bad length %q", body)
		}
		if n < 0 {
			return nil, nil
		}
		if kind == '$' {
			buf := make([]byte, n+2)
			if _, err := io.ReadFull(l.r, buf); err != nil {
				return nil, fmt.Errorf("read reply: %w", err)
			}
			return string(buf[:n]), nil
		}
		items := make([]any, n)
		for i := range items {
			if items[i], err = l.read(); err != nil {
				return nil, err
			}
		}
		return items, nil
	}
	return nil, fmt.Errorf("read reply: unexpected %q", line)
}
