package commands

import (
	"math"
	"strings"
	"time"

	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/num"
)

func init() {
	executor.Register(
		&executor.Command{Name: "debug", Arity: -2, Flags: executor.Admin, Handler: cmdDebug},
	)
}

// maxDebugSleep bounds DEBUG SLEEP, which in Redis stops the whole server
// and here only the calling connection.
const maxDebugSleep = 24 * time.Hour

// DEBUG SLEEP seconds | PROTOCOL type | DBSIZE-LIMIT 0|1 |
// SET-ACTIVE-EXPIRE 0|1 | QUICKLIST-PACKED-THRESHOLD size | OBJECT key |
// RELOAD [MERGE] [NOFLUSH] [NOSAVE] | HELP: Kvrocks's subcommands, Redis's
// OBJECT and RELOAD (debug_reload.go), and the two Redis's test suite sets
// first, which change nothing here (Basalt has no active expiry cycle and
// no quicklists).
func cmdDebug(c *executor.Ctx) {
	sub := strings.ToLower(string(c.Args[1]))
	switch {
	case sub == "help" && len(c.Args) == 2:
		c.W.Array(len(debugHelp))
		for _, l := range debugHelp {
			c.W.Simple(l)
		}
	case sub == "sleep" && len(c.Args) == 3:
		// Redis reads the seconds with strtod and no check: what is not
		// a number sleeps 0.
		f, _ := num.ParseFloat(c.Args[2])
		if f > 0 {
			time.Sleep(time.Duration(math.Min(f*float64(time.Second), float64(maxDebugSleep))))
		}
		c.W.OK()
	case sub == "protocol" && len(c.Args) == 3:
		debugProtocol(c, strings.ToLower(string(c.Args[2])))
	case sub == "dbsize-limit" && len(c.Args) == 3:
		on, ok := debugSwitch(c)
		if ok {
			c.Env.Storage.SetDBSizeLimitReached(on)
			c.W.OK()
		}
	case sub == "set-active-expire" && len(c.Args) == 3:
		// As Redis reads it (atoi): 0, or what is no number, stops
		// active expiry; keys still expire when looked up.
		n, _ := num.ParseInt(c.Args[2])
		c.Env.Notes.ActiveExpireOff.Store(n == 0)
		c.W.OK()
	case sub == "quicklist-packed-threshold" && len(c.Args) == 3:
		c.W.OK()
	case sub == "object" && len(c.Args) == 3:
		debugObject(c)
	case sub == "reload":
		debugReload(c)
	default:
		c.ErrorString("ERR unknown subcommand or wrong number of arguments for '" + executor.Abbreviate(c.Args[1]) + "'. Try DEBUG HELP.")
	}
}

var debugHelp = []string{
	"DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"DBSIZE-LIMIT <0|1>",
	"    Force the max-db-size state (Kvrocks): 1 refuses writes that add data until the next size check.",
	"OBJECT <key>",
	"    Show low level info about `key` and associated value.",
	"PROTOCOL <type>",
	"    Reply with a test value of the specified type. <type> can be: string,",
	"    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
	"    true, false.",
	"QUICKLIST-PACKED-THRESHOLD <size>",
	"    Accepted; Basalt stores no quicklists.",
	"RELOAD [MERGE] [NOFLUSH] [NOSAVE]",
	"    Close RocksDB and open it again; clients stay connected. The options change nothing.",
	"SET-ACTIVE-EXPIRE <0|1>",
	"    Accepted; Basalt expires keys when read and when compacted.",
	"SLEEP <seconds>",
	"    Stop this connection for <seconds>; decimals are allowed.",
	"HELP",
	"    Print this help.",
}

// debugSwitch reads a 0 or 1 argument.
func debugSwitch(c *executor.Ctx) (bool, bool) {
	switch string(c.Args[2]) {
	case "0":
		return false, true
	case "1":
		return true, true
	}
	c.ErrorString(executor.ErrSyntax)
	return false, false
}

// debugProtocol replies with Redis 7.0's test value of each reply type.
func debugProtocol(c *executor.Ctx, name string) {
	w := c.W
	switch name {
	case "string":
		w.BulkString("Hello World")
	case "integer":
		w.Int(12345)
	case "double":
		w.Double(3.141)
	case "bignum":
		w.BigNum("1234567999999999999999999999999999999")
	case "null":
		w.Null()
	case "array", "set":
		if name == "set" {
			w.Set(3)
		} else {
			w.Array(3)
		}
		for j := int64(0); j < 3; j++ {
			w.Int(j)
		}
	case "map":
		w.Map(3)
		for j := int64(0); j < 3; j++ {
			w.Int(j)
			w.Bool(j == 1)
		}
	case "attrib":
		if w.Protocol() == 3 {
			w.Attribute(1)
			w.BulkString("key-popularity")
			w.Array(2)
			w.BulkString("key:123")
			w.Int(90)
		}
		w.BulkString("Some real reply following the attribute")
	case "push":
		if w.Protocol() != 3 {
			c.ErrorString("ERR RESP2 is not supported by this command")
			return
		}
		w.Push(2)
		w.BulkString("server-cpu-usage")
		w.Int(42)
		w.BulkString("Some real reply following the push reply")
	case "true", "false":
		w.Bool(name == "true")
	case "verbatim":
		w.Verbatim("This is a verbatim\nstring")
	default:
		c.ErrorString("ERR Wrong protocol type name. Please use one of the following: string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false")
	}
}
