package commands

import (
	"github.com/basaltdb/basalt/executor"
)

func init() {
	executor.Register(&executor.Command{Name: "monitor", Arity: 1, Flags: executor.Admin | executor.NoMulti, Handler: cmdMonitor})
}

// MONITOR
//
// The connection then receives every command the server runs, one line
// each, after its +OK: the reply is queued before the client is
// registered, so no line can overtake it.
func cmdMonitor(c *executor.Ctx) { c.Session.Monitor() }
