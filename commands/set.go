package commands

import (
	"math"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/reply"
	"github.com/basaltdb/basalt/storage"
)

func init() {
	register(
		&Command{Name: "sadd", Arity: -3, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Handler: cmdSAdd},
		&Command{Name: "srem", Arity: -3, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Handler: cmdSRem},
		&Command{Name: "smembers", Arity: 2, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdSMembers},
		&Command{Name: "sismember", Arity: 3, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Handler: cmdSIsMember},
		&Command{Name: "smismember", Arity: -3, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Handler: cmdSMIsMember},
		&Command{Name: "scard", Arity: 2, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Handler: cmdSCard},
		&Command{Name: "spop", Arity: -2, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Handler: cmdSPop},
		&Command{Name: "srandmember", Arity: -2, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdSRandMember},
		&Command{Name: "smove", Arity: 4, Flags: Write | Fast, FirstKey: 1, LastKey: 2, Handler: cmdSMove},
		&Command{Name: "sinter", Arity: -2, Flags: ReadOnly, FirstKey: 1, LastKey: -1, Handler: cmdSInter},
		&Command{Name: "sunion", Arity: -2, Flags: ReadOnly, FirstKey: 1, LastKey: -1, Handler: cmdSUnion},
		&Command{Name: "sdiff", Arity: -2, Flags: ReadOnly, FirstKey: 1, LastKey: -1, Handler: cmdSDiff},
		&Command{Name: "sinterstore", Arity: -3, Flags: Write, FirstKey: 1, LastKey: -1, Handler: cmdSInterStore},
		&Command{Name: "sunionstore", Arity: -3, Flags: Write, FirstKey: 1, LastKey: -1, Handler: cmdSUnionStore},
		&Command{Name: "sdiffstore", Arity: -3, Flags: Write, FirstKey: 1, LastKey: -1, Handler: cmdSDiffStore},
		&Command{Name: "sintercard", Arity: -3, Flags: ReadOnly, Keys: numkeysKeys(1), Handler: cmdSInterCard},
		&Command{Name: "sscan", Arity: -3, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdSScan},
	)
}

// numkeysKeys extracts the keys of commands whose argument at position
// numkeys counts the keys that follow it (SINTERCARD, ZUNION, LMPOP...).
func numkeysKeys(numkeys int) func(args [][]byte) [][]byte {
	return func(args [][]byte) [][]byte {
		n, ok := num.ParseInt(args[numkeys])
		if !ok || n <= 0 || n > int64(len(args)-numkeys-1) {
			return nil
		}
		return args[numkeys+1 : numkeys+1+int(n)]
	}
}

// SADD key member [member ...]
func cmdSAdd(c *Ctx) {
	n, err := c.DB.SAdd(c.Args[1], c.Args[2:])
	if c.ok(err) {
		c.W.Int(n)
	}
}

// SREM key member [member ...]
func cmdSRem(c *Ctx) {
	n, err := c.DB.SRem(c.Args[1], c.Args[2:])
	if c.ok(err) {
		c.W.Int(n)
	}
}

// SMEMBERS key
func cmdSMembers(c *Ctx) {
	d := c.W.DeferSet()
	n := 0
	_, err := c.DB.Walk(c.Args[1], metadata.TypeSet, func(m, _ []byte) {
		c.W.Bulk(m)
		n++
	})
	finishOrError(c, d, n, err)
}

// finishOrError completes a deferred reply, or replaces it by err's reply.
func finishOrError(c *Ctx, d reply.Deferred, n int, err error) {
	if err != nil {
		c.W.Abandon(d)
		c.Error(err)
		return
	}
	c.W.Finish(d, n)
}

// SISMEMBER key member
func cmdSIsMember(c *Ctx) {
	found, err := c.DB.SMIsMember(c.Args[1], c.Args[2:3])
	if c.ok(err) {
		c.intBool(found[0])
	}
}

// SMISMEMBER key member [member ...]
func cmdSMIsMember(c *Ctx) {
	found, err := c.DB.SMIsMember(c.Args[1], c.Args[2:])
	if !c.ok(err) {
		return
	}
	c.W.Array(len(found))
	for _, f := range found {
		c.intBool(f)
	}
}

// SCARD key
func cmdSCard(c *Ctx) { replyLen(c, metadata.TypeSet) }

// SPOP key [count]
func cmdSPop(c *Ctx) {
	switch len(c.Args) {
	case 2:
		members, err := c.DB.SPop(c.Args[1], 1)
		if c.ok(err) {
			if len(members) == 0 {
				c.W.Null()
			} else {
				c.W.Bulk(members[0])
			}
		}
		return
	case 3:
	default:
		c.ErrorString(errSyntax)
		return
	}
	count, ok := num.ParseInt(c.Args[2])
	if !ok || count < 0 {
		c.ErrorString("ERR value is out of range, must be positive")
		return
	}
	members, err := c.DB.SPop(c.Args[1], count)
	if !c.ok(err) {
		return
	}
	c.W.Set(len(members))
	for _, m := range members {
		c.W.Bulk(m)
	}
}

// SRANDMEMBER key [count]
func cmdSRandMember(c *Ctx) {
	if len(c.Args) == 2 {
		randomOne(c, metadata.TypeSet)
		return
	}
	if len(c.Args) > 3 {
		c.ErrorString(errSyntax)
		return
	}
	count, ok := randomCountArg(c)
	if !ok {
		return
	}
	distinct, ok := randomCount(c, &count)
	if !ok {
		return
	}
	randomReply(c, metadata.TypeSet, count, distinct, 1, func(e storage.Element) {
		c.W.Bulk(e.Sub)
	})
}

