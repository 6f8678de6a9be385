package commands

import (
	"math"
	"strings"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/storage"
)

// Redis 8.4's conditional and digest writes (Kvrocks 2.15-2.16): DIGEST,
// DELEX and MSETEX here, SET's IFEQ, IFNE, IFDEQ and IFDNE in string.go.

func init() {
	executor.AddErrorReply(storage.ErrDigestLength, "ERR must be exactly 16 hexadecimal characters")
	executor.AddErrorReply(storage.ErrConditionType, "ERR Key should be of string type if conditions are specified")
	executor.Register(
		&executor.Command{Name: "digest", Arity: 2, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdDigest,
			Meta: &executor.Meta{
				KeySpecs: []executor.KeySpec{{Flags: []string{"RO", "access"}, BeginSearch: "index", Index: 1, FindKeys: "range", LastKey: 0, KeyStep: 1}},
				Doc: doc("summary", "Returns the XXH3 hash of a string value as 16 hex digits", "since", "8.4.0",
					"group", "string", "complexity", "O(N) where N is the length of the string value",
					"arguments", docArgs(docKey("key", 0))),
			}},
		&executor.Command{Name: "delex", Arity: -2, Flags: executor.Write | executor.Fast | executor.NoDBSizeCheck, FirstKey: 1, LastKey: 1, Handler: cmdDelEx,
			Events: &executor.KeyEvents{Class: config.NotifyGeneric, Event: "del", Shape: executor.OnDeleted},
			Meta: &executor.Meta{
				KeySpecs: []executor.KeySpec{{Flags: []string{"RW", "delete"}, BeginSearch: "index", Index: 1, FindKeys: "range", LastKey: 0, KeyStep: 1}},
				Doc: doc("summary", "Deletes a key, if a string key only when its value or digest meets the condition", "since", "8.4.0",
					"group", "string", "complexity", "O(1) for IFEQ and IFNE, O(N) for IFDEQ and IFDNE where N is the length of the string value",
					"arguments", docArgs(docKey("key", 0), optional(append(doc("name", "condition", "type", "oneof"), "$arguments", docArgs(ifConditionDocs()...))))),
			}},
		&executor.Command{Name: "msetex", Arity: -4, Flags: executor.Write, Keys: msetexKeys, Handler: cmdMSetEx,
			Events: &executor.KeyEvents{Class: config.NotifyString, Event: "set", Shape: executor.OnAllAfterExpire, Expire: msetexHasExpiry},
			Meta: &executor.Meta{
				Flags: []string{"write", "denyoom", "movablekeys"},
				KeySpecs: []executor.KeySpec{{Flags: []string{"OW", "update"}, BeginSearch: "index", Index: 1, FindKeys: "keynum",
					KeyNumIdx: 0, FirstKey: 1, KeyStep: 2}},
				Doc: doc("summary", "Sets the values of one or more keys, all or none, with one expiry", "since", "8.4.0",
					"group", "string", "complexity", "O(N) where N is the number of keys to set",
					"arguments", docArgs(doc("name", "numkeys", "type", "integer"),
						multiple(append(doc("name", "data", "type", "block"), "$arguments", docArgs(docKey("key", 0), docString("value")))),
						optional(append(doc("name", "condition", "type", "oneof"), "$arguments", docArgs(docToken("nx", "NX"), docToken("xx", "XX")))),
						optional(append(doc("name", "expiration", "type", "oneof"), "$arguments", docArgs(
							doc("name", "seconds", "type", "integer", "token", "EX"),
							doc("name", "milliseconds", "type", "integer", "token", "PX"),
							doc("name", "unix-time-seconds", "type", "unix-time", "token", "EXAT"),
							doc("name", "unix-time-milliseconds", "type", "unix-time", "token", "PXAT"),
							docToken("keepttl", "KEEPTTL")))))),
			}},
	)
}

// ifConditionDocs documents the conditions IFEQ, IFNE, IFDEQ and IFDNE.
func ifConditionDocs() []any {
	return []any{
		doc("name", "ifeq-value", "type", "string", "token", "IFEQ"),
		doc("name", "ifne-value", "type", "string", "token", "IFNE"),
		doc("name", "ifdeq-digest", "type", "string", "token", "IFDEQ"),
		doc("name", "ifdne-digest", "type", "string", "token", "IFDNE"),
	}
}

// setDocArgs documents SET's arguments as Redis 8.4 does: the IF*
// conditions beside NX and XX.
func setDocArgs(args []any) []any {
	conds := ifConditionDocs()
	for i, c := range conds {
		conds[i] = since(c.([]any), "8.4.0")
	}
	return docExtendOneOf(args, "condition", conds...)
}

