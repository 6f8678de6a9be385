package commands

import (
	"time"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	ts "github.com/basaltdb/basalt/types/timeseries"
)

// The time series commands (TS.*): Kvrocks's type 13 (types/timeseries)
// with RedisTimeSeries's replies and error texts (REDIS-NEW.md §9), its
// arity errors included. The keyspace events are RedisTimeSeries's, in
// the module class but for TS.INCRBY and TS.DECRBY (generic, as it
// publishes them).

func init() {
	write := func(name string, arity int, handler func(*executor.Ctx), class config.NotifyClass, summary string, args ...[]any) *executor.Command {
		return &executor.Command{Name: name, Arity: arity, Flags: executor.Write, FirstKey: 1, LastKey: 1, Handler: handler,
			Events: &executor.KeyEvents{Class: class, Event: name, Shape: executor.OnEach},
			Meta:   tsMeta([]string{"RW", "update"}, 1, 0, 1, summary, append([][]any{docKey("key", 0)}, args...))}
	}
	read := func(name string, arity int, handler func(*executor.Ctx), summary string, args ...[]any) *executor.Command {
		return &executor.Command{Name: name, Arity: arity, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: handler,
			Meta: tsMeta([]string{"RO", "access"}, 1, 0, 1, summary, append([][]any{docKey("key", 0)}, args...))}
	}
	multi := func(name string, arity int, handler func(*executor.Ctx), summary string, args ...[]any) *executor.Command {
		return &executor.Command{Name: name, Arity: arity, Flags: executor.ReadOnly, Handler: handler,
			Meta: &executor.Meta{Doc: doc("summary", summary, "group", "module", "arguments", docArgs(anys(args)...))}}
	}
	rule := func(name string, handler func(*executor.Ctx), arity int, summary string, args ...[]any) *executor.Command {
		return &executor.Command{Name: name, Arity: arity, Flags: executor.Write, FirstKey: 1, LastKey: 2, Handler: handler,
			Events: &executor.KeyEvents{Class: config.NotifyModule, Event: name, Shape: executor.OnSourceDest},
			Meta: tsMeta([]string{"RW", "update"}, 1, 1, 1, summary,
				append([][]any{docKey("sourceKey", 0), docKey("destKey", 0)}, args...))}
	}
	// The writes of samples, which write the rules' destinations too;
	// those that add samples publish ts.add:dest on a destination a
	// closed bucket fed.
	feeding := func(c *executor.Command) *executor.Command {
		c.AlsoWrites = tsDestinations
		if c.Name != "ts.del" {
			c.Events.AlsoEvent, c.Events.AlsoClass = "ts.add:dest", config.NotifyModule
		}
		return c
	}
	createOptions := docString("options")
	filter := multiple(docString("filterExpr"))
	executor.Register(
		write("ts.create", -2, cmdTSCreate, config.NotifyModule, "Creates a time series", optional(multiple(createOptions))),
		write("ts.alter", -2, cmdTSAlter, config.NotifyModule, "Changes a time series's retention, chunk size, duplicate policy, IGNORE or labels",
			optional(multiple(createOptions))),
		feeding(write("ts.add", -4, cmdTSAdd, config.NotifyModule, "Appends a sample to a time series, creating it when missing",
			docString("timestamp"), doc("name", "value", "type", "double"), optional(multiple(createOptions)))),
		feeding(&executor.Command{Name: "ts.madd", Arity: -4, Flags: executor.Write, FirstKey: 1, LastKey: -1, Step: 3, Handler: cmdTSMAdd,
			Events: &executor.KeyEvents{Class: config.NotifyModule, Event: "ts.add", Shape: executor.OnAll},
			Meta: tsMeta([]string{"RW", "update"}, 1, -1, 3, "Appends samples to time series",
				[][]any{multiple(append(doc("name", "data", "type", "block"), "$arguments",
					docArgs(docKey("key", 0), docString("timestamp"), doc("name", "value", "type", "double"))))})}),
		feeding(write("ts.incrby", -3, cmdTSIncrBy, config.NotifyGeneric, "Appends the newest value plus an addend to a time series",
			doc("name", "addend", "type", "double"), optional(multiple(createOptions)))),
		feeding(write("ts.decrby", -3, cmdTSDecrBy, config.NotifyGeneric, "Appends the newest value minus a subtrahend to a time series",
			doc("name", "subtrahend", "type", "double"), optional(multiple(createOptions)))),
		feeding(write("ts.del", 4, cmdTSDel, config.NotifyModule, "Deletes the samples of a time series between two timestamps",
			docString("fromTimestamp"), docString("toTimestamp"))),
		read("ts.get", -2, cmdTSGet, "Returns the newest sample of a time series", optional(docToken("latest", "LATEST"))),
		read("ts.range", -4, cmdTSRange, "Returns the samples of a time series in a range, aggregated or not",
			docString("fromTimestamp"), docString("toTimestamp"), optional(multiple(docString("options")))),
		read("ts.revrange", -4, cmdTSRevRange, "Returns the samples of a time series in a range, newest first",
			docString("fromTimestamp"), docString("toTimestamp"), optional(multiple(docString("options")))),
		read("ts.info", -2, cmdTSInfo, "Returns a time series's metadata and statistics", optional(docToken("debug", "DEBUG"))),
		multi("ts.mget", -3, cmdTSMGet, "Returns the newest sample of each time series a filter matches",
			optional(multiple(docString("options"))), docToken("filter", "FILTER"), filter),
		multi("ts.mrange", -4, cmdTSMRange, "Returns the samples in a range of each time series a filter matches",
			docString("fromTimestamp"), docString("toTimestamp"), optional(multiple(docString("options"))), docToken("filter", "FILTER"), filter),
		multi("ts.mrevrange", -4, cmdTSMRevRange, "Returns the samples in a range of each time series a filter matches, newest first",
			docString("fromTimestamp"), docString("toTimestamp"), optional(multiple(docString("options"))), docToken("filter", "FILTER"), filter),
		multi("ts.queryindex", -2, cmdTSQueryIndex, "Returns the keys of the time series a filter matches", filter),
		rule("ts.createrule", cmdTSCreateRule, -6, "Creates a compaction rule from a time series into another",
			docToken("aggregation", "AGGREGATION"), docString("aggregator"), doc("name", "bucketDuration", "type", "integer"),
			optional(doc("name", "alignTimestamp", "type", "integer"))),
		rule("ts.deleterule", cmdTSDeleteRule, 3, "Deletes a compaction rule"),
	)
}

