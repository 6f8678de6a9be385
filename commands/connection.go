package commands

import (
	"crypto/subtle"
	"math"
	"strings"
	"time"

	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/session"
)

func init() {
	executor.Register(
		&executor.Command{Name: "ping", Arity: -1, Flags: executor.Fast | executor.SubscriberOK, Handler: cmdPing},
		&executor.Command{Name: "echo", Arity: 2, Flags: executor.Fast, Handler: cmdEcho},
		&executor.Command{Name: "quit", Arity: -1, Flags: executor.NoAuth | executor.Fast | executor.SubscriberOK, Handler: cmdQuit},
		&executor.Command{Name: "select", Arity: 2, Flags: executor.Fast, Handler: cmdSelect},
		&executor.Command{Name: "auth", Arity: -2, Flags: executor.NoAuth | executor.Fast | executor.Loading, Secret: secretFrom(1), Handler: cmdAuth},
		&executor.Command{Name: "hello", Arity: -1, Flags: executor.NoAuth | executor.Fast | executor.Loading, Secret: secretAfterWord("auth", 2), Handler: cmdHello},
		&executor.Command{Name: "client", Arity: -2, Flags: executor.NoPause | executor.KeepsCaching, Subcommands: clientSubcommands, Handler: cmdClient},
	)
}

// PING [message]
//
// A RESP2 subscriber gets ["pong", message], as in Redis.
func cmdPing(c *executor.Ctx) {
	if c.Session.Subscriptions() > 0 && c.W.Protocol() == 2 && len(c.Args) <= 2 {
		c.W.Array(2)
		c.W.BulkString("pong")
		if len(c.Args) == 2 {
			c.W.Bulk(c.Args[1])
		} else {
			c.W.BulkString("")
		}
		return
	}
	switch len(c.Args) {
	case 1:
		c.W.Simple("PONG")
	case 2:
		c.W.Bulk(c.Args[1])
	default:
		c.ErrorString("ERR wrong number of arguments for 'ping' command")
	}
}

// ECHO message
func cmdEcho(c *executor.Ctx) { c.W.Bulk(c.Args[1]) }

// QUIT
func cmdQuit(c *executor.Ctx) {
	c.W.OK()
	c.Session.CloseAfterReply = true
}

// SELECT index
//
// With redis-databases N (Kvrocks 2.15), index 0..N-1 selects a database,
// kept as a namespace (metadata.DatabaseNamespace). Without, as in
// Kvrocks 2.10, which has one database per namespace, any index is taken
// and changes nothing; it must be an integer, as in Redis.
func cmdSelect(c *executor.Ctx) {
	n, ok := c.Int(1)
	if !ok {
		return
	}
	if c.Env.Config.RedisDatabases.Get() > 0 {
		if !databaseInRange(c, n) {
			return
		}
		c.Session.SelectNamespace(metadata.DatabaseNamespace(n))
	}
	c.W.OK()
}

// databaseInRange checks a database index against redis-databases,
// replying Redis's error when out of range.
func databaseInRange(c *executor.Ctx, n int64) bool {
	if n < 0 || n >= c.Env.Config.RedisDatabases.Get() {
		c.ErrorString("ERR DB index is out of range")
		return false
	}
	return true
}

// authenticate checks a password: the admin password (requirepass) makes
// the connection admin in the default namespace, a namespace token makes
// it a user of that namespace. Comparisons take constant time.
func authenticate(c *executor.Ctx, password []byte) error {
	requirepass := c.Env.Config.RequirePass.Get()
	if requirepass == "" {
		return executor.ReplyError("ERR Client sent AUTH, but no password is set")
	}
	if subtle.ConstantTimeCompare(password, []byte(requirepass)) == 1 {
		c.Session.Authed, c.Session.Admin = true, true
		c.Session.SetNamespace(metadata.DefaultNamespace)
		return nil
	}
	if ns, ok := c.Env.Namespaces.Lookup(password); ok {
		c.Session.Authed, c.Session.Admin = true, false
		c.Session.SetNamespace(ns)
		return nil
	}
	authFailed(c)
	return executor.ReplyError(errWrongPass)
}

