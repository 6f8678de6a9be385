package commands

import (
	"github.com/basaltdb/basalt/reply"
	"math"
	"strings"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
)

func init() {
	register(
		&Command{Name: "hset", Arity: -4, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Handler: cmdHSet},
		&Command{Name: "hmset", Arity: -4, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Handler: cmdHMSet},
		&Command{Name: "hsetnx", Arity: -4, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Handler: cmdHSetNX},
		&Command{Name: "hget", Arity: 3, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Handler: cmdHGet},
		&Command{Name: "hmget", Arity: -3, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Handler: cmdHMGet},
		&Command{Name: "hdel", Arity: -3, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Handler: cmdHDel},
		&Command{Name: "hlen", Arity: 2, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Handler: cmdHLen},
		&Command{Name: "hstrlen", Arity: 3, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Handler: cmdHStrlen},
		&Command{Name: "hexists", Arity: 3, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Handler: cmdHExists},
		&Command{Name: "hkeys", Arity: 2, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdHKeys},
		&Command{Name: "hvals", Arity: 2, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdHVals},
		&Command{Name: "hgetall", Arity: 2, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdHGetAll},
		&Command{Name: "hincrby", Arity: 4, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Handler: cmdHIncrBy},
		&Command{Name: "hincrbyfloat", Arity: 4, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Handler: cmdHIncrByFloat},
		&Command{Name: "hscan", Arity: -3, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdHScan},
		&Command{Name: "hrandfield", Arity: -2, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdHRandField},
		&Command{Name: "hrangebylex", Arity: -4, Flags: ReadOnly | KvrocksOnly, FirstKey: 1, LastKey: 1, Handler: cmdHRangeByLex},
	)
}

// HSET key field value [field value ...]
func cmdHSet(c *Ctx) {
	if n, ok := hset(c); ok {
		c.W.Int(n)
	}
}

// HMSET key field value [field value ...]
func cmdHMSet(c *Ctx) {
	if _, ok := hset(c); ok {
		c.W.OK()
	}
}

func hset(c *Ctx) (int64, bool) {
	if len(c.Args)%2 != 0 {
		c.ErrorString("ERR wrong number of arguments for '" + c.cmd.Name + "' command")
		return 0, false
	}
	n, err := c.DB.HSet(c.Args[1], c.Args[2:], false)
	return n, c.ok(err)
}

// HSETNX key field value [field value ...]
//
// Several pairs are Kvrocks's extension: the reply counts the fields set,
// those absent before the command; a field given twice takes its last
// value, as Kvrocks does.
func cmdHSetNX(c *Ctx) {
	if len(c.Args)%2 != 0 {
		c.ErrorString("ERR wrong number of arguments for 'hsetnx' command")
		return
	}
	n, err := c.DB.HSet(c.Args[1], c.Args[2:], true)
	if c.ok(err) {
		c.W.Int(n)
	}
}

// HGET key field
func cmdHGet(c *Ctx) {
	v, found, err := c.DB.HGet(c.Args[1], c.Args[2])
	if c.ok(err) {
		c.Env.Stats.hit(found)
		c.BulkOrNull(v, found)
	}
}

// HMGET key field [field ...]
func cmdHMGet(c *Ctx) {
	values, err := c.DB.HMGet(c.Args[1], c.Args[2:])
	if !c.ok(err) {
		return
	}
	c.W.Array(len(values))
	for _, v := range values {
		c.BulkOrNull(v, v != nil)
	}
}

// HDEL key field [field ...]
func cmdHDel(c *Ctx) {
	n, err := c.DB.HDel(c.Args[1], c.Args[2:])
	if c.ok(err) {
		c.W.Int(n)
	}
}

// HLEN key
func cmdHLen(c *Ctx) { replyLen(c, metadata.TypeHash) }

// replyLen answers HLEN, SCARD, ZCARD and LLEN.
func replyLen(c *Ctx, t metadata.Type) {
	n, err := c.DB.Len(c.Args[1], t)
	if c.ok(err) {
		c.W.Int(n)
	}
}

// HSTRLEN key field
func cmdHStrlen(c *Ctx) {
	v, _, err := c.DB.HGet(c.Args[1], c.Args[2])
	if c.ok(err) {
		c.W.Int(int64(len(v)))
	}
}

// HEXISTS key field
func cmdHExists(c *Ctx) {
	found, err := c.DB.HExists(c.Args[1], c.Args[2])
	if c.ok(err) {
		c.intBool(found)
	}
}

// HKEYS key
func cmdHKeys(c *Ctx) { hashWalk(c, true, false) }

// HVALS key
func cmdHVals(c *Ctx) { hashWalk(c, false, true) }

// HGETALL key
func cmdHGetAll(c *Ctx) { hashWalk(c, true, true) }

// hashWalk streams a hash's fields and/or values from one snapshot into the
// reply: a map for HGETALL, an array otherwise.
func hashWalk(c *Ctx, fields, values bool) {
	// One aggregate begun: a sink that keeps values (a script's
	// redis.call) keeps each one begun.
	var d reply.Deferred
	if fields && values {
		d = c.W.DeferMap()
	} else {
		d = c.W.DeferArray()
	}
	n := 0
	_, err := c.DB.Walk(c.Args[1], metadata.TypeHash, func(f, v []byte) {
		if fields {
			c.W.Bulk(f)
		}
		if values {
			c.W.Bulk(v)
		}
		n++
	})
	finishOrError(c, d, n, err)
}

