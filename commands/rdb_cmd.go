package commands

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strings"
	"syscall"

	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/rdb"
	"github.com/basaltdb/basalt/scripting"
	"github.com/basaltdb/basalt/storage"
)

func init() {
	executor.Register(
		&executor.Command{Name: "rdb", Arity: -3, Flags: executor.Write | executor.Admin | executor.LocksItself | executor.KvrocksOnly, Handler: cmdRDB,
			Meta: &executor.Meta{
				Doc: doc("summary", "Imports the keys of a Redis RDB file on the server's disk (RDB LOAD path [NX] [DB index])",
					"group", "server", "complexity", "O(N) where N is the size of the file",
					"arguments", docArgs(docToken("load", "LOAD"), docString("path"), optional(docToken("nx", "NX")),
						optional(doc("name", "index", "type", "integer", "token", "DB")))),
			}},
	)
}

// RDB LOAD path [NX] [DB index]
//
// Imports the keys of database index (default 0) of the Redis RDB file at
// path, on the server's file system, into the client's namespace,
// replacing keys of the same names (NX: leaving them alone), and its
// function libraries likewise. Replies OK once every key is written.
func cmdRDB(c *executor.Ctx) {
	if !c.Is(1, "load") {
		c.ErrorString("ERR unknown subcommand")
		return
	}
	nx, db := false, uint64(0)
	for i := 3; i < len(c.Args); i++ {
		switch {
		case c.Is(i, "nx"):
			nx = true
		case c.Is(i, "db"):
			if i+1 == len(c.Args) {
				c.ErrorString("ERR no more item to parse")
				return
			}
			i++
			n, msg := kvrocksInt(string(c.Args[i]), 0, math.MaxUint32)
			if msg == "out of numeric range" || msg == "Numerical result out of range" {
				msg = "out of range of integer type" // Kvrocks's words for a uint32
			}
			if msg != "" {
				c.ErrorString("ERR " + msg)
				return
			}
			db = uint64(n)
		default:
			c.ErrorString(executor.ErrSyntax)
			return
		}
	}
	path := string(c.Args[2])
	st, err := c.DB.LoadRDB(path, db, nx)
	if err != nil {
		c.ErrorString(rdbLoadError(path, err))
		return
	}
	if c.OK(loadLibraries(c, st.Functions, nx)) {
		c.W.OK()
	}
}

// loadLibraries installs the function libraries of an RDB file: each
// replaces the library of its name, or, with nx, is left out when one
// exists.
func loadLibraries(c *executor.Ctx, codes []string, nx bool) error {
	if len(codes) == 0 {
		return nil
	}
	scope := c.ScriptScope()
	existing := map[string]bool{}
	for _, lib := range c.Env.Scripts.Libraries(scope) {
		existing[lib.Name] = true
	}
	var libs []*scripting.Library
	for _, code := range codes {
		lib, err := c.Env.Scripts.Prepare(code, scripting.PolicyReplace, scope)
		if err != nil {
			return scriptError(err)
		}
		if !(nx && existing[lib.Name]) {
			libs = append(libs, lib)
		}
	}
	return scriptError(c.Env.Scripts.Install(libs, scripting.PolicyReplace, scope, c.Env.PersistLibraries))
}

// rdbLoadError words a failed RDB LOAD as Kvrocks does where it has
// words for it.
func rdbLoadError(path string, err error) string {
	var pathErr *fs.PathError
	var errno syscall.Errno
	switch {
	case errors.As(err, &pathErr) && errors.As(err, &errno):
		return fmt.Sprintf("ERR failed to open rdb file: '%s': %s", path, strerror(errno))
	case errors.Is(err, storage.ErrNotRegularFile):
		return fmt.Sprintf("ERR failed to open rdb file: '%s': not a regular file", path)
	case errors.Is(err, rdb.ErrSignature):
		return "ERR Wrong signature trying to load DB from file"
	case errors.Is(err, rdb.ErrVersion):
		return "ERR Can't handle RDB format version" + strings.TrimPrefix(err.Error(), rdb.ErrVersion.Error())
	}
	return "ERR " + strings.TrimPrefix(err.Error(), "rdb: ")
}

// strerror is C's text of an errno, as Kvrocks quotes it: Go's, with a
// capital.
func strerror(errno syscall.Errno) string {
	s := errno.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
