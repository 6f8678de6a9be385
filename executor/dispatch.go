package executor

import (
	"fmt"
	"log/slog"
	"math"
	"runtime/debug"
	"strings"
	"time"

	"github.com/basaltdb/basalt/cluster"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/session"
	"github.com/basaltdb/basalt/storage"
)

// Exclusively runs fn while no other command runs. The command calling
// it holds the gate shared, unless it runs inside EXEC, which holds it
// alone already.
func (e *Env) Exclusively(c *Ctx, fn func() error) error {
	if c.InExec {
		return fn()
	}
	e.gate.RUnlock()
	e.gate.Lock()
	defer func() {
		e.gate.Unlock()
		e.gate.RLock()
	}()
	return fn()
}

// Dispatch runs one request of a client and writes its reply to the
// client's writer. Every decision that depends on the kind of command
// (arity, authentication, admin rights, key locks, statistics) is made
// here from the command table. Inside MULTI, commands are checked and
// queued instead. A blocking command that found nothing makes the
// connection wait here, holding no lock, until the command that makes its
// key ready serves it (serveBlocked, on that command's goroutine, before
// that command's reply is sent), or its timeout or CLIENT UNBLOCK.
func (e *Env) Dispatch(c *Ctx, args [][]byte) {
	s := c.Session
	replyFrom := s.W.Len()
	defer s.Replies.Done(s.W, &replyFrom)
	e.dispatch(c, args)
	for s.Blocked {
		s.Blocked = false
		w := s.Waiter()
		// The replies of the commands before this one go out before it
		// waits.
		s.Flush()
		replyFrom = 0
		switch outcome := w.Await(); outcome {
		case session.Woken, session.Recount, session.Rerun:
			// The waiter's own copy: the command as it blocked (XREAD's
			// "$" made the ID it stood for then).
			c.rerun = true
			e.dispatch(c, w.Args)
			c.rerun = false
			if s.Blocked {
				continue
			}
			// Answered (an element, or an error): it leaves the queues.
		case session.TimedOut:
			w.Null(s.W)
			// The call ends here: Redis 7 counts it now, once.
			if cmd := Lookup(w.Args[0]); cmd != nil {
				cmd.stats.calls.Add(1)
				cmd.stats.record(time.Since(s.IdleSince()))
				e.Stats.CommandsProcessed.Add(1)
			}
		case session.UnblockedWithError:
			// Not a call in Redis 7's commandstats; an error in errorstats.
			s.W.Error("UNBLOCKED client unblocked via CLIENT UNBLOCK")
		case session.Demoted:
			// Redis 7.0 closes the connection after this reply.
			s.W.Error("UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)")
			s.CloseAfterReply = true
		}
		e.Sessions.Blocking.Remove(w)
		// A wake meant for this waiter goes to the next one.
		e.Sessions.Blocking.Written(w.NS, w.Keys(), s)
	}
	e.serveBlocked(s) // blocking.go: waiters on the keys written are served before the reply goes out
	if len(c.Inv.Self) > 0 || s.TrackingOn() {
		e.trackingDone(c, args)
	}
}

