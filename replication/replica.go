package replication

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/resp"
	"github.com/basaltdb/basalt/storage"
)

// The replica side (REPLICATION.md §1.2-§1.4, §2, §2.5): one goroutine
// connects to the master, handshakes (AUTH when masterauth is set,
// _db_name, REPLCONF, PSYNC) and applies the streamed batches; a refused
// PSYNC hands over to a full sync (fullsync.go), after which PSYNC is
// tried again. A dropped connection is retried after 1 s, a refusal
// (RESTART in Kvrocks) after 10 s.

// State is where a replica's state machine is; the values are Kvrocks's.
type State int32

// The states, numbered as Kvrocks numbers them.
const (
	StateConnecting State = 1 + iota
	StateSendAuth
	StateCheckDBName
	StateReplConf
	StateSendPSync
	StateFetchMeta
	StateFetchSST
	StateConnected
	StateError
)

// Timeouts and pauses of the replica.
const (
	dialTimeout = 3100 * time.Millisecond
	// replyTimeout bounds the wait for a handshake reply or for the
	// stream's next bytes. Kvrocks sets none and relies on TCP
	// keepalive; a master sends a heartbeat every 2 s while idle, so a
	// silence this long means it is gone (or stopped).
	replyTimeout = 30 * time.Second
	retryPause   = time.Second
	restartPause = 10 * time.Second
	maxMetaLine  = 4 << 20 // a _fetch_meta file list is one line
	maxSizeLine  = 64      // a file's "<size>" before its bytes
)

var (
	// errRestart is Kvrocks's RESTART: the master refused a step; retry
	// from the start after restartPause.
	errRestart = errors.New("replication: master refused")
	// errFullSync hands over to a full sync.
	errFullSync = errors.New("replication: PSYNC refused, full sync needed")
	// ErrStopped reports that the replication was stopped (SLAVEOF,
	// shutdown) while it waited.
	ErrStopped = errors.New("replication: stopped")
)

// Replica follows one master. Its exported methods are safe for
// concurrent use.
type Replica struct {
	host string
	port int // as given; the connection goes to port+1 with master-use-repl-port
	node *Node

	state  atomic.Int32
	lastIO atomic.Int64 // Unix seconds of the last byte from the master
	stop   chan struct{}
	done   chan struct{}
	noIP   bool // the master refused REPLCONF ip-address
	// oldPSync: the master refused the PSYNC with a replication id
	// (use-rsid-psync) as having too many arguments: an older master.
	oldPSync bool

	mu struct {
		sync.Mutex
		conns map[net.Conn]struct{} // open connections to the master, closed by Stop
	}
}

func newReplica(n *Node, host string, port int) *Replica {
	r := &Replica{host: host, port: port, node: n, stop: make(chan struct{}), done: make(chan struct{})}
	r.mu.conns = map[net.Conn]struct{}{}
	r.state.Store(int32(StateConnecting))
	go r.run()
	return r
}

// Stop ends the replication and waits for its goroutine.
func (r *Replica) Stop() {
	close(r.stop)
	r.mu.Lock()
	for nc := range r.mu.conns {
		nc.Close()
	}
	r.mu.Unlock()
	<-r.done
}

// dropLinks closes the connections to the master, as CLIENT KILL TYPE
// master does: the replica reconnects and resumes. It returns how many it
// closed.
func (r *Replica) dropLinks() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	for nc := range r.mu.conns {
		nc.Close()
	}
	return len(r.mu.conns)
}

// State returns where the state machine is.
func (r *Replica) State() State { return State(r.state.Load()) }

func (r *Replica) setState(s State) { r.state.Store(int32(s)) }

func (r *Replica) stopped() bool {
	select {
	case <-r.stop:
		return true
	default:
		return false
	}
}

// sleep waits d or until Stop.
func (r *Replica) sleep(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.stop:
	}
}

func (r *Replica) cfg() *config.Config { return r.node.cfg }

