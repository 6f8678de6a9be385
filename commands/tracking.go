package commands

import (
	"strings"

	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/session"
)

// Client-side caching: the CLIENT subcommands of Redis 7.0's tracking and
// the hooks that feed the tracking table (session/tracking.go): a read
// remembers its keys for its client (remember), a write invalidates the
// keys it changed (Wrote), FLUSHDB and FLUSHALL everything (flushed).

func init() {
	clientSubcommands["tracking"] = &executor.Subcommand{Arity: -3, Handler: clientTracking}
	clientSubcommands["caching"] = &executor.Subcommand{Arity: 3, Handler: clientCaching}
	clientSubcommands["getredir"] = &executor.Subcommand{Arity: 2, Handler: clientGetRedir}
	clientSubcommands["trackinginfo"] = &executor.Subcommand{Arity: 2, Handler: clientTrackingInfo}
}

// CLIENT TRACKING ON|OFF [REDIRECT client-id] [PREFIX prefix [PREFIX prefix ...]] [BCAST] [OPTIN] [OPTOUT] [NOLOOP]
func clientTracking(c *executor.Ctx) {
	var opts session.TrackingOptions
	for i := 3; i < len(c.Args); i++ {
		more := i+1 < len(c.Args)
		switch {
		case c.Is(i, "redirect") && more:
			i++
			if opts.Redirect != 0 {
				c.ErrorString("ERR A client can only redirect to a single other client")
				return
			}
			id, ok := c.Int(i)
			if !ok {
				return
			}
			if target := c.Env.Sessions.Get(id); target == nil || !mayReach(c, target) {
				c.ErrorString("ERR The client ID you want redirect to does not exist")
				return
			}
			opts.Redirect = id
		case c.Is(i, "bcast"):
			opts.Bcast = true
		case c.Is(i, "optin"):
			opts.OptIn = true
		case c.Is(i, "optout"):
			opts.OptOut = true
		case c.Is(i, "noloop"):
			opts.NoLoop = true
		case c.Is(i, "prefix") && more:
			i++
			opts.Prefixes = append(opts.Prefixes, string(c.Args[i]))
		default:
			c.ErrorString(executor.ErrSyntax)
			return
		}
	}
	switch {
	case c.Is(2, "on"):
		if refusal := trackingRefusal(c.Session, opts); refusal != "" {
			c.ErrorString(refusal)
			return
		}
		c.Session.EnableTracking(opts)
	case c.Is(2, "off"):
		c.Session.DisableTracking()
	default:
		c.ErrorString(executor.ErrSyntax)
		return
	}
	c.W.OK()
}

// mayReach reports whether this connection may name target: any for the
// admin, its own namespace's for a tenant.
func mayReach(c *executor.Ctx, target *session.Session) bool {
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
func clientCaching(c *executor.Ctx) {
	s := c.Session
	if !s.TrackingOn() {
		c.ErrorString("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
		return
	}
	_, optIn, optOut := s.TrackingModes()
	switch {
	case c.Is(2, "yes") && optIn:
		s.SetCaching(session.CachingYes)
	case c.Is(2, "yes"):
		c.ErrorString("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
		return
	case c.Is(2, "no") && optOut:
		s.SetCaching(session.CachingNo)
	case c.Is(2, "no"):
		c.ErrorString("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
		return
	default:
		c.ErrorString(executor.ErrSyntax)
		return
	}
	c.W.OK()
}

// CLIENT GETREDIR
func clientGetRedir(c *executor.Ctx) {
	_, redirect, _ := c.Session.TrackingState()
	c.W.Int(redirect)
}

// CLIENT TRACKINGINFO
func clientTrackingInfo(c *executor.Ctx) {
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
