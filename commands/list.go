package commands

import (
	"math"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/storage"
)

func init() {
	executor.Register(
		&executor.Command{Name: "lpush", Arity: -3, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdLPush,
			Events: &executor.KeyEvents{Class: config.NotifyList, Event: "lpush", Shape: executor.OnEach}},
		&executor.Command{Name: "rpush", Arity: -3, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdRPush,
			Events: &executor.KeyEvents{Class: config.NotifyList, Event: "rpush", Shape: executor.OnEach}},
		&executor.Command{Name: "lpushx", Arity: -3, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdLPushX,
			Events: &executor.KeyEvents{Class: config.NotifyList, Event: "lpush", Shape: executor.OnEach}},
		&executor.Command{Name: "rpushx", Arity: -3, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdRPushX,
			Events: &executor.KeyEvents{Class: config.NotifyList, Event: "rpush", Shape: executor.OnEach}},
		&executor.Command{Name: "lpop", Arity: -2, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdLPop,
			Events: &executor.KeyEvents{Class: config.NotifyList, Event: "lpop", Shape: executor.OnEachThenDel}},
		&executor.Command{Name: "rpop", Arity: -2, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdRPop,
			Events: &executor.KeyEvents{Class: config.NotifyList, Event: "rpop", Shape: executor.OnEachThenDel}},
		&executor.Command{Name: "llen", Arity: 2, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdLLen},
		&executor.Command{Name: "lrange", Arity: 4, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdLRange},
		&executor.Command{Name: "lindex", Arity: 3, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdLIndex},
		&executor.Command{Name: "lset", Arity: 4, Flags: executor.Write, FirstKey: 1, LastKey: 1, Handler: cmdLSet,
			Events: &executor.KeyEvents{Class: config.NotifyList, Event: "lset", Shape: executor.OnEach}},
		&executor.Command{Name: "linsert", Arity: 5, Flags: executor.Write, FirstKey: 1, LastKey: 1, Handler: cmdLInsert,
			Events: &executor.KeyEvents{Class: config.NotifyList, Event: "linsert", Shape: executor.OnEach}},
		&executor.Command{Name: "lrem", Arity: 4, Flags: executor.Write | executor.NoDBSizeCheck, FirstKey: 1, LastKey: 1, Handler: cmdLRem,
			Events: &executor.KeyEvents{Class: config.NotifyList, Event: "lrem", Shape: executor.OnEachThenDel}},
		&executor.Command{Name: "ltrim", Arity: 4, Flags: executor.Write | executor.NoDBSizeCheck, FirstKey: 1, LastKey: 1, Handler: cmdLTrim,
			Events: &executor.KeyEvents{Class: config.NotifyList, Event: "ltrim", Shape: executor.OnEachThenDel}},
		&executor.Command{Name: "lpos", Arity: -3, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdLPos},
		&executor.Command{Name: "lmove", Arity: 5, Flags: executor.Write, FirstKey: 1, LastKey: 2, Handler: cmdLMove,
			Events: &executor.KeyEvents{Class: config.NotifyList, Shape: executor.OnListMove}},
		&executor.Command{Name: "rpoplpush", Arity: 3, Flags: executor.Write, FirstKey: 1, LastKey: 2, Handler: cmdRPopLPush,
			Events: &executor.KeyEvents{Class: config.NotifyList, Shape: executor.OnListMove}},
		&executor.Command{Name: "lmpop", Arity: -4, Flags: executor.Write, Keys: numkeysKeys(1), Handler: cmdLMPop,
			Events: &executor.KeyEvents{Class: config.NotifyList, Pick: pickWord("left", "lpop", "rpop"), Shape: executor.OnEachThenDel}},
	)
}

// LPUSH key element [element ...]
func cmdLPush(c *executor.Ctx) { push(c, true, false) }

// RPUSH key element [element ...]
func cmdRPush(c *executor.Ctx) { push(c, false, false) }

// LPUSHX key element [element ...]
func cmdLPushX(c *executor.Ctx) { push(c, true, true) }

// RPUSHX key element [element ...]
func cmdRPushX(c *executor.Ctx) { push(c, false, true) }

func push(c *executor.Ctx, left, onlyExisting bool) {
	n, err := c.DB.Push(c.Args[1], c.Args[2:], left, onlyExisting)
	if c.OK(err) {
		c.W.Int(n)
	}
}

// LPOP key [count]
func cmdLPop(c *executor.Ctx) { pop(c, true) }

// RPOP key [count]
func cmdRPop(c *executor.Ctx) { pop(c, false) }

