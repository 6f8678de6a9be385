package commands

import (
	"errors"

	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/scripting"
)

// Lua scripts: EVAL, EVALSHA, their _RO forms, and SCRIPT. The Lua
// environment is the scripting package's; this file parses the commands,
// runs the commands a script calls, and keeps scripts where Kvrocks keeps
// them: SCRIPT LOAD writes the body to the propagate column family under
// lua_f_<sha> (EVAL keeps it in memory only), so it survives a restart
// and reaches replicas through the WAL; the admin's SCRIPT FLUSH deletes
// them and writes the "script" record that tells replicas to forget
// theirs. A namespace sees only its own scripts (script_store.go).

func init() {
	executor.Register(
		// Scripts hold the gate alone: nothing interleaves with them.
		// Their commands lock their own keys (LocksItself).
		&executor.Command{Name: "eval", Arity: -3, Flags: executor.Write | executor.LocksItself | executor.Exclusive | executor.RunsScript, Keys: scriptKeys, Handler: func(c *executor.Ctx) { evalCommand(c, false, false) }},
		&executor.Command{Name: "evalsha", Arity: -3, Flags: executor.Write | executor.LocksItself | executor.Exclusive | executor.RunsScript, Keys: scriptKeys, Handler: func(c *executor.Ctx) { evalCommand(c, true, false) }},
		&executor.Command{Name: "eval_ro", Arity: -3, Flags: executor.ReadOnly | executor.Exclusive | executor.RunsScript, Keys: scriptKeys, Handler: func(c *executor.Ctx) { evalCommand(c, false, true) }},
		&executor.Command{Name: "evalsha_ro", Arity: -3, Flags: executor.ReadOnly | executor.Exclusive | executor.RunsScript, Keys: scriptKeys, Handler: func(c *executor.Ctx) { evalCommand(c, true, true) }},
		&executor.Command{Name: "script", Arity: -2, Subcommands: scriptSubcommands, Handler: cmdScript},
	)
}

const errNoScript = "NOSCRIPT No matching script. Please use EVAL."

// scriptKeys returns the declared keys of EVAL and FCALL: numkeys of
// them after it; none when numkeys is not a count the arguments hold.
func scriptKeys(args [][]byte) [][]byte {
	n, ok := num.ParseInt(args[2])
	if !ok || n < 0 || n > int64(len(args)-3) {
		return nil
	}
	return args[3 : 3+n]
}

// scriptArgs splits a script's keys and arguments, replying the error
// when numkeys is not valid; notInteger is the reply for a numkeys that
// is no integer.
func scriptArgs(c *executor.Ctx, notInteger string) (keys, args [][]byte, ok bool) {
	n, isInt := num.ParseInt(c.Args[2])
	switch {
	case !isInt:
		c.ErrorString(notInteger)
	case n > int64(len(c.Args)-3):
		c.ErrorString("ERR Number of keys can't be greater than number of args")
	case n < 0:
		c.ErrorString("ERR Number of keys can't be negative")
	default:
		return c.Args[3 : 3+n], c.Args[3+n:], true
	}
	return nil, nil, false
}

// EVAL script numkeys [key ...] [arg ...]
// EVALSHA sha1 numkeys [key ...] [arg ...]
// EVAL_RO and EVALSHA_RO, the same for read-only scripts.
func evalCommand(c *executor.Ctx, bySHA, readOnly bool) {
	keys, args, ok := scriptArgs(c, executor.ErrNotInteger)
	if !ok {
		return
	}
	var sc *scripting.Script
	if bySHA {
		if sc = c.Env.StoredScript(c.Args[1], c.ScriptScope()); sc == nil {
			c.ErrorString(errNoScript)
			return
		}
	} else {
		var err error
		if sc, err = c.Env.Scripts.Cache(string(c.Args[1]), c.Session.Namespace); err != nil {
			c.Error(scriptError(err))
			return
		}
	}
	if sc.Declared {
		if refusal := c.Env.DeclaredRefusal(sc.Flags, readOnly); refusal != "" {
			c.ErrorString(refusal)
			return
		}
	}
	c.RunScript(keys, readOnly || sc.ReadOnly(), sc.CrossSlot(), func(inv scripting.Invocation) {
		c.Env.Scripts.Eval(sc, keys, args, inv, c.W)
	})
}

