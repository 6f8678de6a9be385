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
		&executor.Command{Name: "zadd", Arity: -4, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdZAdd,
			Events: &executor.KeyEvents{Class: config.NotifyZset, Pick: pickWord("incr", "zincr", "zadd"), Shape: executor.OnEach}},
		&executor.Command{Name: "zincrby", Arity: 4, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdZIncrBy,
			Events: &executor.KeyEvents{Class: config.NotifyZset, Event: "zincr", Shape: executor.OnEach}},
		&executor.Command{Name: "zrem", Arity: -3, Flags: executor.Write | executor.Fast | executor.NoDBSizeCheck, FirstKey: 1, LastKey: 1, Handler: cmdZRem,
			Events: &executor.KeyEvents{Class: config.NotifyZset, Event: "zrem", Shape: executor.OnEachThenDel}},
		&executor.Command{Name: "zcard", Arity: 2, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdZCard},
		&executor.Command{Name: "zscore", Arity: 3, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdZScore},
		&executor.Command{Name: "zmscore", Arity: -3, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdZMScore},
		&executor.Command{Name: "zrank", Arity: -3, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdZRank},
		&executor.Command{Name: "zrevrank", Arity: -3, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdZRevRank},
		&executor.Command{Name: "zcount", Arity: 4, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdZCount},
		&executor.Command{Name: "zlexcount", Arity: 4, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdZLexCount},
		&executor.Command{Name: "zrange", Arity: -4, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdZRange},
		&executor.Command{Name: "zrevrange", Arity: -4, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdZRevRange},
		&executor.Command{Name: "zrangebyscore", Arity: -4, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdZRangeByScore},
		&executor.Command{Name: "zrevrangebyscore", Arity: -4, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdZRevRangeByScore},
		&executor.Command{Name: "zrangebylex", Arity: -4, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdZRangeByLex},
		&executor.Command{Name: "zrevrangebylex", Arity: -4, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdZRevRangeByLex},
		&executor.Command{Name: "zrangestore", Arity: -5, Flags: executor.Write, FirstKey: 1, LastKey: 2, Handler: cmdZRangeStore,
			Events: &executor.KeyEvents{Class: config.NotifyZset, Event: "zrangestore", Shape: executor.OnStore, Dest: executor.DestFirstKey}},
		&executor.Command{Name: "zremrangebyrank", Arity: 4, Flags: executor.Write | executor.NoDBSizeCheck, FirstKey: 1, LastKey: 1, Handler: cmdZRemRangeByRank,
			Events: &executor.KeyEvents{Class: config.NotifyZset, Event: "zremrangebyrank", Shape: executor.OnEachThenDel}},
		&executor.Command{Name: "zremrangebyscore", Arity: 4, Flags: executor.Write | executor.NoDBSizeCheck, FirstKey: 1, LastKey: 1, Handler: cmdZRemRangeByScore,
			Events: &executor.KeyEvents{Class: config.NotifyZset, Event: "zremrangebyscore", Shape: executor.OnEachThenDel}},
		&executor.Command{Name: "zremrangebylex", Arity: 4, Flags: executor.Write | executor.NoDBSizeCheck, FirstKey: 1, LastKey: 1, Handler: cmdZRemRangeByLex,
			Events: &executor.KeyEvents{Class: config.NotifyZset, Event: "zremrangebylex", Shape: executor.OnEachThenDel}},
		&executor.Command{Name: "zscan", Arity: -3, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdZScan},
	)
}

