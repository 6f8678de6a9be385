package commands

import (
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/storage"
)

func init() {
	executor.Register(
		&executor.Command{Name: "multi", Arity: 1, Flags: executor.Fast | executor.TxControl | executor.NoMulti, Handler: cmdMulti},
		&executor.Command{Name: "exec", Arity: 1, Flags: executor.TxControl | executor.Exclusive | executor.NoMulti | executor.RunsTx, Handler: cmdExec},
		&executor.Command{Name: "discard", Arity: 1, Flags: executor.Fast | executor.TxControl | executor.NoMulti, Handler: cmdDiscard},
		&executor.Command{Name: "watch", Arity: -2, Flags: executor.Fast | executor.TxControl | executor.NoMulti | executor.NoTouch, FirstKey: 1, LastKey: -1, Handler: cmdWatch},
		&executor.Command{Name: "unwatch", Arity: 1, Flags: executor.Fast, Handler: cmdUnwatch},
	)
}

// MULTI
func cmdMulti(c *executor.Ctx) {
	if c.Session.Tx != nil {
		c.ErrorString("ERR MULTI calls can not be nested")
		return
	}
	c.Session.BeginTx()
	c.W.OK()
}

// DISCARD
func cmdDiscard(c *executor.Ctx) {
	if c.Session.Tx == nil {
		c.ErrorString("ERR DISCARD without MULTI")
		return
	}
	c.Env.DiscardTx(c.Session)
	c.W.OK()
}

// EXEC
//
// EXEC holds the command gate alone (it is Exclusive): no other command
// runs while the queued ones do, so none sees the transaction half done.
// A command that fails does not undo the others, as in Redis.
func cmdExec(c *executor.Ctx) {
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
	cmds := make([]*executor.Command, len(tx.Queued))
	for i, args := range tx.Queued {
		cmds[i] = executor.Lookup(args[0])
	}
	if e.Cluster != nil {
		for i, cmd := range cmds {
			if err := e.Route(s, cmd, tx.Queued[i], false); err != nil {
				c.ErrorString(err.Error())
				return
			}
		}
	}
	c.W.Array(len(cmds))
	// Every queued command runs even once the client is gone (its writer
	// failed): a transaction is applied whole. They run in EXEC's context,
	// whose error mark each of them moves, as Redis 7 counts errors.
	c.InExec = true
	defer func() { c.InExec = false }()
	for i, cmd := range cmds {
		e.Execute(c, cmd, tx.Queued[i])
	}
}

// WATCH key [key ...]
func cmdWatch(c *executor.Ctx) {
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
func cmdUnwatch(c *executor.Ctx) {
	c.Env.Sessions.Watches.Unwatch(c.Session)
	c.W.OK()
}
