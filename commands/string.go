package commands

import (
	"math"
	"time"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/storage"
)

func init() {
	executor.Register(
		&executor.Command{Name: "get", Arity: 2, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdGet},
		&executor.Command{Name: "set", Arity: -3, Flags: executor.Write, FirstKey: 1, LastKey: 1, Handler: cmdSet, KeyFlags: setKeyFlags,
			Events:  &executor.KeyEvents{Class: config.NotifyString, Event: "set", Shape: executor.OnEach, Expire: setOption("ex", "px", "exat", "pxat"), Reads: setOption("get")},
			DocArgs: setDocArgs},
		&executor.Command{Name: "setnx", Arity: 3, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdSetNX,
			Events: &executor.KeyEvents{Class: config.NotifyString, Event: "set", Shape: executor.OnEach}},
		&executor.Command{Name: "setex", Arity: 4, Flags: executor.Write, FirstKey: 1, LastKey: 1, Handler: cmdSetEX,
			Events: &executor.KeyEvents{Class: config.NotifyString, Event: "set", Shape: executor.OnEach, Expire: always}},
		&executor.Command{Name: "psetex", Arity: 4, Flags: executor.Write, FirstKey: 1, LastKey: 1, Handler: cmdPSetEX,
			Events: &executor.KeyEvents{Class: config.NotifyString, Event: "set", Shape: executor.OnEach, Expire: always}},
		&executor.Command{Name: "getset", Arity: 3, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdGetSet,
			Events: &executor.KeyEvents{Class: config.NotifyString, Event: "set", Shape: executor.OnEach, Reads: always}},
		&executor.Command{Name: "getdel", Arity: 2, Flags: executor.Write | executor.Fast | executor.NoDBSizeCheck, FirstKey: 1, LastKey: 1, Handler: cmdGetDel,
			Events: &executor.KeyEvents{Class: config.NotifyGeneric, Event: "del", Shape: executor.OnEach, Reads: always}},
		&executor.Command{Name: "getex", Arity: -2, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdGetEx,
			Events: &executor.KeyEvents{Class: config.NotifyGeneric, Shape: executor.OnExpiry, Reads: always}},
		&executor.Command{Name: "mget", Arity: -2, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: -1, Handler: cmdMGet},
		&executor.Command{Name: "mset", Arity: -3, Flags: executor.Write, FirstKey: 1, LastKey: -1, Step: 2, Handler: cmdMSet,
			Events: &executor.KeyEvents{Class: config.NotifyString, Event: "set", Shape: executor.OnAll}},
		&executor.Command{Name: "msetnx", Arity: -3, Flags: executor.Write, FirstKey: 1, LastKey: -1, Step: 2, Handler: cmdMSetNX,
			Events: &executor.KeyEvents{Class: config.NotifyString, Event: "set", Shape: executor.OnAll}},
		&executor.Command{Name: "append", Arity: 3, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdAppend,
			Events: &executor.KeyEvents{Class: config.NotifyString, Event: "append", Shape: executor.OnEach}},
		&executor.Command{Name: "strlen", Arity: 2, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdStrlen},
		&executor.Command{Name: "incr", Arity: 2, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdIncr,
			Events: &executor.KeyEvents{Class: config.NotifyString, Event: "incrby", Shape: executor.OnEach}},
		&executor.Command{Name: "decr", Arity: 2, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdDecr,
			Events: &executor.KeyEvents{Class: config.NotifyString, Event: "incrby", Shape: executor.OnEach}},
		&executor.Command{Name: "incrby", Arity: 3, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdIncrBy,
			Events: &executor.KeyEvents{Class: config.NotifyString, Event: "incrby", Shape: executor.OnEach}},
		&executor.Command{Name: "decrby", Arity: 3, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdDecrBy,
			Events: &executor.KeyEvents{Class: config.NotifyString, Event: "incrby", Shape: executor.OnEach}},
		&executor.Command{Name: "incrbyfloat", Arity: 3, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdIncrByFloat,
			Events: &executor.KeyEvents{Class: config.NotifyString, Event: "incrbyfloat", Shape: executor.OnEach}},
		&executor.Command{Name: "getrange", Arity: 4, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdGetRange},
		&executor.Command{Name: "substr", Arity: 4, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdGetRange},
		&executor.Command{Name: "setrange", Arity: 4, Flags: executor.Write, FirstKey: 1, LastKey: 1, Handler: cmdSetRange,
			Events: &executor.KeyEvents{Class: config.NotifyString, Event: "setrange", Shape: executor.OnEach}},
		&executor.Command{Name: "lcs", Arity: -3, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 2, Handler: cmdLCS},
		// Kvrocks's compare-and-set and compare-and-delete, as SET and DEL.
		&executor.Command{Name: "cas", Arity: -4, Flags: executor.Write | executor.KvrocksOnly, FirstKey: 1, LastKey: 1, Handler: cmdCAS,
			Events: &executor.KeyEvents{Class: config.NotifyString, Event: "set", Shape: executor.OnEach, Expire: casHasExpiry},
			Meta: &executor.Meta{
				KeySpecs: []executor.KeySpec{{Flags: []string{"RW", "update"}, BeginSearch: "index", Index: 1,
					FindKeys: "range", LastKey: 0, KeyStep: 1}},
				Doc: doc("summary", "Sets a string key to a new value if it holds the old one (1), or replies 0 (another value) or -1 (no key)",
					"group", "string", "complexity", "O(1)",
					"arguments", docArgs(docKey("key", 0), docString("old_value"), docString("new_value"),
						optional(append(doc("name", "expiration", "type", "oneof"), "$arguments", docArgs(
							doc("name", "seconds", "type", "integer", "token", "EX"),
							doc("name", "milliseconds", "type", "integer", "token", "PX"),
							doc("name", "unix-time-seconds", "type", "unix-time", "token", "EXAT"),
							doc("name", "unix-time-milliseconds", "type", "unix-time", "token", "PXAT")))))),
			}},
		&executor.Command{Name: "cad", Arity: 3, Flags: executor.Write | executor.KvrocksOnly, FirstKey: 1, LastKey: 1, Handler: cmdCAD,
			Events: &executor.KeyEvents{Class: config.NotifyGeneric, Event: "del", Shape: executor.OnEach},
			Meta: &executor.Meta{
				KeySpecs: []executor.KeySpec{{Flags: []string{"RW", "delete"}, BeginSearch: "index", Index: 1,
					FindKeys: "range", LastKey: 0, KeyStep: 1}},
				Doc: doc("summary", "Deletes a string key if it holds the given value (1), or replies 0 (another value) or -1 (no key)",
					"group", "string", "complexity", "O(1)",
					"arguments", docArgs(docKey("key", 0), docString("value"))),
			}},
	)
}

