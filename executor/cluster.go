package executor

import (
	"path/filepath"
	"strconv"
	"time"

	"github.com/basaltdb/basalt/cluster"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/session"
	"github.com/basaltdb/basalt/storage"
)

// SlotRange is the storage range of a cluster slot range.
func SlotRange(r cluster.Range) storage.SlotRange {
	return storage.SlotRange{From: uint16(r.From), To: uint16(r.To)}
}

// StopMigration ends the slot migration running from this node, if any,
// as Kvrocks does before FLUSHDB and FLUSHALL: the job fails at once
// rather than copy keys that are being deleted.
func (e *Env) StopMigration() {
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

// MigrateOptions reads the migrate-* settings for a new job.
func (e *Env) MigrateOptions() cluster.MigrateOptions {
	cfg := e.Config
	return cluster.MigrateOptions{
		RawKeyValue:         cfg.MigrateType.Get() == "raw-key-value",
		Password:            cfg.RequirePass.Get(),
		KeysPerSecond:       int(cfg.MigrateSpeed.Get()),
		BatchBytesPerSecond: int(cfg.MigrateBatchRateLimitMB.Get()) << 20,
		PipelineSize:        int(cfg.MigratePipelineSize.Get()),
		SequenceGap:         uint64(cfg.MigrateSequenceGap.Get()),
		BatchBytes:          int(cfg.MigrateBatchSizeKB.Get()) << 10,
		RawKnobs: func() (int, int) {
			return int(cfg.MigrateBatchSizeKB.Get()) << 10, int(cfg.MigrateBatchRateLimitMB.Get()) << 20
		},
		Timeout: 10 * time.Second,
		Stop:    e.stop,
	}
}

// countSlotUsage adds a command that started at start, when the reply
// writer had written out bytes, to its slot's CLUSTER SLOT-STATS: its run
// time, its request's bytes (as a RESP array) and its reply's. A command
// with no key has no slot (Route refused one whose keys span slots); one
// that blocked is counted when it runs again.
func (e *Env) countSlotUsage(s *session.Session, cmd *Command, args [][]byte, start time.Time, out int64) {
	keys := cmd.KeysOf(args)
	if len(keys) == 0 || s.Blocked {
		return
	}
	in := int64(len(strconv.Itoa(len(args)))) + 3
	for _, a := range args {
		in += int64(len(strconv.Itoa(len(a)))+len(a)) + 5
	}
	e.Cluster.Usage.Add(int(metadata.HashSlot(keys[0])), time.Since(start).Microseconds(), in, written(s.W)-out)
}

// written returns how many bytes w wrote in all: 0 for a writer that does
// not count (a connection's counts).
func written(w session.Writer) int64 {
	if c, ok := w.(interface{ Written() int64 }); ok {
		return c.Written()
	}
	return 0
}