// ZADD key [NX | XX] [GT | LT] [CH] [INCR] score member [score member ...]
func cmdZAdd(c *executor.Ctx) {
	var f storage.ZAddFlags
	ch := false
	i := 2
	for ; i < len(c.Args); i++ {
		switch {
		case c.Is(i, "nx"):
			f.NX = true
		case c.Is(i, "xx"):
			f.XX = true
		case c.Is(i, "gt"):
			f.GT = true
		case c.Is(i, "lt"):
			f.LT = true
		case c.Is(i, "ch"):
			ch = true
		case c.Is(i, "incr"):
			f.Incr = true
		default:
			goto pairs
		}
	}
pairs:
	n := len(c.Args) - i
	switch {
	case n == 0 || n%2 != 0:
		c.ErrorString(executor.ErrSyntax)
		return
	case f.NX && f.XX:
		c.ErrorString("ERR XX and NX options at the same time are not compatible")
		return
	case (f.GT && f.NX) || (f.LT && f.NX) || (f.GT && f.LT):
		c.ErrorString("ERR GT, LT, and/or NX options at the same time are not compatible")
		return
	case f.Incr && n > 2:
		c.ErrorString("ERR INCR option supports a single increment-element pair")
		return
	}
	scores := make([]float64, 0, n/2)
	members := make([][]byte, 0, n/2)
	for j := i; j < len(c.Args); j += 2 {
		s, ok := c.Float(j)
		if !ok {
			return
		}
		scores, members = append(scores, s), append(members, c.Args[j+1])
	}
	res, err := c.DB.ZAdd(c.Args[1], f, scores, members)
	if !c.OK(err) {
		return
	}
	switch {
	case f.Incr && res.Applied:
		c.W.Double(res.Score)
	case f.Incr:
		c.W.Null()
	case ch:
		c.W.Int(res.Added + res.Changed)
	default:
		c.W.Int(res.Added)
	}
}

// ZINCRBY key increment member
func cmdZIncrBy(c *executor.Ctx) {
	incr, ok := c.Float(2)
	if !ok {
		return
	}
	res, err := c.DB.ZAdd(c.Args[1], storage.ZAddFlags{Incr: true}, []float64{incr}, c.Args[3:4])
	if c.OK(err) {
		c.W.Double(res.Score)
	}
}

// ZREM key member [member ...]
func cmdZRem(c *executor.Ctx) {
	n, err := c.DB.ZRem(c.Args[1], c.Args[2:])
	if c.OK(err) {
		c.W.Int(n)
	}
}

// ZCARD key
func cmdZCard(c *executor.Ctx) { replyLen(c, metadata.TypeZSet) }

// ZSCORE key member
func cmdZScore(c *executor.Ctx) {
	scores, found, err := c.DB.ZMScore(c.Args[1], c.Args[2:3])
	if !c.OK(err) {
		return
	}
	if !found[0] {
		c.W.Null()
		return
	}
	c.W.Double(scores[0])
}

// ZMSCORE key member [member ...]
func cmdZMScore(c *executor.Ctx) {
	scores, found, err := c.DB.ZMScore(c.Args[1], c.Args[2:])
	if !c.OK(err) {
		return
	}
	c.W.Array(len(scores))
	for i, s := range scores {
		if found[i] {
			c.W.Double(s)
		} else {
			c.W.Null()
		}
	}
}

// ZRANK key member [WITHSCORE]
func cmdZRank(c *executor.Ctx) { zrank(c, false) }

// ZREVRANK key member [WITHSCORE]
func cmdZRevRank(c *executor.Ctx) { zrank(c, true) }

func zrank(c *executor.Ctx, rev bool) {
	withScore := false
	switch {
	case len(c.Args) == 4 && c.Is(3, "withscore"):
		withScore = true
	case len(c.Args) > 3:
		c.ErrorString(executor.ErrSyntax)
		return
	}
	rank, score, found, err := c.DB.ZRank(c.Args[1], c.Args[2], rev)
	switch {
	case !c.OK(err):
	case !found && withScore:
		c.W.NullArray()
	case !found:
		c.W.Null()
	case withScore:
		c.W.Array(2)
		c.W.Int(rank)
		c.W.Double(score)
	default:
		c.W.Int(rank)
	}
}

// parseScoreBound reads a score range end: "(1.5" is exclusive, "-inf" and
// "+inf" are allowed.
func parseScoreBound(arg []byte) (storage.ScoreBound, bool) {
	var b storage.ScoreBound
	if len(arg) > 0 && arg[0] == '(' {
		b.Exclusive, arg = true, arg[1:]
	}
	v, ok := num.ParseFloat(arg)
	b.Value = v
	return b, ok
}