// scriptError makes the scripting package's errors, whose text is the
// reply, replies.
func scriptError(err error) error {
	if errors.Is(err, scripting.ErrCompile) {
		return executor.ReplyError(err.Error())
	}
	return err
}

// SCRIPT LOAD script | EXISTS sha1 [sha1 ...] | FLUSH [ASYNC|SYNC] |
// KILL | HELP
func cmdScript(c *executor.Ctx) {
	executor.DispatchSub(c)
}

var scriptSubcommands = map[string]*executor.Subcommand{
	"load":   {Arity: 3, Handler: scriptLoad},
	"exists": {Arity: -3, Handler: scriptExists},
	"flush":  {Arity: -2, Handler: scriptFlush},
	"debug":  {Arity: 3, Handler: scriptDebug},
	"kill": {Arity: 2, Handler: func(c *executor.Ctx) {
		if refusal := c.Env.Scripts.Kill(false); refusal != "" {
			c.ErrorString(refusal)
			return
		}
		c.W.OK()
	}},
	"help": executor.Help(
		"SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"DEBUG (YES|SYNC|NO)",
		"    Set the debug mode for subsequent scripts executed.",
		"EXISTS <sha1> [<sha1> ...]",
		"    Return information about the existence of the scripts in the script cache.",
		"FLUSH [ASYNC|SYNC]",
		"    Flush the Lua scripts cache. Very dangerous on replicas.",
		"    When called without the optional mode argument, the behavior is determined by the",
		"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
		"    * ASYNC: Asynchronously flush the scripts cache.",
		"    * SYNC: Synchronously flush the scripts cache.",
		"KILL",
		"    Kill the currently executing Lua script.",
		"LOAD <script>",
		"    Load a script into the scripts cache without executing it.",
		"HELP",
		"    Prints this help.",
	),
}

// scriptWriteRefusal is the refusal of a SCRIPT or FUNCTION subcommand
// that writes, on a read-only replica, or while a script is busy.
func scriptWriteRefusal(c *executor.Ctx) string {
	if busy := c.Env.Scripts.Busy(); busy != "" {
		return busy
	}
	if c.Env.Repl.IsReplica() && c.Env.Config.SlaveReadOnly.Get() {
		return executor.ErrReadOnlyReplica
	}
	return ""
}

// SCRIPT LOAD script
func scriptLoad(c *executor.Ctx) {
	if refusal := scriptWriteRefusal(c); refusal != "" {
		c.ErrorString(refusal)
		return
	}
	sc, err := c.Env.LoadScript(c.Args[2], c.Session.Namespace)
	if c.OK(scriptError(err)) {
		c.W.BulkString(sc.SHA)
	}
}

// SCRIPT DEBUG YES|SYNC|NO
//
// Basalt has no Lua debugger: NO, the mode scripts run in, is all it
// takes.
func scriptDebug(c *executor.Ctx) {
	switch {
	case c.Is(2, "no"):
		c.W.OK()
	case c.Is(2, "yes"), c.Is(2, "sync"):
		c.ErrorString("ERR Basalt has no Lua debugger: SCRIPT DEBUG NO is the only mode")
	default:
		c.ErrorString("ERR Use SCRIPT DEBUG YES/SYNC/NO")
	}
}

// SCRIPT EXISTS sha1 [sha1 ...]
func scriptExists(c *executor.Ctx) {
	if busy := c.Env.Scripts.Busy(); busy != "" {
		c.ErrorString(busy)
		return
	}
	c.W.Array(len(c.Args) - 2)
	for _, sha := range c.Args[2:] {
		c.IntBool(c.Env.StoredScript(sha, c.ScriptScope()) != nil)
	}
}

// SCRIPT FLUSH [ASYNC|SYNC]
//
// A namespace's flush forgets its own scripts, the admin's every one.
func scriptFlush(c *executor.Ctx) {
	if len(c.Args) > 3 || (len(c.Args) == 3 && !c.Is(2, "async") && !c.Is(2, "sync")) {
		c.ErrorString("ERR SCRIPT FLUSH only support SYNC|ASYNC option")
		return
	}
	if refusal := scriptWriteRefusal(c); refusal != "" {
		c.ErrorString(refusal)
		return
	}
	// The record a replica recognises: the command as typed, in RESP.
	record := executor.AppendRESPArray(nil, c.Args)
	if c.OK(c.Env.FlushScripts(c.ScriptScope(), record)) {
		c.W.OK()
	}
}
