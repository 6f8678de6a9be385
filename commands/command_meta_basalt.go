package commands

import "slices"

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

// since adds to an argument's documentation the version it came in,
// before its flags and arguments as Redis orders them.
func since(arg []any, version string) []any {
	i := 1
	for i < len(arg) && arg[i] != "$flags" && arg[i] != "$arguments" {
		i += 2
	}
	return slices.Insert(arg, min(i, len(arg)), any("$since"), any("$"+version))
}

// docArgAt returns the position in the argument list args (docArgs's, or
// as redis_commands.json has it) of the argument name; it panics when
// there is none, which COMMAND's tests catch.
func docArgAt(args []any, name string) int {
	for i, a := range args {
		if m, ok := a.([]any); ok && docField(m, "name") == "$"+name {
			return i
		}
	}
	panic("commands: no documented argument " + name)
}

// docField returns the value of key in the documentation map m, nil when
// absent.
func docField(m []any, key string) any {
	for i := 1; i+1 < len(m); i += 2 {
		if m[i] == "$"+key {
			return m[i+1]
		}
	}
	return nil
}

// docInsertAfter returns args with arg inserted after the argument name.
func docInsertAfter(args []any, name string, arg []any) []any {
	return slices.Insert(args, docArgAt(args, name)+1, any(arg))
}

// docExtendOneOf appends choices to the oneof argument name of args.
func docExtendOneOf(args []any, name string, choices ...any) []any {
	m := args[docArgAt(args, name)].([]any)
	for i := 1; i+1 < len(m); i += 2 {
		if m[i] == "$arguments" {
			m[i+1] = append(m[i+1].([]any), choices...)
			return args
		}
	}
	panic("commands: argument " + name + " has no choices")
}
