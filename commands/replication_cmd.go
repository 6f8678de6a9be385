package commands

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/reply"
)

// Replication commands (REPLICATION.md §2, §6). The master side's
// commands are Kvrocks's internal ones, which a replica sends: _db_name,
// REPLCONF, PSYNC, _fetch_meta, _fetch_file. PSYNC and the _fetch_*
// commands hand the connection over to the replication package once they
// accepted.

func init() {
	executor.Register(
		// Unlike Kvrocks's, it runs while the database is emptied for a
		// full sync: a replica can always be made a master again.
		&executor.Command{Name: "slaveof", Arity: 3, Flags: executor.ReadOnly | executor.Admin | executor.Exclusive | executor.Loading | executor.KvrocksOnly | executor.StaleOK, Handler: cmdSlaveOf},
		// Redis's name of SLAVEOF, which Kvrocks lacks.
		&executor.Command{Name: "replicaof", Arity: 3, Flags: executor.ReadOnly | executor.Admin | executor.Exclusive | executor.Loading | executor.StaleOK, Handler: cmdSlaveOf},
		&executor.Command{Name: "role", Arity: 1, Flags: executor.ReadOnly | executor.Loading | executor.Fast, Handler: cmdRole},
		&executor.Command{Name: "replconf", Arity: -3, Flags: executor.ReadOnly | executor.KvrocksOnly, Handler: cmdReplConf},
		&executor.Command{Name: "wait", Arity: 3, Handler: cmdWait},
		// Kvrocks lets any user PSYNC, which streams every namespace's
		// writes; here only the admin may, as with POLLUPDATES.
		&executor.Command{Name: "psync", Arity: -2, Flags: executor.ReadOnly | executor.Admin | executor.NoMulti | executor.KvrocksOnly, Handler: cmdPSync},
		// Admin only, as since Kvrocks 2.17: a replica authenticates
		// with masterauth, the master's requirepass.
		&executor.Command{Name: "_db_name", Arity: 1, Flags: executor.ReadOnly | executor.Admin | executor.NoMulti | executor.KvrocksOnly, Handler: cmdDBName,
			Meta: &executor.Meta{
				Doc: doc("summary", "Returns db-name on a raw line: a replica checks it is its master's",
					"group", "server", "complexity", "O(1)"),
			}},
		&executor.Command{Name: "_fetch_meta", Arity: 1, Flags: executor.ReadOnly | executor.Admin | executor.NoMulti | executor.KvrocksOnly, Handler: cmdFetchMeta,
			Meta: &executor.Meta{
				Doc: doc("summary", "Starts a full sync: the names of the files of a checkpoint of the database, then the connection closes",
					"group", "server", "complexity", "O(N) where N is the number of files"),
			}},
		&executor.Command{Name: "_fetch_file", Arity: 2, Flags: executor.ReadOnly | executor.Admin | executor.NoMulti | executor.KvrocksOnly, Handler: cmdFetchFile,
			Meta: &executor.Meta{
				Doc: doc("summary", "Sends files of the checkpoint _fetch_meta made, each as its size and its bytes",
					"group", "server", "complexity", "O(N) where N is the size of the files",
					"arguments", docArgs(docString("files"))),
			}},
	)
}

// SLAVEOF host port | SLAVEOF NO ONE
//
// Admin only. The checks come in Kvrocks's order: the port, cluster
// mode, disable_wal, then the address. It replies before any connection
// to the master is tried.
func cmdSlaveOf(c *executor.Ctx) {
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
func cmdRole(c *executor.Ctx) {
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
func cmdReplConf(c *executor.Ctx) {
	if len(c.Args)%2 == 0 {
		c.ErrorString("ERR wrong number of arguments")
		return
	}
	a := c.Session.Announced
	for i := 1; i < len(c.Args); i += 2 {
		v := string(c.Args[i+1])
		switch {
		case c.Is(i, "listening-port"):
			p, err := strconv.ParseUint(v, 10, 32)
			if err != nil || p == 0 || p > 65534 {
				c.ErrorString("ERR listening-port should be number or out of range")
				return
			}
			a.ListeningPort = int(p)
		case c.Is(i, "ip-address"):
			if v == "" {
				c.ErrorString("ERR ip-address should not be empty")
				return
			}
			a.IP = v
		case c.Is(i, "capa") && strings.EqualFold(v, "ack"):
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
func cmdWait(c *executor.Ctx) {
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
	if int64(acked) >= want || c.InExec {
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
func cmdPSync(c *executor.Ctx) {
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
func cmdDBName(c *executor.Ctx) { c.W.RawLine(c.Env.Config.DBName.Get()) }

// _fetch_meta
//
// A full sync begins: the names of the files of a checkpoint of the
// database, comma-separated on a raw line, then the connection closes.
func cmdFetchMeta(c *executor.Ctx) {
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
func cmdFetchFile(c *executor.Ctx) {
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
