package commands

import (
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

func init() {
	register(&Command{Name: "monitor", Arity: 1, Flags: Admin | NoMulti, Handler: cmdMonitor})
}

// pushBacklog bounds the messages waiting for a slow receiver; past it the
// receiver is disconnected rather than let memory grow.
const pushBacklog = 8192

// MONITOR
//
// The connection then receives every command the server runs, one line
// each, after its +OK: the reply is pushed before the client is
// registered, so no line can overtake it.
func cmdMonitor(c *Ctx) {
	cl := c.Client
	cl.startPushes()
	cl.push(okReply)
	if !cl.monitor.Swap(true) {
		c.Env.monitors.add(cl)
	}
}

var okReply = []byte("+OK\r\n")

// startPushes makes the client one that messages are pushed to. Its
// output is then one ordered stream, which the server writes from
// Pushes: replies go there too (PushReply), and what the client was
// answered before is sent first.
func (c *Client) startPushes() {
	if c.pushes == nil {
		if c.Flush != nil {
			c.Flush()
		}
		c.pushes = make(chan []byte, pushBacklog)
	}
}

// Pushes returns the client's output stream once something is pushed to
// it, nil before: the server then writes replies itself. The server calls
// Delivered once it wrote each message.
func (c *Client) Pushes() <-chan []byte { return c.pushes }

// PushReply queues replies of a client that receives pushes behind what
// was pushed to it before; reply must not be modified afterwards.
func (c *Client) PushReply(reply []byte) { c.push(reply) }

// Delivered accounts n pushed messages of size bytes in all as written
// to the connection.
func (c *Client) Delivered(n, size int) {
	c.pushBytes.Add(-int64(size))
	c.pushCount.Add(-int64(n))
}

// push queues a message for the client without blocking. A client whose
// unsent messages pass the pubsub class of client-output-buffer-limit or
// the backlog is disconnected: it does not read fast enough, and
// publishers must not wait for it nor memory grow for it.
func (c *Client) push(msg []byte) {
	if !c.pushAllowed(len(msg)) {
		slog.Warn("closing client over its output buffer limit", "client", c.ID, "addr", c.Addr, "class", "pubsub", "bytes", c.pushBytes.Load())
		c.Kill()
		return
	}
	select {
	case c.pushes <- msg:
	default:
		c.Kill()
	}
}

// monitors are the clients in MONITOR mode.
type monitors struct {
	n  atomic.Int32
	mu sync.Mutex
	m  map[*Client]bool
}

func (ms *monitors) add(c *Client) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if ms.m == nil {
		ms.m = map[*Client]bool{}
	}
	ms.m[c] = true
	ms.n.Store(int32(len(ms.m)))
}

func (ms *monitors) remove(c *Client) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	delete(ms.m, c)
	ms.n.Store(int32(len(ms.m)))
}

// count returns how many clients are monitoring.
func (ms *monitors) count() int { return int(ms.n.Load()) }

// feed sends the line of a command run by cl to every monitor, as Redis
// writes it: +<unix time.µs> [0 <addr>] "arg" ... with the arguments of
// AUTH and HELLO redacted.
func (ms *monitors) feed(cl *Client, cmd *Command, args [][]byte, at time.Time) {
	line := make([]byte, 0, 64)
	line = append(line, '+')
	line = strconv.AppendInt(line, at.Unix(), 10)
	line = append(line, '.')
	usec := strconv.AppendInt(nil, int64(at.Nanosecond()/1000), 10)
	for i := len(usec); i < 6; i++ {
		line = append(line, '0')
	}
	line = append(line, usec...)
	line = append(line, " [0 "...)
	line = append(line, cl.Addr...)
	line = append(line, ']')
	for _, a := range redacted(cmd, args) {
		line = append(line, ' ')
		line = appendQuoted(line, a)
	}
	line = append(line, "\r\n"...)
	ms.mu.Lock()
	defer ms.mu.Unlock()
	for m := range ms.m {
		m.push(line)
	}
}

// appendQuoted appends s in double quotes with Redis's escapes (sdscatrepr).
func appendQuoted(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for _, ch := range s {
		switch ch {
		case '\\', '"':
			dst = append(dst, '\\', ch)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\a':
			dst = append(dst, '\\', 'a')
		case '\b':
			dst = append(dst, '\\', 'b')
		default:
			if ch >= 0x20 && ch < 0x7f {
				dst = append(dst, ch)
			} else {
				dst = append(dst, '\\', 'x', hex[ch>>4], hex[ch&0xf])
			}
		}
	}
	return append(dst, '"')
}