func (e *Env) dispatch(c *Ctx, args [][]byte) {
	s := c.Session
	cmd := Lookup(args[0])
	if s.Tx != nil && (cmd == nil || cmd.Flags&TxControl == 0) {
		e.queue(s, cmd, args)
		return
	}
	if refusal := e.refuse(s, cmd, args); refusal != "" {
		e.reject(s, cmd, refusal)
		return
	}
	// EXEC writes when its queued commands do.
	writes := cmd.Flags&Write != 0 || (s.Tx != nil && txWrites(s.Tx))
	if e.Cluster != nil {
		if writes {
			e.Cluster.BeginWrite()
			defer e.Cluster.EndWrite()
		}
		// ASKING lasts one command: the next one, unless it is ASKING,
		// which sets it again.
		asking := s.Asking || cmd.Flags&Asking != 0
		s.Asking = false
		if err := e.Route(s, cmd, args, asking); err != nil {
			e.reject(s, cmd, err.Error())
			return
		}
	}
	if refusal := e.replicaRefusal(cmd, writes); refusal != "" {
		e.reject(s, cmd, refusal)
		return
	}
	e.Sessions.Pause.Wait(writes, cmd.Flags&NoPause != 0)
	if e.Cluster != nil && e.Config.Redis.ClusterSlotStatsEnabled.Get() {
		defer e.countSlotUsage(s, cmd, args, time.Now(), written(s.W))
	}
	// Commands share the gate; an Exclusive one holds it alone: nobody
	// sees an EXEC half done, and FLUSHDB/FLUSHALL wait for the writes in
	// flight, so none lands after them. A script too (busy.go), run in
	// turn with the others queued (scriptqueue.go).
	if cmd.Flags&RunsScript != 0 {
		e.dispatchScript(c, cmd, args)
		return
	}
	hold, busy := e.enterGate(cmd, args, !c.rerun)
	if busy != "" {
		e.reject(s, cmd, busy)
		return
	}
	defer e.leaveGate(hold)
	// A read's reply may be sent in parts as it grows (Env.Spill), which
	// lets go of the gate meanwhile: not one run beside a busy script,
	// which holds none.
	c.spillable = !writes && hold == gateShared && !s.Replies.Suppressed()
	e.Execute(c, cmd, args)
	c.spillable = false
}

// refuse returns the error reply that stops a command before it runs, or
// "": unknown command, wrong arity, no authentication, no admin right, a
// monitor touching keys, a command MULTI cannot queue.
func (e *Env) refuse(s *session.Session, cmd *Command, args [][]byte) string {
	switch {
	case cmd == nil:
		return unknownCommand(args)
	case !cmd.ArityOK(len(args)) && cmd.Flags&KvrocksOnly != 0:
		return "ERR wrong number of arguments"
	case !cmd.ArityOK(len(args)):
		return "ERR wrong number of arguments for '" + cmd.Name + "' command"
	case !s.Authed && cmd.Flags&NoAuth == 0:
		return errNoAuth
	case cmd.adminOnly(args) && !s.Admin:
		return ErrAdminRequired
	case s.Monitoring() && cmd.HasKeys():
		return "ERR Replica can't interact with the keyspace"
	case cmd.Flags&SubscriberOK == 0 && s.W.Protocol() == 2 && s.Subscriptions() > 0:
		return "ERR Can't execute '" + cmd.Name + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"
	case s.Tx != nil && cmd.Flags&(NoMulti|TxControl) == NoMulti:
		return "ERR Command not allowed inside a transaction"
	}
	return ""
}

// reject answers a command refused before it ran, as Redis's
// rejectCommand: the refusal dooms the transaction the client is in, and
// a refused EXEC discards its transaction, saying why (BUSY while a
// script is busy). It counts as rejected (INFO commandstats).
func (e *Env) reject(s *session.Session, cmd *Command, refusal string) {
	if cmd != nil {
		cmd.stats.rejected.Add(1)
		if cmd.Flags&RunsTx != 0 {
			e.DiscardTx(s)
			// Redis words its own refusals without the ERR code here.
			s.W.Error("EXECABORT Transaction discarded because of: " + strings.TrimPrefix(refusal, "ERR "))
			return
		}
	}
	if s.Tx != nil {
		s.Tx.Dirty = true
	}
	s.W.Error(refusal)
}

