package commands

import (
	"fmt"
	"math/bits"
	"sort"
	"strings"
	"sync"
	"time"
)

func init() {
	register(
		&Command{Name: "latency", Arity: -2, Flags: Admin, Handler: cmdLatency},
	)
}

// The latency monitor of Redis 7.0 (latency.c): a command that takes at
// least latency-monitor-threshold milliseconds is a sample of the event
// "command", or "fast-command" for an O(1) one. Each event keeps its last
// 160 samples, one a second (the worst of the second), and its all-time
// worst.

// latencySamples is how many samples an event keeps (LATENCY_TS_LEN).
const latencySamples = 160

type latencySample struct {
	at      int64 // Unix seconds; 0: none
	latency int64 // ms
}

type latencyEvent struct {
	samples [latencySamples]latencySample
	next    int // where the next sample goes
	max     int64
}

// latencyMonitor holds the events by name.
type latencyMonitor struct {
	mu     sync.Mutex
	events map[string]*latencyEvent
}

// record adds the call of cmd that took elapsed, when it reaches the
// threshold.
func (e *Env) recordLatency(cmd *Command, elapsed time.Duration) {
	threshold := e.Config.Redis.LatencyMonitorThreshold.Get()
	ms := elapsed.Milliseconds()
	if threshold == 0 || ms < threshold {
		return
	}
	event := "command"
	if cmd.Flags&Fast != 0 {
		event = "fast-command"
	}
	e.latency.add(event, ms, time.Now().Unix())
}

// add is Redis's latencyAddSample.
func (m *latencyMonitor) add(event string, latency, now int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.events == nil {
		m.events = map[string]*latencyEvent{}
	}
	ev := m.events[event]
	if ev == nil {
		ev = &latencyEvent{}
		m.events[event] = ev
	}
	ev.max = max(ev.max, latency)
	prev := &ev.samples[(ev.next+latencySamples-1)%latencySamples]
	if prev.at == now {
		prev.latency = max(prev.latency, latency)
		return
	}
	ev.samples[ev.next] = latencySample{at: now, latency: latency}
	ev.next = (ev.next + 1) % latencySamples
}

// snapshot returns a copy of the events, by name.
func (m *latencyMonitor) snapshot() map[string]latencyEvent {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]latencyEvent, len(m.events))
	for name, ev := range m.events {
		out[name] = *ev
	}
	return out
}

// ordered returns the samples oldest first.
func (ev *latencyEvent) ordered() []latencySample {
	var out []latencySample
	for j := range latencySamples {
		if s := ev.samples[(ev.next+j)%latencySamples]; s.at != 0 {
			out = append(out, s)
		}
	}
	return out
}

// LATENCY LATEST | HISTORY event | RESET [event ...] | GRAPH event |
// DOCTOR | HISTOGRAM [command ...] | HELP
func cmdLatency(c *Ctx) {
	dispatchSub(c, latencySubcommands)
}

var latencySubcommands = map[string]subcommand{
	"latest":    {2, latencyLatest},
	"history":   {3, latencyHistory},
	"reset":     {-2, latencyReset},
	"graph":     {3, latencyGraph},
	"doctor":    {2, func(c *Ctx) { c.W.Verbatim(c.Env.latencyReport()) }},
	"histogram": {-2, latencyHistogram},
	"help": help(
		"LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"DOCTOR",
		"    Return a human readable latency analysis report.",
		"GRAPH <event>",
		"    Return an ASCII latency graph for the <event> class.",
		"HISTORY <event>",
		"    Return time-latency samples for the <event> class.",
		"LATEST",
		"    Return the latest latency samples for all events.",
		"RESET [<event> ...]",
		"    Reset latency data of one or more <event> classes.",
		"    (default: reset all data for all event classes)",
		"HISTOGRAM [COMMAND ...]",
		"    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
		"    If no commands are specified then all histograms are replied.",
		"HELP",
		"    Prints this help.",
	),
}

