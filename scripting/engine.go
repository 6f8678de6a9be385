package scripting

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/basaltdb/basalt/reply"
)

// Engine holds the compiled scripts, the function libraries and a pool
// of Lua states, and controls the run in progress: past the busy
// threshold it is busy (other clients get BUSY), SCRIPT KILL and
// FUNCTION KILL stop it, and a run using too much memory is stopped.
//
// The command layer runs one script at a time (scripts hold the command
// gate alone); the Engine does not rely on it beyond the run control,
// which tracks the latest run begun.
type Engine struct {
	// BusyAfter returns busy-reply-threshold (0: never busy).
	BusyAfter func() time.Duration

	mu struct {
		sync.Mutex
		scripts map[string]*Script // by lowercase sha
		// owners are, by sha, the namespaces that loaded or ran each
		// script: the ones that see it. A script no namespace claims
		// is only a copy of a stored one, which the admin sees.
		owners map[string]map[string]struct{}
		idle   []*state
		// epoch changes when states must be rebuilt: the scripts were
		// flushed or a library changed.
		epoch   uint64
		changed chan struct{} // closed when the run control changes
	}
	libs libraries

	current atomic.Pointer[run]
	wake    chan struct{}
	stop    chan struct{}
	done    sync.WaitGroup
}

// NewEngine returns an engine with no scripts and no libraries.
func NewEngine(busyAfter func() time.Duration) *Engine {
	e := &Engine{BusyAfter: busyAfter, wake: make(chan struct{}, 1), stop: make(chan struct{})}
	e.mu.scripts = map[string]*Script{}
	e.mu.owners = map[string]map[string]struct{}{}
	e.mu.changed = make(chan struct{})
	e.libs.init()
	e.done.Add(1)
	go e.watchdog()
	return e
}

// Close stops the watchdog and frees the idle states.
func (e *Engine) Close() {
	close(e.stop)
	e.done.Wait()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, st := range e.mu.idle {
		st.close()
	}
	e.mu.idle = nil
}

// Script returns the cached script with sha (any case) that scope sees,
// or nil.
func (e *Engine) Script(sha string, scope Scope) *Script {
	sha = strings.ToLower(sha)
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, owned := e.mu.owners[sha][scope.Owner]; !owned && !scope.All {
		return nil
	}
	return e.mu.scripts[sha]
}

// Cache compiles body (unless cached) and caches it for owner; for no
// namespace when owner is "".
func (e *Engine) Cache(body, owner string) (*Script, error) {
	sha := sha1Of(body)
	e.mu.Lock()
	if sc := e.mu.scripts[sha]; sc != nil {
		e.claimLocked(sha, owner)
		e.mu.Unlock()
		return sc, nil
	}
	e.mu.Unlock()
	sc, err := Compile(body)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if cached := e.mu.scripts[sha]; cached != nil {
		sc = cached
	}
	e.mu.scripts[sha] = sc
	e.claimLocked(sha, owner)
	return sc, nil
}

// claimLocked notes that owner ("": none) sees the script sha.
func (e *Engine) claimLocked(sha, owner string) {
	owners := e.mu.owners[sha]
	if owners == nil {
		owners = map[string]struct{}{}
		e.mu.owners[sha] = owners
	}
	if owner != "" {
		owners[owner] = struct{}{}
	}
}

// ForgetScripts forgets the scripts scope sees: for the admin every
// script, and the states they were compiled in (SCRIPT FLUSH); for a
// namespace its claim on each, the scripts no namespace claims then
// being dropped (the copies of stored scripts too: what storage still
// holds is read again).
func (e *Engine) ForgetScripts(scope Scope) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if scope.All {
		e.mu.scripts = map[string]*Script{}
		e.mu.owners = map[string]map[string]struct{}{}
		e.mu.epoch++
		return
	}
	for sha, owners := range e.mu.owners {
		if len(owners) == 0 {
			e.forgetLocked(sha, Scope{All: true})
			continue
		}
		e.forgetLocked(sha, scope)
	}
}

// ForgetScript forgets the script sha as ForgetScripts does.
func (e *Engine) ForgetScript(sha string, scope Scope) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.forgetLocked(strings.ToLower(sha), scope)
}

func (e *Engine) forgetLocked(sha string, scope Scope) {
	owners := e.mu.owners[sha]
	if !scope.All {
		if _, owned := owners[scope.Owner]; !owned {
			return
		}
		delete(owners, scope.Owner)
		if len(owners) > 0 {
			return
		}
	}
	_, cached := e.mu.scripts[sha]
	delete(e.mu.owners, sha)
	delete(e.mu.scripts, sha)
	if cached {
		// The states keep the script's closure: they are made again.
		e.mu.epoch++
	}
}

