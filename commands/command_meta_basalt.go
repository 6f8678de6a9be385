package commands

// basaltMeta describes for COMMAND the commands and subcommands Redis 7.0
// does not have: Kvrocks's own commands and the Redis 7.2 subcommands
// Basalt answers. Flags nil means the table's flags (readonly, fast,
// loading); ACL nil the categories derived from them.
func basaltMeta() []*commandMeta {
	key := func(name string, spec int) []any {
		return doc("name", name, "type", "key", "key_spec_index", float64(spec))
	}
	str := func(name string) []any { return doc("name", name, "type", "string") }
	token := func(name, tok string) []any { return doc("name", name, "type", "pure-token", "token", tok) }
	args := func(a ...any) []any { return append([]any{"*"}, a...) }
	return []*commandMeta{
		{
			Name: "applybatch",
			docs: doc("summary", "Applies a raw RocksDB write batch in Kvrocks's key encoding, as a replica applies the master's",
				"group", "server", "complexity", "O(N) where N is the number of records in the batch",
				"arguments", args(str("batch"), optional(token("lowpri", "LOWPRI")))),
		},
		{
			Name: "cad",
			KeySpecs: []KeySpec{{Flags: []string{"RW", "delete"}, BeginSearch: "index", Index: 1,
				FindKeys: "range", LastKey: 0, KeyStep: 1}},
			docs: doc("summary", "Deletes a string key if it holds the given value (1), or replies 0 (another value) or -1 (no key)",
				"group", "string", "complexity", "O(1)",
				"arguments", args(key("key", 0), str("value"))),
		},
		{
			Name: "cas",
			KeySpecs: []KeySpec{{Flags: []string{"RW", "update"}, BeginSearch: "index", Index: 1,
				FindKeys: "range", LastKey: 0, KeyStep: 1}},
			docs: doc("summary", "Sets a string key to a new value if it holds the old one (1), or replies 0 (another value) or -1 (no key)",
				"group", "string", "complexity", "O(1)",
				"arguments", args(key("key", 0), str("old_value"), str("new_value"),
					optional(append(doc("name", "expiration", "type", "oneof"), "$arguments", args(
						doc("name", "seconds", "type", "integer", "token", "EX"),
						doc("name", "milliseconds", "type", "integer", "token", "PX"),
						doc("name", "unix-time-seconds", "type", "unix-time", "token", "EXAT"),
						doc("name", "unix-time-milliseconds", "type", "unix-time", "token", "PXAT")))))),
		},
		{
			Name: "clusterx",
			docs: doc("summary", "Sets the cluster topology and migrates slots, as the Kvrocks cluster controller asks (VERSION, MYID, SETNODEID, SETNODES, SETSLOT, MIGRATE)",
				"group", "cluster", "complexity", "Depends on subcommand.",
				"arguments", args(str("subcommand"), optional(multiple(str("arg"))))),
		},
		{
			Name: "compact",
			docs: doc("summary", "Compacts the whole database (a manual RocksDB compaction)",
				"group", "server", "complexity", "O(N) where N is the size of the database"),
		},
		{
			Name:     "disk",
			KeySpecs: []KeySpec{{Flags: []string{"RO", "access"}, BeginSearch: "index", Index: 2, FindKeys: "range", LastKey: 0, KeyStep: 1}},
			docs: doc("summary", "Returns RocksDB's estimate of the bytes a key takes on disk and in memtables (DISK USAGE key)",
				"group", "server", "complexity", "O(1)",
				"arguments", args(token("usage", "USAGE"), key("key", 0))),
		},
		{
			Name: "flushbackup",
			docs: doc("summary", "Deletes the backup BGSAVE made in backup-dir",
				"group", "server", "complexity", "O(N) where N is the number of files of the backup"),
		},
		{
			Name: "hrangebylex",
			KeySpecs: []KeySpec{{Flags: []string{"RO", "access"}, BeginSearch: "index", Index: 1,
				FindKeys: "range", LastKey: 0, KeyStep: 1}},
			docs: doc("summary", "Returns the fields of a hash in a lexicographical range, with their values",
				"group", "hash", "complexity", "O(log(N)+M) where M is the number of fields returned",
				"arguments", args(key("key", 0), str("min"), str("max"), optional(token("rev", "REV")),
					optional(append(doc("name", "limit", "type", "block", "token", "LIMIT"), "$arguments", args(
						doc("name", "offset", "type", "integer"), doc("name", "count", "type", "integer")))))),
		},
		{
			Name: "mpublish",
			docs: doc("summary", "Posts several messages to a channel, replying the receivers of all of them",
				"group", "pubsub", "complexity", "O(N*M) where N is the number of messages and M the clients subscribed to the channel",
				"arguments", args(str("channel"), multiple(str("message")))),
		},
		{
			Name: "movex",
			KeySpecs: []KeySpec{{Flags: []string{"RW", "access", "delete"}, BeginSearch: "index", Index: 1,
				FindKeys: "range", LastKey: 0, KeyStep: 1}},
			docs: doc("summary", "Moves a key to the namespace of a token",
				"group", "generic", "complexity", "O(N) where N is the number of elements of the key",
				"arguments", args(key("key", 0), str("token"))),
		},
		{
			Name: "namespace",
			docs: doc("summary", "Lists, adds, changes or deletes namespaces and their tokens (GET, SET, ADD, DEL)",
				"group", "server", "complexity", "O(N) where N is the number of namespaces",
				"arguments", args(str("subcommand"), str("namespace"), optional(str("token")))),
		},
		{
			Name: "perflog",
			docs: doc("summary", "Returns the RocksDB perf contexts of sampled commands (PERFLOG GET [count] | LEN | RESET)",
				"group", "server", "complexity", "O(N) where N is the number of entries returned",
				"arguments", args(str("subcommand"), optional(str("count")))),
		},
		{
			Name: "pollupdates",
			docs: doc("summary", "Returns the write batches committed after a sequence number, as RocksDB logged them (change data capture)",
				"group", "server", "complexity", "O(N) where N is the size of the batches returned",
				"arguments", args(doc("name", "sequence", "type", "integer"),
					optional(doc("name", "count", "type", "integer", "token", "MAX")),
					optional(token("strict", "STRICT")),
					optional(doc("name", "format", "type", "pure-token", "token", "FORMAT RAW")))),
		},
		{
			Name: "rdb",
			docs: doc("summary", "Imports the keys of a Redis RDB file on the server's disk (RDB LOAD path [NX] [DB index])",
				"group", "server", "complexity", "O(N) where N is the size of the file",
				"arguments", args(token("load", "LOAD"), str("path"), optional(token("nx", "NX")),
					optional(doc("name", "index", "type", "integer", "token", "DB")))),
		},
		{
			Name: "stats",
			docs: doc("summary", "Returns RocksDB's statistics as JSON: tickers and histograms",
				"group", "server", "complexity", "O(1)"),
		},
		{
			Name: "_db_name",
			docs: doc("summary", "Returns db-name on a raw line: a replica checks it is its master's",
				"group", "server", "complexity", "O(1)"),
		},
		{
			Name: "_fetch_meta",
			docs: doc("summary", "Starts a full sync: the names of the files of a checkpoint of the database, then the connection closes",
				"group", "server", "complexity", "O(N) where N is the number of files"),
		},
		{
			Name: "_fetch_file",
			docs: doc("summary", "Sends files of the checkpoint _fetch_meta made, each as its size and its bytes",
				"group", "server", "complexity", "O(N) where N is the size of the files",
				"arguments", args(str("files"))),
		},
		{
			// Redis 7.2's.
			Name: "client|setinfo", Arity: 4, Flags: []string{"noscript", "loading", "stale"},
			ACL: []string{"@slow", "@connection"},
			docs: doc("summary", "Sets information specific to the client or connection.", "since", "7.2.0",
				"group", "connection", "complexity", "O(1)",
				"arguments", args(append(doc("name", "attr", "type", "oneof"), "$arguments", args(
					doc("name", "libname", "type", "string", "token", "LIB-NAME"),
					doc("name", "libver", "type", "string", "token", "LIB-VER"))))),
		},
		{
			// Kvrocks's.
			Name: "function|listfunc", Arity: -2, Flags: []string{"noscript"},
			ACL: []string{"@slow", "@scripting"},
			docs: doc("summary", "Returns every function with its library, sorted by name, or those whose name starts with a prefix",
				"group", "scripting", "complexity", "O(N) where N is the number of functions",
				"arguments", args(optional(doc("name", "prefix", "type", "string", "token", "FUNCNAME")))),
		},
		{
			Name: "function|listlib", Arity: -2, Flags: []string{"noscript"},
			ACL: []string{"@slow", "@scripting"},
			docs: doc("summary", "Returns a library's name, engine and functions, in the order it registered them",
				"group", "scripting", "complexity", "O(N) where N is the number of functions in the library",
				"arguments", args(str("library_name"))),
		},
	}
}

// doc builds a documentation map of name, value pairs; a string value is
// a bulk string.
func doc(kv ...any) []any {
	out := []any{"%"}
	for _, x := range kv {
		if s, ok := x.(string); ok {
			x = "$" + s
		}
		out = append(out, x)
	}
	return out
}

// optional and multiple add an argument flag to a documentation map.
func optional(arg []any) []any { return withFlag(arg, "optional") }
func multiple(arg []any) []any { return withFlag(arg, "multiple") }

func withFlag(arg []any, flag string) []any {
	for i := 1; i+1 < len(arg); i += 2 {
		if arg[i] == "$flags" {
			flags := append(arg[i+1].([]any), "+"+flag)
			arg[i+1] = flags
			return arg
		}
	}
	return append(arg, "$flags", []any{"~", "+" + flag})
}
