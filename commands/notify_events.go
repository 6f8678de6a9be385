package commands

import (
	"bytes"
	"strings"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/storage"
)

// keyEvents is what a write command publishes (Redis 7.0's
// notifyKeyspaceEvent calls of the command), as data: the class, the
// event name or how the arguments choose it, and the shape, which says on
// which keys the events fall and which follow ("del" on an emptied key).
type keyEvents struct {
	class config.NotifyClass
	event string
	// pick, when set, chooses the event from the arguments (LMPOP's
	// LEFT|RIGHT, ZADD's INCR).
	pick  func(args [][]byte) string
	shape func(a *announcement, ev *keyEvents)
	// expire, when set, reports whether "expire" follows the event (SET's
	// EX, PX, EXAT, PXAT).
	expire func(args [][]byte) bool
	// reads, when set, reports whether the command looks its written keys
	// up as a read does, which publishes "keymiss" for an absent one.
	reads func(args [][]byte) bool
	// consumer, when set, reports whether the consumer the command names
	// exists in the group of stream key (XREADGROUP, XCLAIM and
	// XAUTOCLAIM create it).
	consumer func(args [][]byte, db storage.DB, key []byte) bool
	// dest is where a command storing a result keeps it; its other keys
	// are sources.
	dest destination
}

// destination is which key a command stores its result in.
type destination uint8

const (
	noDest   destination = iota
	firstKey             // SINTERSTORE dst ..., BITOP op dst ...
	lastKey              // SORT ... STORE dst, GEORADIUS ... STORE dst
)

// name returns the event of a call.
func (ev *keyEvents) name(args [][]byte) string {
	if ev.pick != nil {
		return ev.pick(args)
	}
	return ev.event
}

