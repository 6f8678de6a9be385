package executor

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// latencySamples is how many samples an event keeps (LATENCY_TS_LEN).
const latencySamples = 160

type latencySample struct {
	At      int64 // Unix seconds; 0: none
	Latency int64 // ms
}

type latencyEvent struct {
	samples [latencySamples]latencySample
	next    int // where the next sample goes
	Worst   int64
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
	e.Latency.add(event, ms, time.Now().Unix())
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
	ev.Worst = max(ev.Worst, latency)
	prev := &ev.samples[(ev.next+latencySamples-1)%latencySamples]
	if prev.At == now {
		prev.Latency = max(prev.Latency, latency)
		return
	}
	ev.samples[ev.next] = latencySample{At: now, Latency: latency}
	ev.next = (ev.next + 1) % latencySamples
}

// Snapshot returns a copy of the events, by name.
func (m *latencyMonitor) Snapshot() map[string]latencyEvent {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]latencyEvent, len(m.events))
	for name, ev := range m.events {
		out[name] = *ev
	}
	return out
}

// Ordered returns the samples oldest first.
func (ev *latencyEvent) Ordered() []latencySample {
	var out []latencySample
	for j := range latencySamples {
		if s := ev.samples[(ev.next+j)%latencySamples]; s.At != 0 {
			out = append(out, s)
		}
	}
	return out
}

// EventNames returns the names of events, in a fixed order (Redis's is
// its hash table's).
func EventNames(events map[string]latencyEvent) []string {
	names := make([]string, 0, len(events))
	for n := range events {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Reset forgets the events named, or all of them when none is, and
// returns how many there were.
func (m *latencyMonitor) Reset(names [][]byte) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.events)
	if len(names) == 0 {
		m.events = nil
		return n
	}
	n = 0
	for _, a := range names {
		if _, ok := m.events[string(a)]; ok {
			delete(m.events, string(a))
			n++
		}
	}
	return n
}

// Latest returns the event's latest sample.
func (ev *latencyEvent) Latest() latencySample {
	return ev.samples[(ev.next+latencySamples-1)%latencySamples]
}

// LatencyReport is LATENCY DOCTOR's report: Redis's, for the events
// Basalt has.
func (e *Env) LatencyReport() string {
	events := e.Latency.Snapshot()
	threshold := e.Config.Redis.LatencyMonitorThreshold.Get()
	if len(events) == 0 && threshold == 0 {
		return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n"
	}
	var b strings.Builder
	var slowlogEnabled, slowlogTuning, commands, fast bool
	now := time.Now().Unix()
	for i, name := range EventNames(events) {
		ev := events[name]
		if i == 0 {
			b.WriteString("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n")
		}
		samples := ev.Ordered()
		var sum, oldest int64
		for _, s := range samples {
			sum += s.Latency
			if oldest == 0 || s.At < oldest {
				oldest = s.At
			}
		}
		avg, period := sum/int64(len(samples)), max(now-oldest, 1)
		var mad int64
		for _, s := range samples {
			d := avg - s.Latency
			if d < 0 {
				d = -d
			}
			mad += d
		}
		mad /= int64(len(samples))
		fmt.Fprintf(&b, "%d. %s: %d latency spikes (average %dms, mean deviation %dms, period %.2f sec). Worst all time event %dms.",
			i+1, name, len(samples), avg, mad, float64(period)/float64(len(samples)), ev.Worst)
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
