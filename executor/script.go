package executor

import (
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/basaltdb/basalt/cluster"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/reply"
	"github.com/basaltdb/basalt/scripting"
	"github.com/basaltdb/basalt/storage"
)

// reloadLibraries makes the engine's libraries those storage holds, each
// in the namespace its note names (the default one without a note).
func (e *Env) reloadLibraries() {
	owners, err := e.libraryOwners()
	if err != nil {
		slog.Error("reading the namespaces of the function libraries", "err", err)
	}
	var libs []*scripting.Library
	err = e.Storage.ScanPropagated(libraryCodePrefix, func(key, value []byte) error {
		lib, err := e.Scripts.Prepare(string(value), scripting.PolicyReplace, scripting.Scope{All: true})
		if err != nil {
			slog.Warn("a stored function library does not load", "library", string(key[len(libraryCodePrefix):]), "err", err)
			return nil
		}
		lib.Owner = metadata.DefaultNamespace
		if owner, ok := owners[lib.Name]; ok {
			lib.Owner = owner
		}
		libs = append(libs, lib)
		return nil
	})
	if err != nil {
		slog.Error("reading the function libraries", "err", err)
	}
	e.Scripts.Reset(libs)
}

// PersistLibraries writes a change of the libraries to storage.
func (e *Env) PersistLibraries(ch scripting.Change) error {
	var writes []storage.PropagatedWrite
	for _, lib := range ch.Remove {
		writes = append(writes, storage.PropagatedWrite{Key: []byte(libraryCodePrefix + lib.Name), Delete: true})
		writes = append(writes, storage.PropagatedWrite{Key: []byte(libraryOwnerPrefix + lib.Name), Delete: true})
		for _, f := range lib.Functions {
			writes = append(writes, storage.PropagatedWrite{Key: []byte(functionLibPrefix + f.Name), Delete: true})
		}
	}
	for _, lib := range ch.Add {
		writes = append(writes, storage.PropagatedWrite{Key: []byte(libraryCodePrefix + lib.Name), Value: []byte(lib.Code)})
		writes = append(writes, libraryOwnerWrite(lib))
		for _, f := range lib.Functions {
			writes = append(writes, storage.PropagatedWrite{Key: []byte(functionLibPrefix + f.Name), Value: []byte(lib.Name)})
		}
	}
	if len(writes) == 0 {
		return nil
	}
	return e.Storage.WritePropagated(writes)
}

// Keys of the propagate column family (SCRIPTING.md §2.4).
const (
	scriptKeyPrefix   = "lua_f_"
	scriptFlushKey    = "script"
	libraryCodePrefix = "lua_lib_code_"
	functionLibPrefix = "lua_func_lib_"
)

// startScripting makes the script engine and loads the function
// libraries that storage holds.
func (e *Env) startScripting() {
	e.Scripts = scripting.NewEngine(func() time.Duration {
		return time.Duration(e.Config.Redis.BusyReplyThreshold.Get()) * time.Millisecond
	})
	e.reloadLibraries()
}

// DeclaredRefusal is what stops a script or function that declared its
// flags before it runs (Redis's scriptPrepareForRun), or "".
func (e *Env) DeclaredRefusal(flags scripting.Flags, readOnlyCommand bool) string {
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

// RunScript runs a script or function for the client: run gets the
// Invocation whose Caller runs the commands the script calls.
func (c *Ctx) RunScript(keys [][]byte, readOnly, crossSlot bool, run func(scripting.Invocation)) {
	caller := &scriptCaller{
		e:         c.Env,
		sub:       Ctx{Session: c.Session, Env: c.Env, InExec: true, InScript: true, scriptKeys: keys, joint: c.joint, frozenAt: time.Now().UnixMilli()},
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
	c.Inv.Self = append(c.Inv.Self, caller.sub.Inv.Self...)
	// CLIENT LIST names the script's command, not the last it ran.
	c.Session.Ran(&c.Cmd.Name, time.Now())
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
	cmd := Lookup(args[0])
	if refusal := sc.refusal(cmd, args); refusal != "" {
		if cmd != nil {
			cmd.stats.rejected.Add(1)
		}
		w.Error(refusal)
		return false
	}
	sc.sub.W = w
	sc.e.Execute(&sc.sub, cmd, args)
	sc.sub.W = nil
	return cmd.Flags&Write != 0
}

// Known implements scripting.Caller.
func (sc *scriptCaller) Known(args [][]byte) bool { return Lookup(args[0]) != nil }

// refusal is the error that keeps a script from calling a command, in
// Redis's order, or "".
func (sc *scriptCaller) refusal(cmd *Command, args [][]byte) string {
	cl := sc.sub.Session
	switch {
	case cmd == nil:
		return "ERR Unknown Redis command called from script"
	case !cmd.ArityOK(len(args)):
		return "ERR Wrong number of args calling Redis command from script"
	case notInScripts(cmd, args):
		return "ERR This Redis command is not allowed from script"
	case cmd.adminOnly(args) && !cl.Admin:
		return ErrAdminRequired
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
	for _, k := range cmd.KeysOf(args) {
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
	m := cmd.Description()
	return m != nil && hasFlag(m.Flags, "noscript")
}

// AppendRESPArray appends args as a RESP array of bulk strings.
func AppendRESPArray(dst []byte, args [][]byte) []byte {
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
			e.Scripts.ForgetScripts(scripting.Scope{All: true})
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
