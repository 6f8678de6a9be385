package commands

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/basaltdb/basalt/cluster"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/reply"
	"github.com/basaltdb/basalt/scripting"
	"github.com/basaltdb/basalt/storage"
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
	register(
		// Scripts hold the gate alone: nothing interleaves with them.
		// Their commands lock their own keys (LocksItself).
		&Command{Name: "eval", Arity: -3, Flags: Write | LocksItself | Exclusive | RunsScript, Keys: scriptKeys, Handler: func(c *Ctx) { evalCommand(c, false, false) }},
		&Command{Name: "evalsha", Arity: -3, Flags: Write | LocksItself | Exclusive | RunsScript, Keys: scriptKeys, Handler: func(c *Ctx) { evalCommand(c, true, false) }},
		&Command{Name: "eval_ro", Arity: -3, Flags: ReadOnly | Exclusive | RunsScript, Keys: scriptKeys, Handler: func(c *Ctx) { evalCommand(c, false, true) }},
		&Command{Name: "evalsha_ro", Arity: -3, Flags: ReadOnly | Exclusive | RunsScript, Keys: scriptKeys, Handler: func(c *Ctx) { evalCommand(c, true, true) }},
		&Command{Name: "script", Arity: -2, Handler: cmdScript},
	)
}

// Keys of the propagate column family (SCRIPTING.md §2.4).
const (
	scriptKeyPrefix   = "lua_f_"
	scriptFlushKey    = "script"
	libraryCodePrefix = "lua_lib_code_"
	functionLibPrefix = "lua_func_lib_"
)

const errNoScript = "NOSCRIPT No matching script. Please use EVAL."