// tsMeta describes a TS command of keys first..last (step) with flags,
// for COMMAND.
func tsMeta(flags []string, first, last, step int, summary string, args [][]any) *executor.Meta {
	return &executor.Meta{
		KeySpecs: []executor.KeySpec{{Flags: flags, BeginSearch: "index", Index: first, FindKeys: "range", LastKey: last, KeyStep: step}},
		Doc:      doc("summary", summary, "group", "module", "arguments", docArgs(anys(args)...)),
	}
}

func anys(args [][]any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = a
	}
	return out
}

// tsOK replies err, if any, as RedisTimeSeries words it, and reports
// whether the handler may go on.
func tsOK(c *executor.Ctx, err error) bool {
	if err == nil {
		return true
	}
	if text, ok := ts.ReplyText(err, c.Cmd.Name); ok {
		c.ErrorString(text)
		return false
	}
	return c.OK(err)
}

// tsDestinations are the keys a write of series writes besides them: the
// destinations of their compaction rules.
func tsDestinations(c *executor.Ctx) [][]byte {
	return ts.Destinations(c.DB, c.Cmd.KeysOf(c.Args))
}

// tsNow is the server clock "*" stands for.
func tsNow() int64 { return time.Now().UnixMilli() }

// tsMultiKey refuses the commands that read series of any slot in
// cluster mode, as Kvrocks 2.15 does: their keys are found by label, not
// named, so no slot routes them.
func tsMultiKey(c *executor.Ctx) bool {
	if c.DB.Storage().Config().ClusterEnabled.Get() {
		c.ErrorString("ERR " + c.Cmd.Name + " is not supported in cluster mode")
		return false
	}
	return true
}

// TS.CREATE key [RETENTION retentionPeriod] [ENCODING enc] [CHUNK_SIZE size]
// [DUPLICATE_POLICY policy] [IGNORE maxTimediff maxValDiff] [LABELS label value ...]
func cmdTSCreate(c *executor.Ctx) {
	o, err := ts.ParseCreate(c.Args[2:])
	if tsOK(c, err) && tsOK(c, ts.Create(c.DB, c.Args[1], &o)) {
		c.W.OK()
	}
}

// TS.ALTER key [RETENTION retentionPeriod] [CHUNK_SIZE size]
// [DUPLICATE_POLICY policy] [IGNORE maxTimediff maxValDiff] [LABELS label value ...]
func cmdTSAlter(c *executor.Ctx) {
	o, err := ts.ParseAlter(c.Args[2:])
	if tsOK(c, err) && tsOK(c, ts.Alter(c.DB, c.Args[1], &o)) {
		c.W.OK()
	}
}

// TS.ADD key timestamp value [create options] [ON_DUPLICATE policy]
func cmdTSAdd(c *executor.Ctx) {
	a, err := ts.ParseAdd(c.Args[2:])
	if !tsOK(c, err) {
		return
	}
	if a.TS == ts.Now {
		a.TS = tsNow()
	}
	res, err := ts.AddSample(c.DB, c.Args[1], &a)
	if tsOK(c, err) {
		c.W.Int(res.TS)
	}
}

