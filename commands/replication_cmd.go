package commands

import (
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/basaltdb/basalt/namespace"
	"github.com/basaltdb/basalt/replication"
	"github.com/basaltdb/basalt/reply"
	"github.com/basaltdb/basalt/scripting"
	"github.com/basaltdb/basalt/storage"
)

// Replication commands (REPLICATION.md §2, §6). The master side's
// commands are Kvrocks's internal ones, which a replica sends: _db_name,
// REPLCONF, PSYNC, _fetch_meta, _fetch_file. PSYNC and the _fetch_*
// commands hand the connection over to the replication package once they
// accepted.

func init() {
	register(
		// Unlike Kvrocks's, it runs while the database is emptied for a
		// full sync: a replica can always be made a master again.
		&Command{Name: "slaveof", Arity: 3, Flags: ReadOnly | Admin | Exclusive | Loading | KvrocksOnly, Handler: cmdSlaveOf},
		// Redis's name of SLAVEOF, which Kvrocks lacks.
		&Command{Name: "replicaof", Arity: 3, Flags: ReadOnly | Admin | Exclusive | Loading, Handler: cmdSlaveOf},
		&Command{Name: "role", Arity: 1, Flags: ReadOnly | Loading | Fast, Handler: cmdRole},
		&Command{Name: "replconf", Arity: -3, Flags: ReadOnly | KvrocksOnly, Handler: cmdReplConf},
		&Command{Name: "wait", Arity: 3, Handler: cmdWait},
		// Kvrocks lets any user PSYNC, which streams every namespace's
		// writes; here only the admin may, as with POLLUPDATES.
		&Command{Name: "psync", Arity: -2, Flags: ReadOnly | Admin | NoMulti | KvrocksOnly, Handler: cmdPSync},
		&Command{Name: "_db_name", Arity: 1, Flags: ReadOnly | NoMulti | KvrocksOnly, Handler: cmdDBName},
		&Command{Name: "_fetch_meta", Arity: 1, Flags: ReadOnly | Admin | NoMulti | KvrocksOnly, Handler: cmdFetchMeta},
		&Command{Name: "_fetch_file", Arity: 2, Flags: ReadOnly | Admin | NoMulti | KvrocksOnly, Handler: cmdFetchFile},
	)
}

// Kvrocks's refusals on a replica (REPLICATION.md §6.4); the READONLY text
// is Redis 7's, as the replication issue asks.
const (
	errReadOnlyReplica = "READONLY You can't write against a read only replica."
	errMasterDown      = "MASTERDOWN Link with MASTER is down and slave-serve-stale-data is set to 'no'."
	errLoading         = "LOADING kvrocks is restoring the db from backup"
)

// replicaRefusal returns the error that stops a command on a replica, or
// "": any command without the Loading flag while the database is emptied
// for a full sync, a write while slave-read-only is on, and anything but
// INFO and SLAVEOF while the link is down and slave-serve-stale-data is
// off.
func (e *Env) replicaRefusal(cmd *Command, writes bool) string {
	link, ok := e.Repl.Replica()
	switch {
	case !ok:
		return ""
	case link.Loading && cmd.Flags&Loading == 0:
		return errLoading
	case writes && e.Config.SlaveReadOnly.Get():
		return errReadOnlyReplica
	case !e.Config.SlaveServeStaleData.Get() && !link.Up() && cmd.Name != "info" && cmd.Name != "slaveof" && cmd.Name != "replicaof":
		return errMasterDown
	}
	return ""
}

// SLAVEOF host port | SLAVEOF NO ONE
//
// Admin only. The checks come in Kvrocks's order: the port, cluster
// mode, disable_wal, then the address. It replies before any connection
// to the master is tried.
func cmdSlaveOf(c *Ctx) {
	host, portArg := string(c.Args[1]), string(c.Args[2])
	noOne := strings.EqualFold(host, "no") && strings.EqualFold(portArg, "one")
	port := 0
	if !noOne {
		p, err := strconv.ParseUint(portArg, 10, 32)
		if err != nil {
			c.ErrorString("ERR port should be number")
			return
		}
		port = int(p)
	}
	switch {
	case c.Env.Config.ClusterEnabled.Get():
		c.ErrorString("ERR can't change to slave in cluster mode")
		return
	case c.Env.Config.RocksDB.DisableWAL.Get():
		c.ErrorString("ERR slaveof doesn't work with disable_wal option")
		return
	}
	if noOne {
		c.Env.Repl.RemoveMaster()
		c.W.OK()
		return
	}
	if err := c.Env.Repl.CheckNewMaster(host, port, c.Env.Config.BindAddrs(), int(c.Env.Config.Port.Get())); err != nil {
		c.ErrorString(err.Error())
		return
	}
	if c.Env.Repl.AddMaster(host, port, false) {
		// Its blocked clients may wait to write (BLPOP, XREADGROUP),
		// which a replica cannot: Redis 7.0 releases them all.
		c.Env.Sessions.Blocking.Demoted()
	}
	c.W.OK()
}

