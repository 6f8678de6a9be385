package commands

import (
	"math"

	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/reply"
	"github.com/basaltdb/basalt/storage"
)

// Replies and arguments the collection families (hash, set, sorted set,
// list) share: lengths, SCAN-like walks, random members and lex bounds.

// replyLen answers HLEN, SCARD, ZCARD and LLEN.
func replyLen(c *executor.Ctx, t metadata.Type) {
	n, err := c.DB.Len(c.Args[1], t)
	if c.OK(err) {
		c.W.Int(n)
	}
}

// scanElements implements HSCAN, SSCAN and ZSCAN; write renders one
// element: the member, and its value or score unless a set's or NOVALUES.
func scanElements(c *executor.Ctx, t metadata.Type, write func(e storage.Element, noValues bool)) {
	o, ok := parseScan(c, 2, false, t == metadata.TypeHash)
	if !ok {
		return
	}
	scope := c.DB.Namespace() + "\x00" + string(c.Args[1])
	from, ok := resumeFrom(c, scope, o.cursor)
	if !ok {
		return
	}
	elems, next, err := c.DB.ScanElements(c.Args[1], t, from, o.match, o.count)
	if !c.OK(err) {
		return
	}
	// Members alone, or pairs: the length is known before the first, so
	// a step of COUNT 1048576 can be sent while it is written.
	perElement := 2
	if t == metadata.TypeSet || o.noValues {
		perElement = 1
	}
	c.W.Array(2)
	c.W.BulkString(nextCursor(c, scope, next))
	c.W.Array(len(elems) * perElement)
	for _, e := range elems {
		if c.W.Failed() {
			return
		}
		write(e, o.noValues)
	}
}

// finishOrError completes a deferred reply, or replaces it by err's reply.
func finishOrError(c *executor.Ctx, d reply.Deferred, n int, err error) {
	if err != nil {
		c.W.Abandon(d)
		c.Error(err)
		return
	}
	c.W.Finish(d, n)
}

// randomOne answers HRANDFIELD, SRANDMEMBER and ZRANDMEMBER without a
// count: one random element, or null.
func randomOne(c *executor.Ctx, t metadata.Type) {
	var one []byte
	found := false
	err := c.DB.RandomElements(c.Args[1], t, 1, true, func(_ int64, chunk []storage.Element) bool {
		one, found = chunk[0].Sub, true
		return false
	})
	if c.OK(err) {
		c.BulkOrNull(one, found)
	}
}

// randomCountArg parses the count of HRANDFIELD, SRANDMEMBER and
// ZRANDMEMBER (argument 2); LONG_MIN has Redis's own message.
func randomCountArg(c *executor.Ctx) (int64, bool) {
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
func randomCount(c *executor.Ctx, count *int64) (distinct, ok bool) {
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
func randomReply(c *executor.Ctx, t metadata.Type, count int64, distinct bool, factor int, write func(e storage.Element)) {
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

// parseLexBound reads a lex range end: "[a" inclusive, "(a" exclusive,
// "-" and "+" the infinities.
func parseLexBound(arg []byte) (storage.LexBound, bool) {
	switch {
	case len(arg) == 1 && arg[0] == '-':
		return storage.LexBound{Inf: -1}, true
	case len(arg) == 1 && arg[0] == '+':
		return storage.LexBound{Inf: 1}, true
	case len(arg) > 0 && arg[0] == '[':
		return storage.LexBound{Value: arg[1:]}, true
	case len(arg) > 0 && arg[0] == '(':
		return storage.LexBound{Value: arg[1:], Exclusive: true}, true
	}
	return storage.LexBound{}, false
}

// randomCountMax is the largest count HRANDFIELD, SRANDMEMBER and
// ZRANDMEMBER accept either way, LONG_MAX/2 as Redis allows WITHVALUES and
// WITHSCORES: twice the count still fits the reply's length.
const randomCountMax = math.MaxInt64 / 2
