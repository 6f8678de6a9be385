package executor

import (
	"log/slog"
	"strconv"
	"time"

	"github.com/basaltdb/basalt/namespace"
	"github.com/basaltdb/basalt/replication"
	"github.com/basaltdb/basalt/scripting"
	"github.com/basaltdb/basalt/storage"
)

// Kvrocks's refusals on a replica (REPLICATION.md §6.4); the READONLY text
// is Redis 7's, as the replication issue asks.
const (
	ErrReadOnlyReplica = "READONLY You can't write against a read only replica."
	errMasterDown      = "MASTERDOWN Link with MASTER is down and slave-serve-stale-data is set to 'no'."
	errLoading         = "LOADING kvrocks is restoring the db from backup"
)

// replicaRefusal returns the error that stops a command on a replica, or
// "": any command without the Loading flag while the database is emptied
// for a full sync, a write while slave-read-only is on, and anything but
// the StaleOK commands (INFO, SLAVEOF, REPLICAOF) while the link is down
// and slave-serve-stale-data is off.
func (e *Env) replicaRefusal(cmd *Command, writes bool) string {
	link, ok := e.Repl.Replica()
	switch {
	case !ok:
		return ""
	case link.Loading && cmd.Flags&Loading == 0:
		return errLoading
	case writes && e.Config.SlaveReadOnly.Get():
		return ErrReadOnlyReplica
	case !e.Config.SlaveServeStaleData.Get() && !link.Up() && cmd.Flags&StaleOK == 0:
		return errMasterDown
	}
	return ""
}

// replicaApplying is called before this node, as a replica, applies a
// batch of its master's; what it returns follows the batch once applied:
// the clients waiting on the keys it changed learn of them (written.go),
// as the clients of a Redis replica do, and replicaApplied.
func (e *Env) replicaApplying(records []storage.WALRecord) func() {
	b := e.BatchApplying(records)
	return func() {
		e.BatchApplied(b, nil, nil)
		e.replicaApplied(records)
	}
}

// replicaApplied follows a batch this node applied as a replica, as a
// Kvrocks replica does: the messages published on the master reach the
// local subscribers (every message of the batch, where Kvrocks delivers
// only a last record's), scripts and functions the master changed
// (script.go), and a new set of namespace tokens (with
// repl-namespace-enabled, the master's NAMESPACE commands write them to
// the database) is loaded.
func (e *Env) replicaApplied(records []storage.WALRecord) {
	storage.PublishedMessages(records, func(ns string, channel, message []byte) {
		e.Sessions.Publish(ns, string(channel), message, false)
	})
	e.scriptsReplicated(records)
	if !e.Config.ReplNamespaceEnabled.Get() {
		return
	}
	for _, r := range records {
		if (r.Kind == storage.RecordPut || r.Kind == storage.RecordDelete) && r.CF == storage.CFPropagate && string(r.Key) == namespace.DBKey {
			if err := e.Namespaces.Reload(); err != nil {
				slog.Warn("replication: reloading the namespace tokens", "err", err)
			}
			return
		}
	}
}

// PublishToReplicas writes a message published on a master for its
// replicas (storage.Publish), whether or not one is attached, as Kvrocks
// does. A replica writes nothing: a write of its own would take a
// sequence number of its master's stream.
func (e *Env) PublishToReplicas(ns string, channel, message []byte) error {
	if e.Repl.IsReplica() {
		return nil
	}
	return e.Storage.Publish(ns, channel, message)
}

// replicaRestored follows a full sync: the scripts, the function
// libraries and (with repl-namespace-enabled) the namespace tokens are
// the master's now.
func (e *Env) replicaRestored() {
	e.Scripts.ForgetScripts(scripting.Scope{All: true})
	e.reloadLibraries()
	if err := e.Namespaces.Reload(); err != nil {
		slog.Warn("replication: reloading the namespace tokens after a full sync", "err", err)
	}
}

// quiesce runs fn while no command runs and no background walk reads the
// database: a replica's full sync swaps the database in it. It gives up,
// with replication.ErrStopped, when stop is closed first: the command
// that stops the replication (SLAVEOF) may hold the gate.
func (e *Env) quiesce(stop <-chan struct{}, fn func() error) error {
	locked := make(chan struct{})
	go func() {
		e.gate.Lock()
		close(locked)
	}()
	select {
	case <-locked:
	case <-stop:
		go func() {
			<-locked
			e.gate.Unlock()
		}()
		return replication.ErrStopped
	}
	defer e.gate.Unlock()
	e.Background.Wait()
	return fn()
}

// infoReplication writes INFO's replication section as Kvrocks does: on a
// replica the link to its master first.
func infoReplication(e *Env, ns string, b *infoBuilder) {
	seq := e.Storage.LatestSequence()
	if link, ok := e.Repl.Replica(); ok {
		b.field("role", "slave")
		b.field("master_host", link.Host)
		b.field("master_port", link.Port)
		b.field("master_link_status", map[bool]string{true: "up", false: "down"}[link.Up()])
		b.field("master_sync_unrecoverable_error", map[bool]string{true: "yes", false: "no"}[link.State == replication.StateError])
		syncing := 0
		if link.Syncing() {
			syncing = 1
		}
		b.field("master_sync_in_progress", syncing)
		// Before the first byte, Kvrocks counts from the epoch.
		ago := time.Now().Unix()
		if !link.LastIO.IsZero() {
			ago = int64(time.Since(link.LastIO).Seconds())
		}
		b.field("master_last_io_seconds_ago", ago)
		b.field("slave_repl_offset", seq)
		b.field("slave_priority", e.Config.SlavePriority.Get())
	} else {
		b.field("role", "master")
	}
	b.field("connected_slaves", e.Repl.Master.Connected())
	for i, r := range e.Repl.Master.Replicas() {
		lag := uint64(0)
		if seq > r.Offset {
			lag = seq - r.Offset
		}
		b.field("slave"+strconv.Itoa(i), "ip="+r.IP+",port="+strconv.Itoa(r.Port)+",offset="+strconv.FormatUint(r.Offset, 10)+",lag="+strconv.FormatUint(lag, 10))
	}
	b.field("master_repl_offset", seq)
}
