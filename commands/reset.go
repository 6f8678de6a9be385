package commands

import "github.com/basaltdb/basalt/metadata"

func init() {
	register(&Command{Name: "reset", Arity: 1, Flags: NoAuth | Fast | TxControl | SubscriberOK, Handler: cmdReset})
}

// RESET
//
// Returns the connection to its state after connecting: no transaction,
// no watched key, no subscription, not monitoring, no tracking, RESP2, no
// name, READWRITE,
// and not authenticated when a password is required.
func cmdReset(c *Ctx) {
	s, sessions := c.Session, c.Env.Sessions
	s.EndTx()
	sessions.Watches.Unwatch(s)
	sessions.PubSub.UnsubscribeAll(s)
	sessions.Monitors.Stop(s)
	s.DisableTracking()
	s.SetProtocol(2)
	s.SetName("")
	s.ReadOnly, s.Asking = false, false
	if c.Env.Config.RequirePass.Get() != "" {
		s.Authed, s.Admin = false, false
	}
	s.SetNamespace(metadata.DefaultNamespace)
	c.W.Simple("RESET")
}
