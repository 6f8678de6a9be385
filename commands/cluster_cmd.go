package commands

import (
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/basaltdb/basalt/cluster"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/metadata"
)

func init() {
	executor.Register(
		&executor.Command{Name: "cluster", Arity: -2, Flags: executor.Admin, Subcommands: clusterSubcommands, Handler: cmdCluster},
		&executor.Command{Name: "clusterx", Arity: -2, Flags: executor.Admin | executor.Exclusive | executor.KvrocksOnly, Subcommands: clusterXSubcommands, Handler: cmdClusterX,
			Meta: &executor.Meta{
				Doc: doc("summary", "Sets the cluster topology, migrates slots and deletes their keys, as the Kvrocks cluster controller asks (VERSION, MYID, SETNODEID, SETNODES, SETSLOT, MIGRATE, FLUSHSLOTS)",
					"group", "cluster", "complexity", "Depends on subcommand.",
					"arguments", docArgs(docString("subcommand"), optional(multiple(docString("arg"))))),
			}},
		&executor.Command{Name: "readonly", Arity: 1, Flags: executor.Fast, Handler: cmdReadOnly},
		&executor.Command{Name: "readwrite", Arity: 1, Flags: executor.Fast, Handler: cmdReadWrite},
		&executor.Command{Name: "asking", Arity: 1, Flags: executor.Fast, Handler: cmdAsking},
	)
}

const errClusterDisabled = "ERR Cluster mode is not enabled"

// clusterError writes err: routing and CLUSTERDOWN replies as they are,
// others after ERR.
func clusterError(c *executor.Ctx, err error) {
	var redirect cluster.Redirect
	switch {
	case errors.As(err, &redirect):
		c.ErrorString(redirect.Error())
	case errors.Is(err, cluster.ErrNotInitialized):
		c.ErrorString("CLUSTERDOWN " + err.Error())
	default:
		c.ErrorString("ERR " + err.Error())
	}
}

// CLUSTER INFO | NODES | SLOTS | SHARDS | KEYSLOT key | MYID |
// COUNTKEYSINSLOT slot | GETKEYSINSLOT slot count | REPLICAS node-id |
// RESET [HARD | SOFT] | IMPORT slot|a-b 0|1|2 | SLOT-STATS ...
func cmdCluster(c *executor.Ctx) {
	if c.Env.Cluster == nil {
		c.ErrorString(errClusterDisabled)
		return
	}
	executor.DispatchSubOr(c, "ERR CLUSTER command, CLUSTER INFO|NODES|SLOTS|SHARDS|KEYSLOT|MYID|COUNTKEYSINSLOT|GETKEYSINSLOT|REPLICAS|RESET|IMPORT|SLOT-STATS")
}

var clusterSubcommands = map[string]*executor.Subcommand{
	"info":   {Arity: 2, Handler: func(c *executor.Ctx) { text, err := c.Env.Cluster.Info(); clusterText(c, text, err) }},
	"nodes":  {Arity: 2, Handler: func(c *executor.Ctx) { text, err := c.Env.Cluster.NodesText(); clusterText(c, text, err) }},
	"slots":  {Arity: 2, Handler: clusterSlots},
	"shards": {Arity: 2, Handler: clusterShards},
	"keyslot": {Arity: 3, Handler: func(c *executor.Ctx) {
		c.W.Int(int64(metadata.HashSlot(c.Args[2])))
	}},
	"myid":            {Arity: 2, Handler: func(c *executor.Ctx) { c.W.BulkString(c.Env.Cluster.MyID()) }},
	"countkeysinslot": {Arity: 3, Handler: clusterCountKeysInSlot},
	"getkeysinslot":   {Arity: 4, Handler: clusterGetKeysInSlot},
	"replicas":        {Arity: 3, Handler: clusterReplicas},
	"reset":           {Arity: -2, Handler: clusterReset},
	// Kvrocks's, which a migrating node sends.
	"import": {Arity: -2, Handler: clusterImport},
}

// CLUSTER COUNTKEYSINSLOT slot
func clusterCountKeysInSlot(c *executor.Ctx) {
	if slot, ok := parseSlot(c, c.Args[2]); ok {
		_, n, err := c.DB.KeysInSlot(slot, 0)
		if c.OK(err) {
			c.W.Int(n)
		}
	}
}

