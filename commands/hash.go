package commands

import (
	"math"
	"strings"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/reply"
	"github.com/basaltdb/basalt/storage"
)

func init() {
	executor.Register(
		&executor.Command{Name: "hset", Arity: -4, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdHSet,
			Events: &executor.KeyEvents{Class: config.NotifyHash, Event: "hset", Shape: executor.OnEach}},
		&executor.Command{Name: "hmset", Arity: -4, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdHMSet,
			Events: &executor.KeyEvents{Class: config.NotifyHash, Event: "hset", Shape: executor.OnEach}},
		&executor.Command{Name: "hsetnx", Arity: -4, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdHSetNX,
			Events: &executor.KeyEvents{Class: config.NotifyHash, Event: "hset", Shape: executor.OnEach}},
		&executor.Command{Name: "hget", Arity: 3, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdHGet},
		&executor.Command{Name: "hmget", Arity: -3, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdHMGet},
		&executor.Command{Name: "hdel", Arity: -3, Flags: executor.Write | executor.Fast | executor.NoDBSizeCheck, FirstKey: 1, LastKey: 1, Handler: cmdHDel,
			Events: &executor.KeyEvents{Class: config.NotifyHash, Event: "hdel", Shape: executor.OnEachThenDel}},
		&executor.Command{Name: "hlen", Arity: 2, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdHLen},
		&executor.Command{Name: "hstrlen", Arity: 3, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdHStrlen},
		&executor.Command{Name: "hexists", Arity: 3, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdHExists},
		&executor.Command{Name: "hkeys", Arity: 2, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdHKeys},
		&executor.Command{Name: "hvals", Arity: 2, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdHVals},
		&executor.Command{Name: "hgetall", Arity: 2, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdHGetAll},
		&executor.Command{Name: "hincrby", Arity: 4, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdHIncrBy,
			Events: &executor.KeyEvents{Class: config.NotifyHash, Event: "hincrby", Shape: executor.OnEach}},
		&executor.Command{Name: "hincrbyfloat", Arity: 4, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdHIncrByFloat,
			Events: &executor.KeyEvents{Class: config.NotifyHash, Event: "hincrbyfloat", Shape: executor.OnEach}},
		&executor.Command{Name: "hscan", Arity: -3, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdHScan},
		&executor.Command{Name: "hrandfield", Arity: -2, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdHRandField},
		&executor.Command{Name: "hrangebylex", Arity: -4, Flags: executor.ReadOnly | executor.KvrocksOnly, FirstKey: 1, LastKey: 1, Handler: cmdHRangeByLex,
			Meta: &executor.Meta{
				KeySpecs: []executor.KeySpec{{Flags: []string{"RO", "access"}, BeginSearch: "index", Index: 1,
					FindKeys: "range", LastKey: 0, KeyStep: 1}},
				Doc: doc("summary", "Returns the fields of a hash in a lexicographical range, with their values",
					"group", "hash", "complexity", "O(log(N)+M) where M is the number of fields returned",
					"arguments", docArgs(docKey("key", 0), docString("min"), docString("max"), optional(docToken("rev", "REV")),
						optional(append(doc("name", "limit", "type", "block", "token", "LIMIT"), "$arguments", docArgs(
							doc("name", "offset", "type", "integer"), doc("name", "count", "type", "integer")))))),
			}},
	)
}

// HSET key field value [field value ...]
func cmdHSet(c *executor.Ctx) {
	if n, ok := hset(c); ok {
		c.W.Int(n)
	}
}

// HMSET key field value [field value ...]
func cmdHMSet(c *executor.Ctx) {
	if _, ok := hset(c); ok {
		c.W.OK()
	}
}

func hset(c *executor.Ctx) (int64, bool) {
	if len(c.Args)%2 != 0 {
		c.ErrorString("ERR wrong number of arguments for '" + c.Cmd.Name + "' command")
		return 0, false
	}
	n, err := c.DB.HSet(c.Args[1], c.Args[2:], false)
	return n, c.OK(err)
}

