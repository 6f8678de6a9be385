package commands

import (
	"strings"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/storage"
)

func init() {
	executor.Register(
		&executor.Command{Name: "zpopmin", Arity: -2, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdZPopMin,
			Events: &executor.KeyEvents{Class: config.NotifyZset, Event: "zpopmin", Shape: executor.OnEachThenDel}},
		&executor.Command{Name: "zpopmax", Arity: -2, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdZPopMax,
			Events: &executor.KeyEvents{Class: config.NotifyZset, Event: "zpopmax", Shape: executor.OnEachThenDel}},
		&executor.Command{Name: "zmpop", Arity: -4, Flags: executor.Write, Keys: numkeysKeys(1), Handler: cmdZMPop,
			Events: &executor.KeyEvents{Class: config.NotifyZset, Pick: pickWord("min", "zpopmin", "zpopmax"), Shape: executor.OnEachThenDel}},
		&executor.Command{Name: "zrandmember", Arity: -2, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdZRandMember},
		&executor.Command{Name: "zunion", Arity: -3, Flags: executor.ReadOnly, Keys: numkeysKeys(1), Handler: cmdZUnion},
		&executor.Command{Name: "zinter", Arity: -3, Flags: executor.ReadOnly, Keys: numkeysKeys(1), Handler: cmdZInter},
		&executor.Command{Name: "zdiff", Arity: -3, Flags: executor.ReadOnly, Keys: numkeysKeys(1), Handler: cmdZDiff},
		&executor.Command{Name: "zunionstore", Arity: -4, Flags: executor.Write, Keys: storeKeys, Handler: cmdZUnionStore,
			Events: &executor.KeyEvents{Class: config.NotifyZset, Event: "zunionstore", Shape: executor.OnStore, Dest: executor.DestFirstKey}},
		&executor.Command{Name: "zinterstore", Arity: -4, Flags: executor.Write, Keys: storeKeys, Handler: cmdZInterStore,
			Events: &executor.KeyEvents{Class: config.NotifyZset, Event: "zinterstore", Shape: executor.OnStore, Dest: executor.DestFirstKey}},
		&executor.Command{Name: "zdiffstore", Arity: -4, Flags: executor.Write, Keys: storeKeys, Handler: cmdZDiffStore,
			Events: &executor.KeyEvents{Class: config.NotifyZset, Event: "zdiffstore", Shape: executor.OnStore, Dest: executor.DestFirstKey}},
		&executor.Command{Name: "zintercard", Arity: -3, Flags: executor.ReadOnly, Keys: numkeysKeys(1), Handler: cmdZInterCard},
	)
}

// storeKeys are the keys of ZUNIONSTORE-like commands: the destination and
// the numkeys sources after it.
func storeKeys(args [][]byte) [][]byte {
	return append([][]byte{args[1]}, numkeysKeys(2)(args)...)
}

// ZPOPMIN key [count]
func cmdZPopMin(c *executor.Ctx) { zpop(c, false) }

// ZPOPMAX key [count]
func cmdZPopMax(c *executor.Ctx) { zpop(c, true) }

func zpop(c *executor.Ctx, max bool) {
	count, ok := popCount(c, executor.ErrSyntax)
	if !ok {
		return
	}
	popped, err := c.DB.ZPop(c.Args[1], max, count)
	if !c.OK(err) {
		return
	}
	if len(c.Args) == 2 {
		// A single pop is a flat member, score pair in both protocols.
		c.W.Array(2 * len(popped))
		for _, m := range popped {
			c.W.Bulk(m.Member)
			c.W.Double(m.Score)
		}
		return
	}
	writeScoredList(c, popped, true, false)
}

