package commands

import (
	"testing"

	"github.com/basaltdb/basalt/executor"
)

// TestTSWriteLocksRuleDestinations: a sample that closes a bucket is
// written to the rule's destination only under the destination's lock
// too. When the destinations read before locking left it out (a rule
// created in between, played here by a stale AlsoWrites), the write
// writes nothing and runs again locking it; when they keep leaving it
// out, it gives up with an error, still having written nothing.
func TestTSWriteLocksRuleDestinations(t *testing.T) {
	h := newFuzzHarness(t)
	do := func(a ...string) string {
		h.env.Dispatch(h.setup.Ctx, args(a...))
		defer h.setup.W.Reset()
		return string(h.setup.W.Bytes())
	}
	for _, c := range [][]string{
		{"ts.create", "src"}, {"ts.create", "dst"},
		{"ts.createrule", "src", "dst", "AGGREGATION", "sum", "10"},
		{"ts.add", "src", "1", "5"},
	} {
		if got := do(c...); got != "+OK\r\n" && got != ":1\r\n" {
			t.Fatalf("%q: %q", c, got)
		}
	}
	add := executor.Lookup([]byte("ts.add"))
	found := add.AlsoWrites
	t.Cleanup(func() { add.AlsoWrites = found })
	calls := 0
	add.AlsoWrites = func(c *executor.Ctx) [][]byte {
		calls++
		if calls == 1 {
			return nil // read before TS.CREATERULE
		}
		return found(c)
	}
	if got := do("ts.add", "src", "12", "1"); got != ":12\r\n" || calls != 2 {
		t.Errorf("TS.ADD closing a bucket, destination found late: %q after %d reads of the destinations, want :12 after 2", got, calls)
	}
	if got := do("ts.range", "dst", "-", "+"); got != "*1\r\n*2\r\n:0\r\n+5\r\n" {
		t.Errorf("TS.RANGE dst: %q, want the bucket 0 of sum 5", got)
	}
	add.AlsoWrites = func(*executor.Ctx) [][]byte { return nil }
	if got := do("ts.add", "src", "25", "1"); got != "-ERR the keys the command writes kept changing while it ran; try again\r\n" {
		t.Errorf("TS.ADD never locking the destination: %q", got)
	}
	if got := do("ts.range", "src", "20", "+"); got != "*0\r\n" {
		t.Errorf("the refused TS.ADD wrote the source: %q", got)
	}
	if got := do("ts.range", "dst", "-", "+"); got != "*1\r\n*2\r\n:0\r\n+5\r\n" {
		t.Errorf("the refused TS.ADD wrote the destination: %q", got)
	}
}
