package executor

import (
	"time"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
)

// The keyspace events of a batch no command of this node made (a
// replica's batch of its master's, an imported slot's), as a Redis
// replica publishes them while it runs its master's commands. What the
// batch says of a command is its LogData record (the type it wrote and,
// for lists and expiry, the command) and its records (elements put or
// deleted, the metadata record written), so the event is the type's
// plain write: "set" for a string (where Redis says "incrby", "append",
// ...), "hset" or "hdel" for a hash by whether fields were put, "sadd" or
// "srem", "zadd" or "zrem", "xadd" or "xdel", "pfadd", "setbit", "json.set"
// (in the module class) for a JSON document written, "bf.add" (of class d:
// a Bloom filter's; BF.RESERVE's too), "tdigest.add" (class d: any write
// to a t-digest, a query's merge of its buffer too), the list
// command's own event, "expire" or "persist" for an expiry change, and
// "del" for a key removed. Records no command's LogData precedes (an
// import's) publish "restore", as the RESTORE a Redis migration sends.
// "new" comes first for a key that did not exist, "expire" after the
// event of a write that gave the key another time to live, "del" after
// the event of one that emptied it.

// keyEvent is an event and its class.
type keyEvent struct {
	class config.NotifyClass
	name  string
}

var (
	restored = keyEvent{config.NotifyGeneric, "restore"}
	expired  = keyEvent{config.NotifyGeneric, "expire"}
	deleted  = keyEvent{config.NotifyGeneric, "del"}
)

// listEvents are the events of Kvrocks's list commands.
var listEvents = map[storage.LogCommand]string{
	storage.LogLSet: "lset", storage.LogLInsert: "linsert", storage.LogLTrim: "ltrim",
	storage.LogLPop: "lpop", storage.LogRPop: "rpop", storage.LogLRem: "lrem",
	storage.LogLPush: "lpush", storage.LogRPush: "rpush",
}

// announceChanges publishes the events of the changes of a batch, in
// order, except that an LMOVE's push on its destination comes before its
// pop on the source, which the batch writes first, as Redis publishes
// them.
func (e *Env) announceChanges(flags config.NotifyClass, changes []storage.KeyChange) {
	now := time.Now().UnixMilli()
	for i := 0; i < len(changes); i++ {
		if i+1 < len(changes) && movedInto(&changes[i], &changes[i+1]) {
			e.announceChange(flags, &changes[i+1], now)
			e.announceChange(flags, &changes[i], now)
			i++
			continue
		}
		e.announceChange(flags, &changes[i], now)
	}
}

// movedInto reports whether src and dst are the source and the
// destination of one LMOVE.
func movedInto(src, dst *storage.KeyChange) bool {
	return src.Cmd.Cmd == storage.LogLMove && src.Command == dst.Command &&
		src.Removed && !src.Added && dst.Added && !dst.Removed
}

// announceChange publishes the events of one command of a batch on one
// key, whose states before and after are known.
func (e *Env) announceChange(flags config.NotifyClass, k *storage.KeyChange, now int64) {
	before, after := k.Before, k.After(now)
	if k.Cmd.Cmd == storage.LogExpire && after.Expire != 0 && after.Expire <= now {
		// A time not in the future deletes the key, as Redis's EXPIRE
		// does; a Kvrocks master writes it, and the key is gone a
		// millisecond later.
		after.Alive = false
	}
	if !before.Alive && (after.Alive || after.Expired) {
		e.notify(flags, config.NotifyNew, "new", k.NS, k.Key)
	}
	var events []keyEvent
	if after.Alive || after.Expired || k.Removed {
		// A key a write removed without taking elements from it was
		// deleted or moved (RENAME's source): only "del" follows.
		events = typeEvents(k, after)
	}
	if k.Cmd.Logged && k.Cmd.Cmd != storage.LogExpire && after.Alive && after.Expire != 0 && after.Expire != before.Expire {
		events = append(events, expired)
	}
	if before.Alive && !after.Alive {
		events = append(events, deleted)
	}
	for _, ev := range events {
		e.notify(flags, ev.class, ev.name, k.NS, k.Key)
	}
}