// GET key
func cmdGet(c *executor.Ctx) {
	v, found, err := c.DB.Get(c.Args[1])
	if c.OK(err) {
		c.Env.Stats.Hit(found)
		c.BulkOrNull(v, found)
	}
}

// setKeyFlags are SET's key flags: GET reads the old value.
func setKeyFlags(args [][]byte) []string {
	if setOption("get")(args) {
		return []string{"RW", "access", "update"}
	}
	return []string{"OW", "update"}
}

// expireUnit says how an expiry argument is read.
type expireUnit struct {
	ms       int64 // 1000 for seconds, 1 for milliseconds
	absolute bool  // a Unix time rather than a duration
}

var (
	unitEX   = expireUnit{ms: 1000}
	unitPX   = expireUnit{ms: 1}
	unitEXAT = expireUnit{ms: 1000, absolute: true}
	unitPXAT = expireUnit{ms: 1, absolute: true}
)

// expireArg parses argument i as an expiry for SET-like commands and
// returns it as an absolute time in ms. Like Redis, it refuses zero,
// negative values and overflow with "invalid expire time".
func expireArg(c *executor.Ctx, i int, u expireUnit) (int64, bool) {
	n, ok := c.Int(i)
	if !ok {
		return 0, false
	}
	at, fits := u.absoluteMs(n)
	if n <= 0 || !fits {
		invalidExpire(c)
		return 0, false
	}
	return at, true
}

