package commands

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

func init() {
	register(&Command{Name: "monitor", Arity: 1, Flags: Admin | NoMulti, Handler: cmdMonitor})
}

// MONITOR
//
// The connection then receives every command the server runs, one line
// each, after its +OK: the reply is queued before the client is
// registered, so no line can overtake it.
func cmdMonitor(c *Ctx) {
	cl := c.Client
	again := cl.monitor.Swap(true)
	cl.startPushes()
	cl.push(okReply)
	if !again {
		c.Env.monitors.add(cl)
	}
}

var okReply = []byte("+OK\r\n")

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