// writeScoredList writes members (with scores: flat pairs in RESP2, nested
// in RESP3, or nested in both with alwaysNested, as ZMPOP does).
func writeScoredList(c *executor.Ctx, ms []storage.ScoredMember, withScores, alwaysNested bool) {
	switch {
	case !withScores:
		c.W.Array(len(ms))
		for _, m := range ms {
			c.W.Bulk(m.Member)
		}
	case alwaysNested || c.W.Protocol() == 3:
		c.W.Array(len(ms))
		for _, m := range ms {
			c.W.Array(2)
			c.W.Bulk(m.Member)
			c.W.Double(m.Score)
		}
	default:
		c.W.Array(2 * len(ms))
		for _, m := range ms {
			c.W.Bulk(m.Member)
			c.W.Double(m.Score)
		}
	}
}

// ZMPOP numkeys key [key ...] MIN | MAX [COUNT count]
func cmdZMPop(c *executor.Ctx) {
	n, ok := num.ParseInt(c.Args[1])
	if !ok || n <= 0 {
		c.ErrorString("ERR numkeys should be greater than 0")
		return
	}
	if n > int64(len(c.Args)-3) {
		c.ErrorString(executor.ErrSyntax)
		return
	}
	i := 2 + int(n)
	var max bool
	switch {
	case c.Is(i, "min"):
	case c.Is(i, "max"):
		max = true
	default:
		c.ErrorString(executor.ErrSyntax)
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
	for _, key := range c.Args[2:i] {
		popped, err := c.DB.ZPop(key, max, count)
		if !c.OK(err) {
			return
		}
		if len(popped) > 0 {
			c.W.Array(2)
			c.W.Bulk(key)
			writeScoredList(c, popped, true, true)
			return
		}
	}
	c.W.NullArray()
}

// ZRANDMEMBER key [count [WITHSCORES]]
func cmdZRandMember(c *executor.Ctx) {
	if len(c.Args) == 2 {
		randomOne(c, metadata.TypeZSet)
		return
	}
	count, ok := randomCountArg(c)
	if !ok {
		return
	}
	withScores := len(c.Args) == 4 && c.Is(3, "withscores")
	if len(c.Args) > 3 && !withScores {
		c.ErrorString(executor.ErrSyntax)
		return
	}
	distinct, ok := randomCount(c, &count)
	if !ok {
		return
	}
	factor := 1
	if withScores && c.W.Protocol() == 2 {
		factor = 2 // flat member, score pairs
	}
	randomReply(c, metadata.TypeZSet, count, distinct, factor, func(e storage.Element) {
		s, _ := metadata.DecodeScore(e.Value)
		writeScored(c, e.Sub, s, withScores)
	})
}

// combineArgs are the parsed arguments of ZUNION, ZINTER, ZDIFF and their
// STORE forms.
type combineArgs struct {
	keys       [][]byte
	weights    []float64
	agg        storage.Aggregate
	withScores bool
	limit      int64 // ZINTERCARD
}

// cardinality is parseCombine's pseudo-operation for ZINTERCARD, which
// takes LIMIT instead of WEIGHTS, AGGREGATE and WITHSCORES.
const cardinality storage.SetOp = -1

// parseCombine reads "numkeys key [key ...] [WEIGHTS w ...] [AGGREGATE
// SUM|MIN|MAX] [WITHSCORES]" from argument at; ZDIFF takes only WITHSCORES,
// the STORE forms no WITHSCORES.
func parseCombine(c *executor.Ctx, at int, op storage.SetOp, store bool) (combineArgs, bool) {
	var a combineArgs
	n, ok := c.Int(at)
	if !ok {
		return a, false
	}
	if n < 1 {
		c.ErrorString("ERR at least 1 input key is needed for '" + c.Cmd.Name + "' command")
		return a, false
	}
	if n > int64(len(c.Args)-at-1) {
		c.ErrorString(executor.ErrSyntax)
		return a, false
	}
	a.keys = c.Args[at+1 : at+1+int(n)]
	// Redis checks the sources' types before the remaining options.
	if !c.OK(c.DB.ZCheckSources(a.keys)) {
		return a, false
	}
	for i := at + 1 + int(n); i < len(c.Args); i++ {
		left := len(c.Args) - i - 1
		switch {
		case op != storage.SetDiff && op != cardinality && c.Is(i, "weights") && left >= int(n):
			a.weights = make([]float64, n)
			for j := range a.weights {
				w, ok := num.ParseFloat(c.Args[i+1+j])
				if !ok {
					c.ErrorString("ERR weight value is not a float")
					return a, false
				}
				a.weights[j] = w
			}
			i += int(n)
		case op != storage.SetDiff && op != cardinality && c.Is(i, "aggregate") && left >= 1:
			switch strings.ToLower(string(c.Args[i+1])) {
			case "sum":
				a.agg = storage.AggSum
			case "min":
				a.agg = storage.AggMin
			case "max":
				a.agg = storage.AggMax
			default:
				c.ErrorString(executor.ErrSyntax)
				return a, false
			}
			i++
		case !store && op != cardinality && c.Is(i, "withscores"):
			a.withScores = true
		case op == cardinality && c.Is(i, "limit") && left >= 1:
			l, ok := num.ParseInt(c.Args[i+1])
			if !ok || l < 0 {
				c.ErrorString("ERR LIMIT can't be negative")
				return a, false
			}
			a.limit = l
			i++
		default:
			c.ErrorString(executor.ErrSyntax)
			return a, false
		}
	}
	return a, true
}

// ZUNION numkeys key [key ...] [WEIGHTS weight ...] [AGGREGATE SUM | MIN | MAX] [WITHSCORES]
func cmdZUnion(c *executor.Ctx) { zcombine(c, storage.SetUnion) }

// ZINTER numkeys key [key ...] [WEIGHTS weight ...] [AGGREGATE SUM | MIN | MAX] [WITHSCORES]
func cmdZInter(c *executor.Ctx) { zcombine(c, storage.SetInter) }

// ZDIFF numkeys key [key ...] [WITHSCORES]
func cmdZDiff(c *executor.Ctx) { zcombine(c, storage.SetDiff) }

func zcombine(c *executor.Ctx, op storage.SetOp) {
	a, ok := parseCombine(c, 1, op, false)
	if !ok {
		return
	}
	ms, err := c.DB.ZCombine(op, a.keys, a.weights, a.agg, 0)
	if c.OK(err) {
		writeScoredList(c, ms, a.withScores, false)
	}
}

// ZUNIONSTORE destination numkeys key [key ...] [WEIGHTS weight ...] [AGGREGATE SUM | MIN | MAX]
func cmdZUnionStore(c *executor.Ctx) { zcombineStore(c, storage.SetUnion) }

// ZINTERSTORE destination numkeys key [key ...] [WEIGHTS weight ...] [AGGREGATE SUM | MIN | MAX]
func cmdZInterStore(c *executor.Ctx) { zcombineStore(c, storage.SetInter) }

// ZDIFFSTORE destination numkeys key [key ...]
func cmdZDiffStore(c *executor.Ctx) { zcombineStore(c, storage.SetDiff) }

func zcombineStore(c *executor.Ctx, op storage.SetOp) {
	a, ok := parseCombine(c, 2, op, true)
	if !ok {
		return
	}
	ms, err := c.DB.ZCombine(op, a.keys, a.weights, a.agg, 0)
	if !c.OK(err) {
		return
	}
	n, err := c.DB.ZStore(c.Args[1], ms)
	if c.OK(err) {
		c.W.Int(n)
	}
}

// ZINTERCARD numkeys key [key ...] [LIMIT limit]
func cmdZInterCard(c *executor.Ctx) {
	a, ok := parseCombine(c, 1, cardinality, true)
	if !ok {
		return
	}
	ms, err := c.DB.ZCombine(storage.SetInter, a.keys, nil, storage.AggSum, a.limit)
	if c.OK(err) {
		c.W.Int(int64(len(ms)))
	}
}
