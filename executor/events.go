package executor

import (
	"bytes"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/storage"
)

// KeyEvents is what a write command publishes (Redis 7.0's
// notifyKeyspaceEvent calls of the command), as data its registration
// carries: the class, the event name or how the arguments choose it, and
// the shape (one of the On... functions below), which says on which keys
// the events fall and which follow ("del" on an emptied key).
type KeyEvents struct {
	Class config.NotifyClass
	Event string
	// Pick, when set, chooses the event from the arguments (LMPOP's
	// LEFT|RIGHT, ZADD's INCR).
	Pick  func(args [][]byte) string
	Shape func(a *announcement, ev *KeyEvents)
	// Expire, when set, reports whether "expire" follows the event (SET's
	// EX, PX, EXAT, PXAT).
	Expire func(args [][]byte) bool
	// Reads, when set, reports whether the command looks its written keys
	// up as a read does, which publishes "keymiss" for an absent one.
	Reads func(args [][]byte) bool
	// Consumer, when set, reports whether the consumer the command names
	// exists in the group of stream key (XREADGROUP, XCLAIM and
	// XAUTOCLAIM create it).
	Consumer func(args [][]byte, db storage.DB, key []byte) bool
	// Dest is where a command storing a result keeps it; its other keys
	// are sources.
	Dest Destination
	// AlsoEvent, when set, is published (of class AlsoClass) on each of
	// the keys the command's AlsoWrites found that the write changed: a
	// time series's rule destinations a closed bucket fed (ts.add:dest).
	AlsoEvent string
	AlsoClass config.NotifyClass
}

// Destination is which key a command stores its result in.
type Destination uint8

// The destinations of commands that store a result.
const (
	NoDest       Destination = iota
	DestFirstKey             // SINTERSTORE dst ..., BITOP op dst ...
	DestLastKey              // SORT ... STORE dst, GEORADIUS ... STORE dst
)

// name returns the event of a call.
func (ev *KeyEvents) name(args [][]byte) string {
	if ev.Pick != nil {
		return ev.Pick(args)
	}
	return ev.Event
}

// OnEach publishes the event on each key the write changed, then
// "expire" when the arguments set one.
func OnEach(a *announcement, ev *KeyEvents) {
	event := ev.name(a.c.Args)
	for i := range a.keys {
		if !a.isWritten(i) || !a.changed(i) {
			continue
		}
		a.emit(ev.Class, event, i, false)
		if ev.Expire != nil && ev.Expire(a.c.Args) {
			a.emit(config.NotifyGeneric, "expire", i, false)
		}
	}
}

// OnChosen publishes the events the handler chose (Ctx.Chosen), of the
// registration's class, then "del" when the write emptied the key: the
// hash field TTL commands, whose events depend on what each field did.
func OnChosen(a *announcement, ev *KeyEvents) {
	for _, name := range a.c.Chosen {
		a.emit(ev.Class, name, 0, false)
	}
	if a.emptied(0) {
		a.emit(config.NotifyGeneric, "del", 0, false)
	}
}

// OnAll publishes the event on every key written (MSET: a key set to the
// value it had is set all the same).
func OnAll(a *announcement, ev *KeyEvents) {
	for i := range a.keys {
		a.emit(ev.Class, ev.Event, i, false)
	}
}

// OnAllAfterExpire publishes "expire", when the arguments set one, then
// the event, on every key written, as MSETEX does.
func OnAllAfterExpire(a *announcement, ev *KeyEvents) {
	expire := ev.Expire != nil && ev.Expire(a.c.Args)
	for i := range a.keys {
		if expire {
			a.emit(config.NotifyGeneric, "expire", i, false)
		}
		a.emit(ev.Class, ev.Event, i, false)
	}
}

// OnSourceDest publishes the event with ":src" on the first key and
// ":dest" on the second (TS.CREATERULE, TS.DELETERULE).
func OnSourceDest(a *announcement, ev *KeyEvents) {
	for i, suffix := range []string{":src", ":dest"} {
		if i < len(a.keys) && a.changed(i) {
			a.emit(ev.Class, ev.Event+suffix, i, false)
		}
	}
}

// OnEachThenDel is OnEach, with "del" after the event on a key the write
// emptied (LPOP of the last element).
func OnEachThenDel(a *announcement, ev *KeyEvents) {
	event := ev.name(a.c.Args)
	for i := range a.keys {
		if !a.isWritten(i) || !a.changed(i) {
			continue
		}
		a.emit(ev.Class, event, i, false)
		if a.emptied(i) {
			a.emit(config.NotifyGeneric, "del", i, false)
		}
	}
}