func (r *Replica) run() {
	defer close(r.done)
	// As Kvrocks, a new replication starts with a clean staging area: a
	// full sync a crash interrupted is done again from the start.
	os.RemoveAll(r.stagingDir())
	var lastAttempt time.Time
	full := false
	for !r.stopped() {
		if time.Since(lastAttempt) < retryPause {
			r.sleep(retryPause)
			if r.stopped() {
				return
			}
		}
		lastAttempt = time.Now()
		var err error
		if full {
			err = r.fullSync()
			if err == nil {
				full = false
				lastAttempt = time.Time{} // PSYNC at once
				continue
			}
		} else {
			err = r.incremental()
		}
		switch {
		case r.stopped():
			return
		case errors.Is(err, errFullSync):
			slog.Info("replication: PSYNC refused, starting a full sync", "master", r.addr(), "err", err)
			r.setState(StateError)
			full, lastAttempt = true, time.Time{}
		case errors.Is(err, errRestart):
			slog.Warn("replication: master refused, retrying in 10 s", "master", r.addr(), "err", err)
			r.setState(StateConnecting)
			r.sleep(restartPause)
		default:
			slog.Info("replication: connection to the master lost, reconnecting", "master", r.addr(), "err", err)
			r.setState(StateConnecting)
		}
	}
}

// addr is where the replica connects.
func (r *Replica) addr() string {
	port := r.port
	if r.cfg().MasterUseReplPort.Get() {
		port++
	}
	return net.JoinHostPort(r.host, strconv.Itoa(port))
}

// dial connects to the master; the connection is closed by Stop too.
func (r *Replica) dial() (*masterConn, error) {
	d := net.Dialer{Timeout: dialTimeout, KeepAliveConfig: net.KeepAliveConfig{Enable: true, Idle: 120 * time.Second, Interval: 40 * time.Second, Count: 3}}
	nc, err := d.Dial("tcp", r.addr())
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if r.stopped() {
		r.mu.Unlock()
		nc.Close()
		return nil, ErrStopped
	}
	r.mu.conns[nc] = struct{}{}
	r.mu.Unlock()
	c := resp.NewClient(nc)
	c.MaxBulk = int64(r.cfg().ProtoMaxBulkLen.Get())
	c.ReadTimeout = replyTimeout
	c.OnRead = func() { r.lastIO.Store(time.Now().Unix()) }
	return &masterConn{nc: nc, c: c, r: r}, nil
}

// masterConn is one connection to the master.
type masterConn struct {
	nc net.Conn
	c  *resp.Client
	r  *Replica
	// acks is set when the master takes acknowledgements (REPLCONF capa
	// ack): a Basalt master, for WAIT.
	acks bool
}

func (c *masterConn) close() {
	c.r.mu.Lock()
	delete(c.r.mu.conns, c.nc)
	c.r.mu.Unlock()
	c.nc.Close()
}

// send writes a command as a RESP array of bulk strings.
func (c *masterConn) send(args ...string) error {
	bargs := make([][]byte, len(args))
	for i, a := range args {
		bargs[i] = []byte(a)
	}
	c.c.Append(bargs...)
	return c.c.Flush(time.Now().Add(replyTimeout))
}

// line reads one line, without its CRLF, of at most max bytes, within
// replyTimeout.
func (c *masterConn) line(max int) (string, error) {
	line, err := c.c.ReadLine(time.Now().Add(replyTimeout), max)
	return string(line), err
}

// request sends a command and reads its one-line reply.
func (c *masterConn) request(args ...string) (string, error) {
	if err := c.send(args...); err != nil {
		return "", err
	}
	return c.line(resp.MaxInlineSize)
}

// auth sends AUTH masterauth when it is set; anything but +OK is a
// refusal.
func (c *masterConn) auth() error {
	pass := c.r.cfg().MasterAuth.Get()
	if pass == "" {
		return nil
	}
	c.r.setState(StateSendAuth)
	reply, err := c.request("AUTH", pass)
	if err != nil {
		return err
	}
	if reply != "+OK" {
		return fmt.Errorf("%w: AUTH: %s", errRestart, reply)
	}
	return nil
}

const loadingReply = "-LOADING kvrocks is restoring the db from backup"

