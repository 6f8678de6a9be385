package commands

import (
	"math"
	"strconv"
	"time"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/reply"
)

func init() {
	executor.Register(
		&executor.Command{Name: "blpop", Arity: -3, Flags: executor.Write, FirstKey: 1, LastKey: -2, Handler: cmdBLPop,
			Events: &executor.KeyEvents{Class: config.NotifyList, Event: "lpop", Shape: executor.OnEachThenDel}},
		&executor.Command{Name: "brpop", Arity: -3, Flags: executor.Write, FirstKey: 1, LastKey: -2, Handler: cmdBRPop,
			Events: &executor.KeyEvents{Class: config.NotifyList, Event: "rpop", Shape: executor.OnEachThenDel}},
		&executor.Command{Name: "blmove", Arity: 6, Flags: executor.Write, FirstKey: 1, LastKey: 2, Handler: cmdBLMove,
			Events: &executor.KeyEvents{Class: config.NotifyList, Shape: executor.OnListMove}},
		&executor.Command{Name: "brpoplpush", Arity: 4, Flags: executor.Write, FirstKey: 1, LastKey: 2, Handler: cmdBRPopLPush,
			Events: &executor.KeyEvents{Class: config.NotifyList, Shape: executor.OnListMove}},
		&executor.Command{Name: "blmpop", Arity: -5, Flags: executor.Write, Keys: numkeysKeys(2), Handler: cmdBLMPop,
			Events: &executor.KeyEvents{Class: config.NotifyList, Pick: pickWord("left", "lpop", "rpop"), Shape: executor.OnEachThenDel}},
		&executor.Command{Name: "bzpopmin", Arity: -3, Flags: executor.Write, FirstKey: 1, LastKey: -2, Handler: cmdBZPopMin,
			Events: &executor.KeyEvents{Class: config.NotifyZset, Event: "zpopmin", Shape: executor.OnEachThenDel}},
		&executor.Command{Name: "bzpopmax", Arity: -3, Flags: executor.Write, FirstKey: 1, LastKey: -2, Handler: cmdBZPopMax,
			Events: &executor.KeyEvents{Class: config.NotifyZset, Event: "zpopmax", Shape: executor.OnEachThenDel}},
		&executor.Command{Name: "bzmpop", Arity: -5, Flags: executor.Write, Keys: numkeysKeys(2), Handler: cmdBZMPop,
			Events: &executor.KeyEvents{Class: config.NotifyZset, Pick: pickWord("min", "zpopmin", "zpopmax"), Shape: executor.OnEachThenDel}},
	)
}

// A blocking command first tries its non-blocking form. When that finds
// nothing, its session is registered as a waiter on the keys (still under
// their locks, so no write can slip between the try and the
// registration; session/blocking.go keeps the waiters) and its connection
// waits in Dispatch, outside every lock, for its timeout, CLIENT UNBLOCK,
// its own disconnection, or to be served.
//
// Waiters are served as Redis serves them: a write to a key someone waits
// on makes the key ready, and once the writing command (or EXEC) is done,
// and before its reply goes out, the writer's goroutine serves the ready
// keys (serveBlocked): for each key, its waiters in the order they
// blocked, each with its command restricted to that key, until one finds
// nothing. Stream readers do not compete as list poppers do: one that
// finds nothing ends the turn of the readers of its consumer group only,
// and each XREAD reads for itself; a blocked XREADGROUP whose stream or
// group is gone is answered with Redis 7.0's error, past any XREAD ahead
// of it. A waiter's own writes (BLMOVE's push) make more keys ready,
// served in the same round, so that a chain of BRPOPLPUSH runs to its end
// before the push that started it is answered. A key holding another type
// keeps its waiters waiting.

// BLPOP key [key ...] timeout
func cmdBLPop(c *executor.Ctx) { blpop(c, true) }

// BRPOP key [key ...] timeout
func cmdBRPop(c *executor.Ctx) { blpop(c, false) }

func blpop(c *executor.Ctx, left bool) {
	keys := c.Args[1 : len(c.Args)-1]
	blockingTry(c, keys, c.Args[len(c.Args)-1], metadata.TypeList, nullArray, lastArgServe, func() {
		for _, k := range keys {
			values, err := c.DB.Pop(k, left, 1)
			if !c.OK(err) {
				return
			}
			if len(values) > 0 {
				c.W.Array(2)
				c.W.Bulk(k)
				c.W.Bulk(values[0])
				return
			}
		}
	})
}

// BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout
func cmdBLMove(c *executor.Ctx) {
	if srcLeft, dstLeft, ok := sides(c, 3); ok {
		blockingTry(c, c.Args[1:2], c.Args[5], metadata.TypeList, nullBulk, sameServe, func() { lmove(c, srcLeft, dstLeft) })
	}
}

// BRPOPLPUSH source destination timeout
func cmdBRPopLPush(c *executor.Ctx) {
	blockingTry(c, c.Args[1:2], c.Args[3], metadata.TypeList, nullBulk, sameServe, func() { lmove(c, false, true) })
}

// BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count]
func cmdBLMPop(c *executor.Ctx) { blockingMPop(c, metadata.TypeList, cmdLMPop) }

// BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count]
func cmdBZMPop(c *executor.Ctx) { blockingMPop(c, metadata.TypeZSet, cmdZMPop) }

