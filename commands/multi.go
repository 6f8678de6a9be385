package commands

import (
	"log/slog"

	"github.com/basaltdb/basalt/session"
	"github.com/basaltdb/basalt/storage"
)

func init() {
	register(
		&Command{Name: "multi", Arity: 1, Flags: Fast | TxControl | NoMulti, Handler: cmdMulti},
		&Command{Name: "exec", Arity: 1, Flags: TxControl | Exclusive | NoMulti | RunsTx, Handler: cmdExec},
		&Command{Name: "discard", Arity: 1, Flags: Fast | TxControl | NoMulti, Handler: cmdDiscard},
		&Command{Name: "watch", Arity: -2, Flags: Fast | TxControl | NoMulti | NoTouch, FirstKey: 1, LastKey: -1, Handler: cmdWatch},
		&Command{Name: "unwatch", Arity: 1, Flags: Fast, Handler: cmdUnwatch},
	)
}

// txWrites reports whether a command queued in tx writes.
func txWrites(tx *session.Tx) bool {
	for _, args := range tx.Queued {
		if cmd := lookup(args[0]); cmd != nil && cmd.Flags&Write != 0 {
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
		refusal = e.scripts.Busy()
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
	if err := e.route(s, cmd, args, false); err != nil {
		return err.Error()
	}
	return ""
}

// MULTI
func cmdMulti(c *Ctx) {
	if c.Session.Tx != nil {
		c.ErrorString("ERR MULTI calls can not be nested")
		return
	}
	c.Session.BeginTx()
	c.W.OK()
}

// DISCARD
func cmdDiscard(c *Ctx) {
	if c.Session.Tx == nil {
		c.ErrorString("ERR DISCARD without MULTI")
		return
	}
	c.Env.discardTx(c.Session)
	c.W.OK()
}

// discardTx ends the session's transaction, if any, and its WATCHes.
func (e *Env) discardTx(s *session.Session) {
	s.EndTx()
	e.Sessions.Watches.Unwatch(s)
}

// EXEC
//
// EXEC holds the command gate alone (it is Exclusive): no other command
// runs while the queued ones do, so none sees the transaction half done.
// A command that fails does not undo the others, as in Redis.
func cmdExec(c *Ctx) {
	s, e := c.Session, c.Env
	tx := s.Tx
	if tx == nil {
		c.ErrorString("ERR EXEC without MULTI")
		return
	}
	s.EndTx()
	changed := s.WatchedChanged()
	e.Sessions.Watches.Unwatch(s)
	switch {
	case tx.Dirty:
		c.ErrorString("EXECABORT Transaction discarded because of previous errors.")
		return
	case changed:
		c.W.NullArray()
		return
	}
	// In cluster mode the slot may have moved, or entered the last phase
	// of a migration, since the commands were queued: nothing runs then.
	// The commands were found when queued; renames happen only at start.
	cmds := make([]*Command, len(tx.Queued))
	for i, args := range tx.Queued {
		cmds[i] = lookup(args[0])
	}
	if e.Cluster != nil {
		for i, cmd := range cmds {
			if err := e.route(s, cmd, tx.Queued[i], false); err != nil {
				c.ErrorString(err.Error())
				return
			}
		}
	}
	c.W.Array(len(cmds))
	// Every queued command runs even once the client is gone (its writer
	// failed): a transaction is applied whole. They run in EXEC's context,
	// whose error mark each of them moves, as Redis 7 counts errors.
	c.inExec = true
	defer func() { c.inExec = false }()
	for i, cmd := range cmds {
		e.execute(c, cmd, tx.Queued[i])
	}
}

// WATCH key [key ...]
func cmdWatch(c *Ctx) {
	if c.Session.Tx != nil {
		c.ErrorString("ERR WATCH inside MULTI is not allowed")
		return
	}
	keys := c.Args[1:]
	// Under the keys' locks, no write to them is half done: each write
	// either finished before (and is not seen as a change) or starts
	// after, when it sees the watch and touches the key.
	// The function writes nothing, so Update cannot fail.
	c.Env.Storage.Update(&storage.Write{NS: c.Session.Namespace, Keys: keys}, func(storage.DB) {
		for _, k := range keys {
			at, found, _ := c.DB.ExpireAt(k)
			c.Session.Watch(k, found, at)
		}
	})
	c.W.OK()
}

// UNWATCH
func cmdUnwatch(c *Ctx) {
	c.Env.Sessions.Watches.Unwatch(c.Session)
	c.W.OK()
}

// changesNoKey marks the running write as one Redis does not count as a
// change of its keys (Redis 7.0 calls no signalModifiedKey for the
// consumer-group commands and XSETID): a WATCHed key stays unchanged and
// tracking invalidates nothing.
func (c *Ctx) changesNoKey() { c.changed = [][]byte{} }

// touchWatched records a change of keys that wrote nothing to the
// database but that Redis counts as a change of a WATCHed key (an LTRIM
// that removes nothing). The handler holds the keys' locks.
func (c *Ctx) touchWatched(keys ...[]byte) {
	if c.Env.Sessions.Watches.Active() {
		c.Env.Sessions.Watches.Touch(c.Session.Namespace, keys)
	}
}