// CLUSTER GETKEYSINSLOT slot count
func clusterGetKeysInSlot(c *executor.Ctx) {
	slot, ok := parseSlot(c, c.Args[2])
	count, isInt := c.Int(3)
	if !ok || !isInt {
		return
	}
	if count < 0 {
		c.ErrorString("ERR Invalid number of keys")
		return
	}
	keys, _, err := c.DB.KeysInSlot(slot, count)
	if c.OK(err) {
		c.W.Array(len(keys))
		for _, k := range keys {
			c.W.Bulk(k)
		}
	}
}

// CLUSTER REPLICAS node-id
func clusterReplicas(c *executor.Ctx) {
	text, err := c.Env.Cluster.Replicas(string(c.Args[2]))
	if err != nil {
		clusterError(c, err)
		return
	}
	c.W.BulkString(text)
}

// CLUSTER RESET [HARD | SOFT]
func clusterReset(c *executor.Ctx) {
	if len(c.Args) > 3 || (len(c.Args) == 3 && !c.Is(2, "hard") && !c.Is(2, "soft")) {
		c.ErrorString("ERR syntax error")
		return
	}
	cl := c.Env.Cluster
	if err := cl.Busy(); err != nil {
		clusterError(c, err)
		return
	}
	st, err := c.DB.Stats()
	if !c.OK(err) {
		return
	}
	if st.Keys > 0 {
		c.ErrorString("ERR Can't reset cluster while database is not empty")
		return
	}
	if !c.OK(cl.Reset()) {
		return
	}
	// As Kvrocks, a slave reset is a master: it stops replicating.
	c.Env.Repl.RemoveMaster()
	c.W.OK()
}

// clusterText replies with a text reply (CLUSTER INFO, NODES) or its error.
func clusterText(c *executor.Ctx, text string, err error) {
	if err != nil {
		clusterError(c, err)
		return
	}
	c.W.Verbatim(text)
}

func parseSlot(c *executor.Ctx, arg []byte) (uint16, bool) {
	n, err := strconv.Atoi(string(arg))
	if err != nil || n < 0 || n >= cluster.SlotCount {
		c.ErrorString("ERR Invalid slot")
		return 0, false
	}
	return uint16(n), true
}

// clusterSlots writes CLUSTER SLOTS: [start, end, [host, port, id], replicas...].
func clusterSlots(c *executor.Ctx) {
	groups, err := c.Env.Cluster.Slots()
	if err != nil {
		clusterError(c, err)
		return
	}
	c.W.Array(len(groups))
	for _, g := range groups {
		c.W.Array(3 + len(g.Slaves))
		c.W.Int(int64(g.Range.From))
		c.W.Int(int64(g.Range.To))
		for _, n := range append([]*cluster.Node{g.Master}, g.Slaves...) {
			c.W.Array(3)
			c.W.BulkString(n.Host)
			c.W.Int(int64(n.Port))
			c.W.BulkString(n.ID)
		}
	}
}

// clusterShards writes CLUSTER SHARDS: per master, its slots and nodes.
func clusterShards(c *executor.Ctx) {
	t, _ := c.Env.Cluster.Snapshot()
	if t == nil {
		clusterError(c, cluster.ErrNotInitialized)
		return
	}
	var masters []*cluster.Node
	for _, n := range t.Nodes {
		if n.Role == cluster.Master {
			masters = append(masters, n)
		}
	}
	c.W.Array(len(masters))
	for _, m := range masters {
		c.W.Map(2)
		c.W.BulkString("slots")
		c.W.Array(2 * len(m.Slots))
		for _, r := range m.Slots {
			c.W.Int(int64(r.From))
			c.W.Int(int64(r.To))
		}
		c.W.BulkString("nodes")
		var members []*cluster.Node
		for _, n := range t.Nodes {
			if n == m || (n.Role == cluster.Slave && n.MasterID == m.ID) {
				members = append(members, n)
			}
		}
		c.W.Array(len(members))
		for _, n := range members {
			c.W.Map(5)
			c.W.BulkString("id")
			c.W.BulkString(n.ID)
			c.W.BulkString("ip")
			c.W.BulkString(n.Host)
			c.W.BulkString("port")
			c.W.Int(int64(n.Port))
			c.W.BulkString("role")
			c.W.BulkString(n.Role)
			c.W.BulkString("health")
			c.W.BulkString(map[bool]string{false: "online", true: "failed"}[n.Fail])
		}
	}
}