// blockingMPop runs LMPOP or ZMPOP on the arguments after the timeout.
func blockingMPop(c *executor.Ctx, t metadata.Type, handler func(*executor.Ctx)) {
	timeout, keys := c.Args[1], numkeysKeys(2)(c.Args)
	all := c.Args
	c.Args = append([][]byte{all[0]}, all[2:]...)
	defer func() { c.Args = all }()
	blockingTryAs(c, all, keys, timeout, t, nullArray, mpopServe, func() { handler(c) })
}

// The forms of a blocking command that a waiter is served with from the
// one key that became ready (its arguments are the waiter's own copy).

// lastArgServe: BLPOP, BRPOP, BZPOPMIN, BZPOPMAX: key timeout.
func lastArgServe(args [][]byte, key []byte) [][]byte {
	return [][]byte{args[0], key, args[len(args)-1]}
}

// sameServe: BLMOVE and BRPOPLPUSH have one source.
func sameServe(args [][]byte, _ []byte) [][]byte { return args }

// mpopServe: BLMPOP and BZMPOP: timeout 1 key and the rest.
func mpopServe(args [][]byte, key []byte) [][]byte {
	n, _ := strconv.Atoi(string(args[2]))
	out := [][]byte{args[0], args[1], []byte("1"), key}
	return append(out, args[3+n:]...)
}

// BZPOPMIN key [key ...] timeout
func cmdBZPopMin(c *executor.Ctx) { bzpop(c, false) }

// BZPOPMAX key [key ...] timeout
func cmdBZPopMax(c *executor.Ctx) { bzpop(c, true) }

func bzpop(c *executor.Ctx, max bool) {
	keys := c.Args[1 : len(c.Args)-1]
	blockingTry(c, keys, c.Args[len(c.Args)-1], metadata.TypeZSet, nullArray, lastArgServe, func() {
		for _, k := range keys {
			popped, err := c.DB.ZPop(k, max, 1)
			if !c.OK(err) {
				return
			}
			if len(popped) > 0 {
				c.W.Array(3)
				c.W.Bulk(k)
				c.W.Bulk(popped[0].Member)
				c.W.Double(popped[0].Score)
				return
			}
		}
	})
}

func nullArray(w reply.Sink) { w.NullArray() }
func nullBulk(w reply.Sink)  { w.Null() }

// blockingTry runs try, which replies with what it popped, a null, or
// nothing. On a real reply (or an error) the command is done; otherwise
// the client blocks on keys, in the one pool of the list and sorted set
// waiters, unless it runs inside EXEC, where a blocking command does not
// block and replies null at once. Serving a waiter (serveBlocked), it
// runs on keys[0], the key that became ready, only if that key holds a t,
// and never blocks: a null then means not served.
func blockingTry(c *executor.Ctx, keys [][]byte, timeoutArg []byte, t metadata.Type, null func(reply.Sink), serve func(args [][]byte, key []byte) [][]byte, try func()) {
	blockingTryAs(c, c.Args, keys, timeoutArg, t, null, serve, try)
}

// blockingTryAs is blockingTry for a handler that changed c.Args: args is
// the command as sent.
func blockingTryAs(c *executor.Ctx, args, keys [][]byte, timeoutArg []byte, t metadata.Type, null func(reply.Sink), serve func(args [][]byte, key []byte) [][]byte, try func()) {
	if timeout, ok := parseTimeout(c, timeoutArg); ok {
		blockingRun(c, args, keys, timeout, t, null, serve, "", try)
	}
}

// blockingRun is blockingTryAs once the timeout (0: none) is known, for
// a waiter of pool (session.Waiter). args is what the waiter runs again
// when a write comes while it gets ready to wait, and what serve makes
// its served form of.
func blockingRun(c *executor.Ctx, args, keys [][]byte, timeout time.Duration, t metadata.Type, null func(reply.Sink), serve func(args [][]byte, key []byte) [][]byte, pool string, try func()) {
	w := c.Session.Waiter()
	if w != nil && w.Serving() {
		if typ, err := c.DB.Type(keys[0]); err != nil || (typ != metadata.TypeNone && typ != t) {
			return
		}
		mark := c.W.Len()
		try()
		if c.W.NullSince(mark) {
			c.W.Truncate(mark)
		}
		return
	}
	mark := c.W.Len()
	try()
	if c.W.Len() > mark && !c.W.NullSince(mark) {
		if w != nil {
			// The waiter ran its command again itself (a write came
			// while it got ready to wait) and got its element.
			c.Env.Sessions.Blocking.Remove(w)
		}
		return
	}
	c.W.Truncate(mark)
	if c.InExec {
		null(c.W)
		return
	}
	c.Session.Block(args, keys, timeout, null, serve, pool)
}

// parseTimeout reads a timeout in seconds (decimals allowed, 0: none).
func parseTimeout(c *executor.Ctx, arg []byte) (time.Duration, bool) {
	f, err := strconv.ParseFloat(string(arg), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		c.ErrorString("ERR timeout is not a float or out of range")
		return 0, false
	}
	// Redis counts in milliseconds: beyond int64 its timeout wraps
	// negative, and it says so.
	if f < 0 || f*1000 >= math.MaxInt64 {
		c.ErrorString("ERR timeout is negative")
		return 0, false
	}
	if f*float64(time.Second) >= math.MaxInt64 {
		return 0, true // centuries: the same as forever
	}
	return time.Duration(f * float64(time.Second)), true
}
