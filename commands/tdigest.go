package commands

import (
	"errors"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/storage"
	"github.com/basaltdb/basalt/types/tdigest"
)

// The t-digest commands (TDIGEST.*) of Kvrocks 2.14+ (type 12,
// types/tdigest), with RedisBloom's replies and error texts (REDIS-NEW.md
// §8): Redis 8 ships them, so arity errors and WRONGTYPE are worded as
// Redis words them. Arguments are checked before the key is read. A query
// of a sketch with buffered values merges them first and, on a node that
// takes writes, writes the merge, as Kvrocks does (outside scripts, whose
// reads do not write). RedisBloom publishes no keyspace events of its
// own; as for Bloom filters, Basalt publishes one of the module class
// (d) named for the command on the key a write changed.

func init() {
	write := func(name string, arity int, handler func(*executor.Ctx), summary string, args ...any) *executor.Command {
		return &executor.Command{Name: name, Arity: arity, Flags: executor.Write, FirstKey: 1, LastKey: 1, Handler: handler,
			Events: &executor.KeyEvents{Class: config.NotifyModule, Event: name, Shape: executor.OnEach},
			Meta:   tdigestMeta([]executor.KeySpec{tdigestKey("RW", "update")}, summary, args)}
	}
	read := func(name string, arity int, handler func(*executor.Ctx), summary string, args ...any) *executor.Command {
		return &executor.Command{Name: name, Arity: arity, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: handler,
			Meta: tdigestMeta([]executor.KeySpec{tdigestKey("RO", "access")}, summary, args)}
	}
	key, values := docKey("key", 0), multiple(doc("name", "value", "type", "double"))
	executor.Register(
		write("tdigest.create", -2, cmdTDigestCreate, "Creates an empty t-digest",
			key, optional(doc("name", "compression", "type", "integer", "token", "COMPRESSION"))),
		write("tdigest.add", -3, cmdTDigestAdd, "Adds values to a t-digest", key, values),
		write("tdigest.reset", 2, cmdTDigestReset, "Empties a t-digest, keeping its compression", key),
		&executor.Command{Name: "tdigest.merge", Arity: -4, Flags: executor.Write, Keys: storeKeys, Handler: cmdTDigestMerge,
			Events: &executor.KeyEvents{Class: config.NotifyModule, Event: "tdigest.merge", Shape: executor.OnStore, Dest: executor.DestFirstKey},
			Meta: tdigestMeta([]executor.KeySpec{tdigestKey("RW", "insert"),
				{Flags: []string{"RO", "access"}, BeginSearch: "index", Index: 2, FindKeys: "keynum", KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}},
				"Merges t-digests into a destination, creating it",
				[]any{docKey("destination-key", 0), doc("name", "numkeys", "type", "integer"), multiple(docKey("source-key", 1)),
					optional(doc("name", "compression", "type", "integer", "token", "COMPRESSION")), optional(docToken("override", "OVERRIDE"))})},
		read("tdigest.info", 2, cmdTDigestInfo, "Returns a t-digest's compression, capacity, nodes, weights and counters", key),
		read("tdigest.min", 2, cmdTDigestMin, "Returns the smallest value added to a t-digest", key),
		read("tdigest.max", 2, cmdTDigestMax, "Returns the largest value added to a t-digest", key),
		read("tdigest.quantile", -3, cmdTDigestQuantile, "Returns the estimated values below which fractions of a t-digest's values lie",
			key, multiple(doc("name", "quantile", "type", "double"))),
		read("tdigest.cdf", -3, cmdTDigestCDF, "Returns the estimated fractions of a t-digest's values at or below values", key, values),
		read("tdigest.rank", -3, cmdTDigestRank, "Returns the estimated numbers of a t-digest's values below values", key, values),
		read("tdigest.revrank", -3, cmdTDigestRevRank, "Returns the estimated numbers of a t-digest's values above values", key, values),
		read("tdigest.byrank", -3, cmdTDigestByRank, "Returns the estimated values of ranks, from the smallest",
			key, multiple(doc("name", "rank", "type", "integer"))),
		read("tdigest.byrevrank", -3, cmdTDigestByRevRank, "Returns the estimated values of ranks, from the largest",
			key, multiple(doc("name", "reverse_rank", "type", "integer"))),
		read("tdigest.trimmed_mean", 4, cmdTDigestTrimmedMean, "Returns the mean of a t-digest's values between two fractions",
			key, doc("name", "low_cut_percentile", "type", "double"), doc("name", "high_cut_percentile", "type", "double")),
	)
}

