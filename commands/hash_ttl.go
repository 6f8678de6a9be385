package commands

import (
	"errors"
	"strings"
	"time"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/storage"
)

// Hash field expiration: Redis 7.4's HEXPIRE family, HTTL family and
// HPERSIST, Redis 8.0's HGETEX, HSETEX and HGETDEL (REDIS-NEW.md §1), and
// Kvrocks's HSETEXPIRE (KVROCKS-TYPES.md §7.5), stored as Kvrocks stores
// field TTLs (storage/hashttl.go).

func init() {
	chosen := &executor.KeyEvents{Class: config.NotifyHash, Shape: executor.OnChosen}
	expire := func(name string, unit int64, relative bool) *executor.Command {
		return &executor.Command{Name: name, Arity: -6, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1,
			Handler: func(c *executor.Ctx) { cmdHExpire(c, unit, relative) }, Events: chosen,
			Meta: fieldTTLMeta("Set the expiration of hash fields", "7.4.0", []string{"RW", "update"},
				docString("time"), optional(doc("name", "condition", "type", "oneof", "arguments", docArgs(
					docToken("nx", "NX"), docToken("xx", "XX"), docToken("gt", "GT"), docToken("lt", "LT")))),
				fieldsDoc(false))}
	}
	query := func(name string, unit int64, relative bool) *executor.Command {
		return &executor.Command{Name: name, Arity: -5, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: 1,
			Handler: func(c *executor.Ctx) { cmdHTTL(c, unit, relative) },
			Meta:    fieldTTLMeta("Returns the TTL or expiry of hash fields", "7.4.0", []string{"RO", "access"}, fieldsDoc(false))}
	}
	executor.Register(
		expire("hexpire", 1000, true), expire("hpexpire", 1, true),
		expire("hexpireat", 1000, false), expire("hpexpireat", 1, false),
		query("httl", 1000, true), query("hpttl", 1, true),
		query("hexpiretime", 1000, false), query("hpexpiretime", 1, false),
		&executor.Command{Name: "hpersist", Arity: -5, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1,
			Handler: cmdHPersist, Events: chosen,
			Meta: fieldTTLMeta("Removes the expiration of hash fields", "7.4.0", []string{"RW", "update"}, fieldsDoc(false))},
		&executor.Command{Name: "hgetex", Arity: -5, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1,
			Handler: cmdHGetEx, Events: chosen,
			Meta: fieldTTLMeta("Returns the values of hash fields and sets or removes their expiration", "8.0.0",
				[]string{"RW", "access", "update"}, optional(docString("expiration")), fieldsDoc(false))},
		&executor.Command{Name: "hsetex", Arity: -6, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1,
			Handler: cmdHSetEx, Events: chosen,
			Meta: fieldTTLMeta("Sets hash fields and their expiration", "8.0.0", []string{"RW", "update"},
				optional(docString("condition")), optional(docString("expiration")), fieldsDoc(true))},
		&executor.Command{Name: "hgetdel", Arity: -5, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1,
			Handler: cmdHGetDel, Events: chosen,
			Meta: fieldTTLMeta("Returns the values of hash fields and deletes them", "8.0.0",
				[]string{"RW", "access", "delete"}, fieldsDoc(false))},
		&executor.Command{Name: "hsetexpire", Arity: -5, Flags: executor.Write | executor.KvrocksOnly, FirstKey: 1, LastKey: 1,
			Handler: cmdHSetExpire,
			Events: &executor.KeyEvents{Class: config.NotifyHash, Event: "hset", Shape: executor.OnEach,
				Expire: func([][]byte) bool { return true }},
			Meta: fieldTTLMeta("Sets hash fields and the key's expiration", "2.12.0 (Kvrocks)", []string{"RW", "update"},
				docString("seconds"), multiple(doc("name", "data", "type", "block", "arguments", docArgs(docString("field"), docString("value")))))},
	)
}

// fieldTTLMeta describes a hash field TTL command for COMMAND.
func fieldTTLMeta(summary, since string, keyFlags []string, args ...[]any) *executor.Meta {
	all := []any{docKey("key", 0)}
	for _, a := range args {
		all = append(all, a)
	}
	return &executor.Meta{
		KeySpecs: []executor.KeySpec{{Flags: keyFlags, BeginSearch: "index", Index: 1, FindKeys: "range", LastKey: 0, KeyStep: 1}},
		Doc: doc("summary", summary, "since", since, "group", "hash", "complexity", "O(N) where N is the number of specified fields",
			"arguments", docArgs(all...)),
	}
}