// TS.MADD key timestamp value [key timestamp value ...]
func cmdTSMAdd(c *executor.Ctx) {
	samples, err := ts.ParseMAdd(c.Args[1:])
	if !tsOK(c, err) {
		return
	}
	results, err := ts.MAdd(c.DB, samples, tsNow())
	if !tsOK(c, err) {
		return
	}
	c.W.Array(len(results))
	for _, r := range results {
		if r.Err != nil {
			text, _ := ts.ReplyText(r.Err, c.Cmd.Name)
			c.ErrorString(text)
			continue
		}
		c.W.Int(r.TS)
	}
}

// TS.INCRBY key addend [TIMESTAMP timestamp] [create options]
func cmdTSIncrBy(c *executor.Ctx) { tsIncr(c, false) }

// TS.DECRBY key subtrahend [TIMESTAMP timestamp] [create options]
func cmdTSDecrBy(c *executor.Ctx) { tsIncr(c, true) }

func tsIncr(c *executor.Ctx, decrement bool) {
	in, err := ts.ParseIncr(c.Args[2:], decrement)
	if !tsOK(c, err) {
		return
	}
	if in.TS == ts.Now {
		in.TS = tsNow()
	}
	smp, err := ts.IncrBy(c.DB, c.Args[1], &in)
	if tsOK(c, err) {
		c.W.Int(smp.TS)
	}
}

// TS.DEL key fromTimestamp toTimestamp
func cmdTSDel(c *executor.Ctx) {
	d, err := ts.ParseDel(c.Args[2:])
	if !tsOK(c, err) {
		return
	}
	n, err := ts.DeleteRange(c.DB, c.Args[1], &d)
	if tsOK(c, err) {
		c.W.Int(n)
	}
}

// TS.GET key [LATEST]
func cmdTSGet(c *executor.Ctx) {
	latest, err := ts.ParseGet(c.Args[2:])
	if tsOK(c, err) {
		tsOK(c, ts.Get(c.DB, c.W, c.Args[1], latest))
	}
}

// TS.RANGE key fromTimestamp toTimestamp [LATEST] [FILTER_BY_TS ts ...]
// [FILTER_BY_VALUE min max] [COUNT count] [[ALIGN align] AGGREGATION
// aggregator bucketDuration [BUCKETTIMESTAMP bt] [EMPTY]]
func cmdTSRange(c *executor.Ctx) { tsRange(c, false) }

// TS.REVRANGE key fromTimestamp toTimestamp [options as TS.RANGE]
func cmdTSRevRange(c *executor.Ctx) { tsRange(c, true) }

func tsRange(c *executor.Ctx, reverse bool) {
	q, err := ts.ParseRange(c.Args[2:], reverse)
	if tsOK(c, err) {
		tsOK(c, ts.Range(c.DB, c.W, c.Args[1], &q))
	}
}

// TS.MGET [LATEST] [WITHLABELS | SELECTED_LABELS label ...] FILTER filterExpr ...
func cmdTSMGet(c *executor.Ctx) {
	m, err := ts.ParseMGet(c.Args[1:])
	if tsOK(c, err) && tsMultiKey(c) {
		tsOK(c, ts.MGet(c.DB, c.W, &m))
	}
}

// TS.MRANGE fromTimestamp toTimestamp [options as TS.RANGE] [WITHLABELS |
// SELECTED_LABELS label ...] FILTER filterExpr ... [GROUPBY label REDUCE reducer]
func cmdTSMRange(c *executor.Ctx) { tsMRange(c, false) }

// TS.MREVRANGE fromTimestamp toTimestamp [options as TS.MRANGE]
func cmdTSMRevRange(c *executor.Ctx) { tsMRange(c, true) }

func tsMRange(c *executor.Ctx, reverse bool) {
	m, err := ts.ParseMRange(c.Args[1:], reverse)
	if tsOK(c, err) && tsMultiKey(c) {
		tsOK(c, ts.MRange(c.DB, c.W, &m))
	}
}

// TS.QUERYINDEX filterExpr ...
func cmdTSQueryIndex(c *executor.Ctx) {
	f, err := ts.ParseQueryIndex(c.Args[1:])
	if tsOK(c, err) && tsMultiKey(c) {
		tsOK(c, ts.QueryIndex(c.DB, c.W, &f))
	}
}

// TS.INFO key [DEBUG]
func cmdTSInfo(c *executor.Ctx) {
	tsOK(c, ts.InfoOf(c.DB, c.W, c.Args[1], ts.ParseInfo(c.Args[2:])))
}

// TS.CREATERULE sourceKey destKey AGGREGATION aggregator bucketDuration [alignTimestamp]
func cmdTSCreateRule(c *executor.Ctx) {
	src, r, err := ts.ParseCreateRule(c.Args[1:])
	if tsOK(c, err) && tsOK(c, ts.CreateRule(c.DB, src, &r)) {
		c.W.OK()
	}
}

// TS.DELETERULE sourceKey destKey
func cmdTSDeleteRule(c *executor.Ctx) {
	src, dest, err := ts.ParseDeleteRule(c.Args[1:])
	if tsOK(c, err) && tsOK(c, ts.DeleteRule(c.DB, src, dest)) {
		c.W.OK()
	}
}
