package commands

import (
	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/reply"
	"github.com/basaltdb/basalt/types/json"
)

// The JSON commands of Kvrocks (type 10, types/json): RedisJSON's
// commands with Kvrocks's replies and errors, RedisJSON's legacy paths
// and SET's NX and XX besides. Their keyspace events are RedisJSON's
// ("json.set", ... in the module class, d).

func init() {
	executor.Register(
		jsonWriter("json.set", -4, cmdJSONSet, "json.set", "Sets the JSON value at path in key",
			docString("path"), docString("value"), optional(append(doc("name", "condition", "type", "oneof"), "$arguments",
				docArgs(docToken("nx", "NX"), docToken("xx", "XX"))))),
		jsonReader("json.get", -2, cmdJSONGet, "Returns the JSON text of the values at the paths in key",
			optional(doc("name", "indent", "type", "string", "token", "INDENT")),
			optional(doc("name", "newline", "type", "string", "token", "NEWLINE")),
			optional(doc("name", "space", "type", "string", "token", "SPACE")),
			optional(multiple(docString("path")))),
		jsonWriter("json.del", -2, cmdJSONDel, "json.del", "Deletes the values at path in key (the key at the root)",
			optional(docString("path"))),
		jsonWriter("json.forget", -2, cmdJSONDel, "json.del", "Deletes the values at path in key (the key at the root)",
			optional(docString("path"))),
		jsonReader("json.type", -2, cmdJSONType, "Returns the type of the values at path in key", optional(docString("path"))),
		jsonWriter("json.merge", 4, cmdJSONMerge, "json.merge", "Merges a JSON value into the values at path in key (RFC 7396)",
			docString("path"), docString("value")),
		jsonWriter("json.clear", -2, cmdJSONClear, "json.clear", "Empties the arrays and objects and zeroes the numbers at path in key",
			optional(docString("path"))),
		jsonWriter("json.toggle", -2, cmdJSONToggle, "json.toggle", "Flips the booleans at path in key", optional(docString("path"))),
		jsonWriter("json.numincrby", 4, cmdJSONNumIncrBy, "json.numincrby", "Adds a number to the numbers at path in key",
			docString("path"), doc("name", "value", "type", "double")),
		jsonWriter("json.nummultby", 4, cmdJSONNumMultBy, "json.nummultby", "Multiplies the numbers at path in key by a number",
			docString("path"), doc("name", "value", "type", "double")),
		jsonWriter("json.strappend", -3, cmdJSONStrAppend, "json.strappend", "Appends a JSON string to the strings at path in key",
			optional(docString("path")), docString("value")),
		jsonReader("json.strlen", -2, cmdJSONStrLen, "Returns the length of the strings at path in key", optional(docString("path"))),
		jsonWriter("json.arrappend", -4, cmdJSONArrAppend, "json.arrappend", "Appends values to the arrays at path in key",
			docString("path"), multiple(docString("value"))),
		jsonReader("json.arrindex", -4, cmdJSONArrIndex, "Returns the first index of a value in the arrays at path in key",
			docString("path"), docString("value"), optional(append(doc("name", "range", "type", "block"), "$arguments",
				docArgs(doc("name", "start", "type", "integer"), optional(doc("name", "stop", "type", "integer")))))),
		jsonWriter("json.arrinsert", -5, cmdJSONArrInsert, "json.arrinsert", "Inserts values before an index of the arrays at path in key",
			docString("path"), doc("name", "index", "type", "integer"), multiple(docString("value"))),
		jsonReader("json.arrlen", -2, cmdJSONArrLen, "Returns the length of the arrays at path in key", optional(docString("path"))),
		jsonWriter("json.arrpop", -2, cmdJSONArrPop, "json.arrpop", "Removes and returns an element of the arrays at path in key",
			optional(append(doc("name", "path", "type", "block"), "$arguments",
				docArgs(docString("path"), optional(doc("name", "index", "type", "integer")))))),
		jsonWriter("json.arrtrim", 5, cmdJSONArrTrim, "json.arrtrim", "Keeps a range of the arrays at path in key",
			docString("path"), doc("name", "start", "type", "integer"), doc("name", "stop", "type", "integer")),
		jsonReader("json.objkeys", -2, cmdJSONObjKeys, "Returns the keys of the objects at path in key", optional(docString("path"))),
		jsonReader("json.objlen", -2, cmdJSONObjLen, "Returns the number of keys of the objects at path in key", optional(docString("path"))),
		jsonReader("json.resp", -2, cmdJSONResp, "Returns the values at path in key as RESP values", optional(docString("path"))),
		jsonReader("json.info", 2, cmdJSONInfo, "Returns the storage format of the document in key"),
		&executor.Command{Name: "json.debug", Arity: -3, Flags: executor.ReadOnly | executor.KvrocksOnly, FirstKey: 2, LastKey: 2, Handler: cmdJSONDebug,
			Meta: &executor.Meta{
				KeySpecs: []executor.KeySpec{{Flags: []string{"RO"}, BeginSearch: "index", Index: 2, FindKeys: "range", KeyStep: 1}},
				Doc: doc("summary", "Returns the bytes the values at path in key take encoded in its storage format", "group", "module",
					"arguments", docArgs(docToken("memory", "MEMORY"), docKey("key", 0), optional(docString("path")))),
			}},
		&executor.Command{Name: "json.mget", Arity: -3, Flags: executor.ReadOnly | executor.KvrocksOnly, FirstKey: 1, LastKey: -2, Handler: cmdJSONMGet,
			Meta: &executor.Meta{
				KeySpecs: []executor.KeySpec{{Flags: []string{"RO", "access"}, BeginSearch: "index", Index: 1, FindKeys: "range", LastKey: -2, KeyStep: 1}},
				Doc: doc("summary", "Returns the JSON text of the values at path in each key", "group", "module",
					"arguments", docArgs(multiple(docKey("key", 0)), docString("path"))),
			}},
		&executor.Command{Name: "json.mset", Arity: -4, Flags: executor.Write | executor.KvrocksOnly, FirstKey: 1, LastKey: -3, Step: 3, Handler: cmdJSONMSet,
			Events: &executor.KeyEvents{Class: config.NotifyModule, Event: "json.mset", Shape: executor.OnAll},
			Meta: &executor.Meta{
				KeySpecs: []executor.KeySpec{{Flags: []string{"RW", "update"}, BeginSearch: "index", Index: 1, FindKeys: "range", LastKey: -1, KeyStep: 3}},
				Doc: doc("summary", "Sets JSON values at paths in keys, all or none", "group", "module",
					"arguments", docArgs(multiple(append(doc("name", "data", "type", "block"), "$arguments",
						docArgs(docKey("key", 0), docString("path"), docString("value")))))),
			}},
	)
}