// HINCRBY key field increment
func cmdHIncrBy(c *Ctx) {
	delta, ok := c.Int(3)
	if !ok {
		return
	}
	n, err := c.DB.HIncrBy(c.Args[1], c.Args[2], delta)
	if c.ok(err) {
		c.W.Int(n)
	}
}

// HINCRBYFLOAT key field increment
func cmdHIncrByFloat(c *Ctx) {
	v, err := c.DB.HIncrByFloat(c.Args[1], c.Args[2], c.Args[3])
	if c.ok(err) {
		c.W.Bulk(v)
	}
}

// HSCAN key cursor [MATCH pattern] [COUNT count] [NOVALUES]
func cmdHScan(c *Ctx) {
	scanElements(c, metadata.TypeHash, func(e storage.Element, noValues bool) {
		c.W.Bulk(e.Sub)
		if !noValues {
			c.W.Bulk(e.Value)
		}
	})
}

// scanElements implements HSCAN, SSCAN and ZSCAN; write renders one
// element: the member, and its value or score unless a set's or NOVALUES.
func scanElements(c *Ctx, t metadata.Type, write func(e storage.Element, noValues bool)) {
	o, ok := parseScan(c, 2, false, t == metadata.TypeHash)
	if !ok {
		return
	}
	scope := c.DB.Namespace() + "\x00" + string(c.Args[1])
	from, ok := c.resumeFrom(scope, o.cursor)
	if !ok {
		return
	}
	elems, next, err := c.DB.ScanElements(c.Args[1], t, from, o.match, o.count)
	if !c.ok(err) {
		return
	}
	// Members alone, or pairs: the length is known before the first, so
	// a step of COUNT 1048576 can be sent while it is written.
	perElement := 2
	if t == metadata.TypeSet || o.noValues {
		perElement = 1
	}
	c.W.Array(2)
	c.W.BulkString(c.nextCursor(scope, next))
	c.W.Array(len(elems) * perElement)
	for _, e := range elems {
		if c.W.Failed() {
			return
		}
		write(e, o.noValues)
	}
}

// HRANDFIELD key [count [WITHVALUES]]
func cmdHRandField(c *Ctx) {
	if len(c.Args) == 2 {
		randomOne(c, metadata.TypeHash)
		return
	}
	count, ok := randomCountArg(c)
	if !ok {
		return
	}
	withValues := len(c.Args) == 4 && c.is(3, "withvalues")
	if len(c.Args) > 3 && !withValues {
		c.ErrorString(errSyntax)
		return
	}
	distinct, ok := randomCount(c, &count)
	if !ok {
		return
	}
	factor, write := 1, func(e storage.Element) { c.W.Bulk(e.Sub) }
	switch {
	case withValues && c.W.Protocol() == 3:
		write = func(e storage.Element) {
			c.W.Array(2)
			c.W.Bulk(e.Sub)
			c.W.Bulk(e.Value)
		}
	case withValues:
		factor = 2
		write = func(e storage.Element) {
			c.W.Bulk(e.Sub)
			c.W.Bulk(e.Value)
		}
	}
	randomReply(c, metadata.TypeHash, count, distinct, factor, write)
}

// HRANGEBYLEX key min max [REV] [LIMIT offset count], Kvrocks's: the fields
// in a lex range ("[a", "(a", "-", "+"; with REV given as max min), with
// their values. As Kvrocks: an option given twice counts once, the last; a
// negative offset is 0 and a negative count no limit.
func cmdHRangeByLex(c *Ctx) {
	r := storage.ZRange{By: storage.ByLex, Count: -1}
	for i := 4; i < len(c.Args); i++ {
		switch strings.ToLower(string(c.Args[i])) {
		case "rev":
			r.Rev = true
		case "limit":
			if i+2 >= len(c.Args) {
				c.ErrorString("ERR no more item to parse")
				return
			}
			offset, msg := kvrocksInt(string(c.Args[i+1]), math.MinInt64, math.MaxInt64)
			if msg == "" {
				r.Count, msg = kvrocksInt(string(c.Args[i+2]), math.MinInt64, math.MaxInt64)
			}
			if msg != "" {
				c.ErrorString("ERR " + msg)
				return
			}
			r.Offset = max(offset, 0)
			i += 2
		default:
			c.ErrorString(errSyntax)
			return
		}
	}
	minArg, maxArg := c.Args[2], c.Args[3]
	if r.Rev {
		minArg, maxArg = maxArg, minArg
	}
	var msg string
	if r.LexMin, msg = kvrocksLexBound(minArg, "min"); msg == "" {
		r.LexMax, msg = kvrocksLexBound(maxArg, "max")
	}
	if msg != "" {
		c.ErrorString(msg)
		return
	}
	var fields [][]byte
	err := c.DB.HRangeByLex(c.Args[1], r, func(field, value []byte) bool {
		fields = append(fields, append([]byte(nil), field...), append([]byte(nil), value...))
		return true
	})
	if c.kvrocksOK(err) {
		c.W.Array(len(fields))
		for _, f := range fields {
			c.W.Bulk(f)
		}
	}
}

// kvrocksLexBound reads one end of an HRANGEBYLEX range as Kvrocks does: an
// infinity at the wrong end is "min > max", anything else unknown illegal.
func kvrocksLexBound(arg []byte, end string) (storage.LexBound, string) {
	b, ok := parseLexBound(arg)
	switch {
	case !ok:
		return b, "ERR the " + end + " is illegal"
	case (end == "min" && b.Inf == 1) || (end == "max" && b.Inf == -1):
		return b, "ERR min > max"
	}
	return b, ""
}
