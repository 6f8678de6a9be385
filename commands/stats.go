package commands

import (
	"sync/atomic"
	"time"
)

// LatencyBuckets are the upper bounds of the per-command latency
// histograms, from 10 µs to 10 s; slower commands fall in a last,
// unbounded bucket.
var LatencyBuckets = []time.Duration{
	10 * time.Microsecond, 25 * time.Microsecond, 50 * time.Microsecond,
	100 * time.Microsecond, 250 * time.Microsecond, 500 * time.Microsecond,
	time.Millisecond, 2500 * time.Microsecond, 5 * time.Millisecond,
	10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2500 * time.Millisecond, 5 * time.Second, 10 * time.Second,
}

// commandStats are one command's counters: calls and time for INFO
// commandstats, and the latency histogram /metrics exports.
type commandStats struct {
	calls   atomic.Int64
	usec    atomic.Int64
	buckets [20]atomic.Uint64 // one per LatencyBuckets bound, then +Inf
}

func (s *commandStats) record(elapsed time.Duration) {
	s.calls.Add(1)
	s.usec.Add(elapsed.Microseconds())
	i := 0
	for i < len(LatencyBuckets) && elapsed > LatencyBuckets[i] {
		i++
	}
	s.buckets[i].Add(1)
}

func (s *commandStats) reset() {
	s.calls.Store(0)
	s.usec.Store(0)
	for i := range s.buckets {
		s.buckets[i].Store(0)
	}
}

// CommandStat is a copy of one command's counters.
type CommandStat struct {
	Name  string
	Calls int64
	Usec  int64
	// Buckets counts the calls per latency bucket (not cumulative): one
	// per LatencyBuckets bound, then the calls slower than the last.
	Buckets []uint64
}

// CommandStats returns the counters of every command called since start
// (or CONFIG RESETSTAT), by name.
func (e *Env) CommandStats() []CommandStat {
	var out []CommandStat
	for _, cmd := range sortedCommands() {
		st := &cmd.stats
		if st.calls.Load() == 0 {
			continue
		}
		cs := CommandStat{Name: cmd.Name, Calls: st.calls.Load(), Usec: st.usec.Load(), Buckets: make([]uint64, len(st.buckets))}
		for i := range st.buckets {
			cs.Buckets[i] = st.buckets[i].Load()
		}
		out = append(out, cs)
	}
	return out
}