func pop(c *executor.Ctx, left bool) {
	count, ok := popCount(c, "ERR wrong number of arguments for '"+c.Cmd.Name+"' command")
	if !ok {
		return
	}
	values, err := c.DB.Pop(c.Args[1], left, count)
	if !c.OK(err) {
		return
	}
	if len(c.Args) == 2 {
		c.BulkOrNull(first(values))
		return
	}
	if values == nil {
		c.W.NullArray()
		return
	}
	c.W.Array(len(values))
	for _, v := range values {
		c.W.Bulk(v)
	}
}

// popCount reads the optional count (argument 2) of LPOP, RPOP, ZPOPMIN
// and ZPOPMAX; 1 when absent. Past it, the reply is tooMany: Redis 7 says
// LPOP and RPOP have the wrong number of arguments, ZPOPMIN and ZPOPMAX a
// syntax error.
func popCount(c *executor.Ctx, tooMany string) (int64, bool) {
	switch len(c.Args) {
	case 2:
		return 1, true
	case 3:
		n, ok := num.ParseInt(c.Args[2])
		if !ok || n < 0 {
			c.ErrorString("ERR value is out of range, must be positive")
			return 0, false
		}
		return n, true
	}
	c.ErrorString(tooMany)
	return 0, false
}

// intPair parses two integer arguments (start and stop, and the like).
func intPair(c *executor.Ctx, i, j int) (a, b int64, ok bool) {
	if a, ok = c.Int(i); !ok {
		return 0, 0, false
	}
	b, ok = c.Int(j)
	return a, b, ok
}

// first returns the first value, or found false for none.
func first(values [][]byte) ([]byte, bool) {
	if len(values) == 0 {
		return nil, false
	}
	return values[0], true
}

// LLEN key
func cmdLLen(c *executor.Ctx) { replyLen(c, metadata.TypeList) }

// LRANGE key start stop
func cmdLRange(c *executor.Ctx) {
	start, stop, ok := intPair(c, 2, 3)
	if !ok {
		return
	}
	out := newReplyStream(c, 1)
	out.end(c.DB.LRange(c.Args[1], start, stop, func(total int64, v []byte) bool {
		out.begin(total)
		c.W.Bulk(v)
		return out.wrote(1)
	}))
}

// listIndex parses the index at argument 2 for LINDEX and LSET, which in
// Redis look the key up first: a bad index is reported only for an
// existing list; otherwise missing is called, or WRONGTYPE replied.
func listIndex(c *executor.Ctx, missing func()) (int64, bool) {
	if index, ok := num.ParseInt(c.Args[2]); ok {
		return index, true
	}
	n, err := c.DB.Len(c.Args[1], metadata.TypeList)
	switch {
	case err != nil:
		c.Error(err)
	case n == 0:
		missing()
	default:
		c.ErrorString(executor.ErrNotInteger)
	}
	return 0, false
}

// LINDEX key index
func cmdLIndex(c *executor.Ctx) {
	index, ok := listIndex(c, c.W.Null)
	if !ok {
		return
	}
	v, found, err := c.DB.LIndex(c.Args[1], index)
	if c.OK(err) {
		c.BulkOrNull(v, found)
	}
}

// LSET key index element
func cmdLSet(c *executor.Ctx) {
	index, ok := listIndex(c, func() { c.Error(storage.ErrNoSuchKey) })
	if !ok {
		return
	}
	if c.OK(c.DB.LSet(c.Args[1], index, c.Args[3])) {
		c.W.OK()
	}
}

// LINSERT key BEFORE | AFTER pivot element
func cmdLInsert(c *executor.Ctx) {
	var before bool
	switch {
	case c.Is(2, "before"):
		before = true
	case c.Is(2, "after"):
	default:
		c.ErrorString(executor.ErrSyntax)
		return
	}
	n, err := c.DB.LInsert(c.Args[1], before, c.Args[3], c.Args[4])
	if c.OK(err) {
		c.W.Int(n)
	}
}

// LREM key count element
func cmdLRem(c *executor.Ctx) {
	count, ok := c.Int(2)
	if !ok {
		return
	}
	if count == math.MinInt64 {
		count = math.MinInt64 + 1 // "all from the right": no list is that long
	}
	n, err := c.DB.LRem(c.Args[1], count, c.Args[3])
	if c.OK(err) {
		c.W.Int(n)
	}
}