// parseRangeEnds fills r's bounds from the arguments at lo and hi (given
// as min then max).
func parseRangeEnds(c *executor.Ctx, r *storage.ZRange, lo, hi int) bool {
	switch r.By {
	case storage.ByScore:
		var ok1, ok2 bool
		r.Min, ok1 = parseScoreBound(c.Args[lo])
		r.Max, ok2 = parseScoreBound(c.Args[hi])
		if !ok1 || !ok2 {
			c.ErrorString("ERR min or max is not a float")
			return false
		}
	case storage.ByLex:
		var ok1, ok2 bool
		r.LexMin, ok1 = parseLexBound(c.Args[lo])
		r.LexMax, ok2 = parseLexBound(c.Args[hi])
		if !ok1 || !ok2 {
			c.ErrorString("ERR min or max not valid string range item")
			return false
		}
	default:
		var ok bool
		r.Start, r.Stop, ok = intPair(c, lo, hi)
		return ok
	}
	return true
}

// zrangeSpec parses the arguments of ZRANGE and its variants. key is the
// index of the source key; by and rev are preset by the legacy commands
// (auto: the options decide), as in Redis's zrangeGenericCommand.
func zrangeSpec(c *executor.Ctx, key int, by storage.ZRangeBy, rev, auto bool) (r storage.ZRange, withScores, ok bool) {
	r = storage.ZRange{By: by, Rev: rev, Count: -1}
	limitGiven := false
	byGiven, revGiven := !auto, !auto
	for j := key + 3; j < len(c.Args); j++ {
		switch {
		case c.Is(j, "withscores"):
			withScores = true
		case c.Is(j, "limit") && len(c.Args)-j-1 >= 2:
			var ok1, ok2 bool
			r.Offset, ok1 = c.Int(j + 1)
			if !ok1 {
				return r, false, false
			}
			r.Count, ok2 = c.Int(j + 2)
			if !ok2 {
				return r, false, false
			}
			limitGiven = r.Count != -1
			j += 2
		case !revGiven && c.Is(j, "rev"):
			r.Rev, revGiven = true, true
		case !byGiven && c.Is(j, "bylex"):
			r.By, byGiven = storage.ByLex, true
		case !byGiven && c.Is(j, "byscore"):
			r.By, byGiven = storage.ByScore, true
		default:
			c.ErrorString(executor.ErrSyntax)
			return r, false, false
		}
	}
	if limitGiven && r.By == storage.ByRank {
		c.ErrorString("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
		return r, false, false
	}
	if withScores && r.By == storage.ByLex {
		c.ErrorString("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
		return r, false, false
	}
	lo, hi := key+1, key+2
	if r.Rev && r.By != storage.ByRank {
		lo, hi = hi, lo // the range is given as max, min
	}
	if !parseRangeEnds(c, &r, lo, hi) {
		return r, false, false
	}
	if r.By != storage.ByRank && r.Offset < 0 {
		r.Count = 0 // Redis returns nothing for a negative offset
	}
	return r, withScores, true
}

// zrangeReply streams range r of the key at argument 1.
func zrangeReply(c *executor.Ctx, by storage.ZRangeBy, rev, auto bool) {
	r, withScores, ok := zrangeSpec(c, 1, by, rev, auto)
	if !ok {
		return
	}
	factor := 1
	if withScores && c.W.Protocol() == 2 {
		factor = 2 // flat member, score pairs
	}
	out := newReplyStream(c, factor)
	out.end(c.DB.ZRangeWalk(c.Args[1], r, func(total int64, m []byte, s float64) bool {
		out.begin(total)
		return out.wrote(writeScored(c, m, s, withScores))
	}))
}

// writeScored writes a member (and its score) of a range reply and returns
// how many array items it added: pairs nest in RESP3 and lie flat in RESP2.
func writeScored(c *executor.Ctx, m []byte, s float64, withScores bool) int {
	switch {
	case !withScores:
		c.W.Bulk(m)
		return 1
	case c.W.Protocol() == 3:
		c.W.Array(2)
		c.W.Bulk(m)
		c.W.Double(s)
		return 1
	default:
		c.W.Bulk(m)
		c.W.Double(s)
		return 2
	}
}

// ZRANGE key start stop [BYSCORE | BYLEX] [REV] [LIMIT offset count] [WITHSCORES]
func cmdZRange(c *executor.Ctx) { zrangeReply(c, storage.ByRank, false, true) }

// ZREVRANGE key start stop [WITHSCORES]
func cmdZRevRange(c *executor.Ctx) { zrangeReply(c, storage.ByRank, true, false) }

// ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]
func cmdZRangeByScore(c *executor.Ctx) { zrangeReply(c, storage.ByScore, false, false) }

// ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT offset count]
func cmdZRevRangeByScore(c *executor.Ctx) { zrangeReply(c, storage.ByScore, true, false) }

// ZRANGEBYLEX key min max [LIMIT offset count]
func cmdZRangeByLex(c *executor.Ctx) { zrangeReply(c, storage.ByLex, false, false) }

// ZREVRANGEBYLEX key max min [LIMIT offset count]
func cmdZRevRangeByLex(c *executor.Ctx) { zrangeReply(c, storage.ByLex, true, false) }

// ZRANGESTORE dst src min max [BYSCORE | BYLEX] [REV] [LIMIT offset count]
func cmdZRangeStore(c *executor.Ctx) {
	r, withScores, ok := zrangeSpec(c, 2, storage.ByRank, false, true)
	if !ok {
		return
	}
	if withScores {
		c.ErrorString(executor.ErrSyntax)
		return
	}
	n, err := c.DB.ZRangeStore(c.Args[1], c.Args[2], r)
	if c.OK(err) {
		c.W.Int(n)
	}
}

// ZCOUNT key min max
func cmdZCount(c *executor.Ctx) { zcount(c, storage.ByScore) }

// ZLEXCOUNT key min max
func cmdZLexCount(c *executor.Ctx) { zcount(c, storage.ByLex) }

// keyRange parses the "key min max" range of ZCOUNT, ZLEXCOUNT and the
// ZREMRANGEBY* commands.
func keyRange(c *executor.Ctx, by storage.ZRangeBy) (storage.ZRange, bool) {
	r := storage.ZRange{By: by, Count: -1}
	return r, parseRangeEnds(c, &r, 2, 3)
}

func zcount(c *executor.Ctx, by storage.ZRangeBy) {
	r, ok := keyRange(c, by)
	if !ok {
		return
	}
	n, err := c.DB.ZCount(c.Args[1], r)
	if c.OK(err) {
		c.W.Int(n)
	}
}

// ZREMRANGEBYRANK key start stop
func cmdZRemRangeByRank(c *executor.Ctx) { zremRange(c, storage.ByRank) }

// ZREMRANGEBYSCORE key min max
func cmdZRemRangeByScore(c *executor.Ctx) { zremRange(c, storage.ByScore) }

// ZREMRANGEBYLEX key min max
func cmdZRemRangeByLex(c *executor.Ctx) { zremRange(c, storage.ByLex) }

func zremRange(c *executor.Ctx, by storage.ZRangeBy) {
	r, ok := keyRange(c, by)
	if !ok {
		return
	}
	n, err := c.DB.ZRemRange(c.Args[1], r)
	if c.OK(err) {
		c.W.Int(n)
	}
}

// ZSCAN key cursor [MATCH pattern] [COUNT count]
func cmdZScan(c *executor.Ctx) {
	scanElements(c, metadata.TypeZSet, func(e storage.Element, _ bool) {
		c.W.Bulk(e.Sub)
		s, _ := metadata.DecodeScore(e.Value)
		c.W.Bulk(formatScore(s))
	})
}

// formatScore renders a score the way Redis prints it in bulk strings.
func formatScore(s float64) []byte {
	var tmp [32]byte
	return num.AppendDouble(tmp[:0], s)
}
