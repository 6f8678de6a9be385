package commands

import (
	"math"
	"strconv"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/types/sortedint"
)

// Kvrocks's sortedint commands (types/sortedint), with its replies and
// error texts: arguments are checked before the key is read, a key of
// another type is "ERR Invalid argument: WRONGTYPE ...". The flags and key
// positions are those Kvrocks's COMMAND INFO reports. SIADD and SIREM
// publish "siadd" and "sirem" in the module class (d), as the events of
// the types Redis has only through modules (JSON's) are.

func init() {
	executor.Register(
		&executor.Command{Name: "siadd", Arity: -3, Flags: executor.Write | executor.KvrocksOnly, FirstKey: 1, LastKey: 1, Handler: cmdSIAdd,
			Events: &executor.KeyEvents{Class: config.NotifyModule, Event: "siadd", Shape: executor.OnEach},
			Meta: siMeta("RW", "insert", "Adds ids to a sortedint, creating it, and returns how many are new", "O(N) where N is the number of ids",
				docKey("key", 0), multiple(docID("id")))},
		&executor.Command{Name: "sirem", Arity: -3, Flags: executor.Write | executor.NoDBSizeCheck | executor.KvrocksOnly, FirstKey: 1, LastKey: 1, Handler: cmdSIRem,
			Events: &executor.KeyEvents{Class: config.NotifyModule, Event: "sirem", Shape: executor.OnEachThenDel},
			Meta: siMeta("RW", "delete", "Removes ids from a sortedint and returns how many it held", "O(N) where N is the number of ids",
				docKey("key", 0), multiple(docID("id")))},
		&executor.Command{Name: "sicard", Arity: 2, Flags: executor.ReadOnly | executor.KvrocksOnly, FirstKey: 1, LastKey: 1, Handler: cmdSICard,
			Meta: siMeta("RO", "", "Returns the number of ids of a sortedint", "O(1)", docKey("key", 0))},
		&executor.Command{Name: "siexists", Arity: -3, Flags: executor.ReadOnly | executor.KvrocksOnly, FirstKey: 1, LastKey: 1, Handler: cmdSIExists,
			Meta: siMeta("RO", "", "Returns 1 or 0 for each id: whether the sortedint holds it", "O(N) where N is the number of ids",
				docKey("key", 0), multiple(docID("id")))},
		&executor.Command{Name: "sirange", Arity: -4, Flags: executor.ReadOnly | executor.KvrocksOnly, FirstKey: 1, LastKey: 1, Handler: cmdSIRange,
			Meta: siMeta("RO", "access", "Returns the ids of a sortedint above a cursor, ascending, by offset and limit", siRangeComplexity, siRangeDoc()...)},
		&executor.Command{Name: "sirevrange", Arity: -4, Flags: executor.ReadOnly | executor.KvrocksOnly, FirstKey: 1, LastKey: 1, Handler: cmdSIRevRange,
			Meta: siMeta("RO", "access", "Returns the ids of a sortedint below a cursor, descending, by offset and limit", siRangeComplexity, siRangeDoc()...)},
		&executor.Command{Name: "sirangebyvalue", Arity: -4, Flags: executor.ReadOnly | executor.KvrocksOnly, FirstKey: 1, LastKey: 1, Handler: cmdSIRangeByValue,
			Meta: siMeta("RO", "access", "Returns the ids of a sortedint between min and max, ascending", siRangeComplexity, siValueRangeDoc("min", "max")...)},
		&executor.Command{Name: "sirevrangebyvalue", Arity: -4, Flags: executor.ReadOnly | executor.KvrocksOnly, FirstKey: 1, LastKey: 1, Handler: cmdSIRevRangeByValue,
			Meta: siMeta("RO", "access", "Returns the ids of a sortedint between max and min, descending", siRangeComplexity, siValueRangeDoc("max", "min")...)},
	)
}

const siRangeComplexity = "O(log(N)+M) where M is the number of ids skipped and returned"

// siMeta describes a sortedint command for COMMAND: one key, the first
// argument, with the access flags given (access "" for none).
func siMeta(rw, access, summary, complexity string, args ...any) *executor.Meta {
	flags := []string{rw}
	if access != "" {
		flags = append(flags, access)
	}
	return &executor.Meta{
		KeySpecs: []executor.KeySpec{{Flags: flags, BeginSearch: "index", Index: 1, FindKeys: "range", LastKey: 0, KeyStep: 1}},
		Doc:      doc("summary", summary, "group", "sortedint", "complexity", complexity, "arguments", docArgs(args...)),
	}
}

