package commands

import (
	"testing"

	"github.com/basaltdb/basalt/executor"
)

// Counting a call, its errors and their code takes no allocation once a
// code was seen: Dispatch stays allocation-free.
func TestStatsAllocationFree(t *testing.T) {
	h := newFuzzHarness(t)
	cl := h.client()
	ping := args("PING")
	run := func(a [][]byte) func() {
		return func() {
			cl.W.Reset()
			h.env.Dispatch(cl.Ctx, a)
		}
	}
	run(ping)()
	if n := testing.AllocsPerRun(200, run(ping)); n != 0 {
		t.Errorf("PING allocates %v times", n)
	}
	// The counts themselves.
	counts := func() (lpush, get executor.CommandStat) {
		for _, st := range h.env.CommandStats() {
			switch st.Name {
			case "lpush":
				lpush = st
			case "get":
				get = st
			}
		}
		return lpush, get
	}
	lpush, get := counts()
	run(args("SET", "k", "v"))()
	run(args("LPUSH", "k", "x"))()
	run(args("GET"))()
	lpush2, get2 := counts()
	if lpush2.Calls != lpush.Calls+1 || lpush2.Failed != lpush.Failed+1 || get2.Rejected != get.Rejected+1 {
		t.Errorf("LPUSH calls +%d failed +%d, GET rejected +%d; want 1 each",
			lpush2.Calls-lpush.Calls, lpush2.Failed-lpush.Failed, get2.Rejected-get.Rejected)
	}
}
