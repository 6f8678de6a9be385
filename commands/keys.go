package commands

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/storage"
)

func init() {
	executor.Register(
		&executor.Command{Name: "del", Arity: -2, Flags: executor.Write | executor.NoDBSizeCheck, FirstKey: 1, LastKey: -1, Handler: cmdDel,
			Events: &executor.KeyEvents{Class: config.NotifyGeneric, Event: "del", Shape: executor.OnDeleted}},
		&executor.Command{Name: "unlink", Arity: -2, Flags: executor.Write | executor.Fast | executor.NoDBSizeCheck, FirstKey: 1, LastKey: -1, Handler: cmdDel,
			Events: &executor.KeyEvents{Class: config.NotifyGeneric, Event: "del", Shape: executor.OnDeleted}},
		&executor.Command{Name: "exists", Arity: -2, Flags: executor.ReadOnly | executor.Fast | executor.NoTouch, FirstKey: 1, LastKey: -1, Handler: cmdExists},
		&executor.Command{Name: "touch", Arity: -2, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: -1, Handler: cmdExists},
		&executor.Command{Name: "move", Arity: 3, Flags: executor.Write | executor.Fast | executor.KvrocksOnly, FirstKey: 1, LastKey: 1, Handler: cmdMove},
		&executor.Command{Name: "type", Arity: 2, Flags: executor.ReadOnly | executor.Fast | executor.NoTouch, FirstKey: 1, LastKey: 1, Handler: cmdType},
		&executor.Command{Name: "expire", Arity: -3, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdExpire,
			Events: &executor.KeyEvents{Class: config.NotifyGeneric, Shape: executor.OnExpiry}},
		&executor.Command{Name: "pexpire", Arity: -3, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdPExpire,
			Events: &executor.KeyEvents{Class: config.NotifyGeneric, Shape: executor.OnExpiry}},
		&executor.Command{Name: "expireat", Arity: -3, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdExpireAt,
			Events: &executor.KeyEvents{Class: config.NotifyGeneric, Shape: executor.OnExpiry}},
		&executor.Command{Name: "pexpireat", Arity: -3, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdPExpireAt,
			Events: &executor.KeyEvents{Class: config.NotifyGeneric, Shape: executor.OnExpiry}},
		&executor.Command{Name: "ttl", Arity: 2, Flags: executor.ReadOnly | executor.Fast | executor.NoTouch, FirstKey: 1, LastKey: 1, Handler: cmdTTL},
		&executor.Command{Name: "pttl", Arity: 2, Flags: executor.ReadOnly | executor.Fast | executor.NoTouch, FirstKey: 1, LastKey: 1, Handler: cmdPTTL},
		&executor.Command{Name: "expiretime", Arity: 2, Flags: executor.ReadOnly | executor.Fast | executor.NoTouch, FirstKey: 1, LastKey: 1, Handler: cmdExpireTime},
		&executor.Command{Name: "pexpiretime", Arity: 2, Flags: executor.ReadOnly | executor.Fast | executor.NoTouch, FirstKey: 1, LastKey: 1, Handler: cmdPExpireTime},
		&executor.Command{Name: "persist", Arity: 2, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdPersist,
			Events: &executor.KeyEvents{Class: config.NotifyGeneric, Shape: executor.OnExpiry}},
		&executor.Command{Name: "keys", Arity: 2, Flags: executor.ReadOnly, Handler: cmdKeys},
		&executor.Command{Name: "scan", Arity: -2, Flags: executor.ReadOnly, Handler: cmdScan},
		&executor.Command{Name: "randomkey", Arity: 1, Flags: executor.ReadOnly, Handler: cmdRandomKey},
		&executor.Command{Name: "rename", Arity: 3, Flags: executor.Write, FirstKey: 1, LastKey: 2, Handler: cmdRename,
			Events: &executor.KeyEvents{Class: config.NotifyGeneric, Shape: executor.OnRename}},
		&executor.Command{Name: "renamenx", Arity: 3, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 2, Handler: cmdRenameNX,
			Events: &executor.KeyEvents{Class: config.NotifyGeneric, Shape: executor.OnRename}},
		&executor.Command{Name: "copy", Arity: -3, Flags: executor.Write, FirstKey: 1, LastKey: 2, Handler: cmdCopy,
			Events: &executor.KeyEvents{Class: config.NotifyGeneric, Event: "copy_to", Shape: executor.OnReplace}},
		&executor.Command{Name: "object", Arity: -2, Flags: executor.ReadOnly | executor.NoTouch, Keys: objectKeys, Subcommands: objectSubcommands, Handler: cmdObject},
	)
}