// HSETNX key field value [field value ...]
//
// Several pairs are Kvrocks's extension: the reply counts the fields set,
// those absent before the command; a field given twice takes its last
// value, as Kvrocks does.
func cmdHSetNX(c *executor.Ctx) {
	if len(c.Args)%2 != 0 {
		c.ErrorString("ERR wrong number of arguments for 'hsetnx' command")
		return
	}
	n, err := c.DB.HSet(c.Args[1], c.Args[2:], true)
	if c.OK(err) {
		c.W.Int(n)
	}
}

// HGET key field
func cmdHGet(c *executor.Ctx) {
	v, found, err := c.DB.HGet(c.Args[1], c.Args[2])
	if c.OK(err) {
		c.Env.Stats.Hit(found)
		c.BulkOrNull(v, found)
	}
}

// HMGET key field [field ...]
func cmdHMGet(c *executor.Ctx) {
	values, err := c.DB.HMGet(c.Args[1], c.Args[2:])
	if !c.OK(err) {
		return
	}
	c.W.Array(len(values))
	for _, v := range values {
		c.BulkOrNull(v, v != nil)
	}
}

// HDEL key field [field ...]
func cmdHDel(c *executor.Ctx) {
	n, err := c.DB.HDel(c.Args[1], c.Args[2:])
	if c.OK(err) {
		c.W.Int(n)
	}
}

// HLEN key
func cmdHLen(c *executor.Ctx) { replyLen(c, metadata.TypeHash) }

// HSTRLEN key field
func cmdHStrlen(c *executor.Ctx) {
	v, _, err := c.DB.HGet(c.Args[1], c.Args[2])
	if c.OK(err) {
		c.W.Int(int64(len(v)))
	}
}

// HEXISTS key field
func cmdHExists(c *executor.Ctx) {
	found, err := c.DB.HExists(c.Args[1], c.Args[2])
	if c.OK(err) {
		c.IntBool(found)
	}
}

// HKEYS key
func cmdHKeys(c *executor.Ctx) { hashWalk(c, true, false) }

// HVALS key
func cmdHVals(c *executor.Ctx) { hashWalk(c, false, true) }

// HGETALL key
func cmdHGetAll(c *executor.Ctx) { hashWalk(c, true, true) }

// hashWalk streams a hash's fields and/or values from one snapshot into the
// reply: a map for HGETALL, an array otherwise.
func hashWalk(c *executor.Ctx, fields, values bool) {
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
func cmdHIncrBy(c *executor.Ctx) {
	delta, ok := c.Int(3)
	if !ok {
		return
	}
	n, err := c.DB.HIncrBy(c.Args[1], c.Args[2], delta)
	if c.OK(err) {
		c.W.Int(n)
	}
}

// HINCRBYFLOAT key field increment
func cmdHIncrByFloat(c *executor.Ctx) {
	v, err := c.DB.HIncrByFloat(c.Args[1], c.Args[2], c.Args[3])
	if c.OK(err) {
		c.W.Bulk(v)
	}
}

// HSCAN key cursor [MATCH pattern] [COUNT count] [NOVALUES]
func cmdHScan(c *executor.Ctx) {
	scanElements(c, metadata.TypeHash, func(e storage.Element, noValues bool) {
		c.W.Bulk(e.Sub)
		if !noValues {
			c.W.Bulk(e.Value)
		}
	})
}

// HRANDFIELD key [count [WITHVALUES]]
func cmdHRandField(c *executor.Ctx) {
	if len(c.Args) == 2 {
		randomOne(c, metadata.TypeHash)
		return
	}
	count, ok := randomCountArg(c)
	if !ok {
		return
	}
	withValues := len(c.Args) == 4 && c.Is(3, "withvalues")
	if len(c.Args) > 3 && !withValues {
		c.ErrorString(executor.ErrSyntax)
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
func cmdHRangeByLex(c *executor.Ctx) {
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
			c.ErrorString(executor.ErrSyntax)
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
	if c.KvrocksOK(err) {
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
