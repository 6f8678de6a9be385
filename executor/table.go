package executor

import (
	"errors"
	"sort"
	"strings"
)

// Flag is a property of a command that Dispatch acts on.
type Flag uint32

// Command flags.
const (
	Write         Flag = 1 << iota // modifies data: its keys are locked while it runs
	ReadOnly                       // reads data only
	Admin                          // refused to namespace (non-admin) users
	NoAuth                         // allowed before AUTH
	Fast                           // O(1) or O(log n); reported by COMMAND
	NoMulti                        // not allowed inside MULTI
	Loading                        // allowed while loading
	Exclusive                      // runs alone: no other command runs meanwhile
	LocksItself                    // a write that locks its keys itself (keys of several namespaces)
	TxControl                      // runs at once inside MULTI instead of being queued
	SubscriberOK                   // allowed to a RESP2 client with subscriptions
	NoDBSizeCheck                  // a write that only removes data: runs past max-db-size (Kvrocks's no-dbsize-check)
	KvrocksOnly                    // a Kvrocks command Redis lacks: errors worded as Kvrocks words them
	RunsScript                     // runs a Lua script: while it runs too long, other commands get BUSY
	NoTouch                        // inspects its keys without using them: OBJECT IDLETIME does not restart
	Asking                         // routed in cluster mode as if ASKING came first (RESTORE-ASKING)
	RunsTx                         // runs the queued transaction (EXEC): refused, it discards it
	NoPause                        // never paused by CLIENT PAUSE, so that CLIENT UNPAUSE gets through
	KeepsCaching                   // does not end the CLIENT CACHING YES|NO choice for the next command
	StaleOK                        // runs on a replica whose link is down while slave-serve-stale-data is off
)

var flagNames = []struct {
	f    Flag
	name string
}{
	{Write, "write"}, {ReadOnly, "readonly"}, {Admin, "admin"}, {NoAuth, "no_auth"},
	{Fast, "fast"}, {NoMulti, "no_multi"}, {Loading, "loading"}, {Exclusive, "exclusive"},
}

// Command is one entry of the table.
type Command struct {
	Name  string // lower case
	Arity int    // Redis convention: n exact, -n at least n, both counting the name
	Flags Flag
	// FirstKey, LastKey and Step locate the keys among the arguments
	// (Redis convention: LastKey -1 is the last argument). FirstKey 0 means
	// the command takes no key.
	FirstKey, LastKey, Step int
	// Keys, when set, extracts the keys of commands whose key positions
	// depend on other arguments; it must tolerate any argument list that
	// passed the arity check.
	Keys func(args [][]byte) [][]byte
	// Secret, when set, reports whether argument i is a secret that
	// SLOWLOG and MONITOR must not show (see redact.go).
	Secret func(args [][]byte, i int) bool
	// KeyFlags, when set, gives the key flags COMMAND GETKEYSANDFLAGS
	// reports for a call, for a command whose key specification says
	// variable_flags, as Redis's getkeys procedures do.
	KeyFlags func(args [][]byte) []string
	Handler  func(c *Ctx)
	// AlsoWrites, when set on a write, returns the keys besides its named
	// ones that it may change, found from what they hold (a time series's
	// rule destinations), read before any lock is taken: the write locks
	// them too (storage.Write.Also), and WATCH and client-side caching see
	// them written. A handler that finds under the locks that it must
	// change a key they leave out (storage.DB.Holds) fails with
	// storage.ErrUnlocked before writing anything; it runs again with the
	// keys AlsoWrites returns then.
	AlsoWrites func(c *Ctx) [][]byte
	// AnyUser, when set on an Admin command, reports a call of it that
	// any user may make (NAMESPACE CURRENT names the caller's own).
	AnyUser func(args [][]byte) bool
	// Subcommands, for a container (CONFIG, CLIENT, ...), are its
	// subcommands by lower-case name; its handler runs them with
	// dispatchSub.
	Subcommands map[string]*Subcommand
	// Meta describes, for COMMAND, a command Redis 7.0 lacks (Kvrocks's
	// own); Redis's own descriptions are attached from
	// redis_commands.json (command_meta.go).
	Meta *Meta
	// DocArgs, for a Redis command whose syntax grew after 7.0, turns the
	// arguments redis_commands.json documents into the newer ones.
	DocArgs func(redis []any) []any
	desc    *Meta // Meta, or Redis's description (Description)
	// Events is what the command publishes to keyspace subscribers
	// (notify_events.go); nil for a write that publishes nothing
	// (FLUSHALL, XACK, MOVE) and for every read.
	Events *KeyEvents

	stats commandStats
}

// registry maps lower-case command names to commands.
type registry struct {
	byName map[string]*Command
}

var table = registry{byName: map[string]*Command{}}

// Register adds commands to the table; family files call it from init.
func Register(cmds ...*Command) {
	for _, c := range cmds {
		if _, dup := table.byName[c.Name]; dup {
			panic("commands: " + c.Name + " registered twice")
		}
		if c.Step == 0 && c.FirstKey > 0 {
			c.Step = 1
		}
		table.byName[c.Name] = c
	}
}

// Rename applies rename-command at start, before any command runs: each
// (old, new) pair makes command old answer to new only, or to nothing when
// new is empty. The command keeps its own name in replies and statistics,
// as in Kvrocks. The pairs were checked when the config was loaded.
func Rename(pairs [][2]string) error {
	for _, p := range pairs {
		cmd, ok := table.byName[p[0]]
		if !ok {
			return errors.New("rename-command: no such command: " + p[0])
		}
		if _, taken := table.byName[p[1]]; taken {
			return errors.New("rename-command: the command name is taken: " + p[1])
		}
		delete(table.byName, p[0])
		if p[1] != "" {
			table.byName[p[1]] = cmd
		}
	}
	return nil
}