// absoluteMs turns a positive expiry argument into an absolute time in ms;
// fits is false when that overflows.
func (u expireUnit) absoluteMs(n int64) (at int64, fits bool) {
	if n > math.MaxInt64/u.ms {
		return 0, false
	}
	n *= u.ms
	if !u.absolute {
		now := time.Now().UnixMilli()
		if n > math.MaxInt64-now {
			return 0, false
		}
		n += now
	}
	return n, true
}

func invalidExpire(c *executor.Ctx) {
	c.ErrorString("ERR invalid expire time in '" + c.Cmd.Name + "' command")
}

// expiryOption recognises EX, PX, EXAT and PXAT at argument i.
func expiryOption(c *executor.Ctx, i int) (expireUnit, bool) {
	switch {
	case c.Is(i, "ex"):
		return unitEX, true
	case c.Is(i, "px"):
		return unitPX, true
	case c.Is(i, "exat"):
		return unitEXAT, true
	case c.Is(i, "pxat"):
		return unitPXAT, true
	}
	return expireUnit{}, false
}

// pendingExpiry remembers the EX, PX, EXAT or PXAT option of SET or GETEX
// while the other options are parsed: Redis checks the syntax of every
// option before it reads the expiry value.
type pendingExpiry struct {
	unit expireUnit
	idx  int // argument index of the value; 0 when no option was given
}

// accept takes an expiry option at argument i if it may stand there:
// another expiry option excludes it, the same one repeated does not (the
// last wins, as in Redis).
func (p *pendingExpiry) accept(c *executor.Ctx, i int) bool {
	u, ok := expiryOption(c, i)
	if !ok || (p.idx != 0 && p.unit != u) || i+1 >= len(c.Args) {
		return false
	}
	p.unit, p.idx = u, i+1
	return true
}

// resolve reads the expiry value as an absolute time in ms, replying the
// error when it is invalid.
func (p *pendingExpiry) resolve(c *executor.Ctx) (int64, bool) { return expireArg(c, p.idx, p.unit) }

// SET key value [NX | XX | IFEQ ifeq-value | IFNE ifne-value | IFDEQ ifdeq-digest | IFDNE ifdne-digest] [GET] [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]
//
// As Redis 8.4's parser: a condition excludes NX, XX and another
// condition before it, while NX or XX after a condition is taken and
// applies too.
func cmdSet(c *executor.Ctx) {
	var a storage.SetArgs
	var exp pendingExpiry
	for i := 3; i < len(c.Args); i++ {
		switch {
		case c.Is(i, "nx") && !a.XX:
			a.NX = true
		case c.Is(i, "xx") && !a.NX:
			a.XX = true
		case a.Cond.Kind == storage.CondNone && !a.NX && !a.XX && conditionAt(c, i) != storage.CondNone && i+1 < len(c.Args):
			a.Cond = storage.Condition{Kind: conditionAt(c, i), Value: c.Args[i+1]}
			i++
		case c.Is(i, "get"):
			a.Get = true
		case c.Is(i, "keepttl") && exp.idx == 0:
			a.KeepTTL = true
		case !a.KeepTTL && exp.accept(c, i):
			i++
		default:
			c.ErrorString(executor.ErrSyntax)
			return
		}
	}
	if exp.idx != 0 {
		at, ok := exp.resolve(c)
		if !ok {
			return
		}
		a.Expire = at
	}
	res, err := c.DB.Set(c.Args[1], c.Args[2], a)
	if !c.OK(err) {
		return
	}
	switch {
	case a.Get:
		c.BulkOrNull(res.Old, res.OldFound)
	case res.Written:
		c.W.OK()
	default:
		c.W.Null()
	}
}

