package commands

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/basaltdb/basalt/metadata"
)

func init() {
	register(&Command{Name: "reset", Arity: 1, Flags: NoAuth | Fast | TxControl | SubscriberOK, Handler: cmdReset})
}

// RESET
//
// Returns the connection to its state after connecting: no transaction,
// no watched key, no subscription, not monitoring, RESP2, no name, READWRITE,
// and not authenticated when a password is required.
func cmdReset(c *Ctx) {
	cl, e := c.Client, c.Env
	cl.endTx()
	e.watches.unwatch(cl)
	e.pubsub.unsubscribeAll(cl)
	for kind := range cl.subs {
		cl.subs[kind] = nil
		cl.subN[kind].Store(0)
	}
	if cl.monitor.Swap(false) {
		e.monitors.remove(cl)
	}
	cl.setProtocol(2)
	cl.mu.Lock()
	cl.mu.name = ""
	cl.mu.Unlock()
	cl.ReadOnly, cl.Asking = false, false
	if e.Config.RequirePass.Get() != "" {
		cl.Authed, cl.Admin = false, false
	}
	cl.setNamespace(metadata.DefaultNamespace)
	c.W.Simple("RESET")
}

// pause is the state of CLIENT PAUSE: until when commands wait, and
// whether all of them or only writes.
type pause struct {
	// set is true from CLIENT PAUSE until a command sees the pause over:
	// every command reads it, so that no lock is taken when no pause is.
	set atomic.Bool
	mu  sync.Mutex
	// until, all and lifted are guarded by mu. lifted is closed when the
	// pause is lifted or replaced, to wake the commands waiting.
	until  time.Time
	all    bool
	lifted chan struct{}
}

// start pauses writes (or all commands) for d; CLIENT PAUSE with d 0 and
// CLIENT UNPAUSE lift the pause.
func (p *pause) start(d time.Duration, all bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lifted != nil {
		close(p.lifted)
	}
	p.until, p.all, p.lifted = time.Now().Add(d), all, make(chan struct{})
	p.set.Store(d > 0)
}

// wait returns once cmd, which writes or not, may run: at once unless a
// pause covers it. CLIENT itself is never paused, so that CLIENT UNPAUSE
// gets through.
func (p *pause) wait(cmd *Command, writes bool) {
	for p.set.Load() {
		p.mu.Lock()
		left := time.Until(p.until)
		if left <= 0 {
			p.set.Store(false)
		}
		covered := left > 0 && (p.all || writes) && cmd.Name != "client"
		lifted := p.lifted
		p.mu.Unlock()
		if !covered {
			return
		}
		t := time.NewTimer(left)
		select {
		case <-lifted:
		case <-t.C:
		}
		t.Stop()
	}
}