// randomOne answers HRANDFIELD, SRANDMEMBER and ZRANDMEMBER without a
// count: one random element, or null.
func randomOne(c *Ctx, t metadata.Type) {
	var one []byte
	found := false
	err := c.DB.RandomElements(c.Args[1], t, 1, true, func(_ int64, chunk []storage.Element) bool {
		one, found = chunk[0].Sub, true
		return false
	})
	if c.ok(err) {
		c.BulkOrNull(one, found)
	}
}

// randomCountMax is the largest count HRANDFIELD, SRANDMEMBER and
// ZRANDMEMBER accept either way, LONG_MAX/2 as Redis allows WITHVALUES and
// WITHSCORES: twice the count still fits the reply's length.
const randomCountMax = math.MaxInt64 / 2

// randomCountArg parses the count of HRANDFIELD, SRANDMEMBER and
// ZRANDMEMBER (argument 2); LONG_MIN has Redis's own message.
func randomCountArg(c *Ctx) (int64, bool) {
	n, ok := c.Int(2)
	if ok && n == math.MinInt64 {
		c.ErrorString("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
		return 0, false
	}
	return n, ok
}

// randomCount checks a count read by randomCountArg once the syntax of the
// other arguments is checked, as Redis does: beyond LONG_MAX/2 either way
// it is out of range (Redis refuses that with WITHVALUES and WITHSCORES
// only, and without them tries to produce the reply). A negative count
// allows repetitions: count becomes its absolute value and distinct false.
func randomCount(c *Ctx, count *int64) (distinct, ok bool) {
	switch n := *count; {
	case n < -randomCountMax || n > randomCountMax:
		c.ErrorString("ERR value is out of range")
		return false, false
	case n < 0:
		*count = -n
		return false, true
	}
	return true, true
}

// randomReply streams the draws of HRANDFIELD, SRANDMEMBER and
// ZRANDMEMBER with a count: factor reply items per element, which write
// renders. The reply goes out as it is produced, in memory bounded
// whatever the count, and stops early once the client is gone.
func randomReply(c *Ctx, t metadata.Type, count int64, distinct bool, factor int, write func(e storage.Element)) {
	out := newReplyStream(c, factor)
	out.end(c.DB.RandomElements(c.Args[1], t, count, distinct, func(total int64, chunk []storage.Element) bool {
		out.begin(total)
		for _, e := range chunk {
			write(e)
			if !out.wrote(factor) {
				return false
			}
		}
		return true
	}))
}

// SMOVE source destination member
func cmdSMove(c *Ctx) {
	moved, added, err := c.DB.SMove(c.Args[1], c.Args[2], c.Args[3])
	if moved && !added {
		// As in Redis, a dst that held the member already is unchanged.
		c.changed = c.Args[1:2]
	}
	if c.ok(err) {
		c.intBool(moved)
	}
}

// SINTER key [key ...]
func cmdSInter(c *Ctx) { setCombine(c, storage.SetInter) }

// SUNION key [key ...]
func cmdSUnion(c *Ctx) { setCombine(c, storage.SetUnion) }

// SDIFF key [key ...]
func cmdSDiff(c *Ctx) { setCombine(c, storage.SetDiff) }

func setCombine(c *Ctx, op storage.SetOp) {
	d := c.W.DeferSet()
	n := 0
	err := c.DB.SetCombine(op, c.Args[1:], func(m []byte) bool {
		c.W.Bulk(m)
		n++
		return true
	})
	finishOrError(c, d, n, err)
}

// SINTERSTORE destination key [key ...]
func cmdSInterStore(c *Ctx) { setStore(c, storage.SetInter) }

// SUNIONSTORE destination key [key ...]
func cmdSUnionStore(c *Ctx) { setStore(c, storage.SetUnion) }

// SDIFFSTORE destination key [key ...]
func cmdSDiffStore(c *Ctx) { setStore(c, storage.SetDiff) }

func setStore(c *Ctx, op storage.SetOp) {
	n, err := c.DB.SetStore(op, c.Args[1], c.Args[2:])
	if c.ok(err) {
		c.W.Int(n)
	}
}

// SINTERCARD numkeys key [key ...] [LIMIT limit]
func cmdSInterCard(c *Ctx) {
	keys, limit, ok := parseNumkeysLimit(c)
	if !ok {
		return
	}
	var n int64
	err := c.DB.SetCombine(storage.SetInter, keys, func([]byte) bool {
		n++
		return limit == 0 || n < limit
	})
	if c.ok(err) {
		c.W.Int(n)
	}
}

// parseNumkeysLimit reads "numkeys key [key ...] [LIMIT limit]" from
// argument 1 with Redis's errors; limit 0 means none.
func parseNumkeysLimit(c *Ctx) (keys [][]byte, limit int64, ok bool) {
	n, ok := num.ParseInt(c.Args[1])
	if !ok || n <= 0 {
		c.ErrorString("ERR numkeys should be greater than 0")
		return nil, 0, false
	}
	if n > int64(len(c.Args)-2) {
		c.ErrorString("ERR Number of keys can't be greater than number of args")
		return nil, 0, false
	}
	keys = c.Args[2 : 2+n]
	for i := 2 + int(n); i < len(c.Args); i += 2 {
		if !c.is(i, "limit") || i+1 >= len(c.Args) {
			c.ErrorString(errSyntax)
			return nil, 0, false
		}
		l, ok := num.ParseInt(c.Args[i+1])
		if !ok || l < 0 {
			c.ErrorString("ERR LIMIT can't be negative")
			return nil, 0, false
		}
		limit = l
	}
	return keys, limit, true
}

// SSCAN key cursor [MATCH pattern] [COUNT count]
func cmdSScan(c *Ctx) {
	scanElements(c, metadata.TypeSet, func(e storage.Element, _ bool) { c.W.Bulk(e.Sub) })
}