// tdigestKey is the key spec of a command's first argument.
func tdigestKey(flags ...string) executor.KeySpec {
	return executor.KeySpec{Flags: flags, BeginSearch: "index", Index: 1, FindKeys: "range", LastKey: 0, KeyStep: 1}
}

// tdigestMeta describes a TDIGEST command for COMMAND.
func tdigestMeta(keys []executor.KeySpec, summary string, args []any) *executor.Meta {
	return &executor.Meta{KeySpecs: keys, Doc: doc("summary", summary, "group", "tdigest", "arguments", docArgs(args...))}
}

// tdigestOK replies err, if any: RedisBloom's text for the package's
// errors, the table's arity error for the counts it cannot see.
func tdigestOK(c *executor.Ctx, err error) bool {
	if text, ok := tdigest.ReplyText(err); ok {
		c.ErrorString(text)
		return false
	}
	if errors.Is(err, tdigest.ErrArity) {
		c.ErrorString("ERR wrong number of arguments for '" + c.Cmd.Name + "' command")
		return false
	}
	return c.OK(err)
}

// tdigestQuery runs answer on the sketch at the command's key and
// reports whether it succeeded, the error replied if not. A merge of
// buffered values is written, and the centroids read are cached, under
// the key's lock, except on a replica (whose data is its master's) and
// in a script (InWrite: its reads do not write).
func tdigestQuery(c *executor.Ctx, answer func(*tdigest.Sketch) error) bool {
	key := c.Args[1]
	persist := !c.DB.InWrite() && !c.Env.Repl.IsReplica()
	err := tdigest.Query(c.DB, key, persist, answer)
	if errors.Is(err, tdigest.ErrLockNeeded) {
		// By (the watcher's) left unset: a merge changes no value WATCH
		// or tracking would see.
		uerr := c.Env.Storage.Update(&storage.Write{NS: c.Session.Namespace, Keys: [][]byte{key}}, func(db storage.DB) {
			err = tdigest.Query(db, key, true, answer)
		})
		if err == nil {
			err = uerr
		}
	}
	return tdigestOK(c, err)
}

// TDIGEST.CREATE key [COMPRESSION compression]
func cmdTDigestCreate(c *executor.Ctx) {
	compression, err := tdigest.ParseCreate(c.Args[2:])
	if tdigestOK(c, err) && tdigestOK(c, tdigest.Create(c.DB, c.Args[1], compression)) {
		c.W.OK()
	}
}

// TDIGEST.ADD key value [value ...]
func cmdTDigestAdd(c *executor.Ctx) {
	values, err := tdigest.ParseValues(c.Args[2:])
	if tdigestOK(c, err) && tdigestOK(c, tdigest.AddValues(c.DB, c.Args[1], values)) {
		c.W.OK()
	}
}

// TDIGEST.RESET key
func cmdTDigestReset(c *executor.Ctx) {
	if tdigestOK(c, tdigest.Clear(c.DB, c.Args[1])) {
		c.W.OK()
	}
}

// TDIGEST.MERGE destination-key numkeys source-key [source-key ...]
// [COMPRESSION compression] [OVERRIDE]
func cmdTDigestMerge(c *executor.Ctx) {
	a, err := tdigest.ParseMerge(c.Args[2:])
	if tdigestOK(c, err) && tdigestOK(c, tdigest.MergeInto(c.DB, c.Args[1], a)) {
		c.W.OK()
	}
}

