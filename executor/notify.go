package executor

import (
	"bytes"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/session"
	"github.com/basaltdb/basalt/storage"
)

// Keyspace notifications, as Redis 7.0's notify-keyspace-events: a write
// publishes what it did to each key on __keyspace@0__:<key> (the event
// as message) and __keyevent@0__:<event> (the key as message), in its
// namespace only, as Kvrocks keeps channels per namespace. What each
// command publishes is data (notify_events.go). Nothing is read or
// published unless K or E is set and someone is subscribed.
//
// The write door (storage.Update) calls the hooks under the command's key
// locks: run reads the keys' state before the command runs (Ctx.before),
// and Wrote, once the command changed something, reads it after and
// publishes the events the table derives from the two. Events of one key
// thus follow the order of its writes, and those of a served blocked
// client follow the push that served it, as in Redis.
//
// Keys whose time has passed are deleted, with an "expired" event, when
// a command looks them up (expireAccessed) and by a background walk
// (expireLoop), both only while someone listens for those events or
// tracks keys (the deletion invalidates them): otherwise Basalt leaves
// them to compaction, as Kvrocks. The keys blocked XREADGROUPs wait on
// are the exception: the walk looks at them always, and deletes and
// serves them as Redis's active expiry does, which releases the waiters.

const (
	keyspaceChannel = "__keyspace@0__:"
	keyeventChannel = "__keyevent@0__:"
)

// notices is the Env's state of keyspace notifications and expiry.
type notices struct {
	// ActiveExpireOff is DEBUG SET-ACTIVE-EXPIRE 0: the background walk
	// stops, keys still expire when looked up.
	ActiveExpireOff atomic.Bool
}

// notifying returns the classes to publish now: none unless K or E is set
// and someone is subscribed.
func (e *Env) notifying() config.NotifyClass {
	flags := e.Config.Redis.NotifyKeyspaceEvents.Get()
	if flags&(config.NotifyKeyspace|config.NotifyKeyevent) == 0 || !e.Sessions.PubSub.Listening() {
		return 0
	}
	return flags
}

// notify publishes event of class on key of namespace ns, when flags has
// the class (Redis's notifyKeyspaceEvent): the keyspace channel first.
func (e *Env) notify(flags, class config.NotifyClass, event, ns string, key []byte) {
	if flags&class == 0 {
		return
	}
	keyspace, keyevent := keyspaceChannel, keyeventChannel
	if n, ok := metadata.DatabaseOf(ns); ok && n > 0 && e.Config.RedisDatabases.Get() > 0 {
		// A database's events reach every subscriber, on channels that
		// name it (Kvrocks 2.17, KVROCKS-TYPES.md §8).
		db := strconv.FormatInt(n, 10)
		ns, keyspace, keyevent = metadata.DefaultNamespace, "__keyspace@"+db+"__:", "__keyevent@"+db+"__:"
	}
	if flags&config.NotifyKeyspace != 0 {
		e.Sessions.Publish(ns, keyspace+string(key), []byte(event), false)
	}
	if flags&config.NotifyKeyevent != 0 {
		e.Sessions.Publish(ns, keyevent+event, key, false)
	}
}

// noteBefore records, under the write's locks, the state of the keys of
// the write about to run in db, when its events will be published.
func (c *Ctx) noteBefore(db storage.DB) {
	c.notifyFlags = c.Env.notifying()
	if c.notifyFlags == 0 || c.Cmd.Events == nil {
		c.notifyFlags = 0
		return
	}
	states, err := db.KeyStates(c.write.Keys)
	if err != nil {
		slog.Error("keyspace notifications: read the keys before a write", "cmd", c.Cmd.Name, "err", err)
		c.notifyFlags = 0
		return
	}
	c.before = states
	if c.Cmd.Events.AlsoEvent != "" {
		if c.alsoBefore, err = db.KeyStates(c.alsoKeys()); err != nil {
			slog.Error("keyspace notifications: read the keys before a write", "cmd", c.Cmd.Name, "err", err)
			c.notifyFlags = 0
			return
		}
	}
	if find := c.Cmd.Events.Consumer; find != nil {
		c.consumersBefore = make([]bool, len(c.write.Keys))
		for i, k := range c.write.Keys {
			c.consumersBefore[i] = find(c.Args, db, k)
		}
	}
}