// jsonReader is the registration of a JSON command that reads the key
// in its first argument; args document the arguments after the key.
func jsonReader(name string, arity int, handler func(*executor.Ctx), summary string, args ...[]any) *executor.Command {
	return &executor.Command{Name: name, Arity: arity, Flags: executor.ReadOnly | executor.KvrocksOnly, FirstKey: 1, LastKey: 1, Handler: handler,
		Meta: jsonMeta([]string{"RO", "access"}, summary, args)}
}

// jsonWriter is the registration of a JSON command that may write the
// key in its first argument and publishes event when it does.
func jsonWriter(name string, arity int, handler func(*executor.Ctx), event, summary string, args ...[]any) *executor.Command {
	return &executor.Command{Name: name, Arity: arity, Flags: executor.Write | executor.KvrocksOnly, FirstKey: 1, LastKey: 1, Handler: handler,
		Events: &executor.KeyEvents{Class: config.NotifyModule, Event: event, Shape: executor.OnEach},
		Meta:   jsonMeta([]string{"RW", "update"}, summary, args)}
}

func jsonMeta(keyFlags []string, summary string, args [][]any) *executor.Meta {
	documented := docArgs(docKey("key", 0))
	for _, a := range args {
		documented = append(documented, a)
	}
	return &executor.Meta{
		KeySpecs: []executor.KeySpec{{Flags: keyFlags, BeginSearch: "index", Index: 1, FindKeys: "range", KeyStep: 1}},
		Doc:      doc("summary", summary, "group", "module", "arguments", documented),
	}
}

// jsonReply writes a JSON command's reply or error: the package's
// errors as Kvrocks words them, a key of another type as Kvrocks's
// WRONGTYPE.
func jsonReply(c *executor.Ctx, v reply.Value, err error) {
	if err == nil {
		reply.Write(c.W, v)
		return
	}
	if text, ok := json.ReplyText(err); ok {
		c.ErrorString(text)
		return
	}
	c.KvrocksOK(err)
}

// jsonUpdate runs the write command fn on the key and the arguments
// after it.
func jsonUpdate(c *executor.Ctx, fn json.WriteFunc) {
	v, err := json.Update(c.DB, c.Args[1], c.Args[2:], fn)
	jsonReply(c, v, err)
}

// jsonRead runs the read command fn on the key and the arguments after
// it.
func jsonRead(c *executor.Ctx, fn func(doc *json.Value, args [][]byte) (reply.Value, error)) {
	args := c.Args[2:]
	v, err := json.Read(c.DB, c.Args[1], func(doc *json.Value, _ json.Format, _ json.Config) (reply.Value, error) {
		return fn(doc, args)
	})
	jsonReply(c, v, err)
}