// Lookup finds a command by its name in any case without allocating.
func Lookup(name []byte) *Command {
	var buf [32]byte
	if len(name) > len(buf) {
		// Only a rename-command name can be this long.
		return table.byName[strings.ToLower(string(name))]
	}
	for i, c := range name {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return table.byName[string(buf[:len(name)])]
}

// SortedCommands returns every command ordered by name.
func SortedCommands() []*Command {
	out := make([]*Command, 0, len(table.byName))
	for _, c := range table.byName {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// adminOnly reports whether a call needs an admin connection.
func (c *Command) adminOnly(args [][]byte) bool {
	return c.Flags&Admin != 0 && (c.AnyUser == nil || !c.AnyUser(args))
}

// ArityOK checks the argument count (including the name) against Arity.
func (c *Command) ArityOK(n int) bool {
	if c.Arity >= 0 {
		return n == c.Arity
	}
	return n >= -c.Arity
}

// HasKeys reports whether the command works on keys.
func (c *Command) HasKeys() bool { return c.FirstKey > 0 || c.Keys != nil }

// KeysOf returns the key arguments of a call.
func (c *Command) KeysOf(args [][]byte) [][]byte {
	if c.Keys != nil {
		return c.Keys(args)
	}
	if c.FirstKey == 0 || c.FirstKey >= len(args) {
		return nil
	}
	last := c.LastKey
	if last < 0 {
		last = len(args) + last
	}
	if last >= len(args) {
		last = len(args) - 1
	}
	if c.FirstKey == last {
		return args[c.FirstKey : c.FirstKey+1]
	}
	keys := make([][]byte, 0, (last-c.FirstKey)/c.Step+1)
	for i := c.FirstKey; i <= last; i += c.Step {
		keys = append(keys, args[i])
	}
	return keys
}

// flagList returns the flag names COMMAND reports.
func (c *Command) flagList() []string {
	var out []string
	for _, f := range flagNames {
		if c.Flags&f.f != 0 {
			out = append(out, f.name)
		}
	}
	return out
}

// ACLCategories derives Redis ACL categories from the flags.
func (c *Command) ACLCategories() []string {
	var out []string
	if c.Flags&Write != 0 {
		out = append(out, "@write")
	}
	if c.Flags&ReadOnly != 0 {
		out = append(out, "@read")
	}
	if c.Flags&Admin != 0 {
		out = append(out, "@admin", "@dangerous")
	}
	if c.Flags&Fast != 0 {
		out = append(out, "@fast")
	} else {
		out = append(out, "@slow")
	}
	return out
}

// Subcommand is one subcommand of a container command (CONFIG GET, ...).
type Subcommand struct {
	Arity   int // counting the container's name and the subcommand's
	Handler func(c *Ctx)
	// Meta describes, for COMMAND, a subcommand Redis 7.0 lacks; Redis's
	// own descriptions are attached from redis_commands.json
	// (command_meta.go).
	Meta *Meta
	desc *Meta // Meta, or Redis's description (Description)
}

// arityOK checks the argument count (including the container's name)
// against Arity.
func (s *Subcommand) arityOK(n int) bool {
	return (s.Arity >= 0 && n == s.Arity) || (s.Arity < 0 && n >= -s.Arity)
}

// DispatchSub runs the subcommand of the running container named by the
// first argument. As in Redis 7's commandstats, an unknown subcommand is
// no call of the command, and a subcommand with the wrong number of
// arguments is a rejected one, not a failed one.
func DispatchSub(c *Ctx) {
	name := strings.ToLower(string(c.Args[1]))
	sub, ok := c.Cmd.Subcommands[name]
	if !ok {
		c.refused(false)
		c.ErrorString("ERR unknown subcommand '" + Abbreviate(c.Args[1]) + "'. Try " + strings.ToUpper(c.Cmd.Name) + " HELP.")
		c.errMark = c.W.Errors()
		return
	}
	if !sub.arityOK(len(c.Args)) {
		c.refused(true)
		c.ErrorString("ERR wrong number of arguments for '" + c.Cmd.Name + "|" + name + "' command")
		c.errMark = c.W.Errors()
		return
	}
	sub.Handler(c)
}

// DispatchSubOr runs the subcommand of the running container named by the
// first argument, as Kvrocks's CLUSTER and CLUSTERX do: an unknown
// subcommand or a wrong number of arguments is answered with the
// container's usage, a failed call.
func DispatchSubOr(c *Ctx, usage string) {
	sub, ok := c.Cmd.Subcommands[strings.ToLower(string(c.Args[1]))]
	if !ok || !sub.arityOK(len(c.Args)) {
		c.ErrorString(usage)
		return
	}
	sub.Handler(c)
}

// refused takes back the call the running command was counted as, and
// counts it as rejected when rejected is set.
func (c *Ctx) refused(rejected bool) {
	c.Cmd.stats.calls.Add(-1)
	if rejected {
		c.Cmd.stats.rejected.Add(1)
	}
}

// Help is the HELP subcommand of a container command: it replies lines,
// as simple strings like Redis's.
func Help(lines ...string) *Subcommand {
	return &Subcommand{Arity: 2, Handler: func(c *Ctx) {
		c.W.Array(len(lines))
		for _, l := range lines {
			c.W.Simple(l)
		}
	}}
}

// Abbreviate limits an argument quoted in an error to 128 bytes, as Redis.
func Abbreviate(b []byte) string {
	if len(b) > 128 {
		b = b[:128]
	}
	return string(b)
}
