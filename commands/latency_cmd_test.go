package commands

import (
	"strings"
	"testing"
)

// The graph Redis 7.0's sparkline.c draws for three samples (worked out
// from its code: 12 steps over 4 rows, "_o#" filled with '|' below, the
// labels written downwards after a blank line).
func TestSparkline(t *testing.T) {
	s := &sparkline{}
	for i, v := range []float64{10, 20, 30} {
		s.add(v, []string{"2s", "1s", "0s"}[i])
	}
	var b strings.Builder
	s.render(&b, 80, 4)
	if want := "  #\n _|\n ||\n_||\n   \n210\nsss\n"; b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
	// More samples than columns: the graph goes on below, after a blank
	// line.
	s = &sparkline{}
	for i := 0; i < 5; i++ {
		s.add(float64(i), "")
	}
	b.Reset()
	s.render(&b, 3, 1)
	if want := "__o\n\n##\n"; b.String() != want {
		t.Fatalf("wrapped: got %q, want %q", b.String(), want)
	}
}

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
	ev := m.snapshot()["command"]
	samples := ev.ordered()
	if len(samples) != latencySamples || samples[0].at != 300-latencySamples || samples[len(samples)-1].at != 299 {
		t.Fatalf("%d samples, from %d to %d", len(samples), samples[0].at, samples[len(samples)-1].at)
	}
	if ev.max != 49 {
		t.Fatalf("all-time worst %d", ev.max)
	}
	var m2 latencyMonitor
	m2.add("command", 5, 100)
	m2.add("command", 9, 100)
	m2.add("command", 7, 100)
	ev = m2.snapshot()["command"]
	if s := ev.ordered(); len(s) != 1 || s[0].latency != 9 {
		t.Fatalf("one second's samples: %+v", s)
	}
}