// keyEventsOf is the table: a write command without an entry publishes
// nothing (FLUSHALL, XACK, MOVE).
var keyEventsOf = map[string]*keyEvents{
	"set":         {class: config.NotifyString, event: "set", shape: onEach, expire: hasExpiryOption, reads: hasWord("get")},
	"setnx":       {class: config.NotifyString, event: "set", shape: onEach},
	"setex":       {class: config.NotifyString, event: "set", shape: onEach, expire: always},
	"psetex":      {class: config.NotifyString, event: "set", shape: onEach, expire: always},
	"getset":      {class: config.NotifyString, event: "set", shape: onEach, reads: always},
	"getdel":      {class: config.NotifyGeneric, event: "del", shape: onEach, reads: always},
	"getex":       {class: config.NotifyGeneric, shape: onExpiry, reads: always},
	"mset":        {class: config.NotifyString, event: "set", shape: onAll},
	"msetnx":      {class: config.NotifyString, event: "set", shape: onAll},
	"append":      {class: config.NotifyString, event: "append", shape: onEach},
	"incr":        {class: config.NotifyString, event: "incrby", shape: onEach},
	"decr":        {class: config.NotifyString, event: "incrby", shape: onEach},
	"incrby":      {class: config.NotifyString, event: "incrby", shape: onEach},
	"decrby":      {class: config.NotifyString, event: "incrby", shape: onEach},
	"incrbyfloat": {class: config.NotifyString, event: "incrbyfloat", shape: onEach},
	"setrange":    {class: config.NotifyString, event: "setrange", shape: onEach},
	"setbit":      {class: config.NotifyString, event: "setbit", shape: onEach},
	"bitfield":    {class: config.NotifyString, event: "setbit", shape: onEach},
	"bitop":       {class: config.NotifyString, event: "set", shape: onStore, dest: firstKey},
	"pfadd":       {class: config.NotifyString, event: "pfadd", shape: onEach},
	"pfmerge":     {class: config.NotifyString, event: "pfadd", shape: onStore, dest: firstKey, reads: always},
	// Kvrocks's compare-and-set and compare-and-delete, as SET and DEL.
	"cas": {class: config.NotifyString, event: "set", shape: onEach, expire: hasExpiryOption},
	"cad": {class: config.NotifyGeneric, event: "del", shape: onEach},

	"del":            {class: config.NotifyGeneric, event: "del", shape: onDeleted},
	"unlink":         {class: config.NotifyGeneric, event: "del", shape: onDeleted},
	"expire":         {class: config.NotifyGeneric, shape: onExpiry},
	"pexpire":        {class: config.NotifyGeneric, shape: onExpiry},
	"expireat":       {class: config.NotifyGeneric, shape: onExpiry},
	"pexpireat":      {class: config.NotifyGeneric, shape: onExpiry},
	"persist":        {class: config.NotifyGeneric, shape: onExpiry},
	"rename":         {class: config.NotifyGeneric, shape: onRename},
	"renamenx":       {class: config.NotifyGeneric, shape: onRename},
	"copy":           {class: config.NotifyGeneric, event: "copy_to", shape: onReplace},
	"restore":        {class: config.NotifyGeneric, event: "restore", shape: onReplace},
	"restore-asking": {class: config.NotifyGeneric, event: "restore", shape: onReplace},
	"migrate":        {class: config.NotifyGeneric, event: "del", shape: onDeleted},
	"sort":           {class: config.NotifyList, event: "sortstore", shape: onStore, dest: lastKey},

	"lpush":      {class: config.NotifyList, event: "lpush", shape: onEach},
	"lpushx":     {class: config.NotifyList, event: "lpush", shape: onEach},
	"rpush":      {class: config.NotifyList, event: "rpush", shape: onEach},
	"rpushx":     {class: config.NotifyList, event: "rpush", shape: onEach},
	"linsert":    {class: config.NotifyList, event: "linsert", shape: onEach},
	"lset":       {class: config.NotifyList, event: "lset", shape: onEach},
	"lpop":       {class: config.NotifyList, event: "lpop", shape: onEachThenDel},
	"rpop":       {class: config.NotifyList, event: "rpop", shape: onEachThenDel},
	"blpop":      {class: config.NotifyList, event: "lpop", shape: onEachThenDel},
	"brpop":      {class: config.NotifyList, event: "rpop", shape: onEachThenDel},
	"lmpop":      {class: config.NotifyList, pick: pickWord("left", "lpop", "rpop"), shape: onEachThenDel},
	"blmpop":     {class: config.NotifyList, pick: pickWord("left", "lpop", "rpop"), shape: onEachThenDel},
	"lrem":       {class: config.NotifyList, event: "lrem", shape: onEachThenDel},
	"ltrim":      {class: config.NotifyList, event: "ltrim", shape: onEachThenDel},
	"lmove":      {class: config.NotifyList, shape: onListMove},
	"blmove":     {class: config.NotifyList, shape: onListMove},
	"rpoplpush":  {class: config.NotifyList, shape: onListMove},
	"brpoplpush": {class: config.NotifyList, shape: onListMove},

	"hset":         {class: config.NotifyHash, event: "hset", shape: onEach},
	"hmset":        {class: config.NotifyHash, event: "hset", shape: onEach},
	"hsetnx":       {class: config.NotifyHash, event: "hset", shape: onEach},
	"hdel":         {class: config.NotifyHash, event: "hdel", shape: onEachThenDel},
	"hincrby":      {class: config.NotifyHash, event: "hincrby", shape: onEach},
	"hincrbyfloat": {class: config.NotifyHash, event: "hincrbyfloat", shape: onEach},

	"sadd":        {class: config.NotifySet, event: "sadd", shape: onEach},
	"srem":        {class: config.NotifySet, event: "srem", shape: onEachThenDel},
	"spop":        {class: config.NotifySet, event: "spop", shape: onEachThenDel},
	"smove":       {class: config.NotifySet, shape: onSetMove},
	"sinterstore": {class: config.NotifySet, event: "sinterstore", shape: onStore, dest: firstKey},
	"sunionstore": {class: config.NotifySet, event: "sunionstore", shape: onStore, dest: firstKey},
	"sdiffstore":  {class: config.NotifySet, event: "sdiffstore", shape: onStore, dest: firstKey},

	"zadd":             {class: config.NotifyZset, pick: pickWord("incr", "zincr", "zadd"), shape: onEach},
	"zincrby":          {class: config.NotifyZset, event: "zincr", shape: onEach},
	"zrem":             {class: config.NotifyZset, event: "zrem", shape: onEachThenDel},
	"zremrangebyscore": {class: config.NotifyZset, event: "zremrangebyscore", shape: onEachThenDel},
	"zremrangebyrank":  {class: config.NotifyZset, event: "zremrangebyrank", shape: onEachThenDel},
	"zremrangebylex":   {class: config.NotifyZset, event: "zremrangebylex", shape: onEachThenDel},
	"zpopmin":          {class: config.NotifyZset, event: "zpopmin", shape: onEachThenDel},
	"zpopmax":          {class: config.NotifyZset, event: "zpopmax", shape: onEachThenDel},
	"bzpopmin":         {class: config.NotifyZset, event: "zpopmin", shape: onEachThenDel},
	"bzpopmax":         {class: config.NotifyZset, event: "zpopmax", shape: onEachThenDel},
	"zmpop":            {class: config.NotifyZset, pick: pickWord("min", "zpopmin", "zpopmax"), shape: onEachThenDel},
	"bzmpop":           {class: config.NotifyZset, pick: pickWord("min", "zpopmin", "zpopmax"), shape: onEachThenDel},
	"zunionstore":      {class: config.NotifyZset, event: "zunionstore", shape: onStore, dest: firstKey},
	"zinterstore":      {class: config.NotifyZset, event: "zinterstore", shape: onStore, dest: firstKey},
	"zdiffstore":       {class: config.NotifyZset, event: "zdiffstore", shape: onStore, dest: firstKey},
	"zrangestore":      {class: config.NotifyZset, event: "zrangestore", shape: onStore, dest: firstKey},
	// GEOADD is a ZADD in Redis, and publishes as one.
	"geoadd":            {class: config.NotifyZset, event: "zadd", shape: onEach},
	"georadius":         {class: config.NotifyZset, event: "georadiusstore", shape: onStore, dest: lastKey},
	"georadiusbymember": {class: config.NotifyZset, event: "georadiusstore", shape: onStore, dest: lastKey},
	"geosearchstore":    {class: config.NotifyZset, event: "geosearchstore", shape: onStore, dest: firstKey},

	"xadd":       {class: config.NotifyStream, event: "xadd", shape: onStreamAdd},
	"xdel":       {class: config.NotifyStream, event: "xdel", shape: onEach},
	"xtrim":      {class: config.NotifyStream, event: "xtrim", shape: onEach},
	"xsetid":     {class: config.NotifyStream, event: "xsetid", shape: onEach},
	"xgroup":     {class: config.NotifyStream, pick: xgroupEvent, shape: onEach},
	"xreadgroup": {class: config.NotifyStream, event: "xgroup-createconsumer", shape: onNewConsumer, consumer: consumerExists(2, 3)},
	"xclaim":     {class: config.NotifyStream, event: "xgroup-createconsumer", shape: onNewConsumer, consumer: consumerExists(2, 3)},
	"xautoclaim": {class: config.NotifyStream, event: "xgroup-createconsumer", shape: onNewConsumer, consumer: consumerExists(2, 3)},
}

