package commands

import (
	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/storage"
)

func init() {
	executor.Register(
		&executor.Command{Name: "sadd", Arity: -3, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdSAdd,
			Events: &executor.KeyEvents{Class: config.NotifySet, Event: "sadd", Shape: executor.OnEach}},
		&executor.Command{Name: "srem", Arity: -3, Flags: executor.Write | executor.Fast | executor.NoDBSizeCheck, FirstKey: 1, LastKey: 1, Handler: cmdSRem,
			Events: &executor.KeyEvents{Class: config.NotifySet, Event: "srem", Shape: executor.OnEachThenDel}},
		&executor.Command{Name: "smembers", Arity: 2, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdSMembers},
		&executor.Command{Name: "sismember", Arity: 3, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdSIsMember},
		&executor.Command{Name: "smismember", Arity: -3, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdSMIsMember},
		&executor.Command{Name: "scard", Arity: 2, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdSCard},
		&executor.Command{Name: "spop", Arity: -2, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdSPop,
			Events: &executor.KeyEvents{Class: config.NotifySet, Event: "spop", Shape: executor.OnEachThenDel}},
		&executor.Command{Name: "srandmember", Arity: -2, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdSRandMember},
		&executor.Command{Name: "smove", Arity: 4, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 2, Handler: cmdSMove,
			Events: &executor.KeyEvents{Class: config.NotifySet, Shape: executor.OnSetMove}},
		&executor.Command{Name: "sinter", Arity: -2, Flags: executor.ReadOnly, FirstKey: 1, LastKey: -1, Handler: cmdSInter},
		&executor.Command{Name: "sunion", Arity: -2, Flags: executor.ReadOnly, FirstKey: 1, LastKey: -1, Handler: cmdSUnion},
		&executor.Command{Name: "sdiff", Arity: -2, Flags: executor.ReadOnly, FirstKey: 1, LastKey: -1, Handler: cmdSDiff},
		&executor.Command{Name: "sinterstore", Arity: -3, Flags: executor.Write, FirstKey: 1, LastKey: -1, Handler: cmdSInterStore,
			Events: &executor.KeyEvents{Class: config.NotifySet, Event: "sinterstore", Shape: executor.OnStore, Dest: executor.DestFirstKey}},
		&executor.Command{Name: "sunionstore", Arity: -3, Flags: executor.Write, FirstKey: 1, LastKey: -1, Handler: cmdSUnionStore,
			Events: &executor.KeyEvents{Class: config.NotifySet, Event: "sunionstore", Shape: executor.OnStore, Dest: executor.DestFirstKey}},
		&executor.Command{Name: "sdiffstore", Arity: -3, Flags: executor.Write, FirstKey: 1, LastKey: -1, Handler: cmdSDiffStore,
			Events: &executor.KeyEvents{Class: config.NotifySet, Event: "sdiffstore", Shape: executor.OnStore, Dest: executor.DestFirstKey}},
		&executor.Command{Name: "sintercard", Arity: -3, Flags: executor.ReadOnly, Keys: numkeysKeys(1), Handler: cmdSInterCard},
		&executor.Command{Name: "sscan", Arity: -3, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdSScan},
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
func cmdSAdd(c *executor.Ctx) {
	n, err := c.DB.SAdd(c.Args[1], c.Args[2:])
	if c.OK(err) {
		c.W.Int(n)
	}
}

// SREM key member [member ...]
func cmdSRem(c *executor.Ctx) {
	n, err := c.DB.SRem(c.Args[1], c.Args[2:])
	if c.OK(err) {
		c.W.Int(n)
	}
}

// SMEMBERS key
func cmdSMembers(c *executor.Ctx) {
	d := c.W.DeferSet()
	n := 0
	_, err := c.DB.Walk(c.Args[1], metadata.TypeSet, func(m, _ []byte) {
		c.W.Bulk(m)
		n++
	})
	finishOrError(c, d, n, err)
}

// SISMEMBER key member
func cmdSIsMember(c *executor.Ctx) {
	found, err := c.DB.SMIsMember(c.Args[1], c.Args[2:3])
	if c.OK(err) {
		c.IntBool(found[0])
	}
}

// SMISMEMBER key member [member ...]
func cmdSMIsMember(c *executor.Ctx) {
	found, err := c.DB.SMIsMember(c.Args[1], c.Args[2:])
	if !c.OK(err) {
		return
	}
	c.W.Array(len(found))
	for _, f := range found {
		c.IntBool(f)
	}
}

// SCARD key
func cmdSCard(c *executor.Ctx) { replyLen(c, metadata.TypeSet) }

// SPOP key [count]
func cmdSPop(c *executor.Ctx) {
	switch len(c.Args) {
	case 2:
		members, err := c.DB.SPop(c.Args[1], 1)
		if c.OK(err) {
			if len(members) == 0 {
				c.W.Null()
			} else {
				c.W.Bulk(members[0])
			}
		}
		return
	case 3:
	default:
		c.ErrorString(executor.ErrSyntax)
		return
	}
	count, ok := num.ParseInt(c.Args[2])
	if !ok || count < 0 {
		c.ErrorString("ERR value is out of range, must be positive")
		return
	}
	members, err := c.DB.SPop(c.Args[1], count)
	if !c.OK(err) {
		return
	}
	c.W.Set(len(members))
	for _, m := range members {
		c.W.Bulk(m)
	}
}

// SRANDMEMBER key [count]
func cmdSRandMember(c *executor.Ctx) {
	if len(c.Args) == 2 {
		randomOne(c, metadata.TypeSet)
		return
	}
	if len(c.Args) > 3 {
		c.ErrorString(executor.ErrSyntax)
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

// SMOVE source destination member
func cmdSMove(c *executor.Ctx) {
	moved, added, err := c.DB.SMove(c.Args[1], c.Args[2], c.Args[3])
	if moved && !added {
		// As in Redis, a dst that held the member already is unchanged.
		c.Changed = c.Args[1:2]
	}
	if c.OK(err) {
		c.IntBool(moved)
	}
}

// SINTER key [key ...]
func cmdSInter(c *executor.Ctx) { setCombine(c, storage.SetInter) }

// SUNION key [key ...]
func cmdSUnion(c *executor.Ctx) { setCombine(c, storage.SetUnion) }

// SDIFF key [key ...]
func cmdSDiff(c *executor.Ctx) { setCombine(c, storage.SetDiff) }

func setCombine(c *executor.Ctx, op storage.SetOp) {
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
func cmdSInterStore(c *executor.Ctx) { setStore(c, storage.SetInter) }

// SUNIONSTORE destination key [key ...]
func cmdSUnionStore(c *executor.Ctx) { setStore(c, storage.SetUnion) }

// SDIFFSTORE destination key [key ...]
func cmdSDiffStore(c *executor.Ctx) { setStore(c, storage.SetDiff) }

func setStore(c *executor.Ctx, op storage.SetOp) {
	n, err := c.DB.SetStore(op, c.Args[1], c.Args[2:])
	if c.OK(err) {
		c.W.Int(n)
	}
}

// SINTERCARD numkeys key [key ...] [LIMIT limit]
func cmdSInterCard(c *executor.Ctx) {
	keys, limit, ok := parseNumkeysLimit(c)
	if !ok {
		return
	}
	var n int64
	err := c.DB.SetCombine(storage.SetInter, keys, func([]byte) bool {
		n++
		return limit == 0 || n < limit
	})
	if c.OK(err) {
		c.W.Int(n)
	}
}

// parseNumkeysLimit reads "numkeys key [key ...] [LIMIT limit]" from
// argument 1 with Redis's errors; limit 0 means none.
func parseNumkeysLimit(c *executor.Ctx) (keys [][]byte, limit int64, ok bool) {
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
		if !c.Is(i, "limit") || i+1 >= len(c.Args) {
			c.ErrorString(executor.ErrSyntax)
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
func cmdSScan(c *executor.Ctx) {
	scanElements(c, metadata.TypeSet, func(e storage.Element, _ bool) { c.W.Bulk(e.Sub) })
}
