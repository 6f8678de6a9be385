package commands

import (
	"errors"

	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/glob"
	"github.com/basaltdb/basalt/rdb"
	"github.com/basaltdb/basalt/scripting"
)

// Functions: FUNCTION and FCALL. A library is kept as Kvrocks keeps it in
// the propagate column family: its code under lua_lib_code_<library>,
// and for each of its functions the library's name under
// lua_func_lib_<function>. The libraries are loaded from there at start,
// and again on a replica when the master changed them. A library belongs
// to a namespace (script_store.go).

func init() {
	executor.Register(
		&executor.Command{Name: "fcall", Arity: -3, Flags: executor.Write | executor.LocksItself | executor.Exclusive | executor.RunsScript, Keys: scriptKeys, Handler: func(c *executor.Ctx) { fcallCommand(c, false) }},
		&executor.Command{Name: "fcall_ro", Arity: -3, Flags: executor.ReadOnly | executor.Exclusive | executor.RunsScript, Keys: scriptKeys, Handler: func(c *executor.Ctx) { fcallCommand(c, true) }},
		&executor.Command{Name: "function", Arity: -2, Subcommands: functionSubcommands, Handler: cmdFunction},
	)
}

// FCALL function numkeys [key ...] [arg ...]
// FCALL_RO, the same for read-only functions.
func fcallCommand(c *executor.Ctx, readOnly bool) {
	// As Redis, the function is looked up before numkeys is read.
	fn := c.Env.Scripts.Function(string(c.Args[1]))
	if fn == nil || !c.Callable(fn) {
		c.ErrorString("ERR Function not found")
		return
	}
	keys, args, ok := scriptArgs(c, "ERR Bad number of keys provided")
	if !ok {
		return
	}
	if refusal := c.Env.DeclaredRefusal(fn.Flags, readOnly); refusal != "" {
		c.ErrorString(refusal)
		return
	}
	c.RunScript(keys, readOnly || fn.ReadOnly(), fn.Flags&scripting.AllowCrossSlot != 0, func(inv scripting.Invocation) {
		c.Env.Scripts.FCall(fn, keys, args, inv, c.W)
	})
}

// FUNCTION LOAD [REPLACE] code | DELETE library | LIST [LIBRARYNAME
// pattern] [WITHCODE] | DUMP | RESTORE payload [FLUSH|APPEND|REPLACE] |
// FLUSH [ASYNC|SYNC] | STATS | KILL | HELP
func cmdFunction(c *executor.Ctx) {
	executor.DispatchSub(c)
}

var functionSubcommands = map[string]*executor.Subcommand{
	"load":    {Arity: -3, Handler: functionLoad},
	"delete":  {Arity: 3, Handler: functionDelete},
	"list":    {Arity: -2, Handler: functionList},
	"dump":    {Arity: 2, Handler: functionDump},
	"restore": {Arity: -3, Handler: functionRestore},
	"flush":   {Arity: -2, Handler: functionFlush},
	"stats":   {Arity: 2, Handler: functionStats},
	// Kvrocks's own.
	// Kvrocks's.
	"listfunc": {Arity: -2, Handler: functionListFunc, Meta: &executor.Meta{
		Flags: []string{"noscript"},
		ACL:   []string{"@slow", "@scripting"},
		Doc: doc("summary", "Returns every function with its library, sorted by name, or those whose name starts with a prefix",
			"group", "scripting", "complexity", "O(N) where N is the number of functions",
			"arguments", docArgs(optional(doc("name", "prefix", "type", "string", "token", "FUNCNAME")))),
	}},
	"listlib": {Arity: -2, Handler: functionListLib, Meta: &executor.Meta{
		Flags: []string{"noscript"},
		ACL:   []string{"@slow", "@scripting"},
		Doc: doc("summary", "Returns a library's name, engine and functions, in the order it registered them",
			"group", "scripting", "complexity", "O(N) where N is the number of functions in the library",
			"arguments", docArgs(docString("library_name"))),
	}},
	"kill": {Arity: 2, Handler: func(c *executor.Ctx) {
		if refusal := c.Env.Scripts.Kill(true); refusal != "" {
			c.ErrorString(refusal)
			return
		}
		c.W.OK()
	}},
	"help": executor.Help(
		"FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"LOAD [REPLACE] <FUNCTION CODE>",
		"    Create a new library with the given library name and code.",
		"DELETE <LIBRARY NAME>",
		"    Delete the given library.",
		"LIST [LIBRARYNAME PATTERN] [WITHCODE]",
		"    Return general information on all the libraries:",
		"    * Library name",
		"    * The engine used to run the Library",
		"    * Library description",
		"    * Functions list",
		"    * Library code (if WITHCODE is given)",
		"    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
		"STATS",
		"    Return information about the current function running:",
		"    * Function name",
		"    * Command used to run the function",
		"    * Duration in MS that the function is running",
		"    If no function is running, return nil",
		"    In addition, returns a list of available engines.",
		"KILL",
		"    Kill the current running function.",
		"FLUSH [ASYNC|SYNC]",
		"    Delete all the libraries.",
		"    When called without the optional mode argument, the behavior is determined by the",
		"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
		"    * ASYNC: Asynchronously flush the libraries.",
		"    * SYNC: Synchronously flush the libraries.",
		"DUMP",
		"    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
		"RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
		"    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
		"    control how to handle existing libraries (default APPEND):",
		"    * FLUSH: delete all existing libraries.",
		"    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
		"    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
		"      libraries with the new libraries (notice that even on this option there is a chance of failure",
		"      in case of functions name collision with another library).",
		"HELP",
		"    Prints this help.",
	),
}