// errWrongPass is Redis 7's reply to a wrong password (Kvrocks says "ERR
// Invalid password"): AUTH and HELLO are Redis commands, and clients
// classify WRONGPASS as an authentication failure.
const errWrongPass = "WRONGPASS invalid username-password pair or user is disabled."

// authFailed counts and logs a failed authentication.
func authFailed(c *executor.Ctx) {
	c.Env.Stats.AuthFailures.Add(1)
	c.Env.AuthLog.Failed(c.Session.Addr)
}

// AUTH [username] password
func cmdAuth(c *executor.Ctx) {
	switch len(c.Args) {
	case 2:
	case 3:
		if string(c.Args[1]) != "default" {
			authFailed(c)
			c.ErrorString(errWrongPass)
			return
		}
	default:
		c.ErrorString(executor.ErrSyntax)
		return
	}
	if c.OK(authenticate(c, c.Args[len(c.Args)-1])) {
		c.W.OK()
	}
}

// HELLO [protover [AUTH username password] [SETNAME clientname]]
//
// The reply is Kvrocks's: server, version, proto, mode, role and modules
// (nil), without Redis's id. The version is Basalt's redis_version, as
// INFO shows it. With resp3-enabled no, HELLO 3 is answered as HELLO 2,
// as Kvrocks does, rather than refused. Without protover the protocol
// stays what it is, as in Redis (Kvrocks goes back to RESP2).
func cmdHello(c *executor.Ctx) {
	proto := c.W.Protocol()
	if len(c.Args) >= 2 {
		v, ok := num.ParseInt(c.Args[1])
		if !ok {
			c.ErrorString("ERR Protocol version is not an integer or out of range")
			return
		}
		if v < 2 || v > 3 {
			c.ErrorString("NOPROTO unsupported protocol version")
			return
		}
		proto = int(v)
		if !c.Env.Config.RESP3Enabled.Get() {
			proto = 2
		}
	}
	var user, password, name []byte
	for i := 2; i < len(c.Args); i++ {
		more := len(c.Args) - 1 - i
		switch {
		case c.Is(i, "auth") && more >= 2:
			user, password = c.Args[i+1], c.Args[i+2]
			i += 2
		case c.Is(i, "setname") && more >= 1:
			name = c.Args[i+1]
			i++
		default:
			c.ErrorString("ERR Syntax error in HELLO option '" + string(c.Args[i]) + "'")
			return
		}
	}
	if password != nil {
		if string(user) != "default" {
			authFailed(c)
			c.ErrorString(errWrongPass)
			return
		}
		if !c.OK(authenticate(c, password)) {
			return
		}
	}
	if !c.Session.Authed {
		c.ErrorString("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
		return
	}
	if name != nil && !setName(c, name) {
		return
	}
	c.Session.SetProtocol(proto)
	mode := "standalone"
	if c.Env.Config.ClusterEnabled.Get() {
		mode = "cluster"
	}
	c.W.Map(6)
	c.W.BulkString("server")
	c.W.BulkString("redis")
	c.W.BulkString("version")
	c.W.BulkString(executor.RedisVersion)
	c.W.BulkString("proto")
	c.W.Int(int64(proto))
	c.W.BulkString("mode")
	c.W.BulkString(mode)
	c.W.BulkString("role")
	if c.Env.Repl.IsReplica() {
		c.W.BulkString("slave")
	} else {
		c.W.BulkString("master")
	}
	c.W.BulkString("modules")
	c.W.NullArray()
}

// setName validates and sets the connection name, replying on error.
func setName(c *executor.Ctx, name []byte) bool {
	for _, ch := range name {
		if ch < '!' || ch > '~' {
			c.ErrorString("ERR Client names cannot contain spaces, newlines or special characters.")
			return false
		}
	}
	c.Session.SetName(string(name))
	return true
}

// CLIENT LIST | INFO | ID | GETNAME | SETNAME | SETINFO | KILL | UNBLOCK |
// PAUSE | UNPAUSE | HELP
func cmdClient(c *executor.Ctx) {
	executor.DispatchSub(c)
}

var clientSubcommands = map[string]*executor.Subcommand{
	"id":       {Arity: 2, Handler: func(c *executor.Ctx) { c.W.Int(c.Session.ID) }},
	"unblock":  {Arity: -3, Handler: clientUnblock},
	"pause":    {Arity: -3, Handler: adminOnly(clientPause)},
	"unpause":  {Arity: 2, Handler: adminOnly(func(c *executor.Ctx) { c.Env.Sessions.Pause.Start(0, false); c.W.OK() })},
	"no-evict": {Arity: 3, Handler: clientNoEvict},
	"getname":  {Arity: 2, Handler: func(c *executor.Ctx) { name := c.Session.Name(); c.BulkOrNull([]byte(name), name != "") }},
	"setname": {Arity: 3, Handler: func(c *executor.Ctx) {
		if setName(c, c.Args[2]) {
			c.W.OK()
		}
	}},
	// Redis 7.2's.
	"setinfo": {Arity: 4, Handler: clientSetInfo, Meta: &executor.Meta{
		Flags: []string{"noscript", "loading", "stale"},
		ACL:   []string{"@slow", "@connection"},
		Doc: doc("summary", "Sets information specific to the client or connection.", "since", "7.2.0",
			"group", "connection", "complexity", "O(1)",
			"arguments", docArgs(append(doc("name", "attr", "type", "oneof"), "$arguments", docArgs(
				doc("name", "libname", "type", "string", "token", "LIB-NAME"),
				doc("name", "libver", "type", "string", "token", "LIB-VER"))))),
	}},
	"reply": {Arity: 3, Handler: clientReply},
	"info":  {Arity: 2, Handler: func(c *executor.Ctx) { c.W.Verbatim(c.Session.Describe(time.Now(), argvMem(c))) }},
	"list":  {Arity: -2, Handler: clientList},
	"kill":  {Arity: -3, Handler: clientKill},
	"help": executor.Help(
		"CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"CACHING (YES|NO)", "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
		"GETREDIR", "    Return the client ID we are redirecting to when tracking is enabled.",
		"GETNAME", "    Return the name of the current connection.",
		"ID", "    Return the ID of the current connection.",
		"INFO", "    Return information about the current client connection.",
		"KILL <ip:port>", "    Kill connection made from <ip:port>.",
		"KILL <option> <value> [<option> <value> [...]]", "    Kill connections. Options are: ID, TYPE, ADDR, LADDR, USER, SKIPME, MAXAGE.",
		"LIST [TYPE normal] [ID <id> [<id> ...]]", "    Return information about client connections.",
		"NO-EVICT (ON|OFF)", "    Protect the current client connection from eviction by maxmemory-clients.",
		"REPLY (ON|OFF|SKIP)", "    Control the replies sent to the current connection.",
		"SETINFO <option> <value>", "    Set client meta attr. Options are: LIB-NAME, LIB-VER.",
		"SETNAME <name>", "    Assign the name <name> to the current connection.",
		"TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]", "         [OPTIN] [OPTOUT] [NOLOOP]", "    Control server assisted client side caching.",
		"TRACKINGINFO", "    Report tracking status for the current connection.",
		"HELP", "    Print this help.",
	),
}

// CLIENT REPLY ON | OFF | SKIP
func clientReply(c *executor.Ctx) {
	m := &c.Session.Replies
	switch strings.ToLower(string(c.Args[2])) {
	case "on":
		m.Off, m.Skip = false, false
		c.W.OK()
		return
	case "off":
		m.Off = true
	case "skip":
		m.SkipNext = !m.Off
	default:
		c.ErrorString(executor.ErrSyntax)
		return
	}
	// Redis leaves a hole in EXEC's array here, which desynchronises the
	// client; Basalt fills it. (OFF then drops EXEC's whole reply.)
	if c.InExec && !m.Suppressed() {
		c.W.OK()
	}
}

// CLIENT SETINFO LIB-NAME libname | LIB-VER libver
func clientSetInfo(c *executor.Ctx) {
	for _, ch := range c.Args[3] {
		if ch < '!' || ch > '~' {
			c.ErrorString("ERR " + string(c.Args[2]) + " cannot contain spaces, newlines or special characters.")
			return
		}
	}
	switch strings.ToLower(string(c.Args[2])) {
	case "lib-name":
		c.Session.SetLibrary(string(c.Args[3]), "")
	case "lib-ver":
		c.Session.SetLibrary("", string(c.Args[3]))
	default:
		c.ErrorString("ERR Unrecognized option '" + string(c.Args[2]) + "'")
		return
	}
	c.W.OK()
}

// CLIENT LIST [TYPE normal] [ID client-id [client-id ...]]
func clientList(c *executor.Ctx) {
	var ids map[int64]bool
	kind := ""
	for i := 2; i < len(c.Args); i++ {
		switch {
		case c.Is(i, "type") && i+1 < len(c.Args):
			i++
			var ok bool
			if kind, ok = session.ParseKind(string(c.Args[i])); !ok {
				c.ErrorString("ERR Unknown client type '" + string(c.Args[i]) + "'")
				return
			}
		case c.Is(i, "id") && i+1 < len(c.Args):
			ids = map[int64]bool{}
			for i++; i < len(c.Args); i++ {
				// Any integer, as Redis: one no client has matches none.
				id, ok := num.ParseInt(c.Args[i])
				if !ok {
					c.ErrorString("ERR Invalid client ID")
					return
				}
				ids[id] = true
			}
		default:
			c.ErrorString(executor.ErrSyntax)
			return
		}
	}
	var b strings.Builder
	now := time.Now()
	for _, s := range visibleSessions(c) {
		if (ids == nil || ids[s.ID]) && (kind == "" || kind == s.Kind()) {
			mem := int64(0)
			if s == c.Session {
				mem = argvMem(c)
			}
			b.WriteString(s.Describe(now, mem))
		}
	}
	c.W.Verbatim(b.String())
}

// visibleSessions returns the sessions this connection may see and act
// on: all of them for the admin, those of its own namespace for a tenant.
func visibleSessions(c *executor.Ctx) []*session.Session {
	all := c.Env.Sessions.List()
	if c.Session.Admin {
		return all
	}
	mine := all[:0]
	for _, s := range all {
		if s.NamespaceName() == c.Session.Namespace {
			mine = append(mine, s)
		}
	}
	return mine
}

// argvMem returns the size of the running command's arguments (CLIENT
// LIST's argv-mem).
func argvMem(c *executor.Ctx) int64 {
	n := int64(0)
	for _, a := range c.Args {
		n += int64(len(a))
	}
	return n
}

// adminOnly refuses a subcommand to tenants, as Dispatch refuses Admin
// commands.
func adminOnly(handler func(c *executor.Ctx)) func(c *executor.Ctx) {
	return func(c *executor.Ctx) {
		if !c.Session.Admin {
			c.ErrorString(executor.ErrAdminRequired)
			return
		}
		handler(c)
	}
}

// CLIENT NO-EVICT ON|OFF
func clientNoEvict(c *executor.Ctx) {
	switch {
	case c.Is(2, "on"):
		c.Session.SetNoEvict(true)
	case c.Is(2, "off"):
		c.Session.SetNoEvict(false)
	default:
		c.ErrorString(executor.ErrSyntax)
		return
	}
	c.W.OK()
}

// CLIENT KILL ip:port | CLIENT KILL [ID id] [TYPE type] [ADDR ip:port] [LADDR ip:port] [USER username] [SKIPME yes|no] [MAXAGE seconds]
//
// MAXAGE is Redis 7.4's: the connections older than that many seconds (0:
// any age).
func clientKill(c *executor.Ctx) {
	if len(c.Args) == 3 {
		addr := string(c.Args[2])
		for _, cl := range visibleSessions(c) {
			if cl.Addr == addr {
				c.W.OK()
				killClient(c, cl)
				return
			}
		}
		c.ErrorString("ERR No such client")
		return
	}
	if len(c.Args)%2 != 0 {
		c.ErrorString(executor.ErrSyntax)
		return
	}
	var id, maxAge int64
	var addr, laddr, kind string
	skipMe := true
	for i := 2; i < len(c.Args); i += 2 {
		v := string(c.Args[i+1])
		switch {
		case c.Is(i, "id"):
			n, ok := num.ParseInt(c.Args[i+1])
			if !ok || n <= 0 {
				c.ErrorString("ERR client-id should be greater than 0")
				return
			}
			id = n
		case c.Is(i, "maxage"):
			n, ok := num.ParseInt(c.Args[i+1])
			if !ok || n < 0 {
				c.ErrorString("ERR maxage is not an integer or out of range")
				return
			}
			maxAge = n
		case c.Is(i, "addr"):
			addr = v
		case c.Is(i, "laddr"):
			laddr = v
		case c.Is(i, "user"):
			if v != "default" {
				c.ErrorString("ERR No such user '" + v + "'")
				return
			}
		case c.Is(i, "type"):
			var ok bool
			if kind, ok = session.ParseKind(v); !ok {
				c.ErrorString("ERR Unknown client type '" + v + "'")
				return
			}
		case c.Is(i, "skipme"):
			switch strings.ToLower(v) {
			case "yes":
				skipMe = true
			case "no":
				skipMe = false
			default:
				c.ErrorString(executor.ErrSyntax)
				return
			}
		default:
			c.ErrorString(executor.ErrSyntax)
			return
		}
	}
	var victims []*session.Session
	now := time.Now()
	for _, cl := range visibleSessions(c) {
		if (id != 0 && cl.ID != id) || (addr != "" && cl.Addr != addr) || (laddr != "" && cl.LAddr != laddr) ||
			(kind != "" && kind != cl.Kind()) || (skipMe && cl == c.Session) ||
			(maxAge != 0 && int64(now.Sub(cl.Created).Seconds()) <= maxAge) {
			continue
		}
		victims = append(victims, cl)
	}
	killed := len(victims)
	if kind == "master" && id == 0 && addr == "" && laddr == "" && c.Session.Admin {
		// A replica's link to its master is no client of this server's
		// listeners, but Redis kills it as one.
		killed += c.Env.Repl.DropMasterLink()
	}
	c.W.Int(int64(killed))
	for _, cl := range victims {
		killClient(c, cl)
	}
}

// killClient closes another client at once, or this one after its reply.
func killClient(c *executor.Ctx, cl *session.Session) {
	if cl == c.Session {
		cl.CloseAfterReply = true
		return
	}
	cl.Kill()
}

// clientUnblock runs CLIENT UNBLOCK id [TIMEOUT | ERROR]: 1 if the client
// was blocked (it then gets its timeout reply, or an UNBLOCKED error).
func clientUnblock(c *executor.Ctx) {
	id, ok := num.ParseInt(c.Args[2])
	if !ok {
		c.ErrorString(executor.ErrNotInteger)
		return
	}
	withError := false
	switch {
	case len(c.Args) == 3 || (len(c.Args) == 4 && c.Is(3, "timeout")):
	case len(c.Args) == 4 && c.Is(3, "error"):
		withError = true
	default:
		c.ErrorString("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
		return
	}
	target := c.Env.Sessions.Get(id)
	if target != nil && (c.Session.Admin || target.NamespaceName() == c.Session.Namespace) && c.Env.Sessions.Blocking.Unblock(target, withError) {
		c.W.Int(1)
		return
	}
	c.W.Int(0)
}

// clientPause runs CLIENT PAUSE timeout-ms [WRITE | ALL]: commands (or
// only writes) from every client wait until the timeout or CLIENT
// UNPAUSE. The Kvrocks controller pauses writes for a manual failover.
func clientPause(c *executor.Ctx) {
	ms, ok := num.ParseInt(c.Args[2])
	switch {
	case !ok:
		c.ErrorString("ERR timeout is not an integer or out of range")
		return
	case ms < 0:
		c.ErrorString("ERR timeout is negative")
		return
	}
	all := true
	switch {
	case len(c.Args) == 3 || (len(c.Args) == 4 && c.Is(3, "all")):
	case len(c.Args) == 4 && c.Is(3, "write"):
		all = false
	case len(c.Args) == 4:
		c.ErrorString("ERR CLIENT PAUSE mode must be WRITE or ALL")
		return
	default:
		c.ErrorString(executor.ErrSyntax)
		return
	}
	// Past what a Duration holds, the pause lasts as long as one can.
	d := time.Duration(math.MaxInt64)
	if ms < int64(d/time.Millisecond) {
		d = time.Duration(ms) * time.Millisecond
	}
	c.Env.Sessions.Pause.Start(d, all)
	c.W.OK()
}
