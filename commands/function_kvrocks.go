package commands

import (
	"slices"
	"strings"

	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/scripting"
)

// Kvrocks's own FUNCTION subcommands, answered as Kvrocks 2.10 answers
// them. Kvrocks looks at their arguments from the third on only as far as
// it needs them and ignores the rest.

// FUNCTION LISTFUNC [FUNCNAME prefix]
//
// Every function, sorted by name, as a map of function_name and
// from_library; FUNCNAME keeps the names that start with prefix (case
// matters). Any other third argument is ignored.
func functionListFunc(c *executor.Ctx) {
	prefix := ""
	if c.Is(2, "funcname") {
		if len(c.Args) < 4 {
			c.ErrorString("ERR no more item to parse")
			return
		}
		prefix = string(c.Args[3])
	}
	var funcs []*scripting.Function
	for _, lib := range c.Env.Scripts.Libraries(c.ScriptScope()) {
		for _, f := range lib.Functions {
			if strings.HasPrefix(f.Name, prefix) {
				funcs = append(funcs, f)
			}
		}
	}
	slices.SortFunc(funcs, func(a, b *scripting.Function) int { return strings.Compare(a.Name, b.Name) })
	c.W.Array(len(funcs))
	for _, f := range funcs {
		c.W.Map(2)
		c.W.BulkString("function_name")
		c.W.BulkString(f.Name)
		c.W.BulkString("from_library")
		c.W.BulkString(f.Library.Name)
	}
}

// FUNCTION LISTLIB library
//
// The library's name, engine and functions, in the order it registered
// them. (Kvrocks knows only the libraries its Lua state has loaded;
// Basalt loads them all at start, so it knows every one.)
func functionListLib(c *executor.Ctx) {
	if len(c.Args) < 3 {
		c.ErrorString("ERR expect a library name: no more item to parse")
		return
	}
	libs := c.Env.Scripts.Libraries(c.ScriptScope()) // sorted by name
	i, found := slices.BinarySearchFunc(libs, string(c.Args[2]),
		func(lib *scripting.Library, name string) int { return strings.Compare(lib.Name, name) })
	if !found {
		c.ErrorString("ERR The library is not found or not loaded from storage")
		return
	}
	lib := libs[i]
	funcs := slices.Clone(lib.Functions)
	slices.SortFunc(funcs, func(a, b *scripting.Function) int { return a.Order - b.Order })
	c.W.Map(3)
	c.W.BulkString("library_name")
	c.W.BulkString(lib.Name)
	c.W.BulkString("engine")
	c.W.BulkString("lua")
	c.W.Simple("functions")
	c.W.Array(len(funcs))
	for _, f := range funcs {
		c.W.BulkString(f.Name)
	}
}
