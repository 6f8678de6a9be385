package timeseries

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// ruleHarness is a source series with one rule and its destination,
// written command by command as the engine would.
type ruleHarness struct {
	t          testing.TB
	src, dst   *memChunks
	srcMeta    Meta
	dstMeta    Meta
	srcSize    uint64
	dstSize    uint64
	ruleValues map[string][]byte
}

func newRuleHarness(t testing.TB, r Rule) *ruleHarness {
	h := &ruleHarness{t: t, src: newMemChunks(), dst: newMemChunks(), srcMeta: NewMeta(), dstMeta: NewMeta(), ruleValues: map[string][]byte{}}
	h.srcMeta.ChunkSize, h.dstMeta.ChunkSize = 4, 3
	h.dstMeta.SourceKey = []byte("src")
	h.ruleValues[string(r.Dest)] = r.AppendValue(nil)
	return h
}

func (h *ruleHarness) rules() []Rule {
	var out []Rule
	for dest, v := range h.ruleValues {
		r, err := DecodeRule(AppendRuleSubkey(nil, []byte(dest)), v)
		if err != nil {
			h.t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// run is one command on the source: op's writes, then the rule's
// destination writes applied to the destination.
func (h *ruleHarness) run(op func(s *Series)) {
	s := OpenSeries([]byte("src"), h.srcMeta, h.srcSize, h.rules(), h.src)
	op(s)
	var seen []Sample
	if err := walk(s.Chunks(), 0, 1<<62, false, func(x Sample) bool { seen = append(seen, x); return true }); err != nil {
		h.t.Fatal(err)
	}
	h.src.apply(h.t, s.Changes(), h.ruleValues)
	if all := h.src.all(h.t); !sameSamples(seen, all) {
		h.t.Fatalf("the series read in the command: %v\nstored after it: %v", seen, all)
	}
	h.srcMeta, h.srcSize = s.Meta, s.Size
	d := OpenSeries([]byte("dst"), h.dstMeta, h.dstSize, nil, h.dst)
	for _, w := range s.DestWrites() {
		if string(w.Dest) != "dst" {
			h.t.Fatalf("write to %q", w.Dest)
		}
		if err := d.Apply(w); err != nil {
			h.t.Fatal(err)
		}
	}
	h.dst.apply(h.t, d.Changes(), nil)
	h.dstMeta, h.dstSize = d.Meta, d.Size
}

// check compares the destination with the source aggregated over all
// time: every bucket but the open one is in the destination, and the
// open one is LATEST's.
func (h *ruleHarness) check(r Rule, what string) {
	all := h.src.all(h.t)
	q := Query{From: 0, To: 1 << 62, Agg: r.Agg, Bucket: r.Bucket, Align: r.Align}
	want := bruteRange(all, &h.srcMeta, &q)
	rule := h.rules()[0]
	latest, open := rule.Latest()
	got := h.dst.all(h.t)
	if open {
		if len(want) == 0 || want[len(want)-1].TS != latest.TS || !sameValue(want[len(want)-1].V, latest.V) {
			h.t.Fatalf("%s: open bucket %v, want the last of %v", what, latest, want)
		}
		want = want[:len(want)-1]
		for i, s := range got {
			if s.TS == latest.TS {
				got = append(got[:i:i], got[i+1:]...) // a stale value of the re-opened bucket
				break
			}
		}
	}
	if !sameSamples(got, want) {
		h.t.Fatalf("%s: destination\n got %v\nwant %v\n(source %v)", what, got, want, all)
	}
}

// TestRuleMatchesBruteForce writes random samples (in and out of order,
// every duplicate policy) and deletes into a series with a rule, and
// checks after every command that the destination holds the source's
// aggregate of every closed bucket, and the rule's state the open one.
func TestRuleMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	aggs := []Aggregator{AggSum, AggMin, AggMax, AggCount, AggFirst, AggLast, AggAvg, AggRange, AggStdP, AggStdS, AggVarP, AggVarS}
	policies := []Policy{PolicyLast, PolicyFirst, PolicySum, PolicyMin, PolicyMax, PolicyBlock}
	for round := range 200 {
		rule := NewRule([]byte("dst"), aggs[round%len(aggs)], 1+r.Int64N(100), r.Int64N(150))
		h := newRuleHarness(t, rule)
		newest := int64(0)
		for cmd := range 40 {
			if r.IntN(8) == 0 {
				from := r.Int64N(1000)
				to := from + r.Int64N(200)
				h.run(func(s *Series) {
					if _, err := s.Delete(from, to); err != nil {
						t.Fatal(err)
					}
				})
			} else {
				h.run(func(s *Series) {
					for range 1 + r.IntN(5) {
						ts := newest + r.Int64N(30)
						if r.IntN(3) == 0 {
							ts = r.Int64N(newest + 1) // out of order
						}
						newest = max(newest, ts)
						smp := Sample{TS: ts, V: float64(r.IntN(40) - 10)}
						p := policies[r.IntN(len(policies))]
						if _, err := s.Add(smp, p); err != nil && !errors.Is(err, ErrBlocked) {
							t.Fatal(err)
						}
						checkAscending(t, s.Chunks())
					}
				})
			}
			h.check(rule, "round "+itoa(round)+" command "+itoa(cmd)+" "+rule.Agg.String())
		}
	}
}

func itoa(n int) string { return string(AppendValueText(nil, float64(n))) }

// checkAscending checks that a walk through a command's view of the
// series (stored chunks under the changed ones) is in order.
func checkAscending(t testing.TB, c Chunks) {
	t.Helper()
	last := int64(-1)
	if err := walk(c, 0, 1<<62, false, func(x Sample) bool {
		if x.TS <= last {
			t.Fatalf("walk out of order: %d after %d", x.TS, last)
		}
		last = x.TS
		return true
	}); err != nil {
		t.Fatal(err)
	}
}