// typeEvents returns the events of the write itself, by the type and
// command its LogData names.
func typeEvents(k *storage.KeyChange, after storage.KeyState) []keyEvent {
	c := k.Cmd
	shrank := k.Removed && !k.Added
	switch {
	case !c.Logged:
	case c.Type == metadata.TypeNone:
		return expiryEvents(c, after)
	case c.Type == metadata.TypeString:
		return []keyEvent{{config.NotifyString, "set"}}
	case c.Type == metadata.TypeHash:
		return []keyEvent{{config.NotifyHash, pick(shrank, "hdel", "hset")}}
	case c.Type == metadata.TypeList:
		if events, ok := listCommandEvents(k); ok {
			return events
		}
	case c.Type == metadata.TypeSet:
		return []keyEvent{{config.NotifySet, pick(shrank, "srem", "sadd")}}
	case c.Type == metadata.TypeZSet:
		return []keyEvent{{config.NotifyZset, pick(shrank, "zrem", "zadd")}}
	case c.Type == metadata.TypeBitmap:
		return []keyEvent{{config.NotifyString, pick(c.Cmd == storage.LogBitOp, "set", "setbit")}}
	case c.Type == metadata.TypeHyperLogLog:
		return []keyEvent{{config.NotifyString, "pfadd"}}
	case c.Type == metadata.TypeSortedint: // as SIADD and SIREM publish them
		return []keyEvent{{config.NotifyModule, pick(shrank, "sirem", "siadd")}}
	case c.Type == metadata.TypeJSON:
		return []keyEvent{{config.NotifyModule, "json.set"}}
	case c.Type == metadata.TypeStream:
		return streamEvents(k)
	case c.Type == metadata.TypeBloom:
		return []keyEvent{{config.NotifyModule, "bf.add"}}
	case c.Type == metadata.TypeTDigest:
		return []keyEvent{{config.NotifyModule, "tdigest.add"}}
	case c.Type == metadata.TypeTimeSeries:
		return []keyEvent{{config.NotifyModule, "ts.add"}}
	}
	if after.Alive {
		return []keyEvent{restored}
	}
	return nil
}

// expiryEvents are the events of a write of no type: a change of expiry
// ("del" follows when it removed the key), or a deletion, which
// announceChange reports.
func expiryEvents(c storage.LoggedCommand, after storage.KeyState) []keyEvent {
	if c.Cmd != storage.LogExpire || !after.Alive {
		return nil
	}
	return []keyEvent{{config.NotifyGeneric, pick(after.Expire == 0, "persist", "expire")}}
}

// listCommandEvents returns the event of the list command k's LogData
// names; LMOVE's push on its destination and pop on its source are told
// apart by the elements each gained or lost.
func listCommandEvents(k *storage.KeyChange) ([]keyEvent, bool) {
	c := k.Cmd
	if name, ok := listEvents[c.Cmd]; ok {
		return []keyEvent{{config.NotifyList, name}}, true
	}
	srcLeft, dstLeft, ok := c.MoveSides()
	if !ok {
		return nil, false
	}
	var events []keyEvent
	if k.Added {
		events = append(events, keyEvent{config.NotifyList, pick(dstLeft, "lpush", "rpush")})
	}
	if k.Removed {
		events = append(events, keyEvent{config.NotifyList, pick(srcLeft, "lpop", "rpop")})
	}
	return events, true
}

// streamEvents: entries added ("xtrim" follows when others were
// removed), or removed; a change of consumer groups publishes nothing.
func streamEvents(k *storage.KeyChange) []keyEvent {
	switch {
	case k.Added && k.Removed:
		return []keyEvent{{config.NotifyStream, "xadd"}, {config.NotifyStream, "xtrim"}}
	case k.Added:
		return []keyEvent{{config.NotifyStream, "xadd"}}
	case k.Removed:
		return []keyEvent{{config.NotifyStream, "xdel"}}
	}
	return nil
}

// pick returns yes when cond holds, else no.
func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}