// getState takes an idle state of the current epoch, or makes one.
func (e *Engine) getState() *state {
	e.mu.Lock()
	for len(e.mu.idle) > 0 {
		st := e.mu.idle[len(e.mu.idle)-1]
		e.mu.idle = e.mu.idle[:len(e.mu.idle)-1]
		if st.generation == e.mu.epoch {
			e.mu.Unlock()
			return st
		}
		st.close()
	}
	epoch := e.mu.epoch
	e.mu.Unlock()
	st := newState()
	st.generation = epoch
	return st
}

// putState returns a state to the pool; one that ran out of memory or is
// of an old epoch is dropped.
func (e *Engine) putState(st *state, healthy bool) {
	st.run = nil
	e.mu.Lock()
	defer e.mu.Unlock()
	if !healthy || st.generation != e.mu.epoch {
		st.close()
		return
	}
	e.mu.idle = append(e.mu.idle, st)
}

// Invocation is what a run needs from the command that starts it.
type Invocation struct {
	Caller Caller
	// Command is the command and its arguments, for FUNCTION STATS; the
	// Engine copies it.
	Command [][]byte
	// Owner is the namespace of the client that runs it.
	Owner string
}

// Eval runs sc with KEYS and ARGV and writes its result, or its error,
// to w.
func (e *Engine) Eval(sc *Script, keys, args [][]byte, inv Invocation, w reply.Sink) {
	st := e.getState()
	fn := st.scripts[sc.SHA]
	if fn == nil {
		fn = st.L.NewFunctionFromProto(sc.proto)
		fn.Env = st.evalEnv
		st.scripts[sc.SHA] = fn
	}
	L := st.L
	st.evalGlobals.RawSetString("KEYS", stringTable(L, keys))
	st.evalGlobals.RawSetString("ARGV", stringTable(L, args))
	r := e.begin(st, sc.SHA, false, inv)
	L.Push(fn)
	err := L.PCall(0, 1, st.errorHandler)
	e.finish(st, r, err, w)
}

// FCall runs fn with its keys and args and writes its result, or its
// error, to w.
func (e *Engine) FCall(fn *Function, keys, args [][]byte, inv Invocation, w reply.Sink) {
	st := e.getState()
	callback, err := st.callback(fn)
	if err != nil {
		e.putState(st, !st.broken)
		w.Error("ERR " + err.Error())
		return
	}
	L := st.L
	r := e.begin(st, fn.Name, true, inv)
	L.Push(callback)
	L.Push(stringTable(L, keys))
	L.Push(stringTable(L, args))
	err = L.PCall(2, 1, st.errorHandler)
	e.finish(st, r, err, w)
}

func stringTable(L *lua.LState, items [][]byte) *lua.LTable {
	t := L.CreateTable(len(items), 0)
	for i, b := range items {
		t.RawSetInt(i+1, lua.LString(b))
	}
	return t
}

// run is one execution of a script or a function.
type run struct {
	caller   Caller
	resp     int    // redis.setresp: the protocol of what redis.call returns
	name     string // the script's sha, or the function's name
	owner    string // the namespace of the client that runs it
	function bool
	command  [][]byte
	start    time.Time
	wrote    atomic.Bool
	// busy is set once the run passed the busy threshold. It is the
	// run's own: a watchdog that looks at a run as it ends cannot leave
	// the next one busy from its start.
	busy   atomic.Bool
	cancel context.CancelCauseFunc
	ctx    context.Context
	done   chan struct{} // closed when the run ends
}

// Causes of a run stopped from outside.
var (
	errCauseKilled   = errors.New("killed")
	errCauseMemory   = errors.New("memory")
	errCauseShutdown = errors.New("shutdown")
)

// stopped reports whether the run was stopped from outside.
func (r *run) stopped() bool { return r.ctx.Err() != nil }

// stopText is the error of a run stopped from outside, or text.
func (r *run) stopText(text string) string {
	switch context.Cause(r.ctx) {
	case errCauseKilled:
		return errKilled
	case errCauseMemory:
		return errOutOfMemory
	case errCauseShutdown:
		return errShutdown
	}
	return text
}

// begin starts a run on st and makes it the one in progress.
func (e *Engine) begin(st *state, name string, function bool, inv Invocation) *run {
	r := &run{caller: inv.Caller, resp: 2, name: name, owner: inv.Owner, function: function, start: time.Now()}
	r.command = make([][]byte, len(inv.Command))
	for i, a := range inv.Command {
		r.command[i] = []byte(string(a))
	}
	r.ctx, r.cancel = context.WithCancelCause(context.Background())
	r.done = make(chan struct{})
	st.run = r
	st.L.SetContext(r.ctx)
	st.L.Env = st.evalEnv
	e.current.Store(r)
	select {
	case e.wake <- struct{}{}:
	default:
	}
	return r
}

