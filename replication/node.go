package replication

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/storage"
)

// Node is a server's replication: the master side, always serving, and
// the replica side while the node follows a master (the role is replica
// iff a master is set, as in Kvrocks). It is safe for concurrent use.
type Node struct {
	cfg    *config.Config
	st     *storage.Storage
	Master *Master
	// OnApply, when set before Start, is called with the records of
	// every batch a replica is about to apply; the function it returns,
	// if not nil, is called once the batch is applied (pub/sub messages
	// reach local subscribers through it, and the clients waiting on the
	// keys it changed learn of them). The records' bytes are valid until
	// that function returns.
	OnApply func(records []storage.WALRecord) (applied func())
	// Quiesce, when set before Start, runs fn while no command runs (a
	// full sync swaps the database in it), unless stop is closed first;
	// it then returns ErrStopped.
	Quiesce func(stop <-chan struct{}, fn func() error) error

	// OnRestored, when set before Start, is called once a full sync
	// swapped in the master's data, while no command runs.
	OnRestored func()

	stop      chan struct{} // closed by Close: ends the checkpoint janitor
	closeOnce sync.Once

	// replica is the replica side, nil on a master; mu serialises its
	// changes.
	replica atomic.Pointer[Replica]
	mu      sync.Mutex
	// loading is set while the database is emptied for a full sync
	// (slave-empty-db-before-fullsync) and the master's is not in yet.
	loading atomic.Bool
}

// NewNode returns the replication of a server over st.
func NewNode(cfg *config.Config, st *storage.Storage) *Node {
	return &Node{cfg: cfg, st: st, Master: NewMaster(cfg, st), stop: make(chan struct{})}
}

func (n *Node) storage() *storage.Storage { return n.st }

// Start starts the checkpoint janitor and follows the master of the
// slaveof setting, if any.
func (n *Node) Start() error {
	go n.Master.janitor(n.stop)
	v := strings.TrimSpace(n.cfg.SlaveOf.Get())
	if v == "" || strings.EqualFold(strings.Join(strings.Fields(v), " "), "no one") {
		return nil
	}
	host, port, err := ParseSlaveOf(v)
	if err != nil {
		return err
	}
	n.AddMaster(host, port, true)
	return nil
}

// ParseSlaveOf reads the slaveof setting: "<host> <port>".
func ParseSlaveOf(v string) (string, int, error) {
	f := strings.Fields(v)
	if len(f) != 2 {
		return "", 0, fmt.Errorf("slaveof: want <host> <port>, got %q", v)
	}
	port, err := strconv.Atoi(f[1])
	if err != nil || port < 1 || port > 65535 {
		return "", 0, fmt.Errorf("slaveof: bad port %q", f[1])
	}
	return f[0], port, nil
}

// AddMaster makes the node a replica of host:port. Unless force is set,
// it does nothing when it already follows that master; otherwise the
// replication starts anew. It returns before any connection is tried,
// and reports whether it started.
func (n *Node) AddMaster(host string, port int, force bool) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	old := n.replica.Load()
	if old != nil && !force && old.host == host && old.port == port {
		return false
	}
	if old != nil {
		old.Stop()
	}
	// A replica writes its master's batches, marked with the master's
	// replication id.
	n.st.ClearReplID()
	n.replica.Store(newReplica(n, host, port))
	n.cfg.SetSlaveOf(host + " " + strconv.Itoa(port))
	return true
}

// RemoveMaster makes the node a master, whose writes begin a new
// history; it reports whether it was a replica.
func (n *Node) RemoveMaster() bool {
	if !n.stopReplica() {
		return false
	}
	n.shiftReplID()
	return true
}

// stopReplica stops replicating; it reports whether the node replicated.
func (n *Node) stopReplica() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	r := n.replica.Load()
	if r == nil {
		return false
	}
	n.replica.Store(nil)
	n.cfg.SetSlaveOf("no one")
	r.Stop()
	n.loading.Store(false) // a master serves what it has
	return true
}

// StartHistory gives a master that just started a new replication id
// (use-rsid-psync): its writes from now on are a new history. The server
// calls it once it knows its role.
func (n *Node) StartHistory() {
	if !n.IsReplica() {
		n.shiftReplID()
	}
}

// shiftReplID starts a new replication id when use-rsid-psync is on.
func (n *Node) shiftReplID() {
	if !n.cfg.UseRSIDPSync.Get() {
		return
	}
	if _, err := n.st.ShiftReplID(); err != nil {
		slog.Error("replication: writing a new replication id", "err", err)
	}
}

