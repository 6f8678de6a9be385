package commands

func init() {
	register(&Command{Name: "monitor", Arity: 1, Flags: Admin | NoMulti, Handler: cmdMonitor})
}

// MONITOR
//
// The connection then receives every command the server runs, one line
// each, after its +OK: the reply is queued before the client is
// registered, so no line can overtake it.
func cmdMonitor(c *Ctx) { c.Session.Monitor() }