// finish ends the run r on st: its result (on top of the stack) or err
// goes to w, and st goes back to the pool.
func (e *Engine) finish(st *state, r *run, err error, w reply.Sink) {
	L := st.L
	L.RemoveContext()
	e.current.CompareAndSwap(r, nil)
	close(r.done)
	healthy := !r.stopped() && !st.broken
	r.cancel(nil)
	if err != nil {
		var apiErr *lua.ApiError
		obj := lua.LValue(lua.LString(err.Error()))
		if errors.As(err, &apiErr) {
			obj = apiErr.Object
		}
		w.Error(errorText(obj, r.name))
	} else {
		writeResult(w, L.Get(-1), r.resp, 0)
		L.Pop(1)
	}
	L.SetTop(0)
	e.putState(st, healthy)
}

// changed wakes whoever waits for a run to become busy. Runs beginning
// and ending do not: the commands waiting for the gate behind a script
// wait for the gate itself then.
func (e *Engine) changed() {
	e.mu.Lock()
	defer e.mu.Unlock()
	close(e.mu.changed)
	e.mu.changed = make(chan struct{})
}

// Changed returns a channel closed when the run in progress, or the next
// one, becomes busy.
func (e *Engine) Changed() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.mu.changed
}

// Running reports whether a script or function is running.
func (e *Engine) Running() bool { return e.current.Load() != nil }

// BUSY replies, by what runs.
const (
	errBusyScript   = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
	errBusyFunction = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
)

// Busy returns the BUSY reply while the run in progress is past the busy
// threshold, or "".
func (e *Engine) Busy() string {
	r := e.current.Load()
	if r == nil || !r.busy.Load() {
		return ""
	}
	return busyText(r.function)
}

func busyText(function bool) string {
	if function {
		return errBusyFunction
	}
	return errBusyScript
}

// Kill stops the run in progress (SCRIPT KILL, or FUNCTION KILL when
// function is set) once it is busy, as Redis can only serve the kill then,
// and returns the error reply that refuses it, or "" when it was
// stopped. It returns once the run has ended, so that what the killer
// sends next finds the server free of it, never BUSY.
func (e *Engine) Kill(function bool) string {
	for {
		changed := e.Changed()
		r := e.current.Load()
		switch {
		case r == nil:
			return "NOTBUSY No scripts in execution right now."
		case !r.busy.Load():
			select {
			case <-changed:
			case <-r.done:
			}
			continue
		case r.function != function:
			return busyText(r.function)
		case r.wrote.Load():
			return "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command."
		}
		r.cancel(errCauseKilled)
		<-r.done
		return ""
	}
}

// Abort stops the run in progress, written or not (SHUTDOWN NOSAVE).
func (e *Engine) Abort() {
	if r := e.current.Load(); r != nil {
		r.cancel(errCauseShutdown)
	}
}

// RunInfo describes a run in progress for FUNCTION STATS.
type RunInfo struct {
	Name     string // the script's sha or the function's name
	Command  [][]byte
	Elapsed  time.Duration
	Function bool
	Owner    string // the namespace of the client that runs it
}

// RunningStats describes the run in progress; ok is false when none
// runs.
func (e *Engine) RunningStats() (info RunInfo, ok bool) {
	r := e.current.Load()
	if r == nil {
		return RunInfo{}, false
	}
	return RunInfo{Name: r.name, Command: r.command, Elapsed: time.Since(r.start), Function: r.function, Owner: r.owner}, true
}

// watchdog makes a run busy past the threshold and stops one that uses
// too much memory. It ticks only while a run is in progress.
func (e *Engine) watchdog() {
	defer e.done.Done()
	tick := time.NewTicker(watchdogTick)
	defer tick.Stop()
	var watched *run
	var heapLimit uint64
	for {
		select {
		case <-e.stop:
			return
		case <-e.wake:
		}
		for r := e.current.Load(); r != nil; r = e.current.Load() {
			if r != watched {
				watched, heapLimit = r, heapBytes()+uint64(memoryLimit)
			}
			e.checkBusy(r)
			if heapBytes() > heapLimit {
				heapLimit = e.checkMemory(r, heapLimit)
			}
			select {
			case <-e.stop:
				return
			case <-tick.C:
			}
		}
		watched = nil
	}
}

// checkBusy makes r busy once it ran past the threshold, and wakes
// whoever waits for that. r may have ended meanwhile: its being busy
// then concerns no one.
func (e *Engine) checkBusy(r *run) {
	threshold := e.BusyAfter()
	if threshold > 0 && time.Since(r.start) >= threshold && r.busy.CompareAndSwap(false, true) {
		slog.Warn("a script runs longer than busy-reply-threshold: other clients get BUSY", "script", r.name, "threshold", threshold)
		e.changed()
	}
}

// checkMemory collects garbage once the heap passed limit while r runs:
// if what is live is still past it, r is stopped. It returns the limit
// to watch next.
func (e *Engine) checkMemory(r *run, limit uint64) uint64 {
	live := liveHeapAfterGC()
	if live <= limit {
		return max(limit, live+uint64(memoryLimit)/2)
	}
	slog.Warn("stopping a script that uses too much memory", "script", r.name, "limit", memoryLimitText)
	r.cancel(errCauseMemory)
	return ^uint64(0)
}