// SETNX key value
func cmdSetNX(c *executor.Ctx) {
	res, err := c.DB.Set(c.Args[1], c.Args[2], storage.SetArgs{NX: true})
	if c.OK(err) {
		c.IntBool(res.Written)
	}
}

// SETEX key seconds value
func cmdSetEX(c *executor.Ctx) { setWithExpiry(c, unitEX) }

// PSETEX key milliseconds value
func cmdPSetEX(c *executor.Ctx) { setWithExpiry(c, unitPX) }

func setWithExpiry(c *executor.Ctx, u expireUnit) {
	at, ok := expireArg(c, 2, u)
	if !ok {
		return
	}
	if _, err := c.DB.Set(c.Args[1], c.Args[3], storage.SetArgs{Expire: at}); c.OK(err) {
		c.W.OK()
	}
}

// GETSET key value
func cmdGetSet(c *executor.Ctx) {
	res, err := c.DB.Set(c.Args[1], c.Args[2], storage.SetArgs{Get: true})
	if c.OK(err) {
		c.BulkOrNull(res.Old, res.OldFound)
	}
}

// GETDEL key
func cmdGetDel(c *executor.Ctx) {
	v, found, err := c.DB.GetDel(c.Args[1])
	if c.OK(err) {
		c.BulkOrNull(v, found)
	}
}

// GETEX key [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | PERSIST]
func cmdGetEx(c *executor.Ctx) {
	var change storage.ExpireChange
	var exp pendingExpiry
	for i := 2; i < len(c.Args); i++ {
		switch {
		case c.Is(i, "persist") && exp.idx == 0:
			change.Persist = true
		case !change.Persist && exp.accept(c, i):
			i++
		default:
			c.ErrorString(executor.ErrSyntax)
			return
		}
	}
	if exp.idx != 0 {
		// Redis answers for a missing or mistyped key before it looks at
		// the expiry value.
		_, found, err := c.DB.Get(c.Args[1])
		if !c.OK(err) {
			return
		}
		if !found {
			c.W.Null()
			return
		}
		at, ok := exp.resolve(c)
		if !ok {
			return
		}
		change.Set, change.At = true, at
	}
	v, found, err := c.DB.GetEx(c.Args[1], change)
	if c.OK(err) {
		c.BulkOrNull(v, found)
	}
}

// MGET key [key ...]
func cmdMGet(c *executor.Ctx) {
	values, err := c.DB.MGet(c.Args[1:])
	if !c.OK(err) {
		return
	}
	c.W.Array(len(values))
	for _, v := range values {
		c.Env.Stats.Hit(v != nil)
		c.BulkOrNull(v, v != nil)
	}
}

// MSET key value [key value ...]
func cmdMSet(c *executor.Ctx) {
	if len(c.Args)%2 == 0 {
		c.ErrorString("ERR wrong number of arguments for 'mset' command")
		return
	}
	if _, err := c.DB.MSet(c.Args[1:], false); c.OK(err) {
		c.W.OK()
	}
}

// MSETNX key value [key value ...]
func cmdMSetNX(c *executor.Ctx) {
	if len(c.Args)%2 == 0 {
		c.ErrorString("ERR wrong number of arguments for 'msetnx' command")
		return
	}
	written, err := c.DB.MSet(c.Args[1:], true)
	if c.OK(err) {
		c.IntBool(written)
	}
}

// APPEND key value
func cmdAppend(c *executor.Ctx) {
	n, err := c.DB.Append(c.Args[1], c.Args[2], c.Env.Config.ProtoMaxBulkLen.Get())
	if c.OK(err) {
		c.W.Int(n)
	}
}

// STRLEN key
func cmdStrlen(c *executor.Ctx) {
	n, err := c.DB.StrLen(c.Args[1])
	if c.OK(err) {
		c.W.Int(n)
	}
}