// LTRIM key start stop
func cmdLTrim(c *executor.Ctx) {
	start, stop, ok := intPair(c, 2, 3)
	if !ok {
		return
	}
	if !c.OK(c.DB.LTrim(c.Args[1], start, stop)) {
		return
	}
	// Redis counts an LTRIM of a list as a change of a WATCHed key even
	// when it removes nothing.
	if c.Env.Sessions.Watches.Active() {
		if t, err := c.DB.Type(c.Args[1]); err == nil && t == metadata.TypeList {
			c.TouchWatched(c.Args[1])
		}
	}
	c.W.OK()
}

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]
func cmdLPos(c *executor.Ctx) {
	rank, count, maxLen := int64(1), int64(-1), int64(0)
	for i := 3; i < len(c.Args); i += 2 {
		if i+1 >= len(c.Args) {
			c.ErrorString(executor.ErrSyntax)
			return
		}
		n, ok := c.Int(i + 1)
		if !ok {
			return
		}
		switch {
		case c.Is(i, "rank"):
			if n == 0 {
				c.ErrorString("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list")
				return
			}
			if n == math.MinInt64 {
				c.ErrorString("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
				return
			}
			rank = n
		case c.Is(i, "count"):
			if n < 0 {
				c.ErrorString("ERR COUNT can't be negative")
				return
			}
			count = n
		case c.Is(i, "maxlen"):
			if n < 0 {
				c.ErrorString("ERR MAXLEN can't be negative")
				return
			}
			maxLen = n
		default:
			c.ErrorString(executor.ErrSyntax)
			return
		}
	}
	limit := count
	if count < 0 {
		limit = 1
	}
	positions, err := c.DB.LPos(c.Args[1], c.Args[2], rank, limit, maxLen)
	if !c.OK(err) {
		return
	}
	if count < 0 {
		if len(positions) == 0 {
			c.W.Null()
		} else {
			c.W.Int(positions[0])
		}
		return
	}
	c.W.Array(len(positions))
	for _, p := range positions {
		c.W.Int(p)
	}
}

// side parses LEFT or RIGHT at argument i.
func side(c *executor.Ctx, i int) (left, ok bool) {
	switch {
	case c.Is(i, "left"):
		return true, true
	case c.Is(i, "right"):
		return false, true
	}
	c.ErrorString(executor.ErrSyntax)
	return false, false
}

// LMOVE source destination LEFT | RIGHT LEFT | RIGHT
func cmdLMove(c *executor.Ctx) {
	if srcLeft, dstLeft, ok := sides(c, 3); ok {
		lmove(c, srcLeft, dstLeft)
	}
}

// sides parses the LEFT|RIGHT LEFT|RIGHT of LMOVE and BLMOVE at i.
func sides(c *executor.Ctx, i int) (srcLeft, dstLeft, ok bool) {
	if srcLeft, ok = side(c, i); ok {
		dstLeft, ok = side(c, i+1)
	}
	return srcLeft, dstLeft, ok
}

// RPOPLPUSH source destination
func cmdRPopLPush(c *executor.Ctx) { lmove(c, false, true) }

func lmove(c *executor.Ctx, srcLeft, dstLeft bool) {
	v, found, err := c.DB.LMove(c.Args[1], c.Args[2], srcLeft, dstLeft)
	if c.OK(err) {
		c.BulkOrNull(v, found)
	}
}

// LMPOP numkeys key [key ...] LEFT | RIGHT [COUNT count]
func cmdLMPop(c *executor.Ctx) {
	n, ok := num.ParseInt(c.Args[1])
	if !ok || n <= 0 {
		c.ErrorString("ERR numkeys should be greater than 0")
		return
	}
	if n > int64(len(c.Args)-3) {
		c.ErrorString(executor.ErrSyntax)
		return
	}
	keys := c.Args[2 : 2+n]
	i := 2 + int(n)
	left, ok := side(c, i)
	if !ok {
		return
	}
	count := int64(1)
	switch rest := len(c.Args) - i - 1; {
	case rest == 0:
	case rest == 2 && c.Is(i+1, "count"):
		if count, ok = num.ParseInt(c.Args[i+2]); !ok || count <= 0 {
			c.ErrorString("ERR count should be greater than 0")
			return
		}
	default:
		c.ErrorString(executor.ErrSyntax)
		return
	}
	for _, key := range keys {
		values, err := c.DB.Pop(key, left, count)
		if !c.OK(err) {
			return
		}
		if values != nil {
			c.W.Array(2)
			c.W.Bulk(key)
			c.W.Array(len(values))
			for _, v := range values {
				c.W.Bulk(v)
			}
			return
		}
	}
	c.W.NullArray()
}