// fieldsDoc documents the FIELDS block, of fields or of field, value
// pairs.
func fieldsDoc(pairs bool) []any {
	field := []any{docString("field")}
	if pairs {
		field = []any{doc("name", "data", "type", "block", "arguments", docArgs(docString("field"), docString("value")))}
	}
	return doc("name", "fields", "type", "block", "token", "FIELDS", "arguments", docArgs(
		doc("name", "numfields", "type", "integer"), multiple(field[0].([]any))))
}

// Replies of the FIELDS block's errors (REDIS-NEW.md §1.2).
const (
	errFieldsMissing   = "ERR Mandatory argument FIELDS is missing or not at the right position"
	errNumFieldsExpire = "ERR Parameter `numFields` should be greater than 0"
	errNumFields       = "ERR Number of fields must be a positive integer"
	errNumFieldsMatch  = "ERR The `numfields` parameter must match the number of arguments"
	errNegativeExpire  = "ERR invalid expire time, must be >= 0"
)

// fieldsBlock reads FIELDS numfields field ... at argument i, the last
// block of the command: badCount is the reply to a numfields that is not
// a positive integer.
func fieldsBlock(c *executor.Ctx, i int, badCount string) ([][]byte, bool) {
	return fieldsIn(c, c.Args, i, badCount)
}

// fieldsIn is fieldsBlock in args, the command's arguments or the first
// of them.
func fieldsIn(c *executor.Ctx, args [][]byte, i int, badCount string) ([][]byte, bool) {
	if i+1 >= len(args) || !strings.EqualFold(string(args[i]), "fields") {
		return nil, fieldTTLError(c, errFieldsMissing)
	}
	n, ok := num.ParseInt(args[i+1])
	if !ok || n < 1 {
		return nil, fieldTTLError(c, badCount)
	}
	fields := args[i+2:]
	if int64(len(fields)) != n {
		return nil, fieldTTLError(c, errNumFieldsMatch)
	}
	return fields, true
}

// fieldTTLError replies msg, unless the key holds another type than a
// hash: as in Redis, WRONGTYPE comes before any argument error.
func fieldTTLError(c *executor.Ctx, msg string) bool {
	if t, err := c.DB.Type(c.Args[1]); err == nil && t != metadata.TypeNone && t != metadata.TypeHash {
		msg = executor.ErrWrongType
	}
	c.ErrorString(msg)
	return false
}

// fieldExpireAt reads the time argument i of a field TTL command, in
// units of unit ms, relative to now or absolute, as an absolute Unix ms
// time; it replies the error when the time is not one.
func fieldExpireAt(c *executor.Ctx, i int, unit int64, relative bool) (int64, bool) {
	t, ok := num.ParseInt(c.Args[i])
	switch {
	case !ok:
		return 0, fieldTTLError(c, executor.ErrNotInteger)
	case t < 0:
		return 0, fieldTTLError(c, errNegativeExpire)
	case t > storage.MaxFieldExpire/unit:
		return 0, fieldTTLError(c, "ERR invalid expire time in '"+c.Cmd.Name+"' command")
	}
	at := t * unit
	if relative {
		at += time.Now().UnixMilli()
	}
	if at > storage.MaxFieldExpire {
		return 0, fieldTTLError(c, "ERR invalid expire time in '"+c.Cmd.Name+"' command")
	}
	return at, true
}

// HEXPIRE key seconds [NX | XX | GT | LT] FIELDS numfields field [field ...]
// (and HPEXPIRE, HEXPIREAT, HPEXPIREAT); as Kvrocks, the condition may
// also follow the fields.
func cmdHExpire(c *executor.Ctx, unit int64, relative bool) {
	at, ok := fieldExpireAt(c, 2, unit, relative)
	if !ok {
		return
	}
	i, args := 3, c.Args
	cond, found := fieldExpireCondition(args[3])
	if !found {
		i--
	}
	if last := len(args) - 1; !found && last > 5 && c.Is(3, "fields") {
		// Kvrocks's superset: the condition after the fields, when
		// numfields leaves it out.
		if n, ok := num.ParseInt(args[4]); ok && n == int64(last-5) {
			if cond, found = fieldExpireCondition(args[last]); found {
				args = args[:last]
			}
		}
	}
	fields, ok := fieldsIn(c, args, i+1, errNumFieldsExpire)
	if !ok {
		return
	}
	replies, err := c.DB.HExpire(c.Args[1], fields, at, cond)
	if !c.OK(err) {
		return
	}
	c.Chosen = nil
	switch {
	case count(replies, storage.FieldDeleted) > 0:
		c.Chosen = []string{"hdel"}
	case count(replies, storage.FieldSet) > 0:
		c.Chosen = []string{"hexpire"}
	}
	intArray(c, replies)
}