// DEL key [key ...] and UNLINK key [key ...]
func cmdDel(c *executor.Ctx) {
	deleted, err := c.DB.DelKeys(c.Args[1:])
	// Only the keys deleted changed: as in Redis, a WATCHed key given but
	// missing is left alone, and is not invalidated for tracking.
	c.Changed = deleted
	if c.OK(err) {
		c.W.Int(int64(len(deleted)))
	}
}

// EXISTS key [key ...] and TOUCH key [key ...]
func cmdExists(c *executor.Ctx) {
	n, err := c.DB.Exists(c.Args[1:])
	if c.OK(err) {
		c.W.Int(n)
	}
}

// MOVE key db, as Kvrocks, whose namespace is one database: nothing
// moves; 1 when the key exists, 0 when not.
func cmdMove(c *executor.Ctx) {
	if _, msg := kvrocksInt(string(c.Args[2]), math.MinInt64, math.MaxInt64); msg != "" {
		c.ErrorString("ERR " + msg)
		return
	}
	n, err := c.DB.Exists(c.Args[1:2])
	if c.OK(err) {
		c.W.Int(n)
	}
}

// TYPE key
func cmdType(c *executor.Ctx) {
	t, err := c.DB.Type(c.Args[1])
	if c.OK(err) {
		c.W.Simple(t.String())
	}
}

// EXPIRE key seconds [NX | XX | GT | LT]
func cmdExpire(c *executor.Ctx) { expireGeneric(c, 1000, false) }

// PEXPIRE key milliseconds [NX | XX | GT | LT]
func cmdPExpire(c *executor.Ctx) { expireGeneric(c, 1, false) }

// EXPIREAT key unix-time-seconds [NX | XX | GT | LT]
func cmdExpireAt(c *executor.Ctx) { expireGeneric(c, 1000, true) }

// PEXPIREAT key unix-time-milliseconds [NX | XX | GT | LT]
func cmdPExpireAt(c *executor.Ctx) { expireGeneric(c, 1, true) }

// expireGeneric implements the EXPIRE family: the flags are checked first,
// then the time, with Redis's overflow rules (negative times are allowed
// and delete the key).
func expireGeneric(c *executor.Ctx, unitMs int64, absolute bool) {
	cond, ok := expireCondition(c)
	if !ok {
		return
	}
	n, ok := c.Int(2)
	if !ok {
		return
	}
	if n > math.MaxInt64/unitMs || n < math.MinInt64/unitMs {
		invalidExpire(c)
		return
	}
	n *= unitMs
	if !absolute {
		now := time.Now().UnixMilli()
		if n > math.MaxInt64-now {
			invalidExpire(c)
			return
		}
		n += now
	}
	changed, err := c.DB.Expire(c.Args[1], n, cond)
	if c.OK(err) {
		c.IntBool(changed)
	}
}

func expireCondition(c *executor.Ctx) (storage.ExpireCond, bool) {
	var cond storage.ExpireCond
	for i := 3; i < len(c.Args); i++ {
		switch {
		case c.Is(i, "nx"):
			cond.NX = true
		case c.Is(i, "xx"):
			cond.XX = true
		case c.Is(i, "gt"):
			cond.GT = true
		case c.Is(i, "lt"):
			cond.LT = true
		default:
			c.ErrorString("ERR Unsupported option " + string(c.Args[i]))
			return cond, false
		}
	}
	switch {
	case cond.NX && (cond.XX || cond.GT || cond.LT):
		c.ErrorString("ERR NX and XX, GT or LT options at the same time are not compatible")
		return cond, false
	case cond.GT && cond.LT:
		c.ErrorString("ERR GT and LT options at the same time are not compatible")
		return cond, false
	}
	return cond, true
}

// TTL key
func cmdTTL(c *executor.Ctx) { ttlGeneric(c, false, false) }

// PTTL key
func cmdPTTL(c *executor.Ctx) { ttlGeneric(c, true, false) }

// EXPIRETIME key
func cmdExpireTime(c *executor.Ctx) { ttlGeneric(c, false, true) }

// PEXPIRETIME key
func cmdPExpireTime(c *executor.Ctx) { ttlGeneric(c, true, true) }