// JSON.SET key path value [NX|XX]
func cmdJSONSet(c *executor.Ctx) { jsonUpdate(c, json.Set) }

// JSON.GET key [INDENT indent] [NEWLINE newline] [SPACE space] [path ...]
func cmdJSONGet(c *executor.Ctx) { jsonRead(c, json.Get) }

// JSON.DEL key [path], and JSON.FORGET
func cmdJSONDel(c *executor.Ctx) { jsonUpdate(c, json.Del) }

// JSON.TYPE key [path]
func cmdJSONType(c *executor.Ctx) { jsonRead(c, json.Type) }

// JSON.MERGE key path value
func cmdJSONMerge(c *executor.Ctx) { jsonUpdate(c, json.Merge) }

// JSON.CLEAR key [path]
func cmdJSONClear(c *executor.Ctx) { jsonUpdate(c, json.Clear) }

// JSON.TOGGLE key [path]
func cmdJSONToggle(c *executor.Ctx) { jsonUpdate(c, json.Toggle) }

// JSON.NUMINCRBY key path value
func cmdJSONNumIncrBy(c *executor.Ctx) { jsonUpdate(c, json.NumIncrBy) }

// JSON.NUMMULTBY key path value
func cmdJSONNumMultBy(c *executor.Ctx) { jsonUpdate(c, json.NumMultBy) }

// JSON.STRAPPEND key [path] value
func cmdJSONStrAppend(c *executor.Ctx) { jsonUpdate(c, json.StrAppend) }

// JSON.STRLEN key [path]
func cmdJSONStrLen(c *executor.Ctx) { jsonRead(c, json.StrLen) }

// JSON.ARRAPPEND key path value [value ...]
func cmdJSONArrAppend(c *executor.Ctx) { jsonUpdate(c, json.ArrAppend) }

// JSON.ARRINDEX key path value [start [stop]]
func cmdJSONArrIndex(c *executor.Ctx) {
	args := c.Args[2:]
	v, err := json.Read(c.DB, c.Args[1], func(doc *json.Value, _ json.Format, cfg json.Config) (reply.Value, error) {
		return json.ArrIndex(doc, args, cfg)
	})
	jsonReply(c, v, err)
}

// JSON.ARRINSERT key path index value [value ...]
func cmdJSONArrInsert(c *executor.Ctx) { jsonUpdate(c, json.ArrInsert) }

// JSON.ARRLEN key [path]
func cmdJSONArrLen(c *executor.Ctx) { jsonRead(c, json.ArrLen) }

// JSON.ARRPOP key [path [index]]
func cmdJSONArrPop(c *executor.Ctx) { jsonUpdate(c, json.ArrPop) }

// JSON.ARRTRIM key path start stop
func cmdJSONArrTrim(c *executor.Ctx) { jsonUpdate(c, json.ArrTrim) }

// JSON.OBJKEYS key [path]
func cmdJSONObjKeys(c *executor.Ctx) { jsonRead(c, json.ObjKeys) }

// JSON.OBJLEN key [path]
func cmdJSONObjLen(c *executor.Ctx) { jsonRead(c, json.ObjLen) }

// JSON.RESP key [path]
func cmdJSONResp(c *executor.Ctx) { jsonRead(c, json.Resp) }

// JSON.INFO key
func cmdJSONInfo(c *executor.Ctx) {
	v, err := json.Read(c.DB, c.Args[1], func(doc *json.Value, stored json.Format, _ json.Config) (reply.Value, error) {
		return json.Info(doc, stored)
	})
	jsonReply(c, v, err)
}

// JSON.DEBUG MEMORY key [path]
func cmdJSONDebug(c *executor.Ctx) {
	args := append([][]byte{c.Args[1]}, c.Args[3:]...) // the subcommand and the path
	v, err := json.Read(c.DB, c.Args[2], func(doc *json.Value, stored json.Format, _ json.Config) (reply.Value, error) {
		return json.DebugMemory(doc, stored, args)
	})
	jsonReply(c, v, err)
}

// JSON.MGET key [key ...] path
func cmdJSONMGet(c *executor.Ctx) {
	v, err := json.MGet(c.DB, c.Args[1:len(c.Args)-1], c.Args[len(c.Args)-1])
	jsonReply(c, v, err)
}

// JSON.MSET key path value [key path value ...]
func cmdJSONMSet(c *executor.Ctx) {
	v, err := json.MSet(c.DB, c.Args[1:])
	jsonReply(c, v, err)
}
