package commands

import (
	"errors"
	"fmt"
	"time"

	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/rdb"
	"github.com/basaltdb/basalt/storage"
)

// DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]
//
// Closes RocksDB and opens it again, keeping every client connected; every
// write acknowledged before is there after (the options, which choose how
// Redis reloads its RDB file, change nothing here). Commands wait while
// it runs. It refuses on a replica, and while a replica's link or a slot
// migration reads the database.
func debugReload(c *executor.Ctx) {
	for _, a := range c.Args[2:] {
		switch {
		case equalFold(a, "merge"), equalFold(a, "noflush"), equalFold(a, "nosave"):
		default:
			c.ErrorString("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.")
			return
		}
	}
	// A replica's link applies its master's batches outside commands.
	if _, replica := c.Env.Repl.Replica(); replica {
		c.ErrorString("ERR DEBUG RELOAD: this node is a replica, whose link to its master writes outside commands; SLAVEOF NO ONE first")
		return
	}
	err := c.Env.Exclusively(c, func() error {
		c.Env.Background.Wait()
		return c.Env.Storage.Reopen()
	})
	switch {
	case errors.Is(err, storage.ErrInUse):
		c.ErrorString("ERR DEBUG RELOAD: " + err.Error() + "; retry once it ends")
	case c.OK(err):
		c.W.OK()
	}
}

// DEBUG OBJECT key
//
// Redis 7.0's line about the key's value: the encoding Redis would give it
// and the length of its serialization (DUMP's), a list's quicklist
// figures; no address, reference count or access time is kept.
func debugObject(c *executor.Ctx) {
	key := c.Args[2]
	t, err := c.DB.Type(key)
	if !c.OK(err) {
		return
	}
	if t == metadata.TypeNone {
		c.ErrorString("ERR no such key")
		return
	}
	enc, ok := encodingOf(c, t)
	if !ok {
		return
	}
	payload, found, err := dumpPayload(c, key)
	var length int
	switch {
	case errors.Is(err, storage.ErrNotDumpable):
		// A stream or a type Redis lacks: what its records take.
		n, _, err := c.DB.MemoryUsage(key, 0)
		if !c.OK(err) {
			return
		}
		length = int(n)
	case !c.OK(err):
		return
	case !found:
		c.ErrorString("ERR no such key")
		return
	default:
		length = len(payload) - 1 - 10 // the type byte and the footer
	}
	refcount := 1
	if v, isInt := num.ParseInt(payloadString(c, t, key)); isInt && enc == "int" && v >= 0 && v < 10000 {
		refcount = 2147483647 // Redis's shared integers
	}
	line := fmt.Sprintf("Value at:0x0 refcount:%d encoding:%s serializedlength:%d lru:%d lru_seconds_idle:0",
		refcount, enc, length, time.Now().Unix()&(1<<24-1))
	if nodes, bytes, ok := rdb.QuicklistSizes(payload); ok && t == metadata.TypeList {
		n, err := c.DB.Len(key, t)
		if !c.OK(err) {
			return
		}
		compressed := 0
		if configInt(c, "list-compress-depth") != 0 {
			compressed = 1
		}
		line += fmt.Sprintf(" ql_nodes:%d ql_avg_node:%.2f ql_listpack_max:%d ql_compressed:%d ql_uncompressed_size:%d",
			nodes, float64(n)/float64(nodes), configInt(c, "list-max-listpack-size"), compressed, bytes)
	}
	c.W.Simple(line)
}

// payloadString returns a string key's value, nil for another type.
func payloadString(c *executor.Ctx, t metadata.Type, key []byte) []byte {
	if t != metadata.TypeString {
		return nil
	}
	v, _, _ := c.DB.Get(key)
	return v
}
