package executor

// The command gate while scripts run. A script holds the gate alone for
// its whole run (its command is Exclusive), so nothing interleaves with
// it. Once it runs longer than busy-reply-threshold, the commands
// waiting for the gate, and those that come, are answered BUSY instead
// of waiting, except the few Redis lets through (allow_busy: SCRIPT
// KILL, FUNCTION KILL and STATS, AUTH, HELLO, MULTI, SHUTDOWN, ...),
// which then run beside the script without the gate.

// gateHold is how a command holds the gate.
type gateHold uint8

const (
	gateNone   gateHold = iota // beside a running script, or refused
	gateShared                 // with other commands
	gateAlone                  // Exclusive: alone
	// gateScript marks a hold by a command that runs a script: while
	// one waits or runs, other commands watch for BUSY.
	gateScript gateHold = 4
)

// enterGate takes the gate for cmd, or returns the BUSY reply that
// refuses it. A command that is not refusable (a blocked client's, run
// again) waits for a busy script to end instead, as Redis serves blocked
// clients only once the script ended.
func (e *Env) enterGate(cmd *Command, args [][]byte, refusable bool) (gateHold, string) {
	hold := gateShared
	if cmd.Flags&Exclusive != 0 {
		hold = gateAlone
	}
	if cmd.Flags&RunsScript != 0 {
		e.scriptsPending.Add(1)
		hold |= gateScript
	}
	scripts := e.scriptsPending.Load() != 0 || e.Scripts.Running()
	if scripts && allowedWhileBusy(cmd, args) {
		e.leaveGate(hold &^ (gateShared | gateAlone))
		return gateNone, ""
	}
	// Only a gate free now is taken without watching for BUSY: a script
	// may take it between a look at the scripts and a wait for it.
	if e.tryLockGate(hold) {
		return hold, ""
	}
	locked := make(chan struct{})
	go func() {
		e.lockGate(hold)
		close(locked)
	}()
	for {
		changed := e.Scripts.Changed()
		if busy := e.Scripts.Busy(); busy != "" && refusable {
			// The gate is let go of as soon as it is taken.
			go func() {
				<-locked
				e.leaveGate(hold)
			}()
			if allowedWhileBusy(cmd, args) {
				return gateNone, ""
			}
			return gateNone, busy
		}
		select {
		case <-locked:
			return hold, ""
		case <-changed:
		}
	}
}

func (e *Env) lockGate(hold gateHold) {
	switch {
	case hold&gateAlone != 0:
		e.gate.Lock()
	case hold&gateShared != 0:
		e.gate.RLock()
	}
}

func (e *Env) tryLockGate(hold gateHold) bool {
	if hold&gateAlone != 0 {
		return e.gate.TryLock()
	}
	return e.gate.TryRLock()
}

// leaveGate lets go of what enterGate took.
func (e *Env) leaveGate(hold gateHold) {
	switch {
	case hold&gateAlone != 0:
		e.gate.Unlock()
	case hold&gateShared != 0:
		e.gate.RUnlock()
	}
	if hold&gateScript != 0 {
		e.scriptsPending.Add(-1)
	}
}

// allowedWhileBusy reports whether Redis serves the command while a
// script is busy (its allow_busy flag, or its subcommand's).
func allowedWhileBusy(cmd *Command, args [][]byte) bool {
	m := cmd.Description()
	if m == nil {
		return false
	}
	// Only a container's second argument names a subcommand: EVALSHA's
	// is a SHA, run through here by every script while scripts run.
	if len(args) > 1 && len(m.Subcommands) > 0 {
		if sub := subcommandMeta(cmd, args); sub != nil {
			return hasFlag(sub.Flags, "allow_busy")
		}
	}
	return hasFlag(m.Flags, "allow_busy")
}

func hasFlag(flags []string, flag string) bool {
	for _, f := range flags {
		if f == flag {
			return true
		}
	}
	return false
}
