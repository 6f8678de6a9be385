package session

import (
	"strconv"
	"sync"
	"time"
)

// Slowlog keeps the most recent commands slower than
// slowlog-log-slower-than, newest first, as Redis's SLOWLOG does.
type Slowlog struct {
	mu      sync.Mutex
	nextID  int64
	entries []SlowEntry // oldest first; readers reverse
}

// SlowEntry is one slow command: who ran it, when, for how long.
type SlowEntry struct {
	ID       int64
	At       time.Time
	Duration time.Duration
	Args     []string
	Addr     string
	Name     string
}

// Redis keeps at most this many arguments, each at most this long.
const (
	slowlogMaxArgs   = 32
	slowlogMaxArgLen = 128
)

// LogIfSlow records the command s ran from start for elapsed when it was
// slower than slowlog-log-slower-than; args returns its arguments with
// secrets redacted, called only then.
func (r *Registry) LogIfSlow(s *Session, args func() [][]byte, start time.Time, elapsed time.Duration) {
	threshold := r.cfg.SlowlogLogSlowerThan.Get()
	if threshold < 0 || elapsed.Microseconds() < threshold {
		return
	}
	entry := SlowEntry{At: start, Duration: elapsed, Args: slowlogArgs(args()), Addr: s.Addr, Name: s.Name()}
	max := int(r.cfg.SlowlogMaxLen.Get())
	l := &r.Slowlog
	l.mu.Lock()
	defer l.mu.Unlock()
	entry.ID = l.nextID
	l.nextID++
	l.entries = append(l.entries, entry)
	if drop := len(l.entries) - max; drop > 0 {
		l.entries = append(l.entries[:0], l.entries[drop:]...)
	}
}

// slowlogArgs copies the arguments, shortening them the way Redis does.
func slowlogArgs(args [][]byte) []string {
	n := min(len(args), slowlogMaxArgs)
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		if i == slowlogMaxArgs-1 && len(args) > slowlogMaxArgs {
			out = append(out, "... ("+strconv.Itoa(len(args)-slowlogMaxArgs+1)+" more arguments)")
			break
		}
		a := args[i]
		if len(a) > slowlogMaxArgLen {
			out = append(out, string(a[:slowlogMaxArgLen])+"... ("+strconv.Itoa(len(a)-slowlogMaxArgLen)+" more bytes)")
			continue
		}
		out = append(out, string(a))
	}
	return out
}

// Newest returns the n newest entries (all when n is negative), newest
// first.
func (l *Slowlog) Newest(n int) []SlowEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n < 0 || n > len(l.entries) {
		n = len(l.entries)
	}
	out := make([]SlowEntry, n)
	for i := range out {
		out[i] = l.entries[len(l.entries)-1-i]
	}
	return out
}

// Len returns how many entries the log holds.
func (l *Slowlog) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

// Reset empties the log.
func (l *Slowlog) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = nil
}

// Stats returns what the log holds: its length, and the id and duration
// of its newest entry (-1 and 0 when empty).
func (l *Slowlog) Stats() (length int, lastID int64, last time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.entries) == 0 {
		return 0, -1, 0
	}
	newest := l.entries[len(l.entries)-1]
	return len(l.entries), newest.ID, newest.Duration
}
