package executor

import (
	"testing"
)

// The latency monitor keeps the worst sample of a second, the last 160
// seconds, and the all-time worst.
func TestLatencyMonitorSamples(t *testing.T) {
	var m latencyMonitor
	m.add("command", 5, 100)
	m.add("command", 9, 100)
	m.add("command", 7, 100)
	for s := int64(101); s < 300; s++ {
		m.add("command", s%50, s)
	}
	ev := m.Snapshot()["command"]
	samples := ev.Ordered()
	if len(samples) != latencySamples || samples[0].At != 300-latencySamples || samples[len(samples)-1].At != 299 {
		t.Fatalf("%d samples, from %d to %d", len(samples), samples[0].At, samples[len(samples)-1].At)
	}
	if ev.Worst != 49 {
		t.Fatalf("all-time worst %d", ev.Worst)
	}
	var m2 latencyMonitor
	m2.add("command", 5, 100)
	m2.add("command", 9, 100)
	m2.add("command", 7, 100)
	ev = m2.Snapshot()["command"]
	if s := ev.Ordered(); len(s) != 1 || s[0].Latency != 9 {
		t.Fatalf("one second's samples: %+v", s)
	}
}
