package commands

import (
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/metadata"
)

func init() {
	executor.Register(&executor.Command{Name: "reset", Arity: 1, Flags: executor.NoAuth | executor.Fast | executor.TxControl | executor.SubscriberOK, Handler: cmdReset})
}

// RESET
//
// Returns the connection to its state after connecting: no transaction,
// no watched key, no subscription, not monitoring, no tracking, RESP2, no
// name, READWRITE, CLIENT REPLY ON, and not authenticated when a password
// is required.
func cmdReset(c *executor.Ctx) {
	s, sessions := c.Session, c.Env.Sessions
	s.EndTx()
	sessions.Watches.Unwatch(s)
	sessions.PubSub.UnsubscribeAll(s)
	sessions.Monitors.Stop(s)
	s.DisableTracking()
	s.SetProtocol(2)
	s.SetName("")
	s.ReadOnly, s.Asking = false, false
	// As Redis, a SKIP already in force still silences RESET's own reply.
	s.Replies.Off, s.Replies.SkipNext = false, false
	// As a new connection: the default namespace, which is the admin's,
	// authenticated only when no password is required.
	s.Authed, s.Admin = c.Env.Config.RequirePass.Get() == "", true
	s.SetNamespace(metadata.DefaultNamespace)
	c.W.Simple("RESET")
}