// ttlGeneric replies -2 for a missing key, -1 for no expiry, else the
// remaining or absolute time, in seconds rounded as Redis rounds them.
func ttlGeneric(c *executor.Ctx, ms, absolute bool) {
	at, found, err := c.DB.ExpireAt(c.Args[1])
	if !c.OK(err) {
		return
	}
	switch {
	case !found:
		c.W.Int(-2)
		return
	case at == 0:
		c.W.Int(-1)
		return
	}
	t := at
	if !absolute {
		t = max(at-time.Now().UnixMilli(), 0)
	}
	if !ms {
		t = (t + 500) / 1000
	}
	c.W.Int(t)
}

// PERSIST key
func cmdPersist(c *executor.Ctx) {
	changed, err := c.DB.Persist(c.Args[1])
	if c.OK(err) {
		c.IntBool(changed)
	}
}

// KEYS pattern
func cmdKeys(c *executor.Ctx) {
	keys, err := c.DB.Keys(c.Args[1])
	if !c.OK(err) {
		return
	}
	c.W.Array(len(keys))
	for _, k := range keys {
		c.W.Bulk(k)
	}
}

// scanDefaultCount is SCAN's COUNT when none is given, as in Redis.
const scanDefaultCount = 10

// scanOptions are the options of SCAN, HSCAN, SSCAN and ZSCAN.
type scanOptions struct {
	cursor   uint64
	match    []byte // nil: everything
	count    int
	typ      metadata.Type // SCAN TYPE
	noValues bool          // HSCAN NOVALUES
}

// parseScan reads the cursor at argument cursorIdx and the options after
// it; allowType and allowNoValues enable the command-specific ones.
func parseScan(c *executor.Ctx, cursorIdx int, allowType, allowNoValues bool) (scanOptions, bool) {
	o := scanOptions{count: scanDefaultCount}
	cursor, err := strconv.ParseUint(string(c.Args[cursorIdx]), 10, 64)
	if err != nil {
		c.ErrorString(executor.ErrInvalidCurs)
		return o, false
	}
	o.cursor = cursor
	for i := cursorIdx + 1; i < len(c.Args); i++ {
		switch {
		case allowNoValues && c.Is(i, "novalues"):
			o.noValues = true
			continue
		case i+1 >= len(c.Args):
			c.ErrorString(executor.ErrSyntax)
			return o, false
		case c.Is(i, "match"):
			o.match = c.Args[i+1]
			if string(o.match) == "*" {
				o.match = nil
			}
		case c.Is(i, "count"):
			n, ok := c.Int(i + 1)
			if !ok {
				return o, false
			}
			if n < 1 {
				c.ErrorString(executor.ErrSyntax)
				return o, false
			}
			o.count = int(min(n, 1<<20))
		case allowType && c.Is(i, "type"):
			o.typ = typeByName(string(c.Args[i+1]))
			if o.typ == metadata.TypeNone {
				c.ErrorString("ERR unknown type name '" + string(c.Args[i+1]) + "'")
				return o, false
			}
		default:
			c.ErrorString(executor.ErrSyntax)
			return o, false
		}
		i++
	}
	return o, true
}

// resumeFrom turns a cursor into the position saved for it under scope.
func resumeFrom(c *executor.Ctx, scope string, cursor uint64) ([]byte, bool) {
	if cursor == 0 {
		return nil, true
	}
	from, ok := c.Env.Cursors.Load(scope, cursor)
	if !ok {
		c.ErrorString(executor.ErrInvalidCurs)
	}
	return from, ok
}

// nextCursor saves where the next step starts and returns its cursor; 0
// when the scan is complete.
func nextCursor(c *executor.Ctx, scope string, next []byte) string {
	if next == nil {
		return "0"
	}
	return strconv.FormatUint(c.Env.Cursors.Save(scope, next), 10)
}

// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]
func cmdScan(c *executor.Ctx) {
	o, ok := parseScan(c, 1, true, false)
	if !ok {
		return
	}
	scope := c.DB.Namespace()
	from, ok := resumeFrom(c, scope, o.cursor)
	if !ok {
		return
	}
	keys, next, err := c.DB.Scan(storage.ScanArgs{From: from, Match: o.match, Count: o.count, Type: o.typ})
	if !c.OK(err) {
		return
	}
	c.W.Array(2)
	c.W.BulkString(nextCursor(c, scope, next))
	c.W.Array(len(keys))
	for _, k := range keys {
		c.W.Bulk(k)
	}
}

// typeByName maps a TYPE name to the stored type; TypeNone if unknown.
// Kvrocks's name "bitmap" selects bitmaps alone; "string" selects them
// too, since TYPE calls them strings.
func typeByName(name string) metadata.Type {
	name = strings.ToLower(name)
	if name == "bitmap" {
		return metadata.TypeBitmap
	}
	for t := metadata.TypeString; t <= metadata.TypeTimeSeries; t++ {
		if t != metadata.TypeBitmap && strings.ToLower(t.String()) == name {
			return t
		}
	}
	return metadata.TypeNone
}

