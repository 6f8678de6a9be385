package commands

import (
	"math"
	"time"

	"github.com/basaltdb/basalt/storage"
)

func init() {
	register(
		&Command{Name: "get", Arity: 2, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Handler: cmdGet},
		&Command{Name: "set", Arity: -3, Flags: Write, FirstKey: 1, LastKey: 1, Handler: cmdSet},
		&Command{Name: "setnx", Arity: 3, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Handler: cmdSetNX},
		&Command{Name: "setex", Arity: 4, Flags: Write, FirstKey: 1, LastKey: 1, Handler: cmdSetEX},
		&Command{Name: "psetex", Arity: 4, Flags: Write, FirstKey: 1, LastKey: 1, Handler: cmdPSetEX},
		&Command{Name: "getset", Arity: 3, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Handler: cmdGetSet},
		&Command{Name: "getdel", Arity: 2, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Handler: cmdGetDel},
		&Command{Name: "getex", Arity: -2, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Handler: cmdGetEx},
		&Command{Name: "mget", Arity: -2, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: -1, Handler: cmdMGet},
		&Command{Name: "mset", Arity: -3, Flags: Write, FirstKey: 1, LastKey: -1, Step: 2, Handler: cmdMSet},
		&Command{Name: "msetnx", Arity: -3, Flags: Write, FirstKey: 1, LastKey: -1, Step: 2, Handler: cmdMSetNX},
		&Command{Name: "append", Arity: 3, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Handler: cmdAppend},
		&Command{Name: "strlen", Arity: 2, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Handler: cmdStrlen},
		&Command{Name: "incr", Arity: 2, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Handler: cmdIncr},
		&Command{Name: "decr", Arity: 2, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Handler: cmdDecr},
		&Command{Name: "incrby", Arity: 3, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Handler: cmdIncrBy},
		&Command{Name: "decrby", Arity: 3, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Handler: cmdDecrBy},
		&Command{Name: "incrbyfloat", Arity: 3, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Handler: cmdIncrByFloat},
		&Command{Name: "getrange", Arity: 4, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdGetRange},
		&Command{Name: "substr", Arity: 4, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdGetRange},
		&Command{Name: "setrange", Arity: 4, Flags: Write, FirstKey: 1, LastKey: 1, Handler: cmdSetRange},
		&Command{Name: "lcs", Arity: -3, Flags: ReadOnly, FirstKey: 1, LastKey: 2, Handler: cmdLCS},
		&Command{Name: "cas", Arity: -4, Flags: Write | KvrocksOnly, FirstKey: 1, LastKey: 1, Handler: cmdCAS},
		&Command{Name: "cad", Arity: 3, Flags: Write | KvrocksOnly, FirstKey: 1, LastKey: 1, Handler: cmdCAD},
	)
}