// ROLE
//
// Kvrocks's shape: on a replica five bulk strings (slave, host, port,
// state, offset); on a master "master" and its offset, then, with
// replicas, an array of [ip, port, offset] for each, all bulk strings.
func cmdRole(c *Ctx) {
	seq := strconv.FormatUint(c.Env.Storage.LatestSequence(), 10)
	if link, ok := c.Env.Repl.Replica(); ok {
		state := "connecting"
		switch {
		case link.Up():
			state = "connected"
		case link.Syncing():
			state = "sync"
		}
		c.W.BulkStrings([]string{"slave", link.Host, strconv.Itoa(link.Port), state, seq})
		return
	}
	replicas := c.Env.Repl.Master.Replicas()
	if len(replicas) == 0 {
		c.W.BulkStrings([]string{"master", seq})
		return
	}
	c.W.Array(3)
	c.W.BulkString("master")
	c.W.BulkString(seq)
	c.W.Array(len(replicas))
	for _, r := range replicas {
		c.W.BulkStrings([]string{r.IP, strconv.Itoa(r.ListeningPort), strconv.FormatUint(r.Offset, 10)})
	}
}

// REPLCONF option value [option value ...]
//
// A replica announces its listening-port and ip-address, which INFO and
// ROLE show, and with capa ack (Basalt's replicas) that it acknowledges
// what it applied, which WAIT counts. Any other option, Redis's other
// capabilities included, is unknown, as in Kvrocks.
func cmdReplConf(c *Ctx) {
	if len(c.Args)%2 == 0 {
		c.ErrorString("ERR wrong number of arguments")
		return
	}
	a := c.Session.Announced
	for i := 1; i < len(c.Args); i += 2 {
		v := string(c.Args[i+1])
		switch {
		case c.is(i, "listening-port"):
			p, err := strconv.ParseUint(v, 10, 32)
			if err != nil || p == 0 || p > 65534 {
				c.ErrorString("ERR listening-port should be number or out of range")
				return
			}
			a.ListeningPort = int(p)
		case c.is(i, "ip-address"):
			if v == "" {
				c.ErrorString("ERR ip-address should not be empty")
				return
			}
			a.IP = v
		case c.is(i, "capa") && strings.EqualFold(v, "ack"):
			a.Acks = true
		default:
			c.ErrorString("ERR unknown option")
			return
		}
	}
	c.Session.Announced = a
	c.W.OK()
}

// WAIT numreplicas timeout
//
// Redis's: it waits until numreplicas replicas acknowledged every write
// this client made (up to the sequence number its last command left), or
// timeout milliseconds passed (0: no limit), and replies how many did.
// Only Basalt replicas acknowledge; a Kvrocks replica never counts.
// Inside MULTI it does not wait. It waits without holding anything, as a
// blocked client does: CLIENT UNBLOCK ends it with the count.
func cmdWait(c *Ctx) {
	e := c.Env
	if e.Repl.IsReplica() {
		c.ErrorString("ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.")
		return
	}
	want, ok := c.Int(1)
	if !ok {
		return
	}
	ms, err := strconv.ParseInt(string(c.Args[2]), 10, 64)
	switch {
	case err != nil:
		c.ErrorString("ERR timeout is not an integer or out of range")
		return
	case ms < 0:
		c.ErrorString("ERR timeout is negative")
		return
	}
	w := c.Session.Waiter()
	target := c.Session.SyncTo
	if w != nil {
		target = w.AckTarget
	}
	acked := e.Repl.Master.Acked(target)
	if int64(acked) >= want || c.inExec {
		if w != nil {
			e.Sessions.Blocking.Remove(w)
		}
		c.W.Int(int64(acked))
		return
	}
	if w != nil {
		c.Session.Block(c.Args, nil, 0, nil, nil, "")
		return
	}
	count := func(s reply.Sink) { s.Int(int64(e.Repl.Master.Acked(target))) }
	w = c.Session.Block(c.Args, nil, time.Duration(min(ms, math.MaxInt64/int64(time.Millisecond)))*time.Millisecond, count, nil, "")
	w.AckTarget = target
	e.Sessions.Blocking.WaitAcks(w)
	// An acknowledgement that came since the count above: run again.
	if int64(e.Repl.Master.Acked(target)) >= want {
		w.Miss()
	}
}

