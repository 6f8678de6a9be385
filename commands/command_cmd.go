package commands

import (
	"slices"
	"strings"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/glob"
)

func init() {
	executor.Register(&executor.Command{Name: "command", Arity: -1, Flags: executor.Loading, Subcommands: commandSubcommands, Handler: cmdCommand})
	// profiling-sample-commands names commands of this table.
	config.CommandExists = func(name string) bool { return executor.Lookup([]byte(name)) != nil }
}

// COMMAND | COMMAND COUNT | COMMAND INFO [name ...] | COMMAND DOCS [name ...] |
// COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN pattern] |
// COMMAND GETKEYS command [arg ...] | COMMAND GETKEYSANDFLAGS command [arg ...] |
// COMMAND HELP
//
// The replies are Redis 7's (see command_meta.go for where each part comes
// from).
func cmdCommand(c *executor.Ctx) {
	if len(c.Args) == 1 {
		writeAllCommandInfo(c)
		return
	}
	executor.DispatchSub(c)
}

var commandSubcommands = map[string]*executor.Subcommand{
	"count":           {Arity: 2, Handler: func(c *executor.Ctx) { c.W.Int(int64(len(executor.SortedCommands()))) }},
	"info":            {Arity: -2, Handler: commandInfo},
	"docs":            {Arity: -2, Handler: commandDocs},
	"list":            {Arity: -2, Handler: commandList},
	"getkeys":         {Arity: -4, Handler: func(c *executor.Ctx) { commandGetKeys(c, false) }},
	"getkeysandflags": {Arity: -4, Handler: func(c *executor.Ctx) { commandGetKeys(c, true) }},
	"help": executor.Help(
		"COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"(no subcommand)",
		"    Return details about all Redis commands.",
		"COUNT",
		"    Return the total number of commands in this Redis server.",
		"LIST",
		"    Return a list of all commands in this Redis server.",
		"INFO [<command-name> ...]",
		"    Return details about multiple Redis commands.",
		"    If no command names are given, documentation details for all",
		"    commands are returned.",
		"DOCS [<command-name> ...]",
		"    Return documentation details about multiple Redis commands.",
		"    If no command names are given, documentation details for all",
		"    commands are returned.",
		"GETKEYS <full-command>",
		"    Return the keys from a full Redis command.",
		"GETKEYSANDFLAGS <full-command>",
		"    Return the keys and the access flags from a full Redis command.",
		"HELP",
		"    Prints this help.",
	),
}

// described is a command or subcommand as COMMAND shows it.
type described struct {
	cmd  *executor.Command // the command, or the subcommand's container
	name string            // "get", "config|get"
	meta *executor.Meta
	sub  *subcommandInfo // set for a subcommand
}

// describe finds a command or a subcommand ("config|get") by name; nil if
// Basalt has no such thing.
func describe(name []byte) *described {
	base, subName, isSub := strings.Cut(strings.ToLower(string(name)), "|")
	cmd := executor.Lookup([]byte(base))
	if cmd == nil {
		return nil
	}
	if !isSub {
		return &described{cmd: cmd, name: cmd.Name, meta: cmd.Description()}
	}
	for _, s := range subcommandsOf(cmd) {
		if s.name == cmd.Name+"|"+subName {
			return &described{cmd: cmd, name: s.name, meta: s.meta, sub: &s}
		}
	}
	return nil
}

// COMMAND INFO [command-name ...]
func commandInfo(c *executor.Ctx) {
	if len(c.Args) == 2 {
		writeAllCommandInfo(c)
		return
	}
	c.W.Array(len(c.Args) - 2)
	for _, name := range c.Args[2:] {
		if d := describe(name); d != nil {
			writeCommandInfo(c, d)
		} else {
			c.W.NullArray()
		}
	}
}

func writeAllCommandInfo(c *executor.Ctx) {
	cmds := executor.SortedCommands()
	c.W.Array(len(cmds))
	for _, cmd := range cmds {
		writeCommandInfo(c, &described{cmd: cmd, name: cmd.Name, meta: cmd.Description()})
	}
}

