package commands

import (
	"bytes"
	"hash/maphash"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/basaltdb/basalt/storage"
)

func init() {
	register(
		&Command{Name: "multi", Arity: 1, Flags: Fast | TxControl | NoMulti, Handler: cmdMulti},
		&Command{Name: "exec", Arity: 1, Flags: TxControl | Exclusive | NoMulti, Handler: cmdExec},
		&Command{Name: "discard", Arity: 1, Flags: Fast | TxControl | NoMulti, Handler: cmdDiscard},
		&Command{Name: "watch", Arity: -2, Flags: Fast | TxControl | NoMulti, FirstKey: 1, LastKey: -1, Handler: cmdWatch},
		&Command{Name: "unwatch", Arity: 1, Flags: Fast, Handler: cmdUnwatch},
	)
}

// transaction is a client's MULTI state: the commands queued, and whether
// one was refused, which makes EXEC fail.
type transaction struct {
	cmds  []*Command
	args  [][][]byte
	size  int64 // bytes of the queued arguments
	dirty bool
}

// endTx leaves the client's transaction, if any.
func (cl *Client) endTx() {
	cl.tx = nil
	cl.multiMem.Store(0)
	cl.multiLen.Store(-1)
}

// writes reports whether a queued command writes.
func (tx *transaction) writes() bool {
	for _, cmd := range tx.cmds {
		if cmd.Flags&Write != 0 {
			return true
		}
	}
	return false
}

// queue checks a command sent inside MULTI and queues it: QUEUED, or the
// error that dooms the transaction.
func (e *Env) queue(cl *Client, cmd *Command, args [][]byte) {
	tx := cl.tx
	refusal := e.refuse(cl, cmd, args)
	if refusal == "" && cmd.Flags&NoMulti != 0 {
		refusal = "ERR Command not allowed inside a transaction"
	}
	if refusal == "" && e.Cluster != nil {
		refusal = e.routeQueued(cl, cmd, args)
	}
	if refusal == "" {
		refusal = e.replicaRefusal(cmd, cmd.Flags&Write != 0)
	}
	if refusal != "" {
		tx.dirty = true
		cl.W.Error(refusal)
		return
	}
	// The server reuses the argument buffers: queue copies.
	owned := make([][]byte, len(args))
	for i, a := range args {
		owned[i] = bytes.Clone(a)
		tx.size += int64(len(a)) + argOverhead
	}
	tx.cmds, tx.args = append(tx.cmds, cmd), append(tx.args, owned)
	cl.multiMem.Store(tx.size)
	cl.multiLen.Store(int64(len(tx.cmds)))
	// The queue is part of what the client's requests hold.
	if limit := e.Config.ClientLimits.QueryBufferLimit.Get(); tx.size > limit {
		slog.Warn("closing client over its query buffer limit", "client", cl.ID, "addr", cl.Addr, "queued bytes", tx.size)
		cl.Kill()
		return
	}
	cl.W.Simple("QUEUED")
}

// routeQueued checks, in cluster mode, that a queued command's keys are
// served here. As in Kvrocks, the commands of one transaction may use
// different slots of this node.
func (e *Env) routeQueued(cl *Client, cmd *Command, args [][]byte) string {
	if err := e.route(cl, cmd, args, false); err != nil {
		return err.Error()
	}
	return ""
}

// MULTI
func cmdMulti(c *Ctx) {
	if c.Client.tx != nil {
		c.ErrorString("ERR MULTI calls can not be nested")
		return
	}
	c.Client.tx = &transaction{}
	c.Client.multiLen.Store(0)
	c.W.OK()
}

// DISCARD
func cmdDiscard(c *Ctx) {
	if c.Client.tx == nil {
		c.ErrorString("ERR DISCARD without MULTI")
		return
	}
	c.Client.endTx()
	c.Env.watches.unwatch(c.Client)
	c.W.OK()
}