// onEach publishes the event on each key the write changed, then
// "expire" when the arguments set one.
func onEach(a *announcement, ev *keyEvents) {
	event := ev.name(a.c.Args)
	for i := range a.keys {
		if !a.isWritten(i) || !a.changed(i) {
			continue
		}
		a.emit(ev.class, event, i, false)
		if ev.expire != nil && ev.expire(a.c.Args) {
			a.emit(config.NotifyGeneric, "expire", i, false)
		}
	}
}

// onAll publishes the event on every key written (MSET: a key set to the
// value it had is set all the same).
func onAll(a *announcement, ev *keyEvents) {
	for i := range a.keys {
		a.emit(ev.class, ev.event, i, false)
	}
}

// onEachThenDel is onEach, with "del" after the event on a key the write
// emptied (LPOP of the last element).
func onEachThenDel(a *announcement, ev *keyEvents) {
	event := ev.name(a.c.Args)
	for i := range a.keys {
		if !a.isWritten(i) || !a.changed(i) {
			continue
		}
		a.emit(ev.class, event, i, false)
		if a.emptied(i) {
			a.emit(config.NotifyGeneric, "del", i, false)
		}
	}
}

// onDeleted publishes "del" on each key the write deleted, once.
func onDeleted(a *announcement, ev *keyEvents) {
	for i, k := range a.keys {
		if a.emptied(i) && a.index(k) == i {
			a.emit(ev.class, ev.event, i, false)
		}
	}
}

// onExpiry publishes what a change of expiry did: "del" when the time
// given had passed, "persist" when the TTL was removed, "expire" else
// (even to the time it had).
func onExpiry(a *announcement, ev *keyEvents) {
	switch {
	case a.emptied(0):
		a.emit(ev.class, "del", 0, false)
	case a.before[0].Expire != 0 && a.after[0].Expire == 0:
		a.emit(ev.class, "persist", 0, false)
	default:
		a.emit(ev.class, "expire", 0, false)
	}
}

