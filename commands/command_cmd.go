package commands

import "github.com/basaltdb/basalt/config"

func init() {
	register(&Command{Name: "command", Arity: -1, Handler: cmdCommand})
	// profiling-sample-commands names commands of this table.
	config.CommandExists = func(name string) bool { return lookup([]byte(name)) != nil }
}

// COMMAND | COMMAND COUNT | COMMAND INFO [name ...] | COMMAND LIST | COMMAND GETKEYS command [arg ...] | COMMAND HELP
func cmdCommand(c *Ctx) {
	if len(c.Args) == 1 {
		writeAllCommandInfo(c)
		return
	}
	dispatchSub(c, commandSubcommands)
}

var commandSubcommands = map[string]subcommand{
	"count": {2, func(c *Ctx) { c.W.Int(int64(len(table.byName))) }},
	"info":  {-2, commandInfo},
	"list": {2, func(c *Ctx) {
		cmds := sortedCommands()
		c.W.Array(len(cmds))
		for _, cmd := range cmds {
			c.W.BulkString(cmd.Name)
		}
	}},
	"getkeys": {-3, commandGetKeys},
	"help": help(
		"COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"(no subcommand)", "    Return details about all commands.",
		"COUNT", "    Return the total number of commands in this server.",
		"LIST", "    Return a list of all commands in this server.",
		"INFO [<command-name> ...]", "    Return details about multiple commands.",
		"GETKEYS <full-command>", "    Return the keys from a full command.",
		"HELP", "    Print this help.",
	),
}

func commandInfo(c *Ctx) {
	if len(c.Args) == 2 {
		writeAllCommandInfo(c)
		return
	}
	c.W.Array(len(c.Args) - 2)
	for _, name := range c.Args[2:] {
		if cmd := lookup(name); cmd != nil {
			writeCommandInfo(c, cmd)
		} else {
			c.W.NullArray()
		}
	}
}

func writeAllCommandInfo(c *Ctx) {
	cmds := sortedCommands()
	c.W.Array(len(cmds))
	for _, cmd := range cmds {
		writeCommandInfo(c, cmd)
	}
}

// writeCommandInfo writes the ten-field reply of Redis 7's COMMAND INFO:
// name, arity, flags, first key, last key, step, ACL categories, tips, key
// specifications and subcommands.
func writeCommandInfo(c *Ctx, cmd *Command) {
	c.W.Array(10)
	c.W.BulkString(cmd.Name)
	c.W.Int(int64(cmd.Arity))
	flags := cmd.flagList()
	c.W.Set(len(flags))
	for _, f := range flags {
		c.W.Simple(f)
	}
	first, last, step := cmd.FirstKey, cmd.LastKey, cmd.Step
	if cmd.Keys != nil {
		first, last, step = 0, 0, 0 // keys found by a function, as Redis's "movablekeys"
	}
	c.W.Int(int64(first))
	c.W.Int(int64(last))
	c.W.Int(int64(step))
	cats := cmd.aclCategories()
	c.W.Set(len(cats))
	for _, cat := range cats {
		c.W.Simple(cat)
	}
	c.W.Set(0)
	c.W.Array(0)
	c.W.Array(0)
}

func commandGetKeys(c *Ctx) {
	cmd := lookup(c.Args[2])
	if cmd == nil {
		c.ErrorString("ERR Invalid command specified")
		return
	}
	args := c.Args[2:]
	if !cmd.arityOK(len(args)) {
		c.ErrorString("ERR Invalid number of arguments specified for command")
		return
	}
	keys := cmd.keys(args)
	if len(keys) == 0 {
		c.ErrorString("ERR The command has no key arguments")
		return
	}
	c.W.Array(len(keys))
	for _, k := range keys {
		c.W.Bulk(k)
	}
}