// docID documents an id argument: an unsigned 64-bit integer.
func docID(name string) []any { return doc("name", name, "type", "integer") }

func siRangeDoc() []any {
	return []any{docKey("key", 0), docID("offset"), docID("limit"),
		optional(append(doc("name", "cursor", "type", "block", "token", "CURSOR"), "$arguments", docArgs(docID("id"))))}
}

func siValueRangeDoc(from, to string) []any {
	return []any{docKey("key", 0), docString(from), docString(to),
		optional(append(doc("name", "limit", "type", "block", "token", "LIMIT"), "$arguments", docArgs(
			doc("name", "offset", "type", "integer"), doc("name", "count", "type", "integer"))))}
}

// siOK is KvrocksOK with the sortedint argument errors in Kvrocks's words.
func siOK(c *executor.Ctx, err error) bool {
	if text, ok := sortedint.ReplyText(err); ok {
		c.ErrorString(text)
		return false
	}
	return c.KvrocksOK(err)
}

// SIADD key id [id ...]
func cmdSIAdd(c *executor.Ctx) {
	ids, err := sortedint.ParseIDs(c.Args[2:])
	if !siOK(c, err) {
		return
	}
	n, err := sortedint.Add(c.DB, c.Args[1], ids)
	if siOK(c, err) {
		c.W.Int(int64(n))
	}
}

// SIREM key id [id ...]
func cmdSIRem(c *executor.Ctx) {
	ids, err := sortedint.ParseIDs(c.Args[2:])
	if !siOK(c, err) {
		return
	}
	n, err := sortedint.Remove(c.DB, c.Args[1], ids)
	if siOK(c, err) {
		c.W.Int(int64(n))
	}
}

// SICARD key
func cmdSICard(c *executor.Ctx) {
	n, err := sortedint.Card(c.DB, c.Args[1])
	switch {
	case !siOK(c, err):
	case n > math.MaxInt64:
		// A size Kvrocks wrapped around below 0 (it counts an id named
		// twice in one SIREM twice), which it replies unsigned: an
		// integer reply no Sink method writes.
		c.W.RawLine(":" + strconv.FormatUint(n, 10))
	default:
		c.W.Int(int64(n))
	}
}

// SIEXISTS key id [id ...]
func cmdSIExists(c *executor.Ctx) {
	ids, err := sortedint.ParseIDs(c.Args[2:])
	if !siOK(c, err) {
		return
	}
	found, err := sortedint.Exists(c.DB, c.Args[1], ids)
	if !siOK(c, err) {
		return
	}
	c.W.Array(len(found))
	for _, f := range found {
		c.IntBool(f)
	}
}

// SIRANGE key offset limit [CURSOR id]
func cmdSIRange(c *executor.Ctx) { siRange(c, false) }

// SIREVRANGE key offset limit [CURSOR id]
func cmdSIRevRange(c *executor.Ctx) { siRange(c, true) }

func siRange(c *executor.Ctx, reverse bool) {
	q, err := sortedint.ParseRange(c.Args[2:], reverse)
	if siOK(c, err) {
		replyIDs(c, func(emit func(uint64) bool) error { return q.Each(c.DB, c.Args[1], emit) })
	}
}

// SIRANGEBYVALUE key min max [LIMIT offset count]
func cmdSIRangeByValue(c *executor.Ctx) { siRangeByValue(c, false) }

// SIREVRANGEBYVALUE key max min [LIMIT offset count]
func cmdSIRevRangeByValue(c *executor.Ctx) { siRangeByValue(c, true) }

func siRangeByValue(c *executor.Ctx, reverse bool) {
	q, err := sortedint.ParseValueRange(c.Args[2:], reverse)
	if siOK(c, err) {
		replyIDs(c, func(emit func(uint64) bool) error { return q.Each(c.DB, c.Args[1], emit) })
	}
}

// replyIDs replies the ids each emits as an array of bulk strings of
// their decimals, as they come; the error alone if it fails.
func replyIDs(c *executor.Ctx, each func(emit func(uint64) bool) error) {
	d := c.W.DeferArray()
	n := 0
	var buf [20]byte
	err := each(func(id uint64) bool {
		c.W.Bulk(strconv.AppendUint(buf[:0], id, 10))
		n++
		return !c.W.Failed()
	})
	if err != nil {
		c.W.Abandon(d)
		siOK(c, err)
		return
	}
	c.W.Finish(d, n)
}