// INCR key
func cmdIncr(c *executor.Ctx) { incrBy(c, 1) }

// DECR key
func cmdDecr(c *executor.Ctx) { incrBy(c, -1) }

// INCRBY key increment
func cmdIncrBy(c *executor.Ctx) {
	if n, ok := c.Int(2); ok {
		incrBy(c, n)
	}
}

// DECRBY key decrement
func cmdDecrBy(c *executor.Ctx) {
	n, ok := c.Int(2)
	if !ok {
		return
	}
	if n == math.MinInt64 {
		c.ErrorString("ERR decrement would overflow")
		return
	}
	incrBy(c, -n)
}

func incrBy(c *executor.Ctx, delta int64) {
	n, err := c.DB.IncrBy(c.Args[1], delta)
	if c.OK(err) {
		c.W.Int(n)
	}
}

// INCRBYFLOAT key increment
func cmdIncrByFloat(c *executor.Ctx) {
	v, err := c.DB.IncrByFloat(c.Args[1], c.Args[2])
	if c.OK(err) {
		c.W.Bulk(v)
	}
}

// GETRANGE key start end
func cmdGetRange(c *executor.Ctx) {
	start, ok := c.Int(2)
	if !ok {
		return
	}
	end, ok := c.Int(3)
	if !ok {
		return
	}
	v, _, err := c.DB.Get(c.Args[1])
	if !c.OK(err) {
		return
	}
	n := int64(len(v))
	if start < 0 && end < 0 && start > end {
		c.W.Bulk(nil)
		return
	}
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	start, end = max(start, 0), max(end, 0)
	if end >= n {
		end = n - 1
	}
	if start > end || n == 0 {
		c.W.Bulk(nil)
		return
	}
	c.W.Bulk(v[start : end+1])
}

// SETRANGE key offset value
func cmdSetRange(c *executor.Ctx) {
	offset, ok := c.Int(2)
	if !ok {
		return
	}
	if offset < 0 {
		c.ErrorString("ERR offset is out of range")
		return
	}
	n, err := c.DB.SetRange(c.Args[1], offset, c.Args[3], c.Env.Config.ProtoMaxBulkLen.Get())
	if c.OK(err) {
		c.W.Int(n)
	}
}

// CAS key old new [EX seconds|PX ms|EXAT unix-seconds|PXAT unix-ms], as
// Kvrocks: 1 set, 0 the key holds another value, -1 no such key. An option
// given twice counts once, the last; two different ones are a syntax error.
func cmdCAS(c *executor.Ctx) {
	var expire int64
	var unit *expireUnit
	for i := 4; i < len(c.Args); i += 2 {
		u, known := expiryOption(c, i)
		if !known || (unit != nil && *unit != u) {
			c.ErrorString(executor.ErrSyntax)
			return
		}
		if i+1 == len(c.Args) {
			c.ErrorString("ERR no more item to parse")
			return
		}
		n, msg := kvrocksInt(string(c.Args[i+1]), 1, math.MaxInt64)
		if msg != "" {
			c.ErrorString("ERR " + msg)
			return
		}
		// Kvrocks lets an overflowing expiry wrap, and the key expires at
		// once; Basalt refuses it with Kvrocks's range error.
		var fits bool
		if expire, fits = u.absoluteMs(n); !fits {
			c.ErrorString("ERR out of numeric range")
			return
		}
		unit = &u
	}
	n, err := c.DB.CompareAndSwap(c.Args[1], c.Args[2], c.Args[3], expire)
	if c.KvrocksOK(err) {
		c.W.Int(n)
	}
}

// CAD key value, as Kvrocks: 1 deleted, 0 the key holds another value, -1
// no such key.
func cmdCAD(c *executor.Ctx) {
	n, err := c.DB.CompareAndDelete(c.Args[1], c.Args[2])
	if c.KvrocksOK(err) {
		c.W.Int(n)
	}
}
