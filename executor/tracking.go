package executor

// remember adds the keys a read command read to its client's tracking
// table, and keeps the table within tracking-table-max-keys. As in Redis
// 7.0, a read a script runs makes its client remember the keys the script
// declared, whichever it read, and the script command itself (EVAL_RO,
// FCALL_RO) remembers nothing: a script that reads nothing tracks none.
func (e *Env) remember(c *Ctx, cmd *Command, args [][]byte) {
	var keys [][]byte
	switch {
	case cmd.Flags&ReadOnly == 0 || cmd.Flags&RunsScript != 0:
		return
	case c.InScript:
		if m := subcommandMeta(cmd, args); m != nil && !hasFlag(m.Flags, "readonly") {
			return // MEMORY STATS, OBJECT HELP: Redis reads no data there
		}
		keys = c.scriptKeys
	case cmd.HasKeys():
		keys = cmd.KeysOf(args)
	}
	held := c.Session.Remember(keys)
	if max := e.Config.Redis.TrackingTableMaxKeys.Get(); max > 0 && int64(held) > max {
		c.Inv.Writer = c.Session
		e.Sessions.Tracking.Evict(e.Sessions, max, &c.Inv)
	}
}

// Flushed tells the readers of keys that FLUSHDB (or FLUSHALL, all)
// emptied the namespace of c.
func (c *Ctx) Flushed(all bool) {
	c.Inv.Writer = c.Session
	c.Env.keyspaceFlushed(c.Session.Namespace, all, c.Session, &c.Inv)
}

// sendHeldInvalidations sends at once what a served blocked client's own
// writes invalidated for it: its reply waits for its connection, which
// is not the one serving it.
func (c *Ctx) sendHeldInvalidations() {
	for _, send := range c.Inv.Self {
		send()
	}
	c.Inv.Self = nil
}

// trackingDone ends a command of the connection: the invalidations its
// own writes caused go out after its reply, and CLIENT CACHING's choice
// ends unless the command keeps it (CLIENT) or was queued.
func (e *Env) trackingDone(c *Ctx, args [][]byte) {
	s := c.Session
	if len(c.Inv.Self) > 0 {
		s.SendAfterReplies(&c.Inv)
	}
	c.Inv.Writer = nil
	cmd := Lookup(args[0])
	s.CommandDone(cmd != nil && cmd.Flags&KeepsCaching != 0)
}