// GET key
func cmdGet(c *Ctx) {
	v, found, err := c.DB.Get(c.Args[1])
	if c.ok(err) {
		c.Env.Stats.hit(found)
		c.BulkOrNull(v, found)
	}
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
func (c *Ctx) expireArg(i int, u expireUnit) (int64, bool) {
	n, ok := c.Int(i)
	if !ok {
		return 0, false
	}
	at, fits := u.absoluteMs(n)
	if n <= 0 || !fits {
		c.invalidExpire()
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

func (c *Ctx) invalidExpire() {
	c.ErrorString("ERR invalid expire time in '" + c.cmd.Name + "' command")
}

// expiryOption recognises EX, PX, EXAT and PXAT at argument i.
func (c *Ctx) expiryOption(i int) (expireUnit, bool) {
	switch {
	case c.is(i, "ex"):
		return unitEX, true
	case c.is(i, "px"):
		return unitPX, true
	case c.is(i, "exat"):
		return unitEXAT, true
	case c.is(i, "pxat"):
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
func (p *pendingExpiry) accept(c *Ctx, i int) bool {
	u, ok := c.expiryOption(i)
	if !ok || (p.idx != 0 && p.unit != u) || i+1 >= len(c.Args) {
		return false
	}
	p.unit, p.idx = u, i+1
	return true
}

// resolve reads the expiry value as an absolute time in ms, replying the
// error when it is invalid.
func (p *pendingExpiry) resolve(c *Ctx) (int64, bool) { return c.expireArg(p.idx, p.unit) }

// SET key value [NX | XX] [GET] [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]
func cmdSet(c *Ctx) {
	var a storage.SetArgs
	var exp pendingExpiry
	for i := 3; i < len(c.Args); i++ {
		switch {
		case c.is(i, "nx") && !a.XX:
			a.NX = true
		case c.is(i, "xx") && !a.NX:
			a.XX = true
		case c.is(i, "get"):
			a.Get = true
		case c.is(i, "keepttl") && exp.idx == 0:
			a.KeepTTL = true
		case !a.KeepTTL && exp.accept(c, i):
			i++
		default:
			c.ErrorString(errSyntax)
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
	if !c.ok(err) {
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
func cmdSetNX(c *Ctx) {
	res, err := c.DB.Set(c.Args[1], c.Args[2], storage.SetArgs{NX: true})
	if c.ok(err) {
		c.intBool(res.Written)
	}
}

// SETEX key seconds value
func cmdSetEX(c *Ctx) { setWithExpiry(c, unitEX) }

// PSETEX key milliseconds value
func cmdPSetEX(c *Ctx) { setWithExpiry(c, unitPX) }

func setWithExpiry(c *Ctx, u expireUnit) {
	at, ok := c.expireArg(2, u)
	if !ok {
		return
	}
	if _, err := c.DB.Set(c.Args[1], c.Args[3], storage.SetArgs{Expire: at}); c.ok(err) {
		c.W.OK()
	}
}

// GETSET key value
func cmdGetSet(c *Ctx) {
	res, err := c.DB.Set(c.Args[1], c.Args[2], storage.SetArgs{Get: true})
	if c.ok(err) {
		c.BulkOrNull(res.Old, res.OldFound)
	}
}

// GETDEL key
func cmdGetDel(c *Ctx) {
	v, found, err := c.DB.GetDel(c.Args[1])
	if c.ok(err) {
		c.BulkOrNull(v, found)
	}
}

// GETEX key [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | PERSIST]
func cmdGetEx(c *Ctx) {
	var change storage.ExpireChange
	var exp pendingExpiry
	for i := 2; i < len(c.Args); i++ {
		switch {
		case c.is(i, "persist") && exp.idx == 0:
			change.Persist = true
		case !change.Persist && exp.accept(c, i):
			i++
		default:
			c.ErrorString(errSyntax)
			return
		}
	}
	if exp.idx != 0 {
		// Redis answers for a missing or mistyped key before it looks at
		// the expiry value.
		_, found, err := c.DB.Get(c.Args[1])
		if !c.ok(err) {
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
	if c.ok(err) {
		c.BulkOrNull(v, found)
	}
}

// MGET key [key ...]
func cmdMGet(c *Ctx) {
	values, err := c.DB.MGet(c.Args[1:])
	if !c.ok(err) {
		return
	}
	c.W.Array(len(values))
	for _, v := range values {
		c.Env.Stats.hit(v != nil)
		c.BulkOrNull(v, v != nil)
	}
}

// MSET key value [key value ...]
func cmdMSet(c *Ctx) {
	if len(c.Args)%2 == 0 {
		c.ErrorString("ERR wrong number of arguments for 'mset' command")
		return
	}
	if _, err := c.DB.MSet(c.Args[1:], false); c.ok(err) {
		c.W.OK()
	}
}

// MSETNX key value [key value ...]
func cmdMSetNX(c *Ctx) {
	if len(c.Args)%2 == 0 {
		c.ErrorString("ERR wrong number of arguments for 'msetnx' command")
		return
	}
	written, err := c.DB.MSet(c.Args[1:], true)
	if c.ok(err) {
		c.intBool(written)
	}
}

// APPEND key value
func cmdAppend(c *Ctx) {
	n, err := c.DB.Append(c.Args[1], c.Args[2], c.Env.Config.ProtoMaxBulkLen.Get())
	if c.ok(err) {
		c.W.Int(n)
	}
}

// STRLEN key
func cmdStrlen(c *Ctx) {
	n, err := c.DB.StrLen(c.Args[1])
	if c.ok(err) {
		c.W.Int(n)
	}
}

// INCR key
func cmdIncr(c *Ctx) { incrBy(c, 1) }

// DECR key
func cmdDecr(c *Ctx) { incrBy(c, -1) }

// INCRBY key increment
func cmdIncrBy(c *Ctx) {
	if n, ok := c.Int(2); ok {
		incrBy(c, n)
	}
}

// DECRBY key decrement
func cmdDecrBy(c *Ctx) {
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

func incrBy(c *Ctx, delta int64) {
	n, err := c.DB.IncrBy(c.Args[1], delta)
	if c.ok(err) {
		c.W.Int(n)
	}
}

// INCRBYFLOAT key increment
func cmdIncrByFloat(c *Ctx) {
	v, err := c.DB.IncrByFloat(c.Args[1], c.Args[2])
	if c.ok(err) {
		c.W.Bulk(v)
	}
}

// GETRANGE key start end
func cmdGetRange(c *Ctx) {
	start, ok := c.Int(2)
	if !ok {
		return
	}
	end, ok := c.Int(3)
	if !ok {
		return
	}
	v, _, err := c.DB.Get(c.Args[1])
	if !c.ok(err) {
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
func cmdSetRange(c *Ctx) {
	offset, ok := c.Int(2)
	if !ok {
		return
	}
	if offset < 0 {
		c.ErrorString("ERR offset is out of range")
		return
	}
	n, err := c.DB.SetRange(c.Args[1], offset, c.Args[3], c.Env.Config.ProtoMaxBulkLen.Get())
	if c.ok(err) {
		c.W.Int(n)
	}
}

// CAS key old new [EX seconds|PX ms|EXAT unix-seconds|PXAT unix-ms], as
// Kvrocks: 1 set, 0 the key holds another value, -1 no such key. An option
// given twice counts once, the last; two different ones are a syntax error.
func cmdCAS(c *Ctx) {
	var expire int64
	var unit *expireUnit
	for i := 4; i < len(c.Args); i += 2 {
		u, known := c.expiryOption(i)
		if !known || (unit != nil && *unit != u) {
			c.ErrorString(errSyntax)
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
	if c.kvrocksOK(err) {
		c.W.Int(n)
	}
}

// CAD key value, as Kvrocks: 1 deleted, 0 the key holds another value, -1
// no such key.
func cmdCAD(c *Ctx) {
	n, err := c.DB.CompareAndDelete(c.Args[1], c.Args[2])
	if c.kvrocksOK(err) {
		c.W.Int(n)
	}
}