// announce publishes the events of the write c just made, under its locks.
func (c *Ctx) announce() {
	if c.notifyFlags == 0 {
		return
	}
	after, err := c.DB.KeyStates(c.write.Keys)
	if err != nil {
		slog.Error("keyspace notifications: read the keys after a write", "cmd", c.Cmd.Name, "err", err)
		return
	}
	a := &announcement{c: c, flags: c.notifyFlags, keys: c.write.Keys, written: c.Cmd.writtenKeys(c.Args, c.write.Keys),
		before: c.before, after: after, newSent: make([]bool, len(after))}
	c.Cmd.Events.Shape(a, c.Cmd.Events)
	c.announceAlso()
}

// alsoKeys are the keys of the write's namespace its command's
// AlsoWrites added to it.
func (c *Ctx) alsoKeys() [][]byte {
	var keys [][]byte
	for _, k := range c.write.Also {
		if k.NS == c.write.NS {
			keys = append(keys, k.Name)
		}
	}
	return keys
}

// announceAlso publishes the command's AlsoEvent on the keys AlsoWrites
// found that the write changed.
func (c *Ctx) announceAlso() {
	ev := c.Cmd.Events
	if ev.AlsoEvent == "" {
		return
	}
	keys := c.alsoKeys()
	after, err := c.DB.KeyStates(keys)
	if err != nil || len(after) != len(c.alsoBefore) {
		slog.Error("keyspace notifications: read the keys after a write", "cmd", c.Cmd.Name, "err", err)
		return
	}
	for i, k := range keys {
		if !c.alsoBefore[i].Same(after[i]) {
			c.Env.notify(c.notifyFlags, ev.AlsoClass, ev.AlsoEvent, c.write.NS, k)
		}
	}
}

// endNotes forgets what the last write recorded for its events.
func (c *Ctx) endNotes() {
	c.notifyFlags, c.before, c.alsoBefore, c.consumersBefore = 0, nil, nil, nil
}

// announcement is one write's events being published.
type announcement struct {
	c             *Ctx
	flags         config.NotifyClass
	keys, written [][]byte
	before, after []storage.KeyState
	newSent       []bool // by key index: its "new" event went out
}

// index returns the position of key among the write's keys.
func (a *announcement) index(key []byte) int {
	for i, k := range a.keys {
		if bytes.Equal(k, key) {
			return i
		}
	}
	return -1
}

// emit publishes event on the key at index i, after its "new" event when
// the write created it (or replaced it, for RENAME, COPY and RESTORE).
func (a *announcement) emit(class config.NotifyClass, event string, i int, replaced bool) {
	if i < 0 {
		return
	}
	// A key set already expired (SET ... PXAT 1) was added all the same.
	if (replaced || !a.before[i].Alive) && (a.after[i].Alive || a.after[i].Expired) && !a.newSent[i] {
		a.newSent[i] = true
		a.c.Env.notify(a.flags, config.NotifyNew, "new", a.c.write.NS, a.keys[i])
	}
	a.c.Env.notify(a.flags, class, event, a.c.write.NS, a.keys[i])
}

// emptied reports whether the write removed the key at index i.
func (a *announcement) emptied(i int) bool {
	return i >= 0 && a.before[i].Alive && !a.after[i].Alive
}

// changed reports whether the write changed the key at index i: any
// write of a command with one key does, as Redis counts it.
func (a *announcement) changed(i int) bool {
	return len(a.keys) == 1 || !a.before[i].Same(a.after[i])
}

// expireAccessed deletes the keys of a command about to run whose time has
// passed, publishing "expired" for each, and "keymiss" for the keys it
// looks up that do not exist, as Redis's lookups do before the command
// acts. It does nothing unless someone listens for those events.
func (e *Env) expireAccessed(c *Ctx, cmd *Command, args [][]byte) {
	flags := e.notifying()
	tracking := e.Sessions.Tracking.Active()
	if (flags&(config.NotifyExpired|config.NotifyKeyMiss) == 0 && !tracking) || !cmd.HasKeys() {
		return
	}
	keys := cmd.KeysOf(args)
	states, err := c.DB.KeyStates(keys)
	if err != nil {
		return
	}
	for i, k := range keys {
		if states[i].Expired && (flags&config.NotifyExpired != 0 || tracking) && !e.Repl.IsReplica() {
			e.expireKey(flags, c.Session.Namespace, k, c.joint)
		}
	}
	if flags&config.NotifyKeyMiss == 0 {
		return
	}
	for i, k := range keys {
		if !states[i].Alive && cmd.looksUp(args, keys, i) {
			e.notify(flags, config.NotifyKeyMiss, "keymiss", c.Session.Namespace, k)
		}
	}
}