// onStore publishes the event on the destination when it holds the
// result, or "del" when an empty result deleted it.
func onStore(a *announcement, ev *keyEvents) {
	i := 0
	if ev.dest == lastKey {
		i = len(a.keys) - 1
	}
	switch {
	case a.after[i].Alive:
		a.emit(ev.class, ev.event, i, false)
	case a.emptied(i):
		a.emit(config.NotifyGeneric, "del", i, false)
	}
}

// onReplace publishes the event on the destination, which Redis deletes
// and adds again, so that it is "new" even when it existed (COPY,
// RESTORE).
func onReplace(a *announcement, ev *keyEvents) {
	i := len(a.keys) - 1
	a.emit(ev.class, ev.event, i, true)
}

// onRename publishes "rename_from" on the source and "rename_to" on the
// destination, which is "new" first.
func onRename(a *announcement, ev *keyEvents) {
	if len(a.keys) != 2 || a.index(a.keys[1]) == 0 {
		return // a key renamed to itself
	}
	if a.after[1].Alive {
		a.newSent[1] = true
		a.c.Env.notify(a.flags, config.NotifyNew, "new", a.c.write.NS, a.keys[1])
	}
	a.emit(ev.class, "rename_from", 0, false)
	a.emit(ev.class, "rename_to", 1, false)
}

// onListMove publishes LMOVE's push on the destination, then its pop on
// the source, and "del" when that emptied it.
func onListMove(a *announcement, ev *keyEvents) {
	from, to := "rpop", "lpush" // RPOPLPUSH
	if len(a.c.Args) >= 5 {
		from, to = "rpop", "rpush"
		if a.c.is(3, "left") {
			from = "lpop"
		}
		if a.c.is(4, "left") {
			to = "lpush"
		}
	}
	dst := 1
	if a.index(a.keys[1]) == 0 {
		dst = 0 // a rotation of one list
	}
	a.emit(ev.class, to, dst, false)
	a.emit(ev.class, from, 0, false)
	if a.emptied(0) {
		a.emit(config.NotifyGeneric, "del", 0, false)
	}
}

// onSetMove publishes SMOVE's "srem" on the source ("del" when emptied),
// then "sadd" on the destination when the member was not in it.
func onSetMove(a *announcement, ev *keyEvents) {
	if a.index(a.keys[1]) == 0 {
		return
	}
	a.emit(ev.class, "srem", 0, false)
	if a.emptied(0) {
		a.emit(config.NotifyGeneric, "del", 0, false)
	}
	if a.changed(1) {
		a.emit(ev.class, "sadd", 1, false)
	}
}

// onStreamAdd publishes "xadd", then "xtrim" when MAXLEN or MINID
// removed entries.
func onStreamAdd(a *announcement, ev *keyEvents) {
	a.emit(ev.class, ev.event, 0, false)
	if a.after[0].Size < a.before[0].Size+1 {
		a.emit(ev.class, "xtrim", 0, false)
	}
}

// onNewConsumer publishes the creation of the consumer a read or claim
// named, when it did not exist.
func onNewConsumer(a *announcement, ev *keyEvents) {
	for i, k := range a.keys {
		if !a.c.consumersBefore[i] && ev.consumer(a.c.Args, a.c.DB, k) {
			a.emit(ev.class, ev.event, i, false)
		}
	}
}

// consumerExists reads the group and the consumer at arguments group and
// consumer.
func consumerExists(group, consumer int) func(args [][]byte, db storage.DB, key []byte) bool {
	return func(args [][]byte, db storage.DB, key []byte) bool {
		found, _ := db.StreamConsumerExists(key, args[group], args[consumer])
		return found
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

func always([][]byte) bool { return true }

// hasWord returns whether a word is among the options (from the third
// argument on).
func hasWord(word string) func(args [][]byte) bool {
	return func(args [][]byte) bool {
		for _, a := range args[min(len(args), 3):] {
			if strings.EqualFold(string(a), word) {
				return true
			}
		}
		return false
	}
}

// hasExpiryOption reports whether SET's options set an expiry.
func hasExpiryOption(args [][]byte) bool {
	for _, w := range []string{"ex", "px", "exat", "pxat"} {
		if hasWord(w)(args) {
			return true
		}
	}
	return false
}

// pickWord returns the event yes when word is among the arguments, else no.
func pickWord(word, yes, no string) func(args [][]byte) string {
	return func(args [][]byte) string {
		for _, a := range args[1:] {
			if strings.EqualFold(string(a), word) {
				return yes
			}
		}
		return no
	}
}

// xgroupEvent names XGROUP's event by its subcommand.
func xgroupEvent(args [][]byte) string {
	return "xgroup-" + strings.ToLower(string(args[1]))
}
