package commands

import (
	"errors"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/basaltdb/basalt/cluster"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
)

func init() {
	register(
		&Command{Name: "cluster", Arity: -2, Flags: Admin, Handler: cmdCluster},
		&Command{Name: "clusterx", Arity: -2, Flags: Admin | Exclusive | KvrocksOnly, Handler: cmdClusterX},
		&Command{Name: "readonly", Arity: 1, Flags: Fast, Handler: cmdReadOnly},
		&Command{Name: "readwrite", Arity: 1, Flags: Fast, Handler: cmdReadWrite},
		&Command{Name: "asking", Arity: 1, Flags: Fast, Handler: cmdAsking},
	)
}

const errClusterDisabled = "ERR Cluster mode is not enabled"

// clusterError writes err: routing and CLUSTERDOWN replies as they are,
// others after ERR.
func (c *Ctx) clusterError(err error) {
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
// RESET [HARD | SOFT] | IMPORT slot|a-b 0|1|2
func cmdCluster(c *Ctx) {
	cl, sub, ok := clusterSub(c)
	if !ok {
		return
	}
	switch {
	case sub == "info" && len(c.Args) == 2:
		c.clusterText(cl.Info())
	case sub == "nodes" && len(c.Args) == 2:
		c.clusterText(cl.NodesText())
	case sub == "slots" && len(c.Args) == 2:
		clusterSlots(c, cl)
	case sub == "shards" && len(c.Args) == 2:
		clusterShards(c, cl)
	case sub == "keyslot" && len(c.Args) == 3:
		c.W.Int(int64(metadata.HashSlot(c.Args[2])))
	case sub == "myid" && len(c.Args) == 2:
		c.W.BulkString(cl.MyID())
	case sub == "countkeysinslot" && len(c.Args) == 3:
		if slot, ok := parseSlot(c, c.Args[2]); ok {
			_, n, err := c.DB.KeysInSlot(slot, 0)
			if c.ok(err) {
				c.W.Int(n)
			}
		}
	case sub == "getkeysinslot" && len(c.Args) == 4:
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
		if c.ok(err) {
			c.W.Array(len(keys))
			for _, k := range keys {
				c.W.Bulk(k)
			}
		}
	case sub == "replicas" && len(c.Args) == 3:
		text, err := cl.Replicas(string(c.Args[2]))
		if err != nil {
			c.clusterError(err)
			return
		}
		c.W.BulkString(text)
	case sub == "import" && len(c.Args) != 4:
		c.ErrorString("ERR wrong number of arguments")
	case sub == "import":
		clusterImport(c, cl)
	case sub == "reset" && len(c.Args) == 3 && !c.is(2, "hard") && !c.is(2, "soft"), sub == "reset" && len(c.Args) > 3:
		c.ErrorString("ERR syntax error")
	case sub == "reset":
		if err := cl.Busy(); err != nil {
			c.clusterError(err)
			return
		}
		st, err := c.DB.Stats()
		if !c.ok(err) {
			return
		}
		if st.Keys > 0 {
			c.ErrorString("ERR Can't reset cluster while database is not empty")
			return
		}
		if !c.ok(cl.Reset()) {
			return
		}
		// As Kvrocks, a slave reset is a master: it stops replicating.
		c.Env.Repl.RemoveMaster()
		c.W.OK()
	default:
		c.ErrorString("ERR CLUSTER command, CLUSTER INFO|NODES|SLOTS|SHARDS|KEYSLOT|MYID|COUNTKEYSINSLOT|GETKEYSINSLOT|REPLICAS|RESET|IMPORT")
	}
}

// clusterSub returns the node's cluster state and the lower-cased
// subcommand, or replies that cluster mode is off.
func clusterSub(c *Ctx) (*cluster.Cluster, string, bool) {
	if c.Env.Cluster == nil {
		c.ErrorString(errClusterDisabled)
		return nil, "", false
	}
	return c.Env.Cluster, strings.ToLower(string(c.Args[1])), true
}

// clusterText replies with a text reply (CLUSTER INFO, NODES) or its error.
func (c *Ctx) clusterText(text string, err error) {
	if err != nil {
		c.clusterError(err)
		return
	}
	c.W.Verbatim(text)
}

func parseSlot(c *Ctx, arg []byte) (uint16, bool) {
	n, err := strconv.Atoi(string(arg))
	if err != nil || n < 0 || n >= cluster.SlotCount {
		c.ErrorString("ERR Invalid slot")
		return 0, false
	}
	return uint16(n), true
}

// clusterSlots writes CLUSTER SLOTS: [start, end, [host, port, id], replicas...].
func clusterSlots(c *Ctx, cl *cluster.Cluster) {
	groups, err := cl.Slots()
	if err != nil {
		c.clusterError(err)
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
func clusterShards(c *Ctx, cl *cluster.Cluster) {
	t, _ := cl.Snapshot()
	if t == nil {
		c.clusterError(cluster.ErrNotInitialized)
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
			c.W.BulkString("online")
		}
	}
}

// CLUSTERX VERSION | MYID | SETNODEID id | SETNODES "nodes" version [FORCE] |
// SETSLOT slots NODE id version | MIGRATE slots dst-id [ASYNC | SYNC [timeout]]
//
// slots is a slot, a range a-b, or several of them separated by blanks in
// one argument. Errors are worded as Kvrocks words them.
func cmdClusterX(c *Ctx) {
	cl, sub, ok := clusterSub(c)
	if !ok {
		return
	}
	switch {
	case sub == "version" && len(c.Args) == 2:
		c.W.BulkString(strconv.FormatInt(cl.Version(), 10))
	case sub == "myid" && len(c.Args) == 2:
		c.W.BulkString(cl.MyID())
	case sub == "setnodeid" && len(c.Args) == 3 && len(c.Args[2]) == 40:
		err := cl.SetNodeID(string(c.Args[2]))
		if err == nil {
			c.Env.FollowTopology()
		}
		c.clusterOK(err)
	case sub == "setnodes" && len(c.Args) >= 4:
		version, err := cluster.ParseInt(string(c.Args[3]), math.MinInt64, math.MaxInt64)
		switch {
		case err != nil:
			c.ErrorString("ERR Invalid version")
		case len(c.Args) > 5 || (len(c.Args) == 5 && !c.is(4, "force")):
			c.ErrorString("ERR Invalid setnodes options")
		default:
			gone, err := cl.SetNodes(string(c.Args[2]), version, len(c.Args) == 5)
			if err == nil {
				c.Env.FollowTopology()
			}
			c.dropMigrated(gone, err)
		}
	case sub == "setslot" && len(c.Args) == 6:
		n := len(c.Args)
		ranges, ok := parseSlotRanges(c, c.Args[2])
		if !ok {
			return
		}
		if !c.is(n-3, "node") {
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
			c.dropMigrated(cl.SetSlots(ranges, string(c.Args[n-2]), version))
		}
	case sub == "migrate" && (len(c.Args) < 4 || len(c.Args) > 6):
		c.ErrorString("ERR wrong number of arguments")
	case sub == "migrate":
		clusterMigrate(c, cl)
	default:
		c.ErrorString("ERR CLUSTERX command, CLUSTERX VERSION|MYID|SETNODEID|SETNODES|SETSLOT|MIGRATE")
	}
}

// parseSlotRanges parses slots as Kvrocks does (cluster.ParseSlotRanges)
// and replies the error itself.
func parseSlotRanges(c *Ctx, arg []byte) ([]cluster.Range, bool) {
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
func (c *Ctx) dropMigrated(gone []cluster.Range, err error) {
	for _, r := range gone {
		if err == nil {
			err = c.Env.Storage.DeleteSlots(slotRange(r))
		}
	}
	c.clusterOK(err)
}

func slotRange(r cluster.Range) storage.SlotRange {
	return storage.SlotRange{From: uint16(r.From), To: uint16(r.To)}
}

// clusterMigrate starts CLUSTERX MIGRATE slot|a-b dst-id [ASYNC | SYNC
// [timeout]]: ASYNC replies at once, SYNC when the job ends or timeout
// seconds pass (0 or none: no limit).
func clusterMigrate(c *Ctx, cl *cluster.Cluster) {
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
	case c.is(4, "async"):
		if len(c.Args) == 6 {
			c.ErrorString("ERR Async migration does not support timeout")
			return
		}
	case c.is(4, "sync"):
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
		c.clusterError(err)
		return
	}
	done := make(chan error, 1)
	e := c.Env
	e.background.Add(1)
	go func() {
		defer e.background.Done()
		done <- cl.Migrate(e.Storage, job, e.migrateOptions())
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

// stopMigration ends the slot migration running from this node, if any,
// as Kvrocks does before FLUSHDB and FLUSHALL: the job fails at once
// rather than copy keys that are being deleted.
func (e *Env) stopMigration() {
	if e.Cluster != nil {
		e.Cluster.StopMigration()
	}
}

// watchClusterPersist applies CONFIG SET persist-cluster-nodes-enabled in
// cluster mode as Kvrocks does: yes writes <dir>/nodes.conf at once, no
// removes it.
func (e *Env) watchClusterPersist() {
	e.Config.Hook("persist-cluster-nodes-enabled", func() error {
		if e.Cluster == nil {
			return nil
		}
		return e.Cluster.SetPersist(e.Config.PersistClusterNodes.Get(), filepath.Join(e.Config.Dir.Get(), "nodes.conf"))
	})
}

// FollowTopology makes replication follow this node's role in the
// cluster topology, as Kvrocks's SetMasterSlaveRepl: a master stops
// replicating (a no-op when it is not), a slave replicates from its
// master (a no-op when it already does), and a slave whose master the
// topology does not name keeps the replication it had. A node that starts
// to replicate releases its blocked clients, as REPLICAOF does (Redis's
// cluster does the same; Kvrocks leaves them waiting). The server calls
// it at start, for the topology of nodes.conf, and SETNODES and
// SETNODEID after each change.
func (e *Env) FollowTopology() {
	if e.Cluster == nil {
		return
	}
	topo, self := e.Cluster.Snapshot()
	if topo == nil || self == nil {
		return
	}
	if self.Role == cluster.Master {
		e.Repl.RemoveMaster()
		return
	}
	if master := topo.Node(self.MasterID); master != nil && e.Repl.AddMaster(master.Host, master.Port, false) {
		e.Sessions.Blocking.Demoted()
	}
}

// migrateOptions reads the migrate-* settings for a new job.
func (e *Env) migrateOptions() cluster.MigrateOptions {
	cfg := e.Config
	return cluster.MigrateOptions{
		RawKeyValue:         cfg.MigrateType.Get() == "raw-key-value",
		Password:            cfg.RequirePass.Get(),
		KeysPerSecond:       int(cfg.MigrateSpeed.Get()),
		BatchBytesPerSecond: int(cfg.MigrateBatchRateLimitMB.Get()) << 20,
		PipelineSize:        int(cfg.MigratePipelineSize.Get()),
		SequenceGap:         uint64(cfg.MigrateSequenceGap.Get()),
		BatchBytes:          int(cfg.MigrateBatchSizeKB.Get()) << 10,
		Timeout:             10 * time.Second,
		Stop:                e.stop,
	}
}

func (c *Ctx) clusterOK(err error) {
	if err != nil {
		c.clusterError(err)
		return
	}
	c.W.OK()
}

// READONLY
func cmdReadOnly(c *Ctx) {
	c.Session.ReadOnly = true
	c.W.OK()
}

// READWRITE
func cmdReadWrite(c *Ctx) {
	c.Session.ReadOnly = false
	c.W.OK()
}

// ASKING
//
// The next command may use the slots this node is importing.
func cmdAsking(c *Ctx) {
	c.Session.Asking = true
	c.W.OK()
}
