package commands

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestGateNeverWaitsForABusyScript: commands sent while a script starts
// run before it, or get BUSY once it is busy; none waits for the script
// to end. Each round starts a script that loops until SCRIPT KILL while
// clients send PING after PING, until each got BUSY.
func TestGateNeverWaitsForABusyScript(t *testing.T) {
	h := newFuzzHarness(t)
	h.env.Dispatch(h.setup.Ctx, args("config", "set", "busy-reply-threshold", "1"))
	runner := h.client()
	pingers := make([]*testClient, 4)
	for i := range pingers {
		pingers[i] = h.client()
	}
	killer := h.client()
	const rounds = 300
	for round := 0; round < rounds; round++ {
		ended := make(chan struct{})
		go func() {
			defer close(ended)
			h.env.Dispatch(runner.Ctx, args("eval", "while true do end", "0"))
		}()
		answered, stop := make(chan struct{}), make(chan struct{})
		var wg sync.WaitGroup
		for _, cl := range pingers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				pingUntilBusy(t, h, cl, stop)
			}()
		}
		go func() { wg.Wait(); close(answered) }()
		select {
		case <-answered:
		case <-time.After(time.Minute):
			close(stop)
			h.env.Dispatch(killer.Ctx, args("script", "kill"))
			<-answered
			<-ended
			t.Fatalf("round %d: a PING waited for the script to end", round)
		}
		h.env.Dispatch(killer.Ctx, args("script", "kill"))
		if got := string(killer.W.Bytes()); got != "+OK\r\n" {
			t.Fatalf("round %d: SCRIPT KILL replied %q", round, got)
		}
		killer.W.Reset()
		<-ended
		if got := string(runner.W.Bytes()); !strings.HasPrefix(got, "-ERR Script killed by user with SCRIPT KILL") {
			t.Fatalf("round %d: the script replied %q", round, got)
		}
		runner.W.Reset()
	}
}

// pingUntilBusy sends PING until the reply is BUSY, or stop is closed.
func pingUntilBusy(t *testing.T, h *fuzzHarness, cl *testClient, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		h.env.Dispatch(cl.Ctx, args("ping"))
		got := string(cl.W.Bytes())
		cl.W.Reset()
		switch {
		case strings.HasPrefix(got, "-BUSY "):
			return
		case got != "+PONG\r\n":
			t.Errorf("PING replied %q", got)
			return
		}
	}
}

// TestBlockedClientWaitsForABusyScript: a blocked client whose command
// runs again while a script is busy (WAIT counting acknowledgements anew)
// waits for the script, as Redis serves blocked clients only once the
// script ended, instead of getting BUSY; then it blocks again.
func TestBlockedClientWaitsForABusyScript(t *testing.T) {
	h := newFuzzHarness(t)
	h.env.Dispatch(h.setup.Ctx, args("config", "set", "busy-reply-threshold", "1"))
	waiter, runner, killer := h.client(), h.client(), h.client()
	waited := make(chan struct{})
	go func() {
		defer close(waited)
		// No replica: nothing acknowledges, it waits until unblocked.
		h.env.Dispatch(waiter.Ctx, args("wait", "1", "0"))
	}()
	deadline := time.Now().Add(time.Minute)
	for h.env.Sessions.Blocking.Count() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		h.env.Dispatch(runner.Ctx, args("eval", "while true do end", "0"))
	}()
	for {
		changed := h.env.Scripts.Changed()
		if h.env.Scripts.Busy() != "" {
			break
		}
		<-changed
	}
	// As when a replica acknowledges: WAIT counts again.
	h.env.Sessions.Blocking.Acked()
	h.env.Dispatch(killer.Ctx, args("script", "kill"))
	<-ran
	unblock := args("client", "unblock", strconv.FormatInt(waiter.Session.ID, 10))
	for unblocked := false; !unblocked; {
		select {
		case <-waited:
			unblocked = true
		case <-time.After(time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("WAIT was never blocked again")
			}
			killer.W.Reset()
			h.env.Dispatch(killer.Ctx, unblock)
		}
	}
	<-waited
	if got := string(waiter.W.Bytes()); got != ":0\r\n" {
		t.Fatalf("WAIT replied %q, want :0 once unblocked", got)
	}
	if n := h.env.Sessions.Blocking.Count(); n != 0 {
		t.Fatalf("%d clients still blocked", n)
	}
}