// Execute runs a command that passed the checks, and accounts for it.
func (e *Env) Execute(ctx *Ctx, cmd *Command, args [][]byte) {
	s := ctx.Session
	ctx.Args, ctx.Cmd = args, cmd
	ctx.DB = e.Storage.DB(s.Namespace)
	if ctx.joint != nil {
		ctx.DB = ctx.joint.DB(s.Namespace)
	}
	ctx.DB = ctx.DB.At(ctx.frozenAt)
	start := time.Now()
	s.Ran(&cmd.Name, start)
	// Counted before it runs, as Kvrocks: INFO commandstats counts itself.
	cmd.stats.calls.Add(1)
	ctx.errMark = ctx.W.Errors()
	e.expireAccessed(ctx, cmd, args)
	e.touchKeys(s.Namespace, cmd, args, start)
	sample, profiled := e.Perflog.begin(e.Config, cmd)
	e.run(ctx)
	if s.TrackingOn() {
		e.remember(ctx, cmd, args)
	}
	elapsed := time.Since(start)
	if profiled {
		e.Perflog.end(e.Config, sample, cmd, elapsed)
	}
	if s.Blocked {
		// It runs again when woken, and is counted then.
		cmd.stats.calls.Add(-1)
	} else {
		// Errors of the commands EXEC runs are theirs: each of them
		// moves the mark, as Redis 7 counts them.
		if ctx.W.Errors() > ctx.errMark {
			cmd.stats.failed.Add(1)
		}
		cmd.stats.record(elapsed)
		e.Stats.CommandsProcessed.Add(1)
		e.recordLatency(cmd, elapsed)
	}
	ctx.errMark = ctx.W.Errors()
	e.Sessions.LogIfSlow(s, func() [][]byte { return redacted(cmd, args) }, start, elapsed)
	// Like Redis, monitors are not shown admin commands (MONITOR itself,
	// CONFIG, ...).
	if e.Sessions.Monitors.Count() > 0 && cmd.Flags&Admin == 0 {
		e.Sessions.Feed(s, redacted(cmd, args), start)
	}
	ctx.Args = nil
}

// run calls the handler; a write command's runs through the storage's
// write door, under its keys' locks (storage/write.go).
func (e *Env) run(ctx *Ctx) {
	if ctx.Cmd.Flags&Write == 0 {
		call(ctx)
		return
	}
	// As Kvrocks, past max-db-size only writes that remove data run; in
	// a transaction, each queued write is refused on its own.
	if ctx.Cmd.Flags&NoDBSizeCheck == 0 && e.Storage.DBSizeLimitReached() {
		ctx.ErrorString("ERR write command not allowed when reached max-db-size.")
		return
	}
	keys := ctx.Cmd.KeysOf(ctx.Args)
	joint := ctx.joint
	if joint != nil && ctx.InScript && (len(keys) == 0 || ctx.Cmd.Flags&LocksItself != 0) {
		// A script's write of no key (FLUSHALL) or of keys it locks
		// itself runs outside the joint, after the writes before it.
		joint.Release()
		joint = nil
	}
	if ctx.Cmd.Flags&LocksItself != 0 {
		call(ctx)
		return
	}
	replied := ctx.W.Len()
	err := e.update(ctx, storage.Write{NS: ctx.Session.Namespace, Keys: keys, By: ctx, Joint: joint})
	for relocks := 1; err == nil && ctx.unlocked; relocks++ {
		// The write found a key to change it did not lock: it wrote
		// nothing, and runs again locking the keys it leads to now.
		ctx.W.Truncate(replied)
		if relocks == maxRelocks {
			ctx.ErrorString("ERR the keys the command writes kept changing while it ran; try again")
			break
		}
		err = e.update(ctx, storage.Write{NS: ctx.Session.Namespace, Keys: keys, By: ctx, Joint: joint})
	}
	if err != nil {
		// The reply was written before the write failed to apply.
		ctx.W.Truncate(replied)
		ctx.Error(err)
	}
	// The group's writes were applied after call read the sequence.
	ctx.Session.SyncTo = e.Storage.LatestSequence()
}

// maxRelocks bounds how many times a write runs again because the keys
// it leads to changed between reading them and locking them.
const maxRelocks = 8

// update runs the handler of ctx's write w under its keys' locks and
// those of the keys the command's AlsoWrites finds, through the storage's
// write door. ctx.unlocked is set when the handler found a key to change
// that they leave out (storage.ErrUnlocked).
func (e *Env) update(ctx *Ctx, w storage.Write) error {
	if more := ctx.Cmd.AlsoWrites; more != nil {
		for _, k := range more(ctx) {
			w.Also = append(w.Also, storage.Key{NS: w.NS, Name: k})
		}
	}
	ctx.write, ctx.Changed, ctx.unlocked = w, nil, false
	db := ctx.DB
	err := e.Storage.Update(&ctx.write, func(in storage.DB) {
		ctx.DB = in.At(ctx.frozenAt)
		ctx.noteBefore(ctx.DB)
		call(ctx)
	})
	ctx.endNotes()
	ctx.DB, ctx.write, ctx.Changed = db, storage.Write{}, nil
	return err
}

