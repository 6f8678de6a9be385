package executor

import (
	"log/slog"
	"sync"
	"time"
)

// authLogInterval is the least time between two warnings of failed
// authentication, so that a flood of bad passwords cannot flood the log.
const authLogInterval = time.Second

// authLog writes the warnings of failed AUTH attempts, rate-limited: one
// line per interval at most, counting the failures it did not log.
type authLog struct {
	mu struct {
		sync.Mutex
		last       time.Time
		suppressed int
	}
}

// Failed logs a failed attempt from addr, unless one was logged within
// the interval.
func (l *authLog) Failed(addr string) {
	l.mu.Lock()
	now := time.Now()
	if now.Sub(l.mu.last) < authLogInterval {
		l.mu.suppressed++
		l.mu.Unlock()
		return
	}
	suppressed := l.mu.suppressed
	l.mu.last, l.mu.suppressed = now, 0
	l.mu.Unlock()
	slog.Warn("authentication failed", "addr", addr, "failures not logged since the last warning", suppressed)
}
