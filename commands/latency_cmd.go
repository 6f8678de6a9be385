package commands

import (
	"fmt"
	"strings"
	"time"

	"github.com/basaltdb/basalt/executor"
)

func init() {
	executor.Register(
		&executor.Command{Name: "latency", Arity: -2, Flags: executor.Admin, Subcommands: latencySubcommands, Handler: cmdLatency},
	)
}

// The latency monitor of Redis 7.0 (latency.c): a command that takes at
// least latency-monitor-threshold milliseconds is a sample of the event
// "command", or "fast-command" for an O(1) one. Each event keeps its last
// 160 samples, one a second (the worst of the second), and its all-time
// worst.

// LATENCY LATEST | HISTORY event | RESET [event ...] | GRAPH event |
// DOCTOR | HISTOGRAM [command ...] | HELP
func cmdLatency(c *executor.Ctx) {
	executor.DispatchSub(c)
}

var latencySubcommands = map[string]*executor.Subcommand{
	"latest":    {Arity: 2, Handler: latencyLatest},
	"history":   {Arity: 3, Handler: latencyHistory},
	"reset":     {Arity: -2, Handler: latencyReset},
	"graph":     {Arity: 3, Handler: latencyGraph},
	"doctor":    {Arity: 2, Handler: func(c *executor.Ctx) { c.W.Verbatim(c.Env.LatencyReport()) }},
	"histogram": {Arity: -2, Handler: latencyHistogram},
	"help": executor.Help(
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

// LATENCY LATEST: each event's name, latest sample's time and latency,
// and all-time worst.
func latencyLatest(c *executor.Ctx) {
	events := c.Env.Latency.Snapshot()
	c.W.Array(len(events))
	for _, name := range executor.EventNames(events) {
		ev := events[name]
		last := ev.Latest()
		c.W.Array(4)
		c.W.BulkString(name)
		c.W.Int(last.At)
		c.W.Int(last.Latency)
		c.W.Int(ev.Worst)
	}
}

// LATENCY HISTORY event: the event's samples, oldest first.
func latencyHistory(c *executor.Ctx) {
	ev, ok := c.Env.Latency.Snapshot()[string(c.Args[2])]
	if !ok {
		c.W.Array(0)
		return
	}
	samples := ev.Ordered()
	c.W.Array(len(samples))
	for _, s := range samples {
		c.W.Array(2)
		c.W.Int(s.At)
		c.W.Int(s.Latency)
	}
}

// LATENCY RESET [event ...]: forgets the events named (all of them
// without a name) and replies how many there were.
func latencyReset(c *executor.Ctx) {
	c.W.Int(int64(c.Env.Latency.Reset(c.Args[2:])))
}

// latencyGraphColumns is the width of LATENCY GRAPH.
const latencyGraphColumns = 80

// LATENCY GRAPH event: Redis's ASCII graph of the event's samples.
func latencyGraph(c *executor.Ctx) {
	name := string(c.Args[2])
	ev, ok := c.Env.Latency.Snapshot()[name]
	if !ok {
		c.ErrorString(fmt.Sprintf("ERR No samples available for event '%s'", name))
		return
	}
	seq := &sparkline{}
	now := time.Now().Unix()
	for _, s := range ev.Ordered() {
		seq.add(float64(s.Latency), elapsedLabel(now-s.At))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s - high %d ms, low %d ms (all time high %d ms)\n", name, int64(seq.max), int64(seq.min), ev.Worst)
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

// LATENCY HISTOGRAM [command ...]: for each command called since the
// start (or CONFIG RESETSTAT), or each one named that was, its calls and
// their cumulative distribution in microseconds.
func latencyHistogram(c *executor.Ctx) {
	var cmds []*executor.Command
	if len(c.Args) == 2 {
		cmds = executor.SortedCommands()
	} else {
		for _, a := range c.Args[2:] {
			if cmd := executor.Lookup(a); cmd != nil {
				cmds = append(cmds, cmd)
			}
		}
	}
	type histogram struct {
		name   string
		counts [executor.HistogramBuckets]uint64
		calls  uint64
	}
	var out []histogram
	for _, cmd := range cmds {
		h := histogram{name: cmd.Name}
		h.counts = cmd.LatencyHistogram()
		for _, n := range h.counts {
			h.calls += n
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