// RANDOMKEY
func cmdRandomKey(c *executor.Ctx) {
	k, err := c.DB.RandomKey()
	if c.OK(err) {
		c.BulkOrNull(k, k != nil)
	}
}

// RENAME key newkey
func cmdRename(c *executor.Ctx) {
	if _, err := c.DB.Rename(c.Args[1], c.Args[2], false); c.OK(err) {
		c.W.OK()
	}
}

// RENAMENX key newkey
func cmdRenameNX(c *executor.Ctx) {
	done, err := c.DB.Rename(c.Args[1], c.Args[2], true)
	if c.OK(err) {
		c.IntBool(done)
	}
}

// COPY source destination [DB destination-db] [REPLACE]
func cmdCopy(c *executor.Ctx) {
	replace := false
	for i := 3; i < len(c.Args); i++ {
		switch {
		case c.Is(i, "replace"):
			replace = true
		case c.Is(i, "db") && i+1 < len(c.Args):
			db, ok := c.Int(i + 1)
			if !ok {
				return
			}
			if db != 0 {
				c.ErrorString(executor.ErrDBIndex)
				return
			}
			i++
		default:
			c.ErrorString(executor.ErrSyntax)
			return
		}
	}
	done, err := c.DB.Copy(c.Args[1], c.Args[2], replace)
	if c.OK(err) {
		c.IntBool(done)
	}
}

func objectKeys(args [][]byte) [][]byte {
	if len(args) >= 3 {
		return args[2:3]
	}
	return nil
}

// OBJECT ENCODING key | OBJECT REFCOUNT key | OBJECT IDLETIME key |
// OBJECT FREQ key | OBJECT HELP
func cmdObject(c *executor.Ctx) {
	executor.DispatchSub(c)
}

var objectSubcommands = map[string]*executor.Subcommand{
	"encoding": {Arity: 3, Handler: objectEncoding},
	"refcount": {Arity: 3, Handler: objectRefCount},
	"idletime": {Arity: 3, Handler: objectIdleTime},
	"freq":     {Arity: 3, Handler: objectFreq},
	"help": executor.Help(
		"OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"ENCODING <key>",
		"    Return the kind of internal representation used in order to store the value",
		"    associated with a <key>.",
		"FREQ <key>",
		"    Return the access frequency index of the <key>. The returned integer is",
		"    proportional to the logarithm of the recent access frequency of the key.",
		"IDLETIME <key>",
		"    Return the idle time of the <key>, that is the approximated number of",
		"    seconds elapsed since the last access to the key.",
		"REFCOUNT <key>",
		"    Return the number of references of the value associated with the specified",
		"    <key>.",
		"HELP",
		"    Prints this help.",
	),
}

// objectType returns the key's type, replying nil (as Redis does for a
// missing key) and false when there is nothing more to say.
func objectType(c *executor.Ctx) (metadata.Type, bool) {
	t, err := c.DB.Type(c.Args[2])
	if !c.OK(err) {
		return t, false
	}
	if t == metadata.TypeNone {
		c.W.Null()
		return t, false
	}
	return t, true
}

// objectEncoding names the encoding Redis 7.0 would use for the value as
// it is now, with the limits of the Redis encoding keys (CONFIG GET
// hash-max-listpack-entries ...): Basalt stores every type one way, on
// RocksDB. Redis never converts a hashtable back to a listpack; here a
// collection that shrank is reported small again.
func objectEncoding(c *executor.Ctx) {
	t, ok := objectType(c)
	if !ok {
		return
	}
	if enc, ok := encodingOf(c, t); ok {
		c.W.BulkString(enc)
	}
}

// encodingOf returns the encoding Redis 7.0 would give the key of type t
// named by argument 2; false once it replied an error.
func encodingOf(c *executor.Ctx, t metadata.Type) (string, bool) {
	ok := true
	enc := ""
	switch t {
	case metadata.TypeString:
		v, _, err := c.DB.Get(c.Args[2])
		if !c.OK(err) {
			return "", false
		}
		enc = stringEncoding(v)
	case metadata.TypeBitmap:
		enc = "raw" // what Redis's SETBIT leaves
	case metadata.TypeList:
		enc = "quicklist" // Redis 7.0's only list encoding
	case metadata.TypeHash:
		enc, ok = smallEncoding(c, t, "listpack", "hash-max-listpack-entries", "hash-max-listpack-value", nil)
	case metadata.TypeZSet:
		enc, ok = smallEncoding(c, t, "listpack", "zset-max-listpack-entries", "zset-max-listpack-value", nil)
	case metadata.TypeSet:
		enc, ok = smallEncoding(c, t, "intset", "set-max-intset-entries", "", func(member []byte) bool {
			_, isInt := num.ParseInt(member)
			return isInt
		})
	case metadata.TypeStream:
		enc = "stream"
	default:
		// A bitmap or a HyperLogLog is a string in Redis, written in
		// place (SETBIT, PFADD): raw.
		enc = "raw"
	}
	return enc, ok
}

