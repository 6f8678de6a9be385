package commands

import (
	"errors"
	"strings"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
)

func init() {
	executor.Register(&executor.Command{Name: "config", Arity: -2, Flags: executor.Admin, Secret: configSecret, Subcommands: configSubcommands, Handler: cmdConfig})
}

// CONFIG GET parameter [parameter ...] | SET parameter value [parameter value ...] | REWRITE | RESETSTAT | HELP
func cmdConfig(c *executor.Ctx) {
	executor.DispatchSub(c)
}

var configSubcommands = map[string]*executor.Subcommand{
	"get":       {Arity: -3, Handler: configGet},
	"set":       {Arity: -4, Handler: configSet},
	"rewrite":   {Arity: 2, Handler: func(c *executor.Ctx) { configRewrite(c) }},
	"resetstat": {Arity: 2, Handler: func(c *executor.Ctx) { c.Env.ResetStats(); c.W.OK() }},
	"help": executor.Help(
		"CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"GET <pattern>", "    Return parameters matching the glob-like <pattern> and their values.",
		"SET <directive> <value>", "    Set the configuration <directive> to <value>.",
		"RESETSTAT", "    Reset statistics reported by the INFO command.",
		"REWRITE", "    Rewrite the configuration file.",
		"HELP", "    Print this help.",
	),
}

func configGet(c *executor.Ctx) {
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
func configSet(c *executor.Ctx) {
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

func configRewrite(c *executor.Ctx) {
	err := c.Env.Config.Rewrite()
	if errors.Is(err, config.ErrNoFile) {
		c.ErrorString("ERR the server is running without a config file") // Kvrocks's words
		return
	}
	if c.OK(err) {
		c.W.OK()
	}
}