// CLUSTERX VERSION | MYID | SETNODEID id | SETNODES "nodes" version [FORCE] |
// SETSLOT slots NODE id version | MIGRATE slots dst-id [ASYNC | SYNC [timeout]]
//
// slots is a slot, a range a-b, or several of them separated by blanks in
// one argument. Errors are worded as Kvrocks words them.
func cmdClusterX(c *executor.Ctx) {
	if c.Env.Cluster == nil {
		c.ErrorString(errClusterDisabled)
		return
	}
	executor.DispatchSubOr(c, errClusterXUsage)
}

const errClusterXUsage = "ERR CLUSTERX command, CLUSTERX VERSION|MYID|SETNODEID|SETNODES|SETSLOT|MIGRATE"

var clusterXSubcommands = map[string]*executor.Subcommand{
	"version": {Arity: 2, Handler: func(c *executor.Ctx) {
		c.W.BulkString(strconv.FormatInt(c.Env.Cluster.Version(), 10))
	}},
	"myid":       {Arity: 2, Handler: func(c *executor.Ctx) { c.W.BulkString(c.Env.Cluster.MyID()) }},
	"setnodeid":  {Arity: 3, Handler: clusterXSetNodeID},
	"setnodes":   {Arity: -4, Handler: clusterXSetNodes},
	"setslot":    {Arity: 6, Handler: clusterXSetSlot},
	"migrate":    {Arity: -2, Handler: clusterMigrate},
	"flushslots": {Arity: -3, Handler: clusterXFlushSlots},
}

// CLUSTERX FLUSHSLOTS range [range ...]
//
// Deletes every key in the slots of each range (a-b, or a slot), refused
// on a replica and while slots migrate from or to this node.
func clusterXFlushSlots(c *executor.Ctx) {
	var all []cluster.Range
	for _, arg := range c.Args[2:] {
		ranges, ok := parseSlotRanges(c, arg)
		if !ok {
			return
		}
		all = append(all, ranges...)
	}
	if c.Env.Repl.IsReplica() {
		// A replica's data is its master's: the flush replicates.
		c.ErrorString(executor.ErrReadOnlyReplica)
		return
	}
	if err := c.Env.Cluster.FlushBusy(); err != nil {
		clusterError(c, err)
		return
	}
	for _, r := range all {
		if !c.OK(c.Env.Storage.DeleteSlots(executor.SlotRange(r))) {
			return
		}
	}
	c.Flushed(false)
	c.W.OK()
}

// CLUSTERX SETNODEID id
func clusterXSetNodeID(c *executor.Ctx) {
	if len(c.Args[2]) != 40 {
		c.ErrorString(errClusterXUsage)
		return
	}
	err := c.Env.Cluster.SetNodeID(string(c.Args[2]))
	if err == nil {
		c.Env.FollowTopology()
	}
	clusterOK(c, err)
}

// CLUSTERX SETNODES "nodes" version [FORCE]
func clusterXSetNodes(c *executor.Ctx) {
	version, err := cluster.ParseInt(string(c.Args[3]), math.MinInt64, math.MaxInt64)
	switch {
	case err != nil:
		c.ErrorString("ERR Invalid version")
	case len(c.Args) > 5 || (len(c.Args) == 5 && !c.Is(4, "force")):
		c.ErrorString("ERR Invalid setnodes options")
	default:
		gone, err := c.Env.Cluster.SetNodes(string(c.Args[2]), version, len(c.Args) == 5)
		if err == nil {
			c.Env.FollowTopology()
		}
		dropMigrated(c, gone, err)
	}
}

// CLUSTERX SETSLOT slots NODE id version
func clusterXSetSlot(c *executor.Ctx) {
	n := len(c.Args)
	ranges, ok := parseSlotRanges(c, c.Args[2])
	if !ok {
		return
	}
	if !c.Is(n-3, "node") {
		c.ErrorString("ERR Invalid setslot options")
		return
	}
	if len(c.Args[n-2]) != 40 {
		c.ErrorString("ERR Invalid node id")
		return
	}
	version, err := cluster.ParseInt(string(c.Args[n-1]), math.MinInt64, math.MaxInt64)
	switch {
	case err != nil:
		c.ErrorString("ERR value is not an integer or out of range")
	case version < 0:
		c.ErrorString("ERR Invalid version")
	default:
		gone, err := c.Env.Cluster.SetSlots(ranges, string(c.Args[n-2]), version)
		dropMigrated(c, gone, err)
	}
}