// TDIGEST.INFO key
func cmdTDigestInfo(c *executor.Ctx) {
	m, err := tdigest.InfoOf(c.DB, c.Args[1])
	if tdigestOK(c, err) {
		tdigest.WriteInfo(c.W, m)
	}
}

// TDIGEST.MIN key
func cmdTDigestMin(c *executor.Ctx) {
	var f float64
	if tdigestQuery(c, func(sk *tdigest.Sketch) error { f = sk.Min(); return nil }) {
		tdigest.WriteDouble(c.W, f)
	}
}

// TDIGEST.MAX key
func cmdTDigestMax(c *executor.Ctx) {
	var f float64
	if tdigestQuery(c, func(sk *tdigest.Sketch) error { f = sk.Max(); return nil }) {
		tdigest.WriteDouble(c.W, f)
	}
}

// TDIGEST.QUANTILE key quantile [quantile ...]
func cmdTDigestQuantile(c *executor.Ctx) {
	tdigestDoubles(c, tdigest.ParseQuantiles, (*tdigest.Sketch).Quantiles)
}

// TDIGEST.CDF key value [value ...]
func cmdTDigestCDF(c *executor.Ctx) {
	tdigestDoubles(c, tdigest.ParseCDF, (*tdigest.Sketch).CDF)
}

// tdigestDoubles answers a query of doubles per argument.
func tdigestDoubles[A any](c *executor.Ctx, parse func([][]byte) ([]A, error), query func(*tdigest.Sketch, []A) ([]float64, error)) {
	args, err := parse(c.Args[2:])
	if !tdigestOK(c, err) {
		return
	}
	var out []float64
	if tdigestQuery(c, func(sk *tdigest.Sketch) (err error) { out, err = query(sk, args); return err }) {
		tdigest.WriteDoubles(c.W, out)
	}
}

// TDIGEST.RANK key value [value ...]
func cmdTDigestRank(c *executor.Ctx) { tdigestRanks(c, false) }

// TDIGEST.REVRANK key value [value ...]
func cmdTDigestRevRank(c *executor.Ctx) { tdigestRanks(c, true) }

func tdigestRanks(c *executor.Ctx, reverse bool) {
	values, err := tdigest.ParseRankValues(c.Args[2:])
	if !tdigestOK(c, err) {
		return
	}
	var ranks []int64
	if tdigestQuery(c, func(sk *tdigest.Sketch) (err error) { ranks, err = sk.Ranks(values, reverse); return err }) {
		tdigest.WriteRanks(c.W, ranks)
	}
}

// TDIGEST.BYRANK key rank [rank ...]
func cmdTDigestByRank(c *executor.Ctx) { tdigestByRanks(c, false) }

// TDIGEST.BYREVRANK key reverse_rank [reverse_rank ...]
func cmdTDigestByRevRank(c *executor.Ctx) { tdigestByRanks(c, true) }

func tdigestByRanks(c *executor.Ctx, reverse bool) {
	tdigestDoubles(c, tdigest.ParseRanks, func(sk *tdigest.Sketch, ranks []int64) ([]float64, error) {
		return sk.ByRanks(ranks, reverse)
	})
}

// TDIGEST.TRIMMED_MEAN key low_cut_percentile high_cut_percentile
func cmdTDigestTrimmedMean(c *executor.Ctx) {
	low, high, err := tdigest.ParseTrimmedMean(c.Args[2:])
	if !tdigestOK(c, err) {
		return
	}
	var mean float64
	if tdigestQuery(c, func(sk *tdigest.Sketch) (err error) { mean, err = sk.TrimmedMean(low, high); return err }) {
		tdigest.WriteDouble(c.W, mean)
	}
}
