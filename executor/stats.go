package executor

import (
	"math/bits"
	"sort"
	"strings"
	"sync/atomic"
	"time"
)

// ResetStats zeroes the counters INFO stats, commandstats and errorstats
// report.
func (e *Env) ResetStats() {
	resetCommandStats()
	for _, n := range []interface{ Store(int64) }{
		&e.Stats.ConnectionsReceived, &e.Stats.RejectedConnections, &e.Stats.CommandsProcessed,
		&e.Stats.NetInputBytes, &e.Stats.NetOutputBytes, &e.Stats.KeyspaceHits, &e.Stats.KeyspaceMisses,
	} {
		n.Store(0)
	}
	if e.Cluster != nil {
		e.Cluster.Usage.Reset()
	}
}

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

// commandStats are one command's counters: calls, time and Redis 7's
// rejected and failed calls for INFO commandstats, and the latency
// histogram /metrics exports. They are atomics, updated without a lock.
//
// As in Redis 7, a call refused before its handler runs (arity, NOAUTH,
// admin rights, cluster redirection, a subcommand's arity) is rejected and
// not counted in calls; a call whose handler replied an error (WRONGTYPE,
// a syntax error, EXECABORT) is counted in calls and is failed. As in
// Kvrocks, calls is counted when the command starts, so INFO
// commandstats counts the INFO that shows it.
type commandStats struct {
	calls    atomic.Int64
	usec     atomic.Int64
	rejected atomic.Int64
	failed   atomic.Int64
	buckets  [20]atomic.Uint64 // one per LatencyBuckets bound, then +Inf
	// doubling counts the calls per power-of-two bucket of 1024 ns, as
	// Redis's LATENCY HISTOGRAM shows them (latency.go).
	doubling [HistogramBuckets]atomic.Uint64
}

// record adds the time of a call counted when it started.
func (s *commandStats) record(elapsed time.Duration) {
	s.usec.Add(elapsed.Microseconds())
	i := 0
	for i < len(LatencyBuckets) && elapsed > LatencyBuckets[i] {
		i++
	}
	s.buckets[i].Add(1)
	s.doubling[doublingBucket(elapsed)].Add(1)
}

// HistogramBuckets is the number of LATENCY HISTOGRAM buckets: 1024 ns
// doubled up to more than a day.
const HistogramBuckets = 48

// doublingBucket is the bucket of a call that took elapsed: the first
// whose bound, 1024 ns << bucket, holds it. As Redis, a call is counted
// in whole microseconds, and as at least one.
func doublingBucket(elapsed time.Duration) int {
	ns := max(elapsed.Microseconds(), 1) * 1000
	return min(bits.Len64(uint64(ns-1)>>10), HistogramBuckets-1)
}

// LatencyHistogram returns the calls of the command per LATENCY
// HISTOGRAM bucket: bucket i holds those that took up to 1024 ns << i.
func (c *Command) LatencyHistogram() [HistogramBuckets]uint64 {
	var out [HistogramBuckets]uint64
	for i := range out {
		out[i] = c.stats.doubling[i].Load()
	}
	return out
}

func (s *commandStats) reset() {
	s.calls.Store(0)
	s.usec.Store(0)
	s.rejected.Store(0)
	s.failed.Store(0)
	for i := range s.buckets {
		s.buckets[i].Store(0)
	}
	for i := range s.doubling {
		s.doubling[i].Store(0)
	}
}

// CommandStat is a copy of one command's counters.
type CommandStat struct {
	Name  string
	Calls int64
	Usec  int64
	// Rejected counts the calls refused before they ran, Failed those
	// that replied an error (Redis 7's rejected_calls and failed_calls).
	Rejected, Failed int64
	// Buckets counts the calls per latency bucket (not cumulative): one
	// per LatencyBuckets bound, then the calls slower than the last.
	Buckets []uint64
}

// CommandStats returns the counters of every command called or refused
// since start (or CONFIG RESETSTAT), by name.
func (e *Env) CommandStats() []CommandStat {
	var out []CommandStat
	for _, cmd := range SortedCommands() {
		st := &cmd.stats
		cs := CommandStat{Name: cmd.Name, Calls: st.calls.Load(), Usec: st.usec.Load(),
			Rejected: st.rejected.Load(), Failed: st.failed.Load()}
		if cs.Calls <= 0 && cs.Rejected == 0 && cs.Failed == 0 {
			continue
		}
		cs.Calls = max(cs.Calls, 0)
		cs.Buckets = make([]uint64, len(st.buckets))
		for i := range st.buckets {
			cs.Buckets[i] = st.buckets[i].Load()
		}
		out = append(out, cs)
	}
	return out
}

// maxErrorCodes bounds the distinct error codes errorstats tracks, as
// Redis 7.2 does: past it, an error with a new code is counted in
// total_error_replies only.
const maxErrorCodes = 128

// errorStats counts the error replies sent to clients, in total
// (total_error_replies) and by code, the error's first word (INFO
// errorstats). Counting takes no lock and allocates only the first time a
// code is seen.
type errorStats struct {
	total atomic.Int64
	codes [maxErrorCodes]atomic.Pointer[errorCount]
}

type errorCount struct {
	code string
	n    atomic.Int64
}

// errStats are the server's error counters; like the command counters,
// they belong to the process.
var errStats errorStats

// CountErrorReply is the error hook of every connection's writer: it counts
// the error replies by their code (INFO errorstats).
func CountErrorReply(msg string) { errStats.add(msg) }

// errorCode returns an error reply's code as Redis 7 finds it: the text
// before the first space within the first 32 bytes, else ERR.
func errorCode(msg string) string {
	if i := strings.IndexByte(msg[:min(len(msg), 32)], ' '); i > 0 {
		return msg[:i]
	}
	return "ERR"
}

func (s *errorStats) add(msg string) {
	s.total.Add(1)
	code := errorCode(msg)
	for i := range s.codes {
		c := s.codes[i].Load()
		if c == nil {
			fresh := &errorCount{code: strings.Clone(code)}
			if s.codes[i].CompareAndSwap(nil, fresh) {
				c = fresh
			} else {
				c = s.codes[i].Load()
			}
		}
		if c.code == code {
			c.n.Add(1)
			return
		}
	}
}

func (s *errorStats) reset() {
	s.total.Store(0)
	for i := range s.codes {
		if c := s.codes[i].Load(); c != nil {
			c.n.Store(0)
		}
	}
}

// ErrorStat is the count of error replies with one code.
type ErrorStat struct {
	Code  string
	Count int64
}

// ErrorStats returns the error replies sent since start (or CONFIG
// RESETSTAT) by code, in byte order as Redis lists them, and their total.
func (e *Env) ErrorStats() ([]ErrorStat, int64) {
	var out []ErrorStat
	for i := range errStats.codes {
		c := errStats.codes[i].Load()
		if c == nil {
			break
		}
		if n := c.n.Load(); n > 0 {
			out = append(out, ErrorStat{c.code, n})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out, errStats.total.Load()
}

// resetCommandStats zeroes the command and error counters (CONFIG
// RESETSTAT).
func resetCommandStats() {
	for _, cmd := range table.byName {
		cmd.stats.reset()
	}
	errStats.reset()
}
