package session

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basaltdb/basalt/reply"
)

// Monitors are the sessions in MONITOR mode.
type Monitors struct {
	n  atomic.Int32
	mu sync.Mutex
	m  map[*Session]bool
}

// Monitor makes s a monitor: it is answered +OK, queued before it is
// registered so that no line overtakes it, then receives every command
// the server runs.
func (s *Session) Monitor() {
	again := s.monitor.Swap(true)
	s.StartPushes()
	s.Push(func(w reply.Sink) { w.OK() })
	if again {
		return
	}
	ms := &s.reg.Monitors
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if ms.m == nil {
		ms.m = map[*Session]bool{}
	}
	ms.m[s] = true
	ms.n.Store(int32(len(ms.m)))
}

// Stop ends MONITOR mode for s, if it was a monitor.
func (ms *Monitors) Stop(s *Session) {
	if !s.monitor.Swap(false) {
		return
	}
	ms.mu.Lock()
	defer ms.mu.Unlock()
	delete(ms.m, s)
	ms.n.Store(int32(len(ms.m)))
}

// Count returns how many sessions are monitoring.
func (ms *Monitors) Count() int { return int(ms.n.Load()) }

// Feed sends every monitor the line of a command s ran at `at`, as Redis
// writes it: <unix time.µs> [0 <addr>] "arg" ...; args come redacted.
func (r *Registry) Feed(s *Session, args [][]byte, at time.Time) {
	line := make([]byte, 0, 64)
	line = strconv.AppendInt(line, at.Unix(), 10)
	line = append(line, '.')
	usec := strconv.AppendInt(nil, int64(at.Nanosecond()/1000), 10)
	for i := len(usec); i < 6; i++ {
		line = append(line, '0')
	}
	line = append(line, usec...)
	line = append(line, " [0 "...)
	line = append(line, s.Addr...)
	line = append(line, ']')
	for _, a := range args {
		line = append(line, ' ')
		line = appendQuoted(line, a)
	}
	// A status line reads the same in both protocols.
	rendered := r.render(2, func(w reply.Sink) { w.Simple(string(line)) })
	ms := &r.Monitors
	ms.mu.Lock()
	defer ms.mu.Unlock()
	for m := range ms.m {
		m.push(rendered)
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

// Monitoring reports whether s is in MONITOR mode.
func (s *Session) Monitoring() bool { return s.monitor.Load() }