// startScripting makes the script engine and loads the function
// libraries that storage holds.
func (e *Env) startScripting() {
	e.scripts = scripting.NewEngine(func() time.Duration {
		return time.Duration(e.Config.Redis.BusyReplyThreshold.Get()) * time.Millisecond
	})
	e.reloadLibraries()
}

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
func scriptArgs(c *Ctx, notInteger string) (keys, args [][]byte, ok bool) {
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
func evalCommand(c *Ctx, bySHA, readOnly bool) {
	keys, args, ok := scriptArgs(c, errNotInteger)
	if !ok {
		return
	}
	var sc *scripting.Script
	if bySHA {
		if sc = c.Env.storedScript(c.Args[1], c.scriptScope()); sc == nil {
			c.ErrorString(errNoScript)
			return
		}
	} else {
		var err error
		if sc, err = c.Env.scripts.Cache(string(c.Args[1]), c.Session.Namespace); err != nil {
			c.Error(scriptError(err))
			return
		}
	}
	if sc.Declared {
		if refusal := c.Env.declaredRefusal(sc.Flags, readOnly); refusal != "" {
			c.ErrorString(refusal)
			return
		}
	}
	c.runScript(keys, readOnly || sc.ReadOnly(), sc.CrossSlot(), func(inv scripting.Invocation) {
		c.Env.scripts.Eval(sc, keys, args, inv, c.W)
	})
}

// scriptError makes the scripting package's errors, whose text is the
// reply, replies.
func scriptError(err error) error {
	if errors.Is(err, scripting.ErrCompile) {
		return replyError(err.Error())
	}
	return err
}

// declaredRefusal is what stops a script or function that declared its
// flags before it runs (Redis's scriptPrepareForRun), or "".
func (e *Env) declaredRefusal(flags scripting.Flags, readOnlyCommand bool) string {
	if flags&scripting.NoCluster != 0 && e.Cluster != nil {
		return "ERR Can not run script on cluster, 'no-cluster' flag is set."
	}
	if flags&scripting.NoWrites == 0 {
		if e.Repl.IsReplica() && e.Config.SlaveReadOnly.Get() {
			return "READONLY Can not run script with write flag on readonly replica"
		}
		if readOnlyCommand {
			return "ERR Can not execute a script with write flag using *_ro command."
		}
	}
	return ""
}

// runScript runs a script or function for the client: run gets the
// Invocation whose Caller runs the commands the script calls.
func (c *Ctx) runScript(keys [][]byte, readOnly, crossSlot bool, run func(scripting.Invocation)) {
	caller := &scriptCaller{
		e:         c.Env,
		sub:       Ctx{Session: c.Session, Env: c.Env, inExec: true, inScript: true, scriptKeys: keys, joint: c.joint, frozenAt: time.Now().UnixMilli()},
		readOnly:  readOnly,
		crossSlot: crossSlot,
		slot:      -1,
	}
	if len(keys) > 0 {
		caller.slot = int(metadata.HashSlot(keys[0]))
	}
	run(scripting.Invocation{Caller: caller, Command: c.Args, Owner: c.Session.Namespace})
	// What the script's writes invalidated for its own client goes out
	// after the script's reply.
	c.inv.Self = append(c.inv.Self, caller.sub.inv.Self...)
	// CLIENT LIST names the script's command, not the last it ran.
	c.Session.Ran(&c.cmd.Name, time.Now())
}

// scriptCaller runs the commands of one run of a script, through the
// same table and checks as the client's own commands, with Redis's
// refusals for what a script may not do.
type scriptCaller struct {
	e         *Env
	sub       Ctx
	readOnly  bool // the run may not write (EVAL_RO, no-writes)
	crossSlot bool // in cluster mode, the run may touch keys of several slots
	slot      int  // in cluster mode, the slot the run touched first (-1: none yet)
}

// Call implements scripting.Caller.
func (sc *scriptCaller) Call(args [][]byte, w reply.Sink) bool {
	cmd := lookup(args[0])
	if refusal := sc.refusal(cmd, args); refusal != "" {
		if cmd != nil {
			cmd.stats.rejected.Add(1)
		}
		w.Error(refusal)
		return false
	}
	sc.sub.W = w
	sc.e.execute(&sc.sub, cmd, args)
	sc.sub.W = nil
	return cmd.Flags&Write != 0
}

// Known implements scripting.Caller.
func (sc *scriptCaller) Known(args [][]byte) bool { return lookup(args[0]) != nil }

// refusal is the error that keeps a script from calling a command, in
// Redis's order, or "".
func (sc *scriptCaller) refusal(cmd *Command, args [][]byte) string {
	cl := sc.sub.Session
	switch {
	case cmd == nil:
		return "ERR Unknown Redis command called from script"
	case !cmd.arityOK(len(args)):
		return "ERR Wrong number of args calling Redis command from script"
	case notInScripts(cmd, args):
		return "ERR This Redis command is not allowed from script"
	case cmd.Flags&Admin != 0 && !cl.Admin:
		return errAdminRequired
	}
	writes := cmd.Flags&Write != 0
	if writes && sc.readOnly {
		return "ERR Write commands are not allowed from read-only scripts."
	}
	if refusal := sc.e.replicaRefusal(cmd, writes); refusal != "" {
		return refusal
	}
	if sc.e.Cluster != nil {
		return sc.clusterRefusal(cmd, args, writes)
	}
	return ""
}

// clusterRefusal checks, in cluster mode, that the keys a script's
// command touches are served here and, unless the script may cross
// slots, are in the slot it touched first.
func (sc *scriptCaller) clusterRefusal(cmd *Command, args [][]byte, writes bool) string {
	cl := sc.sub.Session
	for _, k := range cmd.keys(args) {
		slot := int(metadata.HashSlot(k))
		if err := sc.e.Cluster.Route(slot, cluster.Access{Write: writes, ReadOnly: cl.ReadOnly, Importing: cl.Importing}); err != nil {
			return "ERR Script attempted to access a non local key in a cluster node"
		}
		switch {
		case sc.slot == -1:
			sc.slot = slot
		case slot != sc.slot && !sc.crossSlot:
			return "ERR Script attempted to access keys that do not hash to the same slot"
		}
	}
	return ""
}

// notInScripts reports whether a script may not call the command:
// Redis's noscript commands (and subcommands), and the commands that
// take the connection over or cannot be queued.
func notInScripts(cmd *Command, args [][]byte) bool {
	if cmd.Flags&(NoMulti|RunsScript) != 0 {
		return true
	}
	if m := subcommandMeta(cmd, args); m != nil {
		return hasFlag(m.Flags, "noscript")
	}
	m := metaOf(cmd.Name)
	return m != nil && hasFlag(m.Flags, "noscript")
}

// subcommandMeta returns Redis's description of the subcommand args
// call (CONFIG GET, MEMORY STATS), nil when cmd has no such subcommand.
func subcommandMeta(cmd *Command, args [][]byte) *commandMeta {
	if len(args) < 2 {
		return nil
	}
	return metaOf(cmd.Name + "|" + strings.ToLower(string(args[1])))
}

// SCRIPT LOAD script | EXISTS sha1 [sha1 ...] | FLUSH [ASYNC|SYNC] |
// KILL | HELP
func cmdScript(c *Ctx) {
	dispatchSub(c, scriptSubcommands)
}

var scriptSubcommands = map[string]subcommand{
	"load":   {3, scriptLoad},
	"exists": {-3, scriptExists},
	"flush":  {-2, scriptFlush},
	"debug":  {3, scriptDebug},
	"kill": {2, func(c *Ctx) {
		if refusal := c.Env.scripts.Kill(false); refusal != "" {
			c.ErrorString(refusal)
			return
		}
		c.W.OK()
	}},
	"help": help(
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
func (c *Ctx) scriptWriteRefusal() string {
	if busy := c.Env.scripts.Busy(); busy != "" {
		return busy
	}
	if c.Env.Repl.IsReplica() && c.Env.Config.SlaveReadOnly.Get() {
		return errReadOnlyReplica
	}
	return ""
}

// SCRIPT LOAD script
func scriptLoad(c *Ctx) {
	if refusal := c.scriptWriteRefusal(); refusal != "" {
		c.ErrorString(refusal)
		return
	}
	sc, err := c.Env.loadScript(c.Args[2], c.Session.Namespace)
	if c.ok(scriptError(err)) {
		c.W.BulkString(sc.SHA)
	}
}

// SCRIPT DEBUG YES|SYNC|NO
//
// Basalt has no Lua debugger: NO, the mode scripts run in, is all it
// takes.
func scriptDebug(c *Ctx) {
	switch {
	case c.is(2, "no"):
		c.W.OK()
	case c.is(2, "yes"), c.is(2, "sync"):
		c.ErrorString("ERR Basalt has no Lua debugger: SCRIPT DEBUG NO is the only mode")
	default:
		c.ErrorString("ERR Use SCRIPT DEBUG YES/SYNC/NO")
	}
}

// SCRIPT EXISTS sha1 [sha1 ...]
func scriptExists(c *Ctx) {
	if busy := c.Env.scripts.Busy(); busy != "" {
		c.ErrorString(busy)
		return
	}
	c.W.Array(len(c.Args) - 2)
	for _, sha := range c.Args[2:] {
		c.intBool(c.Env.storedScript(sha, c.scriptScope()) != nil)
	}
}

// SCRIPT FLUSH [ASYNC|SYNC]
//
// A namespace's flush forgets its own scripts, the admin's every one.
func scriptFlush(c *Ctx) {
	if len(c.Args) > 3 || (len(c.Args) == 3 && !c.is(2, "async") && !c.is(2, "sync")) {
		c.ErrorString("ERR SCRIPT FLUSH only support SYNC|ASYNC option")
		return
	}
	if refusal := c.scriptWriteRefusal(); refusal != "" {
		c.ErrorString(refusal)
		return
	}
	// The record a replica recognises: the command as typed, in RESP.
	record := appendRESPArray(nil, c.Args)
	if c.ok(c.Env.flushScripts(c.scriptScope(), record)) {
		c.W.OK()
	}
}

// appendRESPArray appends args as a RESP array of bulk strings.
func appendRESPArray(dst []byte, args [][]byte) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(args)), 10)
	dst = append(dst, '\r', '\n')
	for _, a := range args {
		dst = append(dst, '$')
		dst = strconv.AppendInt(dst, int64(len(a)), 10)
		dst = append(dst, '\r', '\n')
		dst = append(dst, a...)
		dst = append(dst, '\r', '\n')
	}
	return dst
}

// scriptsReplicated follows the propagate records a replica applied: the
// master's SCRIPT FLUSH makes it forget its scripts, a namespace's its
// own, a change of the function libraries or of their namespaces reloads
// them.
func (e *Env) scriptsReplicated(records []storage.WALRecord) {
	libraries := false
	for _, r := range records {
		if r.CF != storage.CFPropagate {
			continue
		}
		key := string(r.Key)
		switch {
		case r.Kind == storage.RecordPut && key == scriptFlushKey:
			e.scripts.ForgetScripts(scripting.Scope{All: true})
		case strings.HasPrefix(key, scriptKeyPrefix), strings.HasPrefix(key, scriptOwnerPrefix):
			e.scriptNoteReplicated(r)
		case strings.HasPrefix(key, libraryCodePrefix), strings.HasPrefix(key, functionLibPrefix), strings.HasPrefix(key, libraryOwnerPrefix):
			libraries = true
		}
	}
	if libraries {
		e.reloadLibraries()
	}
}
