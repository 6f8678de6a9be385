package commands

import (
	"math"
	"time"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/rdb"
	"github.com/basaltdb/basalt/storage"
)

func init() {
	executor.Register(
		&executor.Command{Name: "dump", Arity: 2, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdDump},
		&executor.Command{Name: "restore", Arity: -4, Flags: executor.Write, FirstKey: 1, LastKey: 1, Handler: cmdRestore,
			Events: &executor.KeyEvents{Class: config.NotifyGeneric, Event: "restore", Shape: executor.OnReplace}},
	)
}

// rdbKinds pairs Basalt's types with Redis's; a HyperLogLog is a string
// to Redis.
var rdbKinds = []struct {
	t metadata.Type
	k rdb.Kind
}{
	{metadata.TypeString, rdb.String},
	{metadata.TypeList, rdb.List},
	{metadata.TypeSet, rdb.Set},
	{metadata.TypeHash, rdb.Hash},
	{metadata.TypeZSet, rdb.ZSet},
	{metadata.TypeStream, rdb.Stream},
}

// DUMP key
func cmdDump(c *executor.Ctx) {
	payload, found, err := dumpPayload(c, c.Args[1])
	if c.OK(err) {
		c.BulkOrNull(payload, found)
	}
}

// dumpPayload returns DUMP's payload of key; found is false when key
// does not exist.
func dumpPayload(c *executor.Ctx, key []byte) (payload []byte, found bool, err error) {
	v, found, err := c.DB.ReadValue(key)
	if err != nil || !found {
		return nil, found, err
	}
	out := &rdb.Value{Str: v.Str, Elems: v.Elems, FieldExpires: v.FieldExpires, Scores: v.Scores, Entries: v.Entries, Stream: v.Stream}
	for _, p := range rdbKinds {
		if p.t == v.Type {
			out.Kind = p.k
		}
	}
	if v.Type == metadata.TypeHyperLogLog {
		out.Kind, out.Str = rdb.String, rdb.HLLString(v.Str)
	}
	return rdb.Encode(out, rdbLimits(c)), true, nil
}

// rdbLimits are the encoding thresholds of Redis's config keys, which
// choose the encodings a DUMP writes, as they choose Redis's.
func rdbLimits(c *executor.Ctx) rdb.Limits {
	return rdb.Limits{
		HashMaxListpackEntries: configInt(c, "hash-max-listpack-entries"),
		HashMaxListpackValue:   configInt(c, "hash-max-listpack-value"),
		ZSetMaxListpackEntries: configInt(c, "zset-max-listpack-entries"),
		ZSetMaxListpackValue:   configInt(c, "zset-max-listpack-value"),
		SetMaxIntsetEntries:    configInt(c, "set-max-intset-entries"),
		ListMaxListpackSize:    configInt(c, "list-max-listpack-size"),
		StreamNodeMaxBytes:     configInt(c, "stream-node-max-bytes"),
		StreamNodeMaxEntries:   configInt(c, "stream-node-max-entries"),
	}
}

// RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]
//
// Checked in Redis's order: the options, the key's absence (unless
// REPLACE), the TTL, the payload's version and checksum, its value.
// IDLETIME sets the key's idle time (OBJECT IDLETIME); FREQ is checked and
// dropped: Basalt keeps no access frequencies.
// A hash's field TTLs (Redis 7.4's payloads) are kept; the fields whose
// time has come are dropped, and a hash left without fields is an
// expired key.
func cmdRestore(c *executor.Ctx) {
	replace, absTTL := false, false
	idle, freq := int64(-1), int64(-1)
	for i := 4; i < len(c.Args); i++ {
		more := i+1 < len(c.Args)
		switch {
		case c.Is(i, "replace"):
			replace = true
		case c.Is(i, "absttl"):
			absTTL = true
		case c.Is(i, "idletime") && more && freq == -1:
			var ok bool
			if idle, ok = c.Int(i + 1); !ok {
				return
			}
			if idle < 0 {
				c.ErrorString("ERR Invalid IDLETIME value, must be >= 0")
				return
			}
			i++
		case c.Is(i, "freq") && more && idle == -1:
			var ok bool
			if freq, ok = c.Int(i + 1); !ok {
				return
			}
			if freq < 0 || freq > 255 {
				c.ErrorString("ERR Invalid FREQ value, must be >= 0 and <= 255")
				return
			}
			i++
		default:
			c.ErrorString(executor.ErrSyntax)
			return
		}
	}
	key := c.Args[1]
	if !replace {
		n, err := c.DB.Exists([][]byte{key})
		if !c.OK(err) {
			return
		}
		if n > 0 {
			c.ErrorString("BUSYKEY Target key name already exists.")
			return
		}
	}
	ttl, ok := c.Int(2)
	if !ok {
		return
	}
	if ttl < 0 {
		c.ErrorString("ERR Invalid TTL value, must be >= 0")
		return
	}
	in, err := rdb.Decode(c.Args[3])
	if !c.OK(err) {
		return
	}
	now := time.Now().UnixMilli()
	if ttl != 0 && !absTTL {
		if ttl > math.MaxInt64-now {
			// Redis adds without a check: the sum wraps below now.
			ttl = -1
		} else {
			ttl += now
		}
	}
	expired := ttl != 0 && ttl <= now
	if in.DropExpiredFields(now) > 0 && len(in.Elems) == 0 {
		expired = true
	}
	if expired {
		// Already expired: as in Redis, the key is gone (REPLACE deleted
		// it) and the reply is OK.
		if replace {
			if _, err := c.DB.Del([][]byte{key}); !c.OK(err) {
				return
			}
		}
		c.W.OK()
		return
	}
	v := &storage.Value{Str: in.Str, Elems: in.Elems, FieldExpires: in.FieldExpires, Scores: in.Scores, Entries: in.Entries, Stream: in.Stream}
	for _, p := range rdbKinds {
		if p.k == in.Kind {
			v.Type = p.t
		}
	}
	// Redis's HyperLogLogs are strings; Basalt's have a type of their own,
	// which PFCOUNT and PFADD need.
	if regs, isHLL := rdb.ParseHLL(in.Str); in.Kind == rdb.String && isHLL {
		v.Type, v.Str = metadata.TypeHyperLogLog, regs
	}
	if !c.OK(c.DB.PutValue(key, v, ttl)) {
		return
	}
	if idle >= 0 {
		c.Env.Access.SetIdle(c.Session.Namespace, key, idle)
	}
	c.W.OK()
}