// eventNames returns the names of events, in a fixed order (Redis's is
// its hash table's).
func eventNames(events map[string]latencyEvent) []string {
	names := make([]string, 0, len(events))
	for n := range events {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LATENCY LATEST: each event's name, latest sample's time and latency,
// and all-time worst.
func latencyLatest(c *Ctx) {
	events := c.Env.latency.snapshot()
	c.W.Array(len(events))
	for _, name := range eventNames(events) {
		ev := events[name]
		last := ev.samples[(ev.next+latencySamples-1)%latencySamples]
		c.W.Array(4)
		c.W.BulkString(name)
		c.W.Int(last.at)
		c.W.Int(last.latency)
		c.W.Int(ev.max)
	}
}

// LATENCY HISTORY event: the event's samples, oldest first.
func latencyHistory(c *Ctx) {
	ev, ok := c.Env.latency.snapshot()[string(c.Args[2])]
	if !ok {
		c.W.Array(0)
		return
	}
	samples := ev.ordered()
	c.W.Array(len(samples))
	for _, s := range samples {
		c.W.Array(2)
		c.W.Int(s.at)
		c.W.Int(s.latency)
	}
}

// LATENCY RESET [event ...]: forgets the events named (all of them
// without a name) and replies how many there were.
func latencyReset(c *Ctx) {
	m := &c.Env.latency
	m.mu.Lock()
	n := len(m.events)
	if len(c.Args) == 2 {
		m.events = nil
	} else {
		n = 0
		for _, a := range c.Args[2:] {
			if _, ok := m.events[string(a)]; ok {
				delete(m.events, string(a))
				n++
			}
		}
	}
	m.mu.Unlock()
	c.W.Int(int64(n))
}

// latencyGraphColumns is the width of LATENCY GRAPH.
const latencyGraphColumns = 80

// LATENCY GRAPH event: Redis's ASCII graph of the event's samples.
func latencyGraph(c *Ctx) {
	name := string(c.Args[2])
	ev, ok := c.Env.latency.snapshot()[name]
	if !ok {
		c.ErrorString(fmt.Sprintf("ERR No samples available for event '%s'", name))
		return
	}
	seq := &sparkline{}
	now := time.Now().Unix()
	for _, s := range ev.ordered() {
		seq.add(float64(s.latency), elapsedLabel(now-s.at))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s - high %d ms, low %d ms (all time high %d ms)\n", name, int64(seq.max), int64(seq.min), ev.max)
	b.WriteString(strings.Repeat("-", latencyGraphColumns) + "\n")
	seq.render(&b, latencyGraphColumns, 4)
	c.W.Verbatim(b.String())
}

// elapsedLabel is how long ago a sample is: seconds, minutes, hours or
// days.
func elapsedLabel(s int64) string {
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm", s/60)
	case s < 86400:
		return fmt.Sprintf("%dh", s/3600)
	}
	return fmt.Sprintf("%dd", s/86400)
}

// latencyBuckets is the number of LATENCY HISTOGRAM buckets: 1024 ns
// doubled up to more than a day.
const latencyBuckets = 48

// doublingBucket is the bucket of a call that took elapsed: the first
// whose bound, 1024 ns << bucket, holds it. As Redis, a call is counted
// in whole microseconds, and as at least one.
func doublingBucket(elapsed time.Duration) int {
	ns := max(elapsed.Microseconds(), 1) * 1000
	return min(bits.Len64(uint64(ns-1)>>10), latencyBuckets-1)
}

// LATENCY HISTOGRAM [command ...]: for each command called since the
// start (or CONFIG RESETSTAT), or each one named that was, its calls and
// their cumulative distribution in microseconds.
func latencyHistogram(c *Ctx) {
	var cmds []*Command
	if len(c.Args) == 2 {
		cmds = sortedCommands()
	} else {
		for _, a := range c.Args[2:] {
			if cmd := lookup(a); cmd != nil {
				cmds = append(cmds, cmd)
			}
		}
	}
	type histogram struct {
		name   string
		counts [latencyBuckets]uint64
		calls  uint64
	}
	var out []histogram
	for _, cmd := range cmds {
		h := histogram{name: cmd.Name}
		for i := range h.counts {
			h.counts[i] = cmd.stats.doubling[i].Load()
			h.calls += h.counts[i]
		}
		if h.calls > 0 {
			out = append(out, h)
		}
	}
	c.W.Map(len(out))
	for _, h := range out {
		c.W.BulkString(h.name)
		c.W.Map(2)
		c.W.BulkString("calls")
		c.W.Int(int64(h.calls))
		c.W.BulkString("histogram_usec")
		n := 0
		for _, v := range h.counts {
			if v > 0 {
				n++
			}
		}
		c.W.Map(n)
		var cumulative uint64
		for i, v := range h.counts {
			if v == 0 {
				continue
			}
			cumulative += v
			c.W.Int(int64(1024<<i) / 1000)
			c.W.Int(int64(cumulative))
		}
	}
}

// latencyReport is LATENCY DOCTOR's report: Redis's, for the events
// Basalt has.
func (e *Env) latencyReport() string {
	events := e.latency.snapshot()
	threshold := e.Config.Redis.LatencyMonitorThreshold.Get()
	if len(events) == 0 && threshold == 0 {
		return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n"
	}
	var b strings.Builder
	var slowlogEnabled, slowlogTuning, commands, fast bool
	now := time.Now().Unix()
	for i, name := range eventNames(events) {
		ev := events[name]
		if i == 0 {
			b.WriteString("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n")
		}
		samples := ev.ordered()
		var sum, oldest int64
		for _, s := range samples {
			sum += s.latency
			if oldest == 0 || s.at < oldest {
				oldest = s.at
			}
		}
		avg, period := sum/int64(len(samples)), max(now-oldest, 1)
		var mad int64
		for _, s := range samples {
			d := avg - s.latency
			if d < 0 {
				d = -d
			}
			mad += d
		}
		mad /= int64(len(samples))
		fmt.Fprintf(&b, "%d. %s: %d latency spikes (average %dms, mean deviation %dms, period %.2f sec). Worst all time event %dms.",
			i+1, name, len(samples), avg, mad, float64(period)/float64(len(samples)), ev.max)
		switch name {
		case "command":
			slowLog := e.Config.SlowlogLogSlowerThan.Get()
			if slowLog < 0 || e.Config.SlowlogMaxLen.Get() == 0 {
				slowlogEnabled = true
			} else if slowLog/1000 > threshold {
				slowlogTuning = true
			}
			commands = true
		case "fast-command":
			fast = true
		}
		b.WriteString("\n")
	}
	if len(events) == 0 {
		b.WriteString("Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n")
		return b.String()
	}
	b.WriteString("\nI have a few advices for you:\n\n")
	if slowlogEnabled {
		fmt.Fprintf(&b, "- There are latency issues with potentially slow commands you are using. Try to enable the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than %d'. If the Slow log is disabled Redis is not able to log slow commands execution for you.\n", threshold*1000)
	}
	if slowlogTuning {
		fmt.Fprintf(&b, "- Your current Slow Log configuration only logs events that are slower than your configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than %d'.\n", threshold*1000)
	}
	if commands {
		b.WriteString("- Check your Slow Log to understand what are the commands you are running which are too slow to execute. Please check https://redis.io/commands/slowlog for more information.\n")
	}
	if fast {
		b.WriteString("- The system is slow to execute Redis code paths not containing system calls. This usually means the system does not provide Redis CPU time to run for long periods. You should try to:\n" +
			"  1) Lower the system load.\n" +
			"  2) Use a computer / VM just for Redis if you are running other software in the same system.\n" +
			"  3) Check if you have a \"noisy neighbour\" problem.\n" +
			"  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your system.\n" +
			"  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if you are using Jemalloc. However this may create fragmentation problems.\n")
	}
	if commands {
		b.WriteString("- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. If you have very large objects that are often deleted, expired, or evicted, try to fragment those objects into multiple smaller objects.\n")
	}
	return b.String()
}
