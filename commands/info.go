package commands

import (
	"github.com/basaltdb/basalt/executor"
)

// INFO [section [section ...]]
func cmdInfo(c *executor.Ctx) {
	sections := make([]string, len(c.Args)-1)
	for i, a := range c.Args[1:] {
		sections[i] = string(a)
	}
	b := c.Env.Info(c.DB.Namespace(), sections)
	c.W.Verbatim(b.String())
}