// OnDeleted publishes "del" on each key the write deleted, once.
func OnDeleted(a *announcement, ev *KeyEvents) {
	for i, k := range a.keys {
		if a.emptied(i) && a.index(k) == i {
			a.emit(ev.Class, ev.Event, i, false)
		}
	}
}

// OnExpiry publishes what a change of expiry did: "del" when the time
// given had passed, "persist" when the TTL was removed, "expire" else
// (even to the time it had).
func OnExpiry(a *announcement, ev *KeyEvents) {
	switch {
	case a.emptied(0):
		a.emit(ev.Class, "del", 0, false)
	case a.before[0].Expire != 0 && a.after[0].Expire == 0:
		a.emit(ev.Class, "persist", 0, false)
	default:
		a.emit(ev.Class, "expire", 0, false)
	}
}

// OnStore publishes the event on the destination when it holds the
// result, or "del" when an empty result deleted it.
func OnStore(a *announcement, ev *KeyEvents) {
	i := 0
	if ev.Dest == DestLastKey {
		i = len(a.keys) - 1
	}
	switch {
	case a.after[i].Alive:
		a.emit(ev.Class, ev.Event, i, false)
	case a.emptied(i):
		a.emit(config.NotifyGeneric, "del", i, false)
	}
}

// OnReplace publishes the event on the destination, which Redis deletes
// and adds again, so that it is "new" even when it existed (COPY,
// RESTORE).
func OnReplace(a *announcement, ev *KeyEvents) {
	i := len(a.keys) - 1
	a.emit(ev.Class, ev.Event, i, true)
}

// OnRename publishes "rename_from" on the source and "rename_to" on the
// destination, which is "new" first.
func OnRename(a *announcement, ev *KeyEvents) {
	if len(a.keys) != 2 || a.index(a.keys[1]) == 0 {
		return // a key renamed to itself
	}
	if a.after[1].Alive {
		a.newSent[1] = true
		a.c.Env.notify(a.flags, config.NotifyNew, "new", a.c.write.NS, a.keys[1])
	}
	a.emit(ev.Class, "rename_from", 0, false)
	a.emit(ev.Class, "rename_to", 1, false)
}

// OnListMove publishes LMOVE's push on the destination, then its pop on
// the source, and "del" when that emptied it.
func OnListMove(a *announcement, ev *KeyEvents) {
	from, to := "rpop", "lpush" // RPOPLPUSH
	if len(a.c.Args) >= 5 {
		from, to = "rpop", "rpush"
		if a.c.Is(3, "left") {
			from = "lpop"
		}
		if a.c.Is(4, "left") {
			to = "lpush"
		}
	}
	dst := 1
	if a.index(a.keys[1]) == 0 {
		dst = 0 // a rotation of one list
	}
	a.emit(ev.Class, to, dst, false)
	a.emit(ev.Class, from, 0, false)
	if a.emptied(0) {
		a.emit(config.NotifyGeneric, "del", 0, false)
	}
}

// OnSetMove publishes SMOVE's "srem" on the source ("del" when emptied),
// then "sadd" on the destination when the member was not in it.
func OnSetMove(a *announcement, ev *KeyEvents) {
	if a.index(a.keys[1]) == 0 {
		return
	}
	a.emit(ev.Class, "srem", 0, false)
	if a.emptied(0) {
		a.emit(config.NotifyGeneric, "del", 0, false)
	}
	if a.changed(1) {
		a.emit(ev.Class, "sadd", 1, false)
	}
}

// OnStreamAdd publishes "xadd", then "xtrim" when MAXLEN or MINID
// removed entries.
func OnStreamAdd(a *announcement, ev *KeyEvents) {
	a.emit(ev.Class, ev.Event, 0, false)
	if a.after[0].Size < a.before[0].Size+1 {
		a.emit(ev.Class, "xtrim", 0, false)
	}
}

// OnShrunk publishes the event when the write removed elements of the
// key (XDELEX and XACKDEL: entries, not only the groups' references).
func OnShrunk(a *announcement, ev *KeyEvents) {
	if a.after[0].Size < a.before[0].Size {
		a.emit(ev.Class, ev.Event, 0, false)
	}
}

// OnNewConsumer publishes the creation of the consumer a read or claim
// named, when it did not exist.
func OnNewConsumer(a *announcement, ev *KeyEvents) {
	for i, k := range a.keys {
		if !a.c.consumersBefore[i] && ev.Consumer(a.c.Args, a.c.DB, k) {
			a.emit(ev.Class, ev.Event, i, false)
		}
	}
}

// isWritten reports whether the command writes the key at index i rather
// than only reads it (the sources of SINTERSTORE).
func (a *announcement) isWritten(i int) bool {
	for _, w := range a.written {
		if bytes.Equal(w, a.keys[i]) {
			return true
		}
	}
	return false
}