// looksUp reports whether the command reads key as Redis's lookupKeyRead
// does: a read command reads all its keys, a write the keys it only reads
// (sources) and those its events say it reads (GETDEL, SET ... GET).
func (cmd *Command) looksUp(args, keys [][]byte, i int) bool {
	ev := cmd.Events
	switch {
	case cmd.Flags&Write == 0, ev != nil && ev.Reads != nil && ev.Reads(args):
		return true
	case ev != nil && ev.Dest == DestFirstKey:
		return i > 0
	case ev != nil && ev.Dest == DestLastKey:
		return i < len(keys)-1
	}
	for _, w := range cmd.writtenKeys(args, keys) {
		if bytes.Equal(w, keys[i]) {
			return false
		}
	}
	return true
}

// expireKey deletes key of namespace ns if its time has passed, under its
// lock (in joint, when a script's command finds it expired), and
// publishes "expired" when it did; it reports whether it did.
func (e *Env) expireKey(flags config.NotifyClass, ns string, key []byte, joint *storage.Joint) bool {
	deleted := false
	err := e.Storage.Update(&storage.Write{NS: ns, Keys: [][]byte{key}, Joint: joint}, func(db storage.DB) {
		var err error
		deleted, err = db.DeleteExpired(key)
		if err != nil {
			slog.Error("delete an expired key", "err", err)
		}
	})
	if err != nil || !deleted {
		return false
	}
	e.notify(flags, config.NotifyExpired, "expired", ns, key)
	e.Sessions.Tracking.Invalidate(e.Sessions, ns, [][]byte{key}, nil)
	return true
}

// Active expiry walks the keyspace in steps of expireStepKeys records
// every expireStepEvery, as Redis's active expire cycle runs hz times a
// second, deleting the keys whose time has passed.
const (
	expireStepKeys  = 1000
	expireStepEvery = 100 * time.Millisecond
)

// expireLoop is the background walk of active expiry; it stops with the
// Env.
func (e *Env) expireLoop() {
	e.sweepLoop(expireStepEvery, func(from []byte) []byte {
		flags := e.notifying()
		if flags&config.NotifyExpired != 0 || e.Sessions.Tracking.Active() {
			from = e.expireStep(flags, from)
		}
		if e.Sessions.Blocking.Count() > 0 {
			e.serveKeys(e.expireWaited(flags))
		}
		return from
	})
}

// sweepLoop calls step every period, with where the last call said the
// next starts, until the Env stops; not while active expiry is off
// (DEBUG SET-ACTIVE-EXPIRE 0) nor on a replica, which applies its
// master's deletions.
func (e *Env) sweepLoop(period time.Duration, step func(from []byte) []byte) {
	t := time.NewTicker(period)
	defer t.Stop()
	var from []byte
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
		}
		if !e.Notes.ActiveExpireOff.Load() && !e.Repl.IsReplica() {
			from = step(from)
		}
	}
}

// expireWaited deletes the keys blocked XREADGROUPs wait on whose time
// has passed, as Redis's active expiry would, and returns them: their
// waiters look at them again and learn that their stream is gone. Only
// those keys are read, so that a client waiting costs no walk of the
// keyspace; a key whose TTL a write changed since is left alone (the
// waiters' attempt after that write noted its new time).
func (e *Env) expireWaited(flags config.NotifyClass) []session.ReadyKey {
	keys := e.Sessions.Blocking.GoneKeys(time.Now().UnixMilli())
	if len(keys) == 0 {
		return nil
	}
	e.gate.RLock()
	defer e.gate.RUnlock()
	var gone []session.ReadyKey
	for _, rk := range keys {
		if e.expireKey(flags, rk.NS, []byte(rk.Key), nil) {
			gone = append(gone, rk)
		}
	}
	return gone
}

// expireStep deletes the expired keys among the records from from on, and
// returns where the next step starts. It holds the command gate shared,
// as a command does, so that DEBUG RELOAD waits for it.
func (e *Env) expireStep(flags config.NotifyClass, from []byte) []byte {
	e.gate.RLock()
	defer e.gate.RUnlock()
	keys, next, err := e.Storage.ExpiredKeys(from, expireStepKeys)
	if err != nil {
		slog.Error("active expiry: walk the keys", "err", err)
		return nil
	}
	for _, k := range keys {
		e.expireKey(flags, k.NS, k.Name, nil)
	}
	return next
}
