package executor

import (
	"sync"
	"testing"
)

// Counting an error whose code was seen takes no allocation.
func TestErrorCountAllocationFree(t *testing.T) {
	var s errorStats
	s.add("WRONGTYPE Operation against a key holding the wrong kind of value")
	if n := testing.AllocsPerRun(200, func() { s.add("WRONGTYPE Operation against a key holding the wrong kind of value") }); n != 0 {
		t.Errorf("counting a WRONGTYPE allocates %v times", n)
	}
}

// Error codes are Redis's: the first word, else ERR; the table is bounded
// and safe for concurrent use.
func TestErrorStats(t *testing.T) {
	for msg, code := range map[string]string{
		"ERR syntax error": "ERR", "WRONGTYPE Operation": "WRONGTYPE", "NOAUTH Authentication required.": "NOAUTH",
		"oneword": "ERR", "": "ERR", " leading": "ERR", "AVERYLONGCODEMORETHANTHIRTYTWOBYTESLONG x": "ERR",
	} {
		if got := errorCode(msg); got != code {
			t.Errorf("errorCode(%q) = %q, want %q", msg, got, code)
		}
	}
	var s errorStats
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				s.add("WRONGTYPE x")
				s.add("ERR x")
			}
		}()
	}
	wg.Wait()
	counts := map[string]int64{}
	for i := range s.codes {
		if c := s.codes[i].Load(); c != nil {
			if _, dup := counts[c.code]; dup {
				t.Errorf("code %s twice in the table", c.code)
			}
			counts[c.code] = c.n.Load()
		}
	}
	if counts["WRONGTYPE"] != 8000 || counts["ERR"] != 8000 || s.total.Load() != 16000 {
		t.Errorf("counts %v, total %d", counts, s.total.Load())
	}
	// Past maxErrorCodes codes, new ones count in the total only.
	for i := 0; i < maxErrorCodes+10; i++ {
		s.add("C" + string(rune('A'+i%26)) + string(rune('A'+i/26)) + " x")
	}
	if s.total.Load() != 16000+maxErrorCodes+10 || s.codes[maxErrorCodes-1].Load() == nil {
		t.Errorf("total %d after %d more codes", s.total.Load(), maxErrorCodes+10)
	}
	s.reset()
	if s.total.Load() != 0 || s.codes[0].Load().n.Load() != 0 {
		t.Error("reset left counts")
	}
}