// FUNCTION LOAD [REPLACE] code
func functionLoad(c *executor.Ctx) {
	policy := scripting.PolicyLoad
	i := 2
	for ; i < len(c.Args)-1; i++ {
		if !c.Is(i, "replace") {
			c.ErrorString("ERR Unknown option given: " + string(c.Args[i]))
			return
		}
		policy = scripting.PolicyReplace
	}
	if i != len(c.Args)-1 {
		c.ErrorString("ERR Function code was not given")
		return
	}
	if refusal := scriptWriteRefusal(c); refusal != "" {
		c.ErrorString(refusal)
		return
	}
	scope := c.ScriptScope()
	lib, err := c.Env.Scripts.Prepare(string(c.Args[i]), policy, scope)
	if err == nil {
		err = c.Env.Scripts.Install([]*scripting.Library{lib}, policy, scope, c.Env.PersistLibraries)
	}
	if !c.OK(scriptError(err)) {
		return
	}
	c.W.BulkString(lib.Name)
}

// FUNCTION DELETE library
func functionDelete(c *executor.Ctx) {
	if refusal := scriptWriteRefusal(c); refusal != "" {
		c.ErrorString(refusal)
		return
	}
	err := c.Env.Scripts.Delete(string(c.Args[2]), c.ScriptScope(), c.Env.PersistLibraries)
	if errors.Is(err, scripting.ErrNoLibrary) {
		c.ErrorString("ERR Library not found")
		return
	}
	if c.OK(err) {
		c.W.OK()
	}
}

// FUNCTION FLUSH [ASYNC|SYNC]
func functionFlush(c *executor.Ctx) {
	if len(c.Args) > 3 || (len(c.Args) == 3 && !c.Is(2, "async") && !c.Is(2, "sync")) {
		c.ErrorString("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")
		return
	}
	if refusal := scriptWriteRefusal(c); refusal != "" {
		c.ErrorString(refusal)
		return
	}
	if c.OK(c.Env.Scripts.Flush(c.ScriptScope(), c.Env.PersistLibraries)) {
		c.W.OK()
	}
}

// FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE]
func functionList(c *executor.Ctx) {
	var pattern []byte
	withCode := false
	for i := 2; i < len(c.Args); i++ {
		switch {
		case c.Is(i, "withcode") && !withCode:
			withCode = true
		case c.Is(i, "libraryname") && pattern == nil:
			if i+1 == len(c.Args) {
				c.ErrorString("ERR library name argument was not given")
				return
			}
			i++
			pattern = c.Args[i]
		default:
			c.ErrorString("ERR Unknown argument " + string(c.Args[i]))
			return
		}
	}
	var libs []*scripting.Library
	for _, lib := range c.Env.Scripts.Libraries(c.ScriptScope()) {
		if pattern == nil || glob.Match(pattern, []byte(lib.Name), true) {
			libs = append(libs, lib)
		}
	}
	c.W.Array(len(libs))
	for _, lib := range libs {
		fields := 3
		if withCode {
			fields++
		}
		c.W.Map(fields)
		c.W.BulkString("library_name")
		c.W.BulkString(lib.Name)
		c.W.BulkString("engine")
		c.W.BulkString("LUA")
		c.W.BulkString("functions")
		c.W.Array(len(lib.Functions))
		for _, f := range lib.Functions {
			c.W.Map(3)
			c.W.BulkString("name")
			c.W.BulkString(f.Name)
			c.W.BulkString("description")
			if f.HasDescription {
				c.W.BulkString(f.Description)
			} else {
				c.W.Null()
			}
			c.W.BulkString("flags")
			names := f.Flags.Names()
			c.W.Set(len(names))
			for _, n := range names {
				c.W.Simple(n)
			}
		}
		if withCode {
			c.W.BulkString("library_code")
			c.W.BulkString(lib.Code)
		}
	}
}

// FUNCTION DUMP
func functionDump(c *executor.Ctx) {
	var codes []string
	for _, lib := range c.Env.Scripts.Libraries(c.ScriptScope()) {
		codes = append(codes, lib.Code)
	}
	c.W.Bulk(rdb.EncodeFunctions(codes))
}

// FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE]
func functionRestore(c *executor.Ctx) {
	if len(c.Args) > 4 {
		c.ErrorString("ERR unknown subcommand or wrong number of arguments for '" + string(c.Args[1]) + "'. Try FUNCTION HELP.")
		return
	}
	policy := scripting.PolicyAppend
	if len(c.Args) == 4 {
		switch {
		case c.Is(3, "flush"):
			policy = scripting.PolicyFlush
		case c.Is(3, "append"):
		case c.Is(3, "replace"):
			policy = scripting.PolicyReplace
		default:
			c.ErrorString("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.")
			return
		}
	}
	if refusal := scriptWriteRefusal(c); refusal != "" {
		c.ErrorString(refusal)
		return
	}
	codes, err := rdb.DecodeFunctions(c.Args[2])
	switch {
	case errors.Is(err, rdb.ErrNotFunction):
		c.ErrorString("ERR given type is not a function")
		return
	case err != nil:
		c.ErrorString("ERR DUMP payload version or checksum are wrong")
		return
	}
	scope := c.ScriptScope()
	libs := make([]*scripting.Library, 0, len(codes))
	for _, code := range codes {
		lib, err := c.Env.Scripts.Prepare(code, scripting.PolicyReplace, scope)
		if err != nil {
			c.Error(scriptError(err))
			return
		}
		libs = append(libs, lib)
	}
	if c.OK(scriptError(c.Env.Scripts.Install(libs, policy, scope, c.Env.PersistLibraries))) {
		c.W.OK()
	}
}

// FUNCTION STATS
//
// A namespace sees the run of another as no run, and counts its own
// libraries.
func functionStats(c *executor.Ctx) {
	run, running := c.Env.Scripts.RunningStats()
	if running && !run.Function {
		c.ErrorString("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.")
		return
	}
	scope := c.ScriptScope()
	c.W.Map(2)
	c.W.BulkString("running_script")
	if running && scope.Sees(run.Owner) {
		c.W.Map(3)
		c.W.BulkString("name")
		c.W.BulkString(run.Name)
		c.W.BulkString("command")
		c.W.Array(len(run.Command))
		for _, a := range run.Command {
			c.W.Bulk(a)
		}
		c.W.BulkString("duration_ms")
		c.W.Int(run.Elapsed.Milliseconds())
	} else {
		c.W.Null()
	}
	c.W.BulkString("engines")
	c.W.Map(1)
	c.W.BulkString("LUA")
	libraries, functions := c.Env.Scripts.Counts(scope)
	c.W.Map(2)
	c.W.BulkString("libraries_count")
	c.W.Int(int64(libraries))
	c.W.BulkString("functions_count")
	c.W.Int(int64(functions))
}