// DropMasterLink closes a replica's connections to its master, which it
// then opens again (CLIENT KILL TYPE master); it returns how many it
// closed, 0 on a master.
func (n *Node) DropMasterLink() int {
	if r := n.replica.Load(); r != nil {
		return r.dropLinks()
	}
	return 0
}

// Close stops the replica side and the feeds.
func (n *Node) Close() {
	n.closeOnce.Do(func() { close(n.stop) })
	n.stopReplica()
	n.Master.StopFeeds()
}

// restore swaps in a fetched checkpoint while no command runs and no feed
// reads the WAL; it gives up when stop is closed first.
func (n *Node) restore(stop <-chan struct{}, dir string) error {
	swap := func() error {
		n.Master.StopFeeds()
		if err := n.st.Restore(dir); err != nil {
			return err
		}
		if n.OnRestored != nil {
			n.OnRestored()
		}
		return nil
	}
	if n.Quiesce != nil {
		return n.Quiesce(stop, swap)
	}
	return swap()
}

// emptyDB swaps in an empty database before a full sync fetches the
// master's (slave-empty-db-before-fullsync, for a disk that cannot hold
// both), and sets loading: until the master's data is in, the commands
// that need data are refused, as Kvrocks refuses them while its
// database is closed.
func (n *Node) emptyDB(stop <-chan struct{}) error {
	dir := filepath.Join(n.cfg.Dir.Get(), "empty_db")
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeMarker(dir); err != nil {
		return err
	}
	n.loading.Store(true)
	if err := n.restore(stop, dir); err != nil {
		os.RemoveAll(dir)
		n.loading.Store(false)
		return err
	}
	slog.Info("replication: the database is emptied for a full sync (slave-empty-db-before-fullsync)")
	return nil
}

// Link is what a replica knows of its master, for INFO and ROLE.
type Link struct {
	Host  string
	Port  int
	State State
	// LastIO is when the master last sent something (zero: never).
	LastIO time.Time
	// Loading is set while the database is emptied for a full sync and
	// the master's is not in yet.
	Loading bool
}

// Up reports whether the link streams (master_link_status:up).
func (l Link) Up() bool { return l.State == StateConnected }

// Syncing reports whether a full sync runs (master_sync_in_progress).
func (l Link) Syncing() bool { return l.State == StateFetchMeta || l.State == StateFetchSST }

// Replica returns the link to the master and true when the node is a
// replica.
func (n *Node) Replica() (Link, bool) {
	r := n.replica.Load()
	if r == nil {
		return Link{}, false
	}
	l := Link{Host: r.host, Port: r.port, State: r.State(), Loading: n.loading.Load()}
	if s := r.lastIO.Load(); s > 0 {
		l.LastIO = time.Unix(s, 0)
	}
	return l, true
}

// IsReplica reports whether the node follows a master.
func (n *Node) IsReplica() bool { return n.replica.Load() != nil }

// CheckNewMaster returns why this node cannot follow host:port (SLAVEOF),
// as the error reply Kvrocks gives, or nil: the host must resolve, and be
// neither this node (bind addresses and port myPort) nor one of its
// replicas.
func (n *Node) CheckNewMaster(host string, port int, bind []string, myPort int) error {
	ips, err := net.LookupIP(host)
	if err != nil || len(ips) == 0 {
		return errors.New("ERR Can not resolve hostname: " + host)
	}
	if isSelf(ips, port, bind, myPort) {
		return errors.New("ERR can't replicate itself")
	}
	for _, r := range n.Master.Replicas() {
		if r.ListeningPort != port {
			continue
		}
		if ip := net.ParseIP(r.IP); ip != nil && slices.ContainsFunc(ips, ip.Equal) {
			return errors.New("ERR can't replicate your own replicas")
		}
	}
	return nil
}

// isSelf reports whether a host with addresses ips and port is this
// node: its port, and an address it binds (any local address for
// 0.0.0.0).
func isSelf(ips []net.IP, port int, bind []string, myPort int) bool {
	if port != myPort {
		return false
	}
	for _, ip := range ips {
		for _, b := range bind {
			bip := net.ParseIP(b)
			switch {
			case bip == nil:
			case bip.Equal(ip):
				return true
			case bip.IsUnspecified() && (ip.IsLoopback() || localAddress(ip)):
				return true
			}
		}
	}
	return false
}

// localAddress reports whether ip is an address of this machine.
func localAddress(ip net.IP) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}
