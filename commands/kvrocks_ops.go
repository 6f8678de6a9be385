package commands

import (
	"math"
	"strconv"

	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/types/json"
)

// Operator commands of Kvrocks 2.12-2.17 (KVROCKS-TYPES.md §8).

func init() {
	executor.Register(
		&executor.Command{Name: "kmetadata", Arity: 2, Flags: executor.ReadOnly | executor.KvrocksOnly, FirstKey: 1, LastKey: 1, Handler: cmdKMetadata,
			Meta: &executor.Meta{
				KeySpecs: []executor.KeySpec{{Flags: []string{"RO"}, BeginSearch: "index", Index: 1, FindKeys: "range", LastKey: 0, KeyStep: 1}},
				Doc: doc("summary", "Returns the metadata record of a key: type, size, absolute expiry, flags, version and the type's own fields",
					"group", "generic", "complexity", "O(1)", "arguments", docArgs(docKey("key", 0))),
			}},
		// Admin only since Kvrocks 2.17: they act on the whole server.
		&executor.Command{Name: "flushmemtable", Arity: 1, Flags: executor.Admin | executor.KvrocksOnly, Handler: cmdFlushMemtable,
			Meta: &executor.Meta{
				Doc: doc("summary", "Writes RocksDB's memtables to SST files",
					"group", "server", "complexity", "O(N) where N is the size of the memtables"),
			}},
		&executor.Command{Name: "flushblockcache", Arity: 1, Flags: executor.Admin | executor.KvrocksOnly, Handler: cmdFlushBlockCache,
			Meta: &executor.Meta{
				Doc: doc("summary", "Drops the entries of RocksDB's block cache that no read holds",
					"group", "server", "complexity", "O(N) where N is the number of cached blocks"),
			}},
	)
}

// errKMetadataMissing is Kvrocks's reply for an absent key: its
// storage's NotFound status as an ERR (KVROCKS-TYPES.md §0.3).
const errKMetadataMissing = "ERR NotFound: "

// metaField is a number of KMETADATA's reply.
type metaField struct {
	name  string
	value uint64
}

// KMETADATA key
//
// A map of the key's metadata record as stored: type, size, ttl (the
// absolute expiry in Unix milliseconds, 0 for none), flags (the record's
// first byte), version; then a list's head and tail, a JSON document's
// storage format.
func cmdKMetadata(c *executor.Ctx) {
	o, err := c.DB.Lookup(c.Args[1])
	if !c.OK(err) {
		return
	}
	if o == nil {
		c.ErrorString(errKMetadataMissing)
		return
	}
	m := o.Meta()
	fields := []metaField{{"size", m.Size}, {"ttl", uint64(m.Expire)}, {"flags", uint64(m.Flags())}, {"version", m.Version}}
	if m.Type == metadata.TypeList {
		fields = append(fields, metaField{"head", m.Head}, metaField{"tail", m.Tail})
	}
	pairs := 1 + len(fields)
	if m.Type == metadata.TypeJSON {
		pairs++
	}
	c.W.Map(pairs)
	c.W.BulkString("type")
	c.W.BulkString(m.Type.String())
	for _, f := range fields {
		c.W.BulkString(f.name)
		writeUnsigned(c, f.value)
	}
	if m.Type == metadata.TypeJSON {
		format := json.FormatJSON
		if ext := o.Ext(); len(ext) > 0 {
			format = json.Format(ext[0])
		}
		c.W.BulkString("format")
		c.W.BulkString(format.String())
	}
}

// FLUSHMEMTABLE
func cmdFlushMemtable(c *executor.Ctx) {
	if c.OK(c.Env.Storage.FlushMemtables()) {
		c.W.OK()
	}
}

// FLUSHBLOCKCACHE
func cmdFlushBlockCache(c *executor.Ctx) {
	c.Env.Storage.DropBlockCache()
	c.W.OK()
}

// writeUnsigned writes n as an integer, or past int64 (a list's tail far
// to the right) as a big number, which RESP2 sends as a bulk string.
func writeUnsigned(c *executor.Ctx, n uint64) {
	if n > math.MaxInt64 {
		c.W.BigNum(strconv.FormatUint(n, 10))
		return
	}
	c.W.Int(int64(n))
}
