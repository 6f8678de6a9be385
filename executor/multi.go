package executor

import (
	"log/slog"

	"github.com/basaltdb/basalt/session"
)

// txWrites reports whether a command queued in tx writes.
func txWrites(tx *session.Tx) bool {
	for _, args := range tx.Queued {
		if cmd := Lookup(args[0]); cmd != nil && cmd.Flags&Write != 0 {
			return true
		}
	}
	return false
}

// queue checks a command sent inside MULTI and queues it: QUEUED, or the
// error that dooms the transaction. While a script is busy, Redis
// refuses it with BUSY as it would refuse it outside MULTI.
func (e *Env) queue(s *session.Session, cmd *Command, args [][]byte) {
	refusal := e.refuse(s, cmd, args)
	if refusal == "" && cmd.Flags&NoMulti != 0 {
		refusal = "ERR Command not allowed inside a transaction"
	}
	if refusal == "" && e.Cluster != nil {
		refusal = e.routeQueued(s, cmd, args)
	}
	if refusal == "" {
		refusal = e.replicaRefusal(cmd, cmd.Flags&Write != 0)
	}
	if refusal == "" && !allowedWhileBusy(cmd, args) {
		refusal = e.Scripts.Busy()
	}
	if refusal != "" {
		e.reject(s, cmd, refusal)
		return
	}
	// The queue is part of what the client's requests hold.
	if size, limit := s.Queue(args), e.Config.ClientLimits.QueryBufferLimit.Get(); size > limit {
		slog.Warn("closing client over its query buffer limit", "client", s.ID, "addr", s.Addr, "queued bytes", size)
		s.Kill()
		return
	}
	s.W.Simple("QUEUED")
}

// routeQueued checks, in cluster mode, that a queued command's keys are
// served here. As in Kvrocks, the commands of one transaction may use
// different slots of this node.
func (e *Env) routeQueued(s *session.Session, cmd *Command, args [][]byte) string {
	if err := e.Route(s, cmd, args, false); err != nil {
		return err.Error()
	}
	return ""
}

// DiscardTx ends the session's transaction, if any, and its WATCHes.
func (e *Env) DiscardTx(s *session.Session) {
	s.EndTx()
	e.Sessions.Watches.Unwatch(s)
}

// ChangesNoKey marks the running write as one Redis does not count as a
// change of its keys (Redis 7.0 calls no signalModifiedKey for the
// consumer-group commands and XSETID): a WATCHed key stays unchanged and
// tracking invalidates nothing.
func (c *Ctx) ChangesNoKey() { c.Changed = [][]byte{} }

// TouchWatched records a change of keys that wrote nothing to the
// database but that Redis counts as a change of a WATCHed key (an LTRIM
// that removes nothing). The handler holds the keys' locks.
func (c *Ctx) TouchWatched(keys ...[]byte) {
	if c.Env.Sessions.Watches.Active() {
		c.Env.Sessions.Watches.Touch(c.Session.Namespace, keys)
	}
}