// PSYNC next-sequence | PSYNC replication-id next-sequence
//
// Accepted when the WAL still holds next-sequence (or it is the one after
// the latest): the connection then streams the write batches from there.
// Otherwise the replica must do a full sync.
func cmdPSync(c *Ctx) {
	replid, seqArg := "", c.Args[1]
	if len(c.Args) == 3 {
		replid, seqArg = string(c.Args[1]), c.Args[2]
	}
	// As Kvrocks's strtoull, a negative number wraps around.
	next, msg := kvrocksUint(string(seqArg))
	if msg != "" {
		c.ErrorString("ERR value is not an unsigned long long or out of range")
		return
	}
	if len(c.Args) == 3 && len(replid) != 16 {
		c.ErrorString("ERR Wrong replication id length")
		return
	}
	if c.Session.Pushing() {
		// The push stream owns the socket.
		c.ErrorString("ERR PSYNC is not allowed to a client with subscriptions or MONITOR")
		return
	}
	master := c.Env.Repl.Master
	if err := master.CheckPSync(replid, next); err != nil {
		c.ErrorString(err.Error())
		return
	}
	s := c.Session
	s.FeedReplica()
	s.TakeOver = master.Feed(next, s.Announced)
}

// _db_name
//
// The db-name setting, as a raw line (no RESP type): a replica compares
// it with its own.
func cmdDBName(c *Ctx) { c.W.RawLine(c.Env.Config.DBName.Get()) }

// replicaApplying is called before this node, as a replica, applies a
// batch of its master's; what it returns follows the batch once applied:
// the clients waiting on the keys it changed learn of them (written.go),
// as the clients of a Redis replica do, and replicaApplied.
func (e *Env) replicaApplying(records []storage.WALRecord) func() {
	b := e.batchApplying(records)
	return func() {
		e.batchApplied(b, nil, nil)
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

// publishToReplicas writes a message published on a master for its
// replicas (storage.Publish), whether or not one is attached, as Kvrocks
// does. A replica writes nothing: a write of its own would take a
// sequence number of its master's stream.
func (e *Env) publishToReplicas(ns string, channel, message []byte) error {
	if e.Repl.IsReplica() {
		return nil
	}
	return e.Storage.Publish(ns, channel, message)
}

// _fetch_meta
//
// A full sync begins: the names of the files of a checkpoint of the
// database, comma-separated on a raw line, then the connection closes.
func cmdFetchMeta(c *Ctx) {
	names, err := c.Env.Repl.Master.FetchMeta()
	if err != nil {
		c.ErrorString("can't create db checkpoint")
	} else {
		c.W.RawLine(strings.Join(names, ","))
	}
	c.Session.CloseAfterReply = true
}

// _fetch_file name[,name...]
//
// The files of the checkpoint, each as its size on a raw line and its
// bytes; then the connection closes.
func cmdFetchFile(c *Ctx) {
	if c.Session.Pushing() {
		c.ErrorString("ERR _fetch_file is not allowed to a client with subscriptions or MONITOR")
		return
	}
	var names []string
	for _, name := range strings.Split(string(c.Args[1]), ",") {
		if name != "" {
			names = append(names, name)
		}
	}
	master := c.Env.Repl.Master
	c.Session.TakeOver = master.FilesTo(names)
}

// replicaRestored follows a full sync: the scripts, the function
// libraries and (with repl-namespace-enabled) the namespace tokens are
// the master's now.
func (e *Env) replicaRestored() {
	e.scripts.ForgetScripts(scripting.Scope{All: true})
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
	e.background.Wait()
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