// smallEncoding returns small (listpack, intset) when the collection has
// at most the entries of the config key entriesKey, each element (and
// value) at most valueKey's bytes and accepted by fits; "hashtable" or
// "skiplist" otherwise. Only a collection within the entries limit is
// read, and only that many elements.
func smallEncoding(c *executor.Ctx, t metadata.Type, small, entriesKey, valueKey string, fits func(elem []byte) bool) (string, bool) {
	large := "hashtable"
	if t == metadata.TypeZSet {
		large = "skiplist"
	}
	n, err := c.DB.Len(c.Args[2], t)
	if !c.OK(err) {
		return "", false
	}
	maxEntries := configInt(c, entriesKey)
	if n > maxEntries {
		return large, true
	}
	maxValue := int64(-1)
	if valueKey != "" {
		maxValue = configInt(c, valueKey)
	}
	elems, _, err := c.DB.ScanElements(c.Args[2], t, nil, nil, int(n)+1)
	if !c.OK(err) {
		return "", false
	}
	for _, e := range elems {
		if maxValue >= 0 && int64(len(e.Sub)) > maxValue {
			return large, true
		}
		// A hash's values count too; a sorted set's are its scores.
		if maxValue >= 0 && t == metadata.TypeHash && int64(len(e.Value)) > maxValue {
			return large, true
		}
		if fits != nil && !fits(e.Sub) {
			return large, true
		}
	}
	return small, true
}

// configInt reads an integer config key (0 if it is not one).
func configInt(c *executor.Ctx, key string) int64 {
	for _, kv := range c.Env.Config.Get(key) {
		if n, err := strconv.ParseInt(kv[1], 10, 64); err == nil {
			return n
		}
	}
	return 0
}

// stringEncoding is Redis's choice for a string value: int for a value
// that is a canonical 64-bit integer, embstr up to 44 bytes, raw beyond.
func stringEncoding(v []byte) string {
	if _, ok := num.ParseInt(v); ok {
		return "int"
	}
	if len(v) <= 44 {
		return "embstr"
	}
	return "raw"
}

// sharedRefCount is what Redis 7 reports as the reference count of its
// shared integers (0 to 9999), which a value stored as one of them is.
const sharedRefCount = math.MaxInt32

// objectRefCount answers as Redis does for an unshared value (1), or for
// one of its shared integers.
func objectRefCount(c *executor.Ctx) {
	t, ok := objectType(c)
	if !ok {
		return
	}
	if t == metadata.TypeString {
		v, _, err := c.DB.Get(c.Args[2])
		if !c.OK(err) {
			return
		}
		if n, isInt := num.ParseInt(v); isInt && n >= 0 && n < 10000 {
			c.W.Int(sharedRefCount)
			return
		}
	}
	c.W.Int(1)
}

// lfuPolicy reports whether maxmemory-policy is an LFU one: Redis then
// tracks access frequencies instead of idle times.
func lfuPolicy(c *executor.Ctx) bool {
	for _, kv := range c.Env.Config.Get("maxmemory-policy") {
		return strings.HasSuffix(kv[1], "-lfu")
	}
	return false
}

// objectIdleTime answers the seconds since the key was last used
// (idle.go). With an LFU maxmemory-policy it is refused as Redis refuses
// it.
func objectIdleTime(c *executor.Ctx) {
	if _, ok := objectType(c); !ok {
		return
	}
	if lfuPolicy(c) {
		c.ErrorString("ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
		return
	}
	c.W.Int(c.Env.Access.Idle(c.Session.Namespace, c.Args[2]))
}

// objectFreq is refused as Redis refuses it without an LFU
// maxmemory-policy; with one it is 0: Basalt keeps no access
// frequencies.
func objectFreq(c *executor.Ctx) {
	if _, ok := objectType(c); !ok {
		return
	}
	if !lfuPolicy(c) {
		c.ErrorString("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
		return
	}
	c.W.Int(0)
}