// writeCommandInfo writes the ten fields of Redis 7's COMMAND INFO: name,
// arity, flags, first key, last key, step, ACL categories, tips, key
// specifications and subcommands.
func writeCommandInfo(c *executor.Ctx, d *described) {
	w, m := c.W, d.meta
	w.Array(10)
	w.BulkString(d.name)
	var flags []string
	var first, last, step int
	if d.sub != nil {
		w.Int(int64(d.sub.arity))
		flags = m.Flags
		first, last, step, _ = legacyRange(m.KeySpecs)
	} else {
		w.Int(int64(d.cmd.Arity))
		flags = flagsOf(d.cmd, m)
		first, last, step = keyPositions(d.cmd, m)
	}
	w.Set(len(flags))
	for _, f := range flags {
		w.Simple(f)
	}
	w.Int(int64(first))
	w.Int(int64(last))
	w.Int(int64(step))
	acl := d.cmd.ACLCategories()
	if m != nil && m.ACL != nil {
		acl = m.ACL
	}
	w.Set(len(acl))
	for _, cat := range acl {
		w.Simple(cat)
	}
	var tips []string
	var specs []executor.KeySpec
	if m != nil {
		tips, specs = m.Tips, m.KeySpecs
	}
	w.Set(len(tips))
	for _, t := range tips {
		w.BulkString(t)
	}
	writeKeySpecs(w, specs)
	var subs []subcommandInfo
	if d.sub == nil {
		subs = subcommandsOf(d.cmd)
	}
	if len(subs) == 0 {
		w.Set(0) // as Redis writes "no subcommands"
		return
	}
	w.Array(len(subs))
	for i := range subs {
		writeCommandInfo(c, &described{cmd: d.cmd, name: subs[i].name, meta: subs[i].meta, sub: &subs[i]})
	}
}

// COMMAND DOCS [command-name ...]
func commandDocs(c *executor.Ctx) {
	var ds []*described
	if len(c.Args) == 2 {
		for _, cmd := range executor.SortedCommands() {
			ds = append(ds, &described{cmd: cmd, name: cmd.Name, meta: cmd.Description()})
		}
	} else {
		for _, name := range c.Args[2:] {
			if d := describe(name); d != nil {
				ds = append(ds, d)
			}
		}
	}
	c.W.Map(len(ds))
	for _, d := range ds {
		c.W.BulkString(d.name)
		writeDocs(c, d)
	}
}

// writeDocs writes the documentation map of a command: Redis's, with the
// subcommands Basalt answers.
func writeDocs(c *executor.Ctx, d *described) {
	var tree []any
	if d.meta != nil {
		tree = d.meta.Doc
	}
	if len(tree) == 0 {
		tree = doc("summary", "", "group", "server", "complexity", "")
	}
	var subs []subcommandInfo
	if d.sub == nil {
		subs = subcommandsOf(d.cmd)
	}
	if len(subs) == 0 {
		writeTree(c.W, tree)
		return
	}
	c.W.Map(len(tree)/2 + 1)
	for _, e := range tree[1:] {
		writeTree(c.W, e)
	}
	c.W.BulkString("subcommands")
	c.W.Map(len(subs))
	for i := range subs {
		c.W.BulkString(subs[i].name)
		writeDocs(c, &described{cmd: d.cmd, name: subs[i].name, meta: subs[i].meta, sub: &subs[i]})
	}
}

// COMMAND LIST [FILTERBY MODULE module-name | ACLCAT category | PATTERN pattern]
//
// Every command and subcommand, as in Redis 7.
func commandList(c *executor.Ctx) {
	var filter func(name string, acl []string) bool
	switch {
	case len(c.Args) == 2:
	case len(c.Args) == 5 && c.Is(2, "filterby") && c.Is(3, "module"):
		filter = func(string, []string) bool { return false } // no modules
	case len(c.Args) == 5 && c.Is(2, "filterby") && c.Is(3, "aclcat"):
		want := "@" + strings.ToLower(string(c.Args[4]))
		filter = func(_ string, acl []string) bool {
			for _, cat := range acl {
				if strings.ToLower(cat) == want {
					return true
				}
			}
			return false
		}
	case len(c.Args) == 5 && c.Is(2, "filterby") && c.Is(3, "pattern"):
		pattern := c.Args[4]
		filter = func(name string, _ []string) bool { return glob.Match(pattern, []byte(name), true) }
	default:
		c.ErrorString(executor.ErrSyntax)
		return
	}
	var names []string
	for _, cmd := range executor.SortedCommands() {
		m := cmd.Description()
		acl := cmd.ACLCategories()
		if m != nil && m.ACL != nil {
			acl = m.ACL
		}
		if filter == nil || filter(cmd.Name, acl) {
			names = append(names, cmd.Name)
		}
		for _, s := range subcommandsOf(cmd) {
			if filter == nil || filter(s.name, s.meta.ACL) {
				names = append(names, s.name)
			}
		}
	}
	c.W.BulkStrings(names)
}