// parseSlotRanges parses slots as Kvrocks does (cluster.ParseSlotRanges)
// and replies the error itself.
func parseSlotRanges(c *executor.Ctx, arg []byte) ([]cluster.Range, bool) {
	ranges, err := cluster.ParseSlotRanges(string(arg))
	if err != nil {
		c.ErrorString("ERR " + err.Error())
		return nil, false
	}
	return ranges, true
}

// kvrocksInt parses a base-10 integer in [min, max] as Kvrocks's ParseInt
// does (cluster.ParseInt); it returns Kvrocks's error text, or "".
func kvrocksInt(s string, min, max int64) (int64, string) {
	n, err := cluster.ParseInt(s, min, max)
	if err != nil {
		return 0, err.Error()
	}
	return n, ""
}

// dropMigrated deletes the data of the slots a new topology confirms this
// node migrated away, then replies.
func dropMigrated(c *executor.Ctx, gone []cluster.Range, err error) {
	for _, r := range gone {
		if err == nil {
			err = c.Env.Storage.DeleteSlots(executor.SlotRange(r))
		}
	}
	clusterOK(c, err)
}

// CLUSTERX MIGRATE slot|a-b dst-id [ASYNC | SYNC [timeout]]
//
// It starts a migration: ASYNC replies at once, SYNC when the job ends or timeout
// seconds pass (0 or none: no limit).
func clusterMigrate(c *executor.Ctx) {
	if len(c.Args) < 4 || len(c.Args) > 6 {
		c.ErrorString("ERR wrong number of arguments")
		return
	}
	cl := c.Env.Cluster
	ranges, ok := parseSlotRanges(c, c.Args[2])
	if !ok {
		return
	}
	if len(ranges) != 1 {
		c.ErrorString("ERR Basalt migrates one slot range at a time")
		return
	}
	r := ranges[0]
	sync, timeout := false, time.Duration(0)
	switch {
	case len(c.Args) == 4:
	case c.Is(4, "async"):
		if len(c.Args) == 6 {
			c.ErrorString("ERR Async migration does not support timeout")
			return
		}
	case c.Is(4, "sync"):
		sync = true
		if len(c.Args) == 6 {
			secs, err := strconv.ParseInt(string(c.Args[5]), 10, 32)
			if err != nil {
				c.ErrorString("ERR timeout is not an integer or out of range")
				return
			}
			if secs < 0 {
				c.ErrorString("ERR timeout is negative")
				return
			}
			timeout = time.Duration(secs) * time.Second
		}
	default:
		c.ErrorString("ERR Invalid sync flag")
		return
	}
	if c.Env.Config.RocksDB.DisableWAL.Get() {
		// The writes made during the copy are read back from the WAL.
		c.ErrorString("ERR Can't migrate slots while rocksdb.write_options.disable_wal is on")
		return
	}
	job, err := cl.StartMigration(r, string(c.Args[3]))
	if err != nil {
		clusterError(c, err)
		return
	}
	done := make(chan error, 1)
	e := c.Env
	e.Background.Add(1)
	go func() {
		defer e.Background.Done()
		done <- cl.Migrate(e.Storage, job, e.MigrateOptions())
	}()
	if !sync {
		c.W.OK()
		return
	}
	var expired <-chan time.Time
	if timeout > 0 {
		expired = time.After(timeout)
	}
	select {
	case err := <-done:
		if err != nil {
			// As Kvrocks, the reason alone.
			c.ErrorString("ERR " + err.Error())
			return
		}
		c.W.OK()
	case <-expired:
		// As Kvrocks: a null reply, and the job goes on.
		c.W.Null()
	}
}

func clusterOK(c *executor.Ctx, err error) {
	if err != nil {
		clusterError(c, err)
		return
	}
	c.W.OK()
}

// READONLY
func cmdReadOnly(c *executor.Ctx) {
	c.Session.ReadOnly = true
	c.W.OK()
}

// READWRITE
func cmdReadWrite(c *executor.Ctx) {
	c.Session.ReadOnly = false
	c.W.OK()
}

// ASKING
//
// The next command may use the slots this node is importing.
func cmdAsking(c *executor.Ctx) {
	c.Session.Asking = true
	c.W.OK()
}
