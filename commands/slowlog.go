package commands

import (
	"strconv"
	"sync"
	"time"
)

// slowlog keeps the most recent commands slower than
// slowlog-log-slower-than, newest first, as Redis's SLOWLOG does.
type slowlog struct {
	mu      sync.Mutex
	nextID  int64
	entries []slowEntry // newest first
}

type slowEntry struct {
	id       int64
	at       time.Time
	duration time.Duration
	args     []string
	addr     string
	name     string
}

// Redis keeps at most this many arguments, each at most this long.
const (
	slowlogMaxArgs   = 32
	slowlogMaxArgLen = 128
)

func (s *slowlog) maybeAdd(e *Env, cl *Client, cmd *Command, args [][]byte, start time.Time, elapsed time.Duration) {
	threshold := e.Config.SlowlogLogSlowerThan.Get()
	if threshold < 0 || elapsed.Microseconds() < threshold {
		return
	}
	entry := slowEntry{at: start, duration: elapsed, args: slowlogArgs(redacted(cmd, args)), addr: cl.Addr, name: cl.Name()}
	max := int(e.Config.SlowlogMaxLen.Get())
	s.mu.Lock()
	defer s.mu.Unlock()
	entry.id = s.nextID
	s.nextID++
	s.entries = append([]slowEntry{entry}, s.entries...)
	if len(s.entries) > max {
		s.entries = s.entries[:max]
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

func (s *slowlog) get(n int) []slowEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n < 0 || n > len(s.entries) {
		n = len(s.entries)
	}
	return append([]slowEntry(nil), s.entries[:n]...)
}

func (s *slowlog) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}

func (s *slowlog) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries = nil
}

// SlowlogStats returns what the slow log holds: its length, and the id and
// duration of its newest entry (-1 and 0 when empty).
func (e *Env) SlowlogStats() (length int, lastID int64, last time.Duration) {
	s := &e.slowlog
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.entries) == 0 {
		return 0, -1, 0
	}
	return len(s.entries), s.entries[0].id, s.entries[0].duration
}