// COMMAND GETKEYS command [arg ...] and COMMAND GETKEYSANDFLAGS command [arg ...]
//
// The keys are found as Redis 7 finds them, by the key specifications,
// which TestKeySpecsMatchTable holds to the table's key positions.
func commandGetKeys(c *executor.Ctx, withFlags bool) {
	args := c.Args[2:]
	cmd := executor.Lookup(args[0])
	if cmd == nil {
		c.ErrorString("ERR Invalid command specified")
		return
	}
	m, arity := cmd.Description(), cmd.Arity
	if subs := subcommandsOf(cmd); len(subs) > 0 && len(args) > 1 {
		d := describe([]byte(cmd.Name + "|" + string(args[1])))
		if d == nil {
			c.ErrorString("ERR Invalid command specified")
			return
		}
		m, arity = d.meta, d.sub.arity
	}
	var refs []executor.KeyRef
	var keys [][]byte
	// Redis's commands have keys when their specifications say so;
	// Basalt's own, when the table does.
	hasKeys := cmd.HasKeys() && (m == nil || m.Flags == nil)
	if m != nil && len(m.KeySpecs) > 0 {
		hasKeys = hasKeySpecs(m)
	}
	if !hasKeys {
		c.ErrorString("ERR The command has no key arguments")
		return
	}
	if (arity >= 0 && len(args) != arity) || len(args) < -arity {
		c.ErrorString("ERR Invalid number of arguments specified for command")
		return
	}
	if m != nil && len(m.KeySpecs) > 0 {
		var ok bool
		switch refs, ok = executor.KeysBySpecs(m.KeySpecs, args, arity < 0, false); {
		case specsFallShort(m.KeySpecs):
			keys, refs = tableKeyRefs(cmd, m.KeySpecs, args)
		case ok:
			for _, r := range refs {
				keys = append(keys, args[r.Pos])
			}
		default:
			refs = nil
		}
	} else {
		keys = cmd.KeysOf(args)
	}
	if len(keys) == 0 {
		if m != nil && contains(m.Flags, "no_mandatory_keys") {
			c.W.Array(0)
			return
		}
		c.ErrorString("ERR Invalid arguments specified for command")
		return
	}
	c.W.Array(len(keys))
	for i, k := range keys {
		if !withFlags {
			c.W.Bulk(k)
			continue
		}
		c.W.Array(2)
		c.W.Bulk(k)
		var flags []string
		if i < len(refs) {
			flags = refs[i].Flags
			if cmd.KeyFlags != nil && contains(flags, "variable_flags") {
				flags = cmd.KeyFlags(args)
			}
		}
		c.W.Set(len(flags))
		for _, f := range flags {
			c.W.Simple(f)
		}
	}
}

// tableKeyRefs finds the keys of a command whose specifications cannot
// (SORT's STORE may come anywhere, MIGRATE's KEYS may be a password) as
// Redis's own key function does: from the table. The first key takes the
// first specification's flags, the others the last one's (SORT: the STORE
// destination), but "incomplete".
func tableKeyRefs(cmd *executor.Command, specs []executor.KeySpec, args [][]byte) ([][]byte, []executor.KeyRef) {
	keys := cmd.KeysOf(args)
	refs := make([]executor.KeyRef, len(keys))
	for i := range keys {
		spec := &specs[0]
		if i > 0 {
			spec = &specs[len(specs)-1]
		}
		refs[i].Flags = slices.DeleteFunc(slices.Clone(spec.Flags), func(f string) bool { return f == "incomplete" })
	}
	return keys, refs
}

// specsFallShort reports whether the specifications cannot find every
// key: one's begin_search is "unknown" or it is flagged incomplete. Redis
// then asks the command's own key function.
func specsFallShort(specs []executor.KeySpec) bool {
	for i := range specs {
		if specs[i].BeginSearch == "unknown" || specs[i].Has("incomplete") {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
