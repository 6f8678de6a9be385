package commands

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
	NoDBSizeCheck                  // a write that only removes data: runs past max-db-size
	KvrocksOnly                    // a Kvrocks command Redis lacks: errors worded as Kvrocks words them
	RunsScript                     // runs a Lua script: while it runs too long, other commands get BUSY
	NoTouch                        // inspects its keys without using them: OBJECT IDLETIME does not restart
	Asking                         // routed in cluster mode as if ASKING came first (RESTORE-ASKING)
	RunsTx                         // runs the queued transaction (EXEC): refused, it discards it
)

// freesSpace are the writes Kvrocks lets run once max-db-size is reached
// (its no-dbsize-check flag); register gives them NoDBSizeCheck.
var freesSpace = map[string]bool{
	"del": true, "unlink": true, "getdel": true, "hdel": true, "srem": true, "zrem": true,
	"zremrangebyscore": true, "zremrangebyrank": true, "zremrangebylex": true, "lrem": true,
	"ltrim": true, "xdel": true, "xtrim": true, "xack": true, "flushdb": true, "flushall": true,
}

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
	Secret  func(args [][]byte, i int) bool
	Handler func(c *Ctx)

	events *keyEvents // what it publishes to keyspace subscribers (notify_events.go)
	stats  commandStats
}

// Table maps lower-case command names to commands.
type Table struct {
	byName map[string]*Command
}

var table = Table{byName: map[string]*Command{}}

// register adds commands to the table; family files call it from init.
func register(cmds ...*Command) {
	for _, c := range cmds {
		if _, dup := table.byName[c.Name]; dup {
			panic("commands: " + c.Name + " registered twice")
		}
		if c.Step == 0 && c.FirstKey > 0 {
			c.Step = 1
		}
		c.events = keyEventsOf[c.Name]
		if freesSpace[c.Name] {
			c.Flags |= NoDBSizeCheck
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

// lookup finds a command by its name in any case without allocating.
func lookup(name []byte) *Command {
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

// sortedCommands returns every command ordered by name.
func sortedCommands() []*Command {
	out := make([]*Command, 0, len(table.byName))
	for _, c := range table.byName {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// arityOK checks the argument count (including the name) against Arity.
func (c *Command) arityOK(n int) bool {
	if c.Arity >= 0 {
		return n == c.Arity
	}
	return n >= -c.Arity
}

// keys returns the key arguments of a call.
// hasKeys reports whether the command works on keys.
func (c *Command) hasKeys() bool { return c.FirstKey > 0 || c.Keys != nil }

func (c *Command) keys(args [][]byte) [][]byte {
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

// aclCategories derives Redis ACL categories from the flags.
func (c *Command) aclCategories() []string {
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

// subcommand is one subcommand of a container command (CONFIG GET, ...).
type subcommand struct {
	arity   int
	handler func(c *Ctx)
}

// dispatchSub runs the subcommand named by the first argument. As in
// Redis 7's commandstats, an unknown subcommand is no call of the command,
// and a subcommand with the wrong number of arguments is a rejected one,
// not a failed one.
func dispatchSub(c *Ctx, subs map[string]subcommand) {
	name := strings.ToLower(string(c.Args[1]))
	sub, ok := subs[name]
	if !ok {
		c.refused(false)
		c.ErrorString("ERR unknown subcommand '" + abbreviate(c.Args[1]) + "'. Try " + strings.ToUpper(c.cmd.Name) + " HELP.")
		c.errMark = c.W.Errors()
		return
	}
	n := len(c.Args)
	if (sub.arity >= 0 && n != sub.arity) || (sub.arity < 0 && n < -sub.arity) {
		c.refused(true)
		c.ErrorString("ERR wrong number of arguments for '" + c.cmd.Name + "|" + name + "' command")
		c.errMark = c.W.Errors()
		return
	}
	sub.handler(c)
}

// refused takes back the call the running command was counted as, and
// counts it as rejected when rejected is set.
func (c *Ctx) refused(rejected bool) {
	c.cmd.stats.calls.Add(-1)
	if rejected {
		c.cmd.stats.rejected.Add(1)
	}
}

// help is the HELP subcommand of a container command: it replies lines,
// as simple strings like Redis's.
func help(lines ...string) subcommand {
	return subcommand{2, func(c *Ctx) {
		c.W.Array(len(lines))
		for _, l := range lines {
			c.W.Simple(l)
		}
	}}
}

// abbreviate limits an argument quoted in an error to 128 bytes, as Redis.
func abbreviate(b []byte) string {
	if len(b) > 128 {
		b = b[:128]
	}
	return string(b)
}
