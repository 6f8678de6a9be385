package commands

import (
	"fmt"
	"log/slog"
	"math"
	"runtime/debug"
	"strings"
	"time"

	"github.com/basaltdb/basalt/cluster"
	"github.com/basaltdb/basalt/metadata"
)

// Dispatch runs one request of a client and writes its reply to the
// client's writer. Every decision that depends on the kind of command
// (arity, authentication, admin rights, key locks, statistics) is made
// here from the command table.
func (e *Env) Dispatch(cl *Client, args [][]byte) {
	cmd := lookup(args[0])
	if cmd == nil {
		cl.W.Error(unknownCommand(args))
		return
	}
	if !cmd.arityOK(len(args)) {
		cl.W.Error("ERR wrong number of arguments for '" + cmd.Name + "' command")
		return
	}
	if !cl.Authed && cmd.Flags&NoAuth == 0 {
		cl.W.Error(errNoAuth)
		return
	}
	if cmd.Flags&Admin != 0 && !cl.Admin {
		cl.W.Error("ERR admin permission required to perform the command")
		return
	}
	if e.Cluster != nil {
		if cmd.Flags&Write != 0 {
			e.Cluster.BeginWrite()
			defer e.Cluster.EndWrite()
		}
		// ASKING lasts one command: the next one, unless it is ASKING,
		// which sets it again.
		asking := cl.Asking
		cl.Asking = false
		if err := e.route(cl, cmd, args, asking); err != nil {
			cl.W.Error(err.Error())
			return
		}
	}
	if cl.monitor.Load() && cmd.hasKeys() {
		cl.W.Error("ERR Replica can't interact with the keyspace")
		return
	}
	ctx := &cl.ctx
	ctx.Args, ctx.cmd = args, cmd
	ctx.DB = e.Storage.DB(cl.Namespace)
	start := time.Now()
	cl.lastActive.Store(start.UnixMilli())
	cl.lastCmd.Store(cmd)
	e.run(ctx)
	elapsed := time.Since(start)
	cmd.stats.record(elapsed)
	e.Stats.CommandsProcessed.Add(1)
	e.slowlog.maybeAdd(e, cl, args, start, elapsed)
	// Like Redis, monitors are not shown admin commands (MONITOR itself,
	// CONFIG, ...).
	if e.monitors.count() > 0 && cmd.Flags&Admin == 0 {
		e.monitors.feed(cl, cmd, args, start)
	}
	ctx.Args = nil
}

// run calls the handler, under the key locks of write commands.
func (e *Env) run(ctx *Ctx) {
	if ctx.cmd.Flags&Write == 0 || ctx.cmd.Flags&LocksItself != 0 {
		call(ctx)
		return
	}
	e.Storage.Locks.Do(ctx.Client.Namespace, ctx.cmd.keys(ctx.Args), func() { call(ctx) })
}

// call runs the handler, then records how far the WAL must be flushed
// before its reply is sent. A panic in a handler is a bug: it is logged
// and answered with an error instead of taking the server down.
func call(ctx *Ctx) {
	defer func() {
		if r := recover(); r != nil {
			slog.Error("command panicked", "cmd", ctx.cmd.Name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			ctx.W.Error("ERR internal error")
		}
		ctx.Client.SyncTo = ctx.Env.Storage.LatestSequence()
	}()
	ctx.cmd.Handler(ctx)
}

// route checks, in cluster mode, that this node serves the slot of the
// command's keys, which must all be in one slot. Keyless commands run
// locally.
func (e *Env) route(cl *Client, cmd *Command, args [][]byte, asking bool) error {
	keys := cmd.keys(args)
	if len(keys) == 0 {
		return nil
	}
	slot := metadata.HashSlot(keys[0])
	for _, k := range keys[1:] {
		if metadata.HashSlot(k) != slot {
			return cluster.ErrCrossSlot
		}
	}
	return e.Cluster.Route(int(slot), cluster.Access{Write: cmd.Flags&Write != 0, ReadOnly: cl.ReadOnly, Importing: cl.Importing || asking})
}

// unknownCommand renders Redis's error for an unknown command: the name
// and the first arguments, quoted, within 128 bytes.
func unknownCommand(args [][]byte) string {
	var quoted strings.Builder
	for _, a := range args[1:] {
		if quoted.Len() >= 128 {
			break
		}
		room := 128 - quoted.Len()
		quoted.WriteString("'")
		quoted.Write(a[:min(len(a), room)])
		quoted.WriteString("' ")
	}
	return "ERR unknown command '" + abbreviate(args[0]) + "', with args beginning with: " + quoted.String()
}

func floatBits(f float64) uint64     { return math.Float64bits(f) }
func floatFromBits(b uint64) float64 { return math.Float64frombits(b) }
