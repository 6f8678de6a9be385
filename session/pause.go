package session

import (
	"sync"
	"sync/atomic"
	"time"
)

// Pause is the state of CLIENT PAUSE: until when commands wait, and
// whether all of them or only writes.
type Pause struct {
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

// Start pauses writes (or all commands) for d; CLIENT PAUSE with d 0 and
// CLIENT UNPAUSE lift the pause.
func (p *Pause) Start(d time.Duration, all bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lifted != nil {
		close(p.lifted)
	}
	p.until, p.all, p.lifted = time.Now().Add(d), all, make(chan struct{})
	p.set.Store(d > 0)
}

// Wait returns once a command, which writes or not, may run: at once
// unless a pause covers it. An exempt command (CLIENT, so that CLIENT
// UNPAUSE gets through) is never paused.
func (p *Pause) Wait(writes, exempt bool) {
	for p.set.Load() {
		p.mu.Lock()
		left := time.Until(p.until)
		if left <= 0 {
			p.set.Store(false)
		}
		covered := left > 0 && (p.all || writes) && !exempt
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

// Until returns when the pause ends, and whether one is set.
func (p *Pause) Until() (until time.Time, on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.until, p.set.Load()
}
