package commands

// Builders of the documentation trees of COMMAND DOCS (see writeTree), for
// the Meta of the commands and subcommands Redis 7.0 does not have:
// Kvrocks's own and the Redis 7.2 subcommands Basalt answers. In such a
// Meta, Flags nil means the table's flags (readonly, fast, loading); ACL
// nil the categories derived from them.

// docKey documents a key argument found by key specification spec.
func docKey(name string, spec int) []any {
	return doc("name", name, "type", "key", "key_spec_index", float64(spec))
}

// docString documents a string argument.
func docString(name string) []any { return doc("name", name, "type", "string") }

// docToken documents a word argument.
func docToken(name, tok string) []any { return doc("name", name, "type", "pure-token", "token", tok) }

// docArgs documents a list of arguments.
func docArgs(a ...any) []any { return append([]any{"*"}, a...) }

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
