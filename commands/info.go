package commands

import (
	"github.com/basaltdb/basalt/executor"
)

// INFO [section [section ...]] [FORMAT TXT | JSON]
//
// FORMAT JSON (Kvrocks 2.17) answers one JSON object of the sections, as
// a bulk string.
func cmdInfo(c *executor.Ctx) {
	args, json := c.Args[1:], false
	if n := len(args); n >= 2 && c.Is(n-1, "format") {
		switch {
		case c.Is(n, "json"):
			json = true
		case !c.Is(n, "txt"):
			c.ErrorString("ERR FORMAT must be TXT or JSON")
			return
		}
		args = args[:n-2]
	}
	sections := make([]string, len(args))
	for i, a := range args {
		sections[i] = string(a)
	}
	b := c.Env.Info(c.DB.Namespace(), sections)
	if json {
		c.W.BulkString(b.JSON())
		return
	}
	c.W.Verbatim(b.String())
}