// EXEC
//
// EXEC holds the command gate alone (it is Exclusive): no other command
// runs while the queued ones do, so none sees the transaction half done.
// A command that fails does not undo the others, as in Redis.
func cmdExec(c *Ctx) {
	cl, e := c.Client, c.Env
	tx := cl.tx
	if tx == nil {
		c.ErrorString("ERR EXEC without MULTI")
		return
	}
	cl.endTx()
	changed := e.watches.changed(cl)
	e.watches.unwatch(cl)
	switch {
	case tx.dirty:
		c.ErrorString("EXECABORT Transaction discarded because of previous errors.")
		return
	case changed:
		c.W.NullArray()
		return
	}
	// In cluster mode the slot may have moved, or entered the last phase
	// of a migration, since the commands were queued: nothing runs then.
	if e.Cluster != nil {
		for i, cmd := range tx.cmds {
			if err := e.route(cl, cmd, tx.args[i], false); err != nil {
				c.ErrorString(err.Error())
				return
			}
		}
	}
	c.W.Array(len(tx.cmds))
	sub := Ctx{W: c.W, Client: cl, Env: e, inExec: true}
	// Every queued command runs even once the client is gone (its writer
	// failed): a transaction is applied whole.
	for i, cmd := range tx.cmds {
		e.execute(&sub, cmd, tx.args[i])
	}
}

// WATCH key [key ...]
func cmdWatch(c *Ctx) {
	if c.Client.tx != nil {
		c.ErrorString("ERR WATCH inside MULTI is not allowed")
		return
	}
	keys := c.Args[1:]
	// Under the keys' locks, no write to them is half done: each write
	// either finished before (and is not seen as a change) or starts
	// after, when it sees the watch and touches the key.
	// The function writes nothing, so Update cannot fail.
	c.Env.Storage.Update(&storage.Write{NS: c.Client.Namespace, Keys: keys}, func(storage.DB) {
		for _, k := range keys {
			c.Env.watches.watch(c, k)
		}
	})
	c.W.OK()
}

// UNWATCH
func cmdUnwatch(c *Ctx) {
	c.Env.watches.unwatch(c.Client)
	c.W.OK()
}

// watches detects writes to WATCHed keys. Each key hashes to one of a
// fixed set of stamps, which every write to it bumps while anyone
// watches; a write without keys (FLUSHALL) bumps the epoch, which every
// watch depends on. Two keys sharing a stamp can only make an EXEC fail
// without need, never succeed wrongly.
type watches struct {
	count  atomic.Int64 // clients watching
	epoch  atomic.Uint64
	stamps [1 << 14]atomic.Uint64
}

var watchSeed = maphash.MakeSeed()

// watchedKey is one WATCHed key: the stamp and epoch when watched, and
// its expiry then (0: none), which EXEC checks too. As in Redis, a flush
// changes only the keys that existed: one that did not when watched, and
// whose stamp has not moved since, did not when the flush came either.
type watchedKey struct {
	stamp    int
	value    uint64
	epoch    uint64
	expireAt int64
	existed  bool
}

func stampOf(ns string, key []byte) int {
	var h maphash.Hash
	h.SetSeed(watchSeed)
	h.WriteString(ns)
	h.WriteByte(0)
	h.Write(key)
	return int(h.Sum64() % (1 << 14))
}

func (w *watches) watch(c *Ctx, key []byte) {
	cl := c.Client
	if cl.watched == nil {
		w.count.Add(1)
	}
	at, found, _ := c.DB.ExpireAt(key)
	if !found {
		at = 0
	}
	i := stampOf(cl.Namespace, key)
	cl.watched = append(cl.watched, watchedKey{stamp: i, value: w.stamps[i].Load(), epoch: w.epoch.Load(), expireAt: at, existed: found})
}

// touch records a write to keys of namespace ns (none: everything).
func (w *watches) touch(ns string, keys [][]byte) {
	if len(keys) == 0 {
		w.epoch.Add(1)
		return
	}
	for _, k := range keys {
		w.stamps[stampOf(ns, k)].Add(1)
	}
}

// changed reports whether a key cl watches was written or has expired.
func (w *watches) changed(cl *Client) bool {
	now := time.Now().UnixMilli()
	for _, k := range cl.watched {
		if w.stamps[k.stamp].Load() != k.value || (k.existed && w.epoch.Load() != k.epoch) || (k.expireAt > 0 && k.expireAt <= now) {
			return true
		}
	}
	return false
}

// touchWatched records a change of keys that wrote nothing to the
// database but that Redis counts as a change of a WATCHed key (an LTRIM
// that removes nothing). The handler holds the keys' locks.
func (c *Ctx) touchWatched(keys ...[]byte) {
	if c.Env.watches.count.Load() > 0 {
		c.Env.watches.touch(c.Client.Namespace, keys)
	}
}

func (w *watches) unwatch(cl *Client) {
	if cl.watched != nil {
		cl.watched = nil
		w.count.Add(-1)
	}
}