// fieldExpireCondition reads HEXPIRE's NX, XX, GT or LT.
func fieldExpireCondition(arg []byte) (cond storage.ExpireCond, found bool) {
	switch strings.ToLower(string(arg)) {
	case "nx":
		cond.NX = true
	case "xx":
		cond.XX = true
	case "gt":
		cond.GT = true
	case "lt":
		cond.LT = true
	default:
		return cond, false
	}
	return cond, true
}

// HTTL key FIELDS numfields field [field ...] (and HPTTL, HEXPIRETIME,
// HPEXPIRETIME): the seconds forms round up, as Redis.
func cmdHTTL(c *executor.Ctx, unit int64, relative bool) {
	fields, ok := fieldsBlock(c, 2, errNumFields)
	if !ok {
		return
	}
	expires, err := c.DB.HFieldExpires(c.Args[1], fields)
	if !c.OK(err) {
		return
	}
	now := time.Now().UnixMilli()
	for i, at := range expires {
		switch {
		case at == storage.FieldMissing:
		case at == 0:
			expires[i] = storage.FieldNoTTL
		case relative:
			expires[i] = (max(at-now, 0) + unit - 1) / unit
		default:
			expires[i] = (at + unit - 1) / unit
		}
	}
	intArray(c, expires)
}

// HPERSIST key FIELDS numfields field [field ...]
func cmdHPersist(c *executor.Ctx) {
	fields, ok := fieldsBlock(c, 2, errNumFields)
	if !ok {
		return
	}
	replies, err := c.DB.HPersist(c.Args[1], fields)
	if !c.OK(err) {
		return
	}
	c.Chosen = nil
	if count(replies, storage.FieldSet) > 0 {
		c.Chosen = []string{"hpersist"}
	}
	intArray(c, replies)
}

// fieldExpiryOption reads an EX, PX, EXAT or PXAT option and its time at
// argument i; found is false when argument i is none of them.
func fieldExpiryOption(c *executor.Ctx, i int) (e storage.FieldExpiry, found, ok bool) {
	units := map[string]struct {
		unit     int64
		relative bool
	}{"ex": {1000, true}, "px": {1, true}, "exat": {1000, false}, "pxat": {1, false}}
	u, found := units[strings.ToLower(string(c.Args[i]))]
	if !found {
		return e, false, true
	}
	if i+1 >= len(c.Args) {
		return e, true, fieldTTLError(c, executor.ErrSyntax)
	}
	e.At, ok = fieldExpireAt(c, i+1, u.unit, u.relative)
	e.Set = true
	return e, true, ok
}

// HGETEX key [EX seconds | PX milliseconds | EXAT unix-time-seconds |
// PXAT unix-time-milliseconds | PERSIST] FIELDS numfields field [field ...]
func cmdHGetEx(c *executor.Ctx) {
	e, found, ok := fieldExpiryOption(c, 2)
	if !ok {
		return
	}
	i := 2
	switch {
	case found:
		i = 4
	case c.Is(2, "persist"):
		e.Persist, i = true, 3
	}
	if i < len(c.Args) && i > 2 && isOneOf(c.Args[i], "ex", "px", "exat", "pxat", "persist") {
		fieldTTLError(c, "ERR Only one of EX, PX, EXAT, PXAT or PERSIST arguments can be specified")
		return
	}
	fields, ok := fieldsBlock(c, i, errNumFields)
	if !ok {
		return
	}
	values, set, persisted, deleted, err := c.DB.HGetEx(c.Args[1], fields, e)
	if !c.OK(err) {
		return
	}
	c.Chosen = nil
	switch {
	case deleted:
		c.Chosen = []string{"hdel"}
	case set:
		c.Chosen = []string{"hexpire"}
	case persisted:
		c.Chosen = []string{"hpersist"}
	}
	bulkArray(c, values)
}