// conditionAt returns the condition keyword at argument i, CondNone when
// there is none.
func conditionAt(c *executor.Ctx, i int) storage.CondKind {
	switch {
	case c.Is(i, "ifeq"):
		return storage.CondIfEq
	case c.Is(i, "ifne"):
		return storage.CondIfNe
	case c.Is(i, "ifdeq"):
		return storage.CondIfDEq
	case c.Is(i, "ifdne"):
		return storage.CondIfDNe
	}
	return storage.CondNone
}

// setOption returns whether SET's options (after the value) include one
// of words, not counting the values of IFEQ, IFNE, IFDEQ and IFDNE, which
// may be any word ("SET k v IFEQ get" does not read).
func setOption(words ...string) func(args [][]byte) bool {
	return func(args [][]byte) bool {
		for i := 3; i < len(args); i++ {
			a := strings.ToLower(string(args[i]))
			switch a {
			case "ifeq", "ifne", "ifdeq", "ifdne":
				i++
				continue
			}
			for _, w := range words {
				if a == w {
					return true
				}
			}
		}
		return false
	}
}

// DIGEST key
func cmdDigest(c *executor.Ctx) {
	d, found, err := c.DB.DigestOf(c.Args[1])
	if c.OK(err) {
		c.Env.Stats.Hit(found)
		c.BulkOrNull(d, found)
	}
}

// DELEX key [IFEQ ifeq-value | IFNE ifne-value | IFDEQ ifdeq-digest | IFDNE ifdne-digest]
//
// A missing key answers 0 before the condition is looked at, even an
// unknown one.
func cmdDelEx(c *executor.Ctx) {
	if len(c.Args) != 2 && len(c.Args) != 4 {
		c.ErrorString("ERR wrong number of arguments for '" + c.Cmd.Name + "' command")
		return
	}
	var cond storage.Condition
	if len(c.Args) == 4 {
		cond = storage.Condition{Kind: conditionAt(c, 2), Value: c.Args[3]}
		if cond.Kind == storage.CondNone {
			delexUnknownCondition(c)
			return
		}
	}
	deleted, err := c.DB.DeleteIf(c.Args[1], cond)
	if c.OK(err) {
		c.IntBool(deleted)
	}
}

// delexUnknownCondition answers DELEX's unknown condition: 0 for a
// missing key, else the error.
func delexUnknownCondition(c *executor.Ctx) {
	n, err := c.DB.Exists(c.Args[1:2])
	switch {
	case !c.OK(err):
	case n == 0:
		c.W.Int(0)
	default:
		c.ErrorString("ERR Invalid condition. Use IFEQ, IFNE, IFDEQ, or IFDNE")
	}
}

// msetexNumKeys reads MSETEX's numkeys, which must lie in 1..2^31-1.
func msetexNumKeys(args [][]byte) (int, bool) {
	n, ok := num.ParseInt(args[1])
	if !ok || n < 1 || n > math.MaxInt32 {
		return 0, false
	}
	return int(n), true
}

// msetexKeys returns MSETEX's keys: the first of each of numkeys pairs.
func msetexKeys(args [][]byte) [][]byte {
	n, ok := msetexNumKeys(args)
	if !ok || n > (len(args)-2)/2 {
		return nil
	}
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = args[2+2*i]
	}
	return keys
}

// msetexHasExpiry reports whether MSETEX's options give a time.
func msetexHasExpiry(args [][]byte) bool {
	n, ok := msetexNumKeys(args)
	if !ok {
		return false
	}
	for _, a := range args[min(len(args), 2+2*n):] {
		switch strings.ToLower(string(a)) {
		case "ex", "px", "exat", "pxat":
			return true
		}
	}
	return false
}

// MSETEX numkeys key value [key value ...] [NX | XX] [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]
//
// One condition and one expiration option at most, each once, after the
// pairs; the time is read once the options are known good.
func cmdMSetEx(c *executor.Ctx) {
	n, ok := msetexNumKeys(c.Args)
	if !ok {
		c.ErrorString("ERR invalid numkeys value")
		return
	}
	if n > (len(c.Args)-2)/2 {
		c.ErrorString("ERR wrong number of key-value pairs")
		return
	}
	var a storage.MSetExArgs
	var exp pendingExpiry
	for i := 2 + 2*n; i < len(c.Args); i++ {
		expiring := a.KeepTTL || exp.idx != 0
		switch {
		case c.Is(i, "nx") && !a.NX && !a.XX:
			a.NX = true
		case c.Is(i, "xx") && !a.NX && !a.XX:
			a.XX = true
		case c.Is(i, "keepttl") && !expiring:
			a.KeepTTL = true
		case !expiring && exp.accept(c, i):
			i++
		default:
			c.ErrorString(executor.ErrSyntax)
			return
		}
	}
	if exp.idx != 0 {
		if a.Expire, ok = exp.resolve(c); !ok {
			return
		}
	}
	written, err := c.DB.MSetEx(c.Args[2:2+2*n], a)
	if c.OK(err) {
		c.IntBool(written)
	}
}
