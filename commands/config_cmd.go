package commands

import (
	"errors"
	"strings"

	"github.com/basaltdb/basalt/config"
)

func init() {
	register(&Command{Name: "config", Arity: -2, Flags: Admin, Secret: configSecret, Handler: cmdConfig})
}

// CONFIG GET parameter [parameter ...] | SET parameter value [parameter value ...] | REWRITE | RESETSTAT | HELP
func cmdConfig(c *Ctx) {
	dispatchSub(c, configSubcommands)
}

var configSubcommands = map[string]subcommand{
	"get":       {-3, configGet},
	"set":       {-4, configSet},
	"rewrite":   {2, func(c *Ctx) { configRewrite(c) }},
	"resetstat": {2, func(c *Ctx) { c.Env.resetStats(); c.W.OK() }},
	"help": help(
		"CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"GET <pattern>", "    Return parameters matching the glob-like <pattern> and their values.",
		"SET <directive> <value>", "    Set the configuration <directive> to <value>.",
		"RESETSTAT", "    Reset statistics reported by the INFO command.",
		"REWRITE", "    Rewrite the configuration file.",
		"HELP", "    Print this help.",
	),
}

func configGet(c *Ctx) {
	// A key matched by several patterns is listed once (rename-command
	// has a pair per line).
	seen := map[[2]string]bool{}
	var pairs [][2]string
	for _, pattern := range c.Args[2:] {
		for _, kv := range c.Env.Config.Get(string(pattern)) {
			if !seen[kv] {
				seen[kv] = true
				pairs = append(pairs, kv)
			}
		}
	}
	c.W.Map(len(pairs))
	for _, kv := range pairs {
		c.W.BulkString(kv[0])
		c.W.BulkString(kv[1])
	}
}

// configSet sets each pair in turn. One pair is Kvrocks's form; several
// are Redis 7's, all or nothing: at the first refused pair, the pairs set
// before it get their old values back. Errors are worded as Kvrocks words
// them.
func configSet(c *Ctx) {
	if len(c.Args)%2 != 0 {
		c.ErrorString("ERR wrong number of arguments for 'config|set' command")
		return
	}
	var done [][2]string // key, old value
	for i := 2; i < len(c.Args); i += 2 {
		key := string(c.Args[i])
		old := c.Env.Config.Get(strings.ToLower(key))
		err := c.Env.Config.Set(key, string(c.Args[i+1]))
		if err == nil {
			if len(old) == 1 {
				done = append(done, [2]string{key, old[0][1]})
			}
			continue
		}
		for j := len(done) - 1; j >= 0; j-- {
			c.Env.Config.Set(done[j][0], done[j][1])
		}
		msg := err.Error()
		var setErr *config.SetError
		switch {
		case errors.Is(err, config.ErrUnknownOption), errors.Is(err, config.ErrReadOnly):
			msg = "Unsupported CONFIG parameter: " + strings.ToLower(key)
		case errors.As(err, &setErr):
			msg = setErr.Text
		}
		c.ErrorString("ERR CONFIG SET '" + key + "' error: " + msg)
		return
	}
	c.W.OK()
}

func configRewrite(c *Ctx) {
	err := c.Env.Config.Rewrite()
	if errors.Is(err, config.ErrNoFile) {
		c.ErrorString("ERR the server is running without a config file") // Kvrocks's words
		return
	}
	if c.ok(err) {
		c.W.OK()
	}
}

// resetStats zeroes the counters INFO stats, commandstats and errorstats
// report.
func (e *Env) resetStats() {
	resetCommandStats()
	for _, n := range []interface{ Store(int64) }{
		&e.Stats.ConnectionsReceived, &e.Stats.RejectedConnections, &e.Stats.CommandsProcessed,
		&e.Stats.NetInputBytes, &e.Stats.NetOutputBytes, &e.Stats.KeyspaceHits, &e.Stats.KeyspaceMisses,
	} {
		n.Store(0)
	}
}