// HSETEX key [FNX | FXX] [EX seconds | PX milliseconds | EXAT
// unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL] FIELDS
// numfields field value [field value ...]
func cmdHSetEx(c *executor.Ctx) {
	var e storage.FieldExpiry
	var fnx, fxx, expiry bool
	i := 2
	for ; i < len(c.Args) && !c.Is(i, "fields"); i++ {
		word := strings.ToLower(string(c.Args[i]))
		switch {
		case word == "fnx" || word == "fxx":
			if fnx || fxx {
				fieldTTLError(c, "ERR Only one of FXX or FNX arguments can be specified")
				return
			}
			fnx, fxx = word == "fnx", word == "fxx"
			continue
		case word == "keepttl" || isOneOf(c.Args[i], "ex", "px", "exat", "pxat"):
			if expiry {
				fieldTTLError(c, "ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified")
				return
			}
			expiry = true
		default:
			fieldTTLError(c, "ERR unknown argument")
			return
		}
		if word == "keepttl" {
			e.KeepTTL = true
			continue
		}
		var ok bool
		if e, _, ok = fieldExpiryOption(c, i); !ok {
			return
		}
		i++
	}
	if i >= len(c.Args) {
		fieldTTLError(c, errFieldsMissing)
		return
	}
	pairs, ok := hsetexPairs(c, i)
	if !ok {
		return
	}
	deleted, err := c.DB.HSetEx(c.Args[1], pairs, fnx, fxx, e)
	if errors.Is(err, storage.ErrFieldCondition) {
		c.Chosen = nil
		c.W.Int(0)
		return
	}
	if !c.OK(err) {
		return
	}
	c.Chosen = []string{"hset"}
	switch {
	case deleted:
		c.Chosen = append(c.Chosen, "hdel")
	case e.Set:
		c.Chosen = append(c.Chosen, "hexpire")
	}
	c.W.Int(1)
}

// hsetexPairs reads HSETEX's FIELDS numfields field value ... block at
// argument i, which is FIELDS.
func hsetexPairs(c *executor.Ctx, i int) ([][]byte, bool) {
	if i+1 >= len(c.Args) {
		return nil, fieldTTLError(c, "ERR invalid number of fields")
	}
	n, ok := num.ParseInt(c.Args[i+1])
	if !ok || n < 1 {
		return nil, fieldTTLError(c, "ERR invalid number of fields")
	}
	pairs := c.Args[i+2:]
	if int64(len(pairs)) != 2*n {
		return nil, fieldTTLError(c, "ERR wrong number of arguments for 'hsetex' command")
	}
	return pairs, true
}

// HGETDEL key FIELDS numfields field [field ...]
func cmdHGetDel(c *executor.Ctx) {
	fields, ok := fieldsBlock(c, 2, errNumFields)
	if !ok {
		return
	}
	values, deleted, err := c.DB.HGetDel(c.Args[1], fields)
	if !c.OK(err) {
		return
	}
	c.Chosen = nil
	if deleted {
		c.Chosen = []string{"hdel"}
	}
	bulkArray(c, values)
}

// HSETEXPIRE key seconds field value [field value ...], Kvrocks's: HSET of
// the pairs (their field TTLs removed) and the key's TTL set to seconds
// from now.
func cmdHSetExpire(c *executor.Ctx) {
	if len(c.Args)%2 != 1 {
		c.ErrorString("ERR Invalid number of arguments: field-value pairs must be complete")
		return
	}
	seconds, ok := c.Int(2)
	if !ok {
		return
	}
	if seconds > (1<<63-1)/1000-time.Now().UnixMilli()/1000 || seconds < -(1<<62)/1000 {
		c.ErrorString("ERR out of numeric range")
		return
	}
	if _, err := c.DB.HSet(c.Args[1], c.Args[3:], false); !c.OK(err) {
		return
	}
	_, err := c.DB.Expire(c.Args[1], time.Now().UnixMilli()+seconds*1000, storage.ExpireCond{})
	if c.OK(err) {
		c.W.OK()
	}
}

// count returns how many of replies are r.
func count(replies []int64, r int64) int {
	n := 0
	for _, x := range replies {
		if x == r {
			n++
		}
	}
	return n
}

func intArray(c *executor.Ctx, xs []int64) {
	c.W.Array(len(xs))
	for _, x := range xs {
		c.W.Int(x)
	}
}

func bulkArray(c *executor.Ctx, values [][]byte) {
	c.W.Array(len(values))
	for _, v := range values {
		c.BulkOrNull(v, v != nil)
	}
}

// isOneOf reports whether arg is one of words, ignoring case.
func isOneOf(arg []byte, words ...string) bool {
	for _, w := range words {
		if strings.EqualFold(string(arg), w) {
			return true
		}
	}
	return false
}
