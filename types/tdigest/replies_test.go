package tdigest

import (
	"math"
	"testing"

	"github.com/basaltdb/basalt/resp"
)

// TestWriteReplies: doubles are bulk strings in RESP2 and doubles in
// RESP3, both in RedisBloom's shortest text; ranks integers; INFO a map of simple strings.
func TestWriteReplies(t *testing.T) {
	render := func(proto int, write func(w *resp.Writer)) string {
		w := resp.NewWriter()
		w.SetProtocol(proto)
		write(w)
		return string(w.Bytes())
	}
	doubles := func(w *resp.Writer) { WriteDoubles(w, []float64{0.1, math.NaN(), math.Inf(-1)}) }
	if got, want := render(2, doubles), "*3\r\n$3\r\n0.1\r\n$3\r\nnan\r\n$4\r\n-inf\r\n"; got != want {
		t.Errorf("RESP2 doubles %q, want %q", got, want)
	}
	// RESP3: the shortest digits too (%.17g would say 0.10000000000000001).
	if got, want := render(3, doubles), "*3\r\n,0.1\r\n,nan\r\n,-inf\r\n"; got != want {
		t.Errorf("RESP3 doubles %q, want %q", got, want)
	}
	ranks := func(w *resp.Writer) { WriteRanks(w, []int64{-2, 7}) }
	if got, want := render(3, ranks), "*2\r\n:-2\r\n:7\r\n"; got != want {
		t.Errorf("ranks %q, want %q", got, want)
	}
	m := NewMeta(100)
	m.TotalWeight, m.MergedWeight = 5, 7 // corrupt: no negative unmerged weight
	m.MergeTimes = math.MaxUint64
	for _, f := range Info(m) {
		if f.Value < 0 {
			t.Errorf("INFO %s = %d", f.Name, f.Value)
		}
	}
}
