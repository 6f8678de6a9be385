package commands

import (
	"strings"

	"github.com/basaltdb/basalt/session"
)

// Client-side caching: the CLIENT subcommands of Redis 7.0's tracking and
// the hooks that feed the tracking table (session/tracking.go): a read
// remembers its keys for its client (remember), a write invalidates the
// keys it changed (Wrote), FLUSHDB and FLUSHALL everything (flushed).

func init() {
	clientSubcommands["tracking"] = subcommand{-3, clientTracking}
	clientSubcommands["caching"] = subcommand{3, clientCaching}
	clientSubcommands["getredir"] = subcommand{2, clientGetRedir}
	clientSubcommands["trackinginfo"] = subcommand{2, clientTrackingInfo}
}

// CLIENT TRACKING ON|OFF [REDIRECT client-id] [PREFIX prefix [PREFIX prefix ...]] [BCAST] [OPTIN] [OPTOUT] [NOLOOP]
func clientTracking(c *Ctx) {
	var opts session.TrackingOptions
	for i := 3; i < len(c.Args); i++ {
		more := i+1 < len(c.Args)
		switch {
		case c.is(i, "redirect") && more:
			i++
			if opts.Redirect != 0 {
				c.ErrorString("ERR A client can only redirect to a single other client")
				return
			}
			id, ok := c.Int(i)
			if !ok {
				return
			}
			if target := c.Env.Sessions.Get(id); target == nil || !c.mayReach(target) {
				c.ErrorString("ERR The client ID you want redirect to does not exist")
				return
			}
			opts.Redirect = id
		case c.is(i, "bcast"):
			opts.Bcast = true
		case c.is(i, "optin"):
			opts.OptIn = true
		case c.is(i, "optout"):
			opts.OptOut = true
		case c.is(i, "noloop"):
			opts.NoLoop = true
		case c.is(i, "prefix") && more:
			i++
			opts.Prefixes = append(opts.Prefixes, string(c.Args[i]))
		default:
			c.ErrorString(errSyntax)
			return
		}
	}
	switch {
	case c.is(2, "on"):
		if refusal := trackingRefusal(c.Session, opts); refusal != "" {
			c.ErrorString(refusal)
			return
		}
		c.Session.EnableTracking(opts)
	case c.is(2, "off"):
		c.Session.DisableTracking()
	default:
		c.ErrorString(errSyntax)
		return
	}
	c.W.OK()
}

// mayReach reports whether this connection may name target: any for the
// admin, its own namespace's for a tenant.
func (c *Ctx) mayReach(target *session.Session) bool {
	return c.Session.Admin || target.NamespaceName() == c.Session.Namespace
}

// trackingRefusal checks CLIENT TRACKING ON's options against each other
// and against the session's tracking, in Redis's order and words.
func trackingRefusal(s *session.Session, opts session.TrackingOptions) string {
	if !opts.Bcast && len(opts.Prefixes) > 0 {
		return "ERR PREFIX option requires BCAST mode to be enabled"
	}
	oldBcast, oldIn, oldOut := s.TrackingModes()
	on := s.TrackingOn()
	switch {
	case on && oldBcast != opts.Bcast:
		return "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode."
	case opts.Bcast && (opts.OptIn || opts.OptOut):
		return "ERR OPTIN and OPTOUT are not compatible with BCAST"
	case opts.OptIn && opts.OptOut:
		return "ERR You can't specify both OPTIN mode and OPTOUT mode"
	case on && ((opts.OptIn && oldOut) || (opts.OptOut && oldIn)):
		return "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode."
	}
	if !opts.Bcast {
		return ""
	}
	existing := s.TrackingPrefixes()
	for i, p := range opts.Prefixes {
		for _, old := range existing {
			if overlaps(old, p) {
				return "ERR Prefix '" + p + "' overlaps with an existing prefix '" + old + "'. Prefixes for a single client must not overlap."
			}
		}
		for _, other := range opts.Prefixes[i+1:] {
			if overlaps(p, other) {
				return "ERR Prefix '" + p + "' overlaps with another provided prefix '" + other + "'. Prefixes for a single client must not overlap."
			}
		}
	}
	return ""
}

// overlaps reports whether one prefix is a prefix of the other.
func overlaps(a, b string) bool { return strings.HasPrefix(a, b) || strings.HasPrefix(b, a) }

// CLIENT CACHING YES|NO
func clientCaching(c *Ctx) {
	s := c.Session
	if !s.TrackingOn() {
		c.ErrorString("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
		return
	}
	_, optIn, optOut := s.TrackingModes()
	switch {
	case c.is(2, "yes") && optIn:
		s.SetCaching(session.CachingYes)
	case c.is(2, "yes"):
		c.ErrorString("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
		return
	case c.is(2, "no") && optOut:
		s.SetCaching(session.CachingNo)
	case c.is(2, "no"):
		c.ErrorString("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
		return
	default:
		c.ErrorString(errSyntax)
		return
	}
	c.W.OK()
}

// CLIENT GETREDIR
func clientGetRedir(c *Ctx) {
	_, redirect, _ := c.Session.TrackingState()
	c.W.Int(redirect)
}

// CLIENT TRACKINGINFO
func clientTrackingInfo(c *Ctx) {
	flags, redirect, prefixes := c.Session.TrackingState()
	c.W.Map(3)
	c.W.BulkString("flags")
	c.W.Set(len(flags))
	for _, f := range flags {
		c.W.BulkString(f)
	}
	c.W.BulkString("redirect")
	c.W.Int(redirect)
	c.W.BulkString("prefixes")
	c.W.Array(len(prefixes))
	for _, p := range prefixes {
		c.W.BulkString(p)
	}
}

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
	case c.inScript:
		if m := subcommandMeta(cmd, args); m != nil && !hasFlag(m.Flags, "readonly") {
			return // MEMORY STATS, OBJECT HELP: Redis reads no data there
		}
		keys = c.scriptKeys
	case cmd.hasKeys():
		keys = cmd.keys(args)
	}
	held := c.Session.Remember(keys)
	if max := e.Config.Redis.TrackingTableMaxKeys.Get(); max > 0 && int64(held) > max {
		c.inv.Writer = c.Session
		e.Sessions.Tracking.Evict(e.Sessions, max, &c.inv)
	}
}

// flushed tells the readers of keys that FLUSHDB (or FLUSHALL, all)
// emptied the namespace of c.
func (c *Ctx) flushed(all bool) {
	c.inv.Writer = c.Session
	c.Env.keyspaceFlushed(c.Session.Namespace, all, c.Session, &c.inv)
}

// sendHeldInvalidations sends at once what a served blocked client's own
// writes invalidated for it: its reply waits for its connection, which
// is not the one serving it.
func (c *Ctx) sendHeldInvalidations() {
	for _, send := range c.inv.Self {
		send()
	}
	c.inv.Self = nil
}

// trackingDone ends a command of the connection: the invalidations its
// own writes caused go out after its reply, and CLIENT CACHING's choice
// ends unless the command was CLIENT or queued.
func (e *Env) trackingDone(c *Ctx, args [][]byte) {
	s := c.Session
	if len(c.inv.Self) > 0 {
		s.SendAfterReplies(&c.inv)
	}
	c.inv.Writer = nil
	cmd := lookup(args[0])
	s.CommandDone(cmd != nil && cmd.Name == "client")
}