// incremental runs the PSYNC machine on a new connection until it fails.
func (r *Replica) incremental() error {
	c, err := r.dial()
	if err != nil {
		return err
	}
	defer c.close()
	if err := c.auth(); err != nil {
		return err
	}
	r.setState(StateCheckDBName)
	reply, err := c.request("_db_name")
	if err != nil {
		return err
	}
	if strings.HasPrefix(reply, "-") || reply != r.cfg().DBName.Get() {
		return fmt.Errorf("%w: _db_name: %q, mine is %q", errRestart, reply, r.cfg().DBName.Get())
	}
	r.setState(StateReplConf)
	for {
		port := r.cfg().ReplicaAnnouncePort.Get()
		if port <= 0 {
			port = r.cfg().Port.Get()
		}
		args := []string{"replconf", "listening-port", strconv.FormatInt(port, 10)}
		ip := r.cfg().ReplicaAnnounceIP.Get()
		if ip != "" && !r.noIP {
			args = append(args, "ip-address", ip)
		}
		if reply, err = c.request(args...); err != nil {
			return err
		}
		if reply == "-ERR unknown option" && len(args) > 3 {
			r.noIP = true
			continue
		}
		if strings.HasPrefix(reply, loadingReply) {
			return fmt.Errorf("%w: REPLCONF: %s", errRestart, reply)
		}
		break // any other reply: go on, as Kvrocks does with old masters
	}
	// A Basalt master takes acknowledgements; Kvrocks answers "unknown
	// option" and gets none.
	if reply, err = c.request("replconf", "capa", "ack"); err != nil {
		return err
	}
	c.acks = reply == "+OK"
	r.setState(StateSendPSync)
	next := r.node.storage().LatestSequence() + 1
	if reply, err = c.psync(next); err != nil {
		return err
	}
	switch {
	case reply == "+OK":
	case strings.HasPrefix(reply, loadingReply):
		return fmt.Errorf("%w: PSYNC: %s", errRestart, reply)
	default:
		return fmt.Errorf("%w: PSYNC %d: %s", errFullSync, next, reply)
	}
	r.setState(StateConnected)
	r.node.loading.Store(false) // the master streams from this node's sequence: no full sync is needed
	slog.Info("replication: streaming from the master", "master", r.addr(), "from", next)
	return c.applyStream()
}

// psync sends PSYNC next, with this node's last replication id when
// use-rsid-psync is on and it has one; a master that takes no id gets the
// plain form again, on the same connection, as Kvrocks's replicas do.
func (c *masterConn) psync(next uint64) (string, error) {
	seq := strconv.FormatUint(next, 10)
	r := c.r
	if r.cfg().UseRSIDPSync.Get() && !r.oldPSync {
		if id := r.node.storage().LastReplID(); id != "" {
			reply, err := c.request("PSYNC", id, seq)
			if err != nil || reply != "-ERR wrong number of arguments" {
				return reply, err
			}
			r.oldPSync = true
		}
	}
	return c.request("PSYNC", seq)
}

// applyStream reads the bulk strings the master streams and applies each
// batch, until the connection fails or a batch is refused.
func (c *masterConn) applyStream() error {
	var data []byte // each batch is read into the storage of the one before
	st := c.r.node.storage()
	synced := time.Now()
	for {
		var err error
		data, err = c.c.ReadBulk(time.Time{}, data)
		var bad resp.ProtocolError
		switch {
		case errors.As(err, &bad):
			return fmt.Errorf("%w: invalid increment data: %v", errRestart, err)
		case err != nil:
			return err
		case len(data) == 0:
			return fmt.Errorf("%w: invalid increment data size 0", errRestart)
		}
		if string(data) == "ping" {
			// Acknowledged again, in case the master lost count.
			if err := c.ack(); err != nil {
				return err
			}
			continue
		}
		var applied func()
		_, err = st.ApplyReplicated(data, func(records []storage.WALRecord) {
			if c.r.node.OnApply != nil {
				applied = c.r.node.OnApply(records)
			}
		})
		if err != nil {
			return fmt.Errorf("%w: apply a batch: %v", errRestart, err)
		}
		if applied != nil {
			applied()
		}
		if c.c.Buffered() == 0 || time.Since(synced) > durableEvery {
			// Caught up with what arrived (or streaming for a while):
			// make it durable, which also lets this node's own replicas
			// read it from the WAL.
			if err := st.Durable(st.LatestSequence()); err != nil {
				return fmt.Errorf("%w: %v", errRestart, err)
			}
			synced = time.Now()
			if err := c.ack(); err != nil {
				return err
			}
		}
	}
}

// ack tells a master that takes acknowledgements the last sequence
// number this node applied, once it is durable.
func (c *masterConn) ack() error {
	if !c.acks {
		return nil
	}
	st := c.r.node.storage()
	seq := st.LatestSequence()
	if err := st.Durable(seq); err != nil {
		return fmt.Errorf("%w: %v", errRestart, err)
	}
	return c.send("REPLCONF", "ACK", strconv.FormatUint(seq, 10))
}

// durableEvery bounds how long applied batches may stay in the WAL
// buffer while the master streams without a pause.
const durableEvery = 100 * time.Millisecond
