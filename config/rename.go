package config

import (
	"errors"
	"strings"
)

// rename-command OLD NEW makes command OLD answer to NEW only, and
// rename-command OLD "" disables it (the value is the rest of the line, so
// the two quotes stay as written). Entries apply in order, as Kvrocks's
// validator applies them to its command table.

// Renames returns the rename-command entries as (old, new) pairs in lower
// case, new empty for a disabled command. Load has checked them.
func (c *Config) Renames() [][2]string {
	var out [][2]string
	for _, e := range c.RenameCommand.Entries() {
		args := strings.Fields(e)
		if len(args) != 2 {
			continue
		}
		to := strings.ToLower(args[1])
		if args[1] == `""` {
			to = ""
		}
		out = append(out, [2]string{strings.ToLower(args[0]), to})
	}
	return out
}

// checkRenames checks the entries as Kvrocks does, with its texts: two
// words each, the command must exist (after the entries before it), and the
// new name must not.
func checkRenames(entries []string) error {
	gone, added := map[string]bool{}, map[string]bool{}
	exists := func(name string) bool {
		switch {
		case added[name]:
			return true
		case gone[name]:
			return false
		}
		return CommandExists != nil && CommandExists(name)
	}
	for _, e := range entries {
		args := strings.Fields(e)
		if len(args) != 2 {
			return errors.New("Invalid rename-command format")
		}
		from := strings.ToLower(args[0])
		if !exists(from) {
			return errors.New("No such command in rename-command")
		}
		if args[1] == `""` {
			gone[from], added[from] = true, false
			continue
		}
		to := strings.ToLower(args[1])
		if exists(to) {
			return errors.New("Target command name already exists")
		}
		gone[from], added[from] = true, false
		added[to], gone[to] = true, false
	}
	return nil
}
