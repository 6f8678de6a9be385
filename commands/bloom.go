package commands

import (
	"errors"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/types/bloom"
)

// The Bloom filter commands (BF.*), Kvrocks's own: its scaling chains of
// block-split filters (types/bloom), its replies and error texts.
// RedisBloom publishes no keyspace events of its own; Basalt publishes
// one of the module class ('d') per filter a command changed, named for
// the command, as RedisJSON names its own.

func init() {
	write := func(name string, arity int, handler func(*executor.Ctx), summary string, args []any) *executor.Command {
		return &executor.Command{Name: name, Arity: arity, Flags: executor.Write | executor.KvrocksOnly, FirstKey: 1, LastKey: 1, Handler: handler,
			Events: &executor.KeyEvents{Class: config.NotifyModule, Event: name, Shape: executor.OnEach},
			Meta:   bloomMeta([]string{"RW", "insert"}, summary, args)}
	}
	read := func(name string, arity int, handler func(*executor.Ctx), summary string, args []any) *executor.Command {
		return &executor.Command{Name: name, Arity: arity, Flags: executor.ReadOnly | executor.KvrocksOnly, FirstKey: 1, LastKey: 1, Handler: handler,
			Meta: bloomMeta([]string{"RO", "access"}, summary, args)}
	}
	executor.Register(
		write("bf.reserve", -4, cmdBFReserve, "Creates an empty Bloom filter for a capacity and an error rate",
			docArgs(docKey("key", 0), doc("name", "error_rate", "type", "double"), doc("name", "capacity", "type", "integer"),
				optional(doc("name", "expansion", "type", "integer", "token", "EXPANSION")), optional(docToken("nonscaling", "NONSCALING")))),
		write("bf.add", 3, cmdBFAdd, "Adds an item to a Bloom filter, creating it with the defaults",
			docArgs(docKey("key", 0), docString("item"))),
		write("bf.madd", -3, cmdBFMAdd, "Adds items to a Bloom filter, creating it with the defaults",
			docArgs(docKey("key", 0), multiple(docString("item")))),
		write("bf.insert", -4, cmdBFInsert, "Adds items to a Bloom filter, creating it with the options given unless NOCREATE",
			docArgs(docKey("key", 0), optional(doc("name", "capacity", "type", "integer", "token", "CAPACITY")),
				optional(doc("name", "error", "type", "double", "token", "ERROR")),
				optional(doc("name", "expansion", "type", "integer", "token", "EXPANSION")),
				optional(docToken("nocreate", "NOCREATE")), optional(docToken("nonscaling", "NONSCALING")),
				docToken("items", "ITEMS"), multiple(docString("item")))),
		read("bf.exists", 3, cmdBFExists, "Reports whether a Bloom filter may hold an item (1) or does not (0)",
			docArgs(docKey("key", 0), docString("item"))),
		read("bf.mexists", -3, cmdBFMExists, "Reports for each item whether a Bloom filter may hold it",
			docArgs(docKey("key", 0), multiple(docString("item")))),
		read("bf.info", -2, cmdBFInfo, "Returns the capacity, size, number of filters and of items, and expansion of a Bloom filter",
			docArgs(docKey("key", 0), optional(append(doc("name", "single_value", "type", "oneof"), "$arguments", docArgs(
				docToken("capacity", "CAPACITY"), docToken("size", "SIZE"), docToken("filters", "FILTERS"),
				docToken("items", "ITEMS"), docToken("expansion", "EXPANSION")))))),
		read("bf.card", 2, cmdBFCard, "Returns the number of items added to a Bloom filter (0 when absent)",
			docArgs(docKey("key", 0))),
	)
}

// bloomMeta describes a BF command of one key with flags, for COMMAND.
func bloomMeta(flags []string, summary string, args []any) *executor.Meta {
	return &executor.Meta{
		KeySpecs: []executor.KeySpec{{Flags: flags, BeginSearch: "index", Index: 1, FindKeys: "range", LastKey: 0, KeyStep: 1}},
		Doc:      doc("summary", summary, "group", "bf", "complexity", "O(k) per item, k the number of sub-filters", "arguments", args),
	}
}

// bloomOK is KvrocksOK for the BF commands, whose own refusals
// (bloom.Error) are Kvrocks's error replies.
func bloomOK(c *executor.Ctx, err error) bool {
	var refusal bloom.Error
	if errors.As(err, &refusal) {
		c.ErrorString(string(refusal))
		return false
	}
	return c.KvrocksOK(err)
}

// BF.RESERVE key error_rate capacity [EXPANSION expansion] [NONSCALING]
func cmdBFReserve(c *executor.Ctx) {
	opts, err := bloom.ParseReserve(c.Args[2:])
	if bloomOK(c, err) && bloomOK(c, bloom.Reserve(c.DB, c.Args[1], opts)) {
		c.W.OK()
	}
}

// BF.ADD key item
func cmdBFAdd(c *executor.Ctx) {
	results, err := bloom.Add(c.DB, c.Args[1], c.Args[2:], &bloom.Defaults)
	if bloomOK(c, err) {
		bloom.WriteResult(c.W, results[0])
	}
}

// BF.MADD key item [item ...]
func cmdBFMAdd(c *executor.Ctx) {
	results, err := bloom.Add(c.DB, c.Args[1], c.Args[2:], &bloom.Defaults)
	if bloomOK(c, err) {
		bloom.WriteResults(c.W, results)
	}
}

// BF.INSERT key [CAPACITY capacity] [ERROR error] [EXPANSION expansion]
// [NOCREATE] [NONSCALING] ITEMS item [item ...]
func cmdBFInsert(c *executor.Ctx) {
	a, err := bloom.ParseInsert(c.Args[2:])
	if !bloomOK(c, err) {
		return
	}
	create := &a.Options
	if a.NoCreate {
		create = nil
	}
	results, err := bloom.Add(c.DB, c.Args[1], a.Items, create)
	if bloomOK(c, err) {
		bloom.WriteResults(c.W, results)
	}
}

// BF.EXISTS key item
func cmdBFExists(c *executor.Ctx) {
	found, err := bloom.MayContain(c.DB, c.Args[1], c.Args[2:])
	if bloomOK(c, err) {
		c.IntBool(found[0])
	}
}

// BF.MEXISTS key item [item ...]
func cmdBFMExists(c *executor.Ctx) {
	found, err := bloom.MayContain(c.DB, c.Args[1], c.Args[2:])
	if bloomOK(c, err) {
		bloom.WriteExists(c.W, found)
	}
}

// BF.INFO key [CAPACITY | SIZE | FILTERS | ITEMS | EXPANSION]
func cmdBFInfo(c *executor.Ctx) {
	field, err := bloom.ParseInfo(c.Args[2:])
	if !bloomOK(c, err) {
		return
	}
	info, err := bloom.InfoOf(c.DB, c.Args[1])
	if bloomOK(c, err) {
		bloom.WriteInfo(c.W, info, field)
	}
}

// BF.CARD key
func cmdBFCard(c *executor.Ctx) {
	n, err := bloom.Card(c.DB, c.Args[1])
	if bloomOK(c, err) {
		c.W.Int(int64(n))
	}
}