// Watching and Wrote make the Env the storage's Watcher: a write that
// changed the database touches the keys it wrote for WATCH and wakes their
// oldest blocked clients.
func (e *Env) Watching() bool {
	return e.Sessions.Watches.Active() || e.Sessions.Blocking.Count() > 0 || e.notifying() != 0 || e.Sessions.Tracking.Active()
}

// Wrote is called under the write's key locks.
func (e *Env) Wrote(w *storage.Write) {
	ctx := w.By.(*Ctx)
	ctx.announce()
	ctx.Inv.Writer = ctx.Session
	written := ctx.Cmd.writtenKeys(ctx.Args, w.Keys)
	if ctx.Changed == nil {
		e.keysWritten(w.NS, written, ctx.Session, &ctx.Inv)
	} else {
		// Redis signals fewer keys (or none) as modified: WATCH and
		// client-side caching see those only (to Touch, no keys would
		// mean all of them).
		if len(ctx.Changed) > 0 {
			e.keysChanged(w.NS, ctx.Changed, &ctx.Inv)
		}
		e.Sessions.Blocking.Written(w.NS, written, ctx.Session)
	}
	for _, k := range w.Also {
		e.keysWritten(k.NS, [][]byte{k.Name}, ctx.Session, &ctx.Inv)
	}
}

// call runs the handler, then records how far the WAL must be flushed
// before its reply is sent. A panic in a handler is a bug: it is logged
// and answered with an error instead of taking the server down.
func call(ctx *Ctx) {
	defer func() {
		if r := recover(); r != nil {
			slog.Error("command panicked", "cmd", ctx.Cmd.Name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			ctx.W.Error("ERR internal error")
		}
		ctx.Session.SyncTo = ctx.Env.Storage.LatestSequence()
	}()
	ctx.Cmd.Handler(ctx)
}

// Route checks, in cluster mode, that this node serves the slot of the
// command's keys, which must all be in one slot. Keyless commands run
// locally.
func (e *Env) Route(s *session.Session, cmd *Command, args [][]byte, asking bool) error {
	keys := cmd.KeysOf(args)
	if len(keys) == 0 {
		return nil
	}
	slot := metadata.HashSlot(keys[0])
	for _, k := range keys[1:] {
		if metadata.HashSlot(k) != slot {
			return cluster.ErrCrossSlot
		}
	}
	return e.Cluster.Route(int(slot), cluster.Access{Write: cmd.Flags&Write != 0, ReadOnly: s.ReadOnly, Importing: s.Importing || asking})
}

// unknownCommand renders Redis's error for an unknown command: the name
// and the first arguments, quoted, within 128 bytes.
func unknownCommand(args [][]byte) string {
	var quoted strings.Builder
	for _, a := range args[1:] {
		if quoted.Len() >= 128 {
			break
		}
		room := 128 - quoted.Len()
		quoted.WriteString("'")
		quoted.Write(a[:min(len(a), room)])
		quoted.WriteString("' ")
	}
	return "ERR unknown command '" + Abbreviate(args[0]) + "', with args beginning with: " + quoted.String()
}

// Spill returns the spill function of the writer of the connection whose
// commands run in c: a long reply is sent as it grows. Only a read outside
// a transaction is sent in parts (send false: in the middle of an aggregate
// whose length comes last); it lets go of the command gate while it waits
// on the socket, so that a client that does not read holds up no one. That
// is safe only because a handler holds no other lock while it writes
// replies: one that must reply under a lock of its own pushes instead. Any
// other reply stays whole, within the normal class's output limit.
func (e *Env) Spill(c *Ctx) func(send bool) error {
	return func(send bool) error {
		s := c.Session
		// A client receiving pushes gets its reply whole: a message
		// pushed meanwhile would land inside it.
		if !send || !c.spillable || s.Pushing() {
			return s.HoldReply()
		}
		e.gate.RUnlock()
		defer e.gate.RLock()
		s.SyncTo = e.Storage.LatestSequence()
		if err := s.Flush(); err != nil {
			s.Kill()
			return err
		}
		return nil
	}
}

func floatBits(f float64) uint64     { return math.Float64bits(f) }
func floatFromBits(b uint64) float64 { return math.Float64frombits(b) }
