package commands

import (
	"strings"
	"testing"
)

// TestTDigestCorruptStored: every TDIGEST command on a stored t-digest
// that does not decode (corruptTDigest: an extension cut short, a buffer
// record of no whole value) answers an error reply, never a panic nor a
// value, and leaves the key as it was; MERGE fails whole.
func TestTDigestCorruptStored(t *testing.T) {
	h := newFuzzHarness(t)
	h.seed(t, false)
	calls := [][]string{
		{"tdigest.add", "K", "1"}, {"tdigest.min", "K"}, {"tdigest.max", "K"}, {"tdigest.quantile", "K", "0.5"},
		{"tdigest.cdf", "K", "1"}, {"tdigest.rank", "K", "1"}, {"tdigest.revrank", "K", "1"}, {"tdigest.byrank", "K", "0"},
		{"tdigest.byrevrank", "K", "1"}, {"tdigest.trimmed_mean", "K", "0.1", "0.9"},
		{"tdigest.merge", "dst", "2", "td", "K"}, {"tdigest.merge", "K", "1", "td"},
	}
	do := func(a ...string) string {
		h.env.Dispatch(h.setup.Ctx, args(a...))
		defer h.setup.W.Reset()
		return string(h.setup.W.Bytes())
	}
	for key := range corruptTDigest {
		for _, call := range calls {
			a := make([]string, len(call))
			for i, w := range call {
				a[i] = strings.ReplaceAll(w, "K", key)
			}
			if got := do(a...); !strings.HasPrefix(got, "-ERR ") || !strings.Contains(got, "corrupt") {
				t.Errorf("%q: %q, want a corruption error", a, got)
			}
		}
		if got := do("type", key); got != "+TDIS-TYPE\r\n" {
			t.Errorf("TYPE %s after the commands: %q", key, got)
		}
	}
	if got := do("exists", "dst"); got != ":0\r\n" {
		t.Errorf("a failed MERGE wrote its destination: EXISTS %q", got)
	}
	h.logs.take() // a storage failure is logged, as any
}
