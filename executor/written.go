package executor

import (
	"log/slog"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/session"
	"github.com/basaltdb/basalt/storage"
)

// What the clients waiting on keys learn of a write: WATCH marks them
// changed, blocked clients are served, tracking clients get invalidations
// and keyspace notifications are published. A command's write tells them
// from the command (Wrote, notify.go); a batch of writes no command of
// this node made, a replica's batch of its master's or an imported slot's
// batch (APPLYBATCH), tells them from its records (batchApplying,
// batchApplied), through the same calls, as a Redis replica or
// migration destination running the commands would.

// keysWritten tells who waits on keys of namespace ns that a write
// changed them: WATCH and the tracking clients (keysChanged), and the
// clients blocked on them, which writer's goroutine serves once its
// command is done or, with no writer (a replicated batch), which run
// their command again on their own.
func (e *Env) keysWritten(ns string, keys [][]byte, writer *session.Session, inv *session.Invalidation) {
	e.keysChanged(ns, keys, inv)
	if writer != nil {
		e.Sessions.Blocking.Written(ns, keys, writer)
	} else {
		e.Sessions.Blocking.Retry(ns, keys)
	}
}

// keysChanged marks keys of namespace ns changed for WATCH (no keys:
// every key, as a flush) and invalidates them for the clients tracking
// them; inv collects the messages for a writing client (nil: none).
func (e *Env) keysChanged(ns string, keys [][]byte, inv *session.Invalidation) {
	e.Sessions.Watches.Touch(ns, keys)
	e.Sessions.Tracking.Invalidate(e.Sessions, ns, keys, inv)
}

// keyspaceFlushed tells the tracking clients that namespace ns (all:
// every namespace) was emptied, by a command (inv: its messages) or by a
// batch (inv nil), and makes the keys blocked clients wait on there ready
// (served by writer's goroutine, or run again with no writer).
func (e *Env) keyspaceFlushed(ns string, all bool, writer *session.Session, inv *session.Invalidation) {
	e.Sessions.Tracking.Flushed(e.Sessions, ns, all, inv)
	if n, ok := metadata.DatabaseOf(ns); ok && n > 0 && !all && e.Config.RedisDatabases.Get() > 0 {
		// SELECT leaves a connection the default namespace's: its
		// tracking clients hear of a database's FLUSHDB, as all of
		// Redis's do.
		e.Sessions.Tracking.Flushed(e.Sessions, metadata.DefaultNamespace, false, inv)
	}
	e.Sessions.Blocking.Flushed(ns, all, writer)
}

// AppliedBatch is a batch of writes no command of this node made, on its
// way to the clients waiting on its keys.
type AppliedBatch struct {
	changes *storage.BatchChanges
	// flags are the keyspace events to publish: when set, the keys'
	// states before the batch were read.
	flags config.NotifyClass
}

// BatchApplying returns, before a batch is applied, what its records
// change, or nil when nobody waits on keys: the replica's apply loop
// and the import are hot, and only then pay for the keys. With keyspace
// notifications on, it reads the keys' states before the batch (their
// metadata records, never a collection's elements).
func (e *Env) BatchApplying(records []storage.WALRecord) *AppliedBatch {
	if !e.Watching() {
		return nil
	}
	b := &AppliedBatch{changes: e.Storage.ChangesOf(records), flags: e.notifying()}
	if b.flags != 0 {
		if err := e.Storage.ReadBefore(b.changes); err != nil {
			slog.Error("keyspace notifications: read the keys before a batch", "err", err)
			b.flags = 0
		}
	}
	return b
}

// BatchApplied tells the clients waiting on the keys of b, once it is
// applied, as a command's write tells them: the events of each key
// first, then WATCH, the blocked clients (served by writer's goroutine,
// or running their command again when there is none) and the tracking
// clients (inv: the writer's messages). A range deletion of keys is a
// flush.
func (e *Env) BatchApplied(b *AppliedBatch, writer *session.Session, inv *session.Invalidation) {
	if b == nil {
		return
	}
	ch := b.changes
	for _, ns := range ch.Flushed {
		e.keysChanged(ns, nil, inv)
		e.keyspaceFlushed(ns, false, writer, inv)
	}
	if ch.FlushedAll {
		e.keysChanged("", nil, inv)
		e.keyspaceFlushed("", true, writer, inv)
	}
	if b.flags != 0 {
		e.announceChanges(b.flags, ch.Keys)
	}
	for len(ch.Keys) > 0 {
		ns, keys := namespaceRun(ch.Keys)
		e.keysWritten(ns, keys, writer, inv)
		ch.Keys = ch.Keys[len(keys):]
	}
}

// namespaceRun returns the namespace of the first change and the keys of
// the changes of that namespace that follow it.
func namespaceRun(changes []storage.KeyChange) (string, [][]byte) {
	ns := changes[0].NS
	var keys [][]byte
	for i := range changes {
		if changes[i].NS != ns {
			break
		}
		keys = append(keys, changes[i].Key)
	}
	return ns, keys
}
