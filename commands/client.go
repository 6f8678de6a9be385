package commands

import (
	"log/slog"
	"net"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/replication"
	"github.com/basaltdb/basalt/resp"
)

// Client is the state of one connection. Fields without a lock are owned
// by the connection's goroutine; mu guards what other connections read
// through CLIENT LIST and CLIENT KILL.
type Client struct {
	ID      int64
	Addr    string // remote address
	LAddr   string // local address
	FD      int
	Created time.Time
	W       *resp.Writer

	// Namespace is the connection's namespace, for its own goroutine; other
	// connections read sharedNS (CLIENT LIST, KILL), since AUTH and RESET
	// change it. setNamespace sets both.
	Namespace string
	sharedNS  atomic.Pointer[string]
	Authed    bool
	Admin     bool
	// CloseAfterReply makes the server close the connection once the
	// current replies are sent (QUIT, CLIENT KILL of itself).
	CloseAfterReply bool
	// TakeOver, set by a handler, hands the connection over once the
	// replies so far are sent: the server calls it with the socket,
	// and closes the socket when it returns (PSYNC's feed,
	// _fetch_meta, _fetch_file).
	TakeOver func(nc net.Conn)
	// replica is set once the connection feeds a replica (CLIENT LIST's
	// S flag and type slave); announced is what its REPLCONF said.
	replica   atomic.Bool
	announced replication.Announced
	// ReadOnly is set by READONLY: in cluster mode a slave then serves
	// reads of its master's slots.
	ReadOnly bool
	// Importing is set on the connection a migrating node imports slots
	// through (CLUSTER IMPORT ... 0): it may write the importing slots.
	Importing bool
	// waiter is set while a blocking command waits (blocked: it must wait
	// now). WatchClose, set by the server, watches for the peer closing
	// the connection while the client waits, until stop is called.
	waiter     *waiter
	blocked    bool
	WatchClose func() (closed <-chan struct{}, stop func())
	// tx is the open MULTI, nil outside one; watched are the WATCHed
	// keys.
	tx      *transaction
	watched []watchedKey
	// Asking is set by ASKING for the next command only: it may use the
	// slots being imported.
	Asking bool
	// SyncTo is the sequence number the WAL must reach before this
	// client's pending replies may be sent: the latest one when its last
	// command finished, which covers everything that command wrote or saw.
	SyncTo uint64
	// Flush, set by the server, sends the replies W holds (once the WAL
	// reaches SyncTo). Dispatch calls it before the client blocks, and a
	// long reply through SpillReply.
	Flush func() error
	// spillable is set while a command whose reply may be sent in parts
	// runs: a read outside a transaction, holding the gate shared.
	spillable bool
	// replies is CLIENT REPLY's state.
	replies replyMode
	// noEvict is set by CLIENT NO-EVICT on: maxmemory-clients spares it.
	noEvict atomic.Bool
	// Buffer sizes for CLIENT LIST and INFO, kept by the server:
	// unparsed request bytes and the request reader's whole memory.
	queryBuffered, queryHeld atomic.Int64
	queryPeak                atomic.Int64 // the most queryHeld has been
	multiMem                 atomic.Int64 // bytes of the MULTI queue
	multiLen                 atomic.Int64 // commands queued, -1 outside MULTI

	// out is the output stream of a client that receives pushes (see
	// push.go). monitor is set once the client is a monitor; CLIENT LIST
	// reads it from others.
	out     pushStream
	monitor atomic.Bool
	// replyHeld is the size of the replies the server is writing to the
	// client now (CLIENT LIST obl).
	replyHeld atomic.Int64
	// blockedNow is set while a blocking command waits (CLIENT LIST's b).
	blockedNow atomic.Bool
	// subs are the client's subscriptions per kind (channel, pattern,
	// shard channel); subN their counts, which CLIENT LIST reads.
	subs [numKinds]map[string]bool
	subN [numKinds]atomic.Int64

	ctx Ctx
	// errMark is W.Errors() when the running command started, or when
	// the last command inside its EXEC ended: an error written past it
	// makes the command failed (INFO commandstats).
	errMark    int64
	lastActive atomic.Int64 // Unix ms of the last command
	lastCmd    atomic.Pointer[Command]
	proto      atomic.Int32 // mirrors W's protocol for other goroutines
	killed     atomic.Bool
	kill       func() // closes the connection from any goroutine

	mu struct {
		sync.Mutex
		name, libName, libVer string
	}
}

// NewClient makes the state of a new connection. kill must close the
// connection and be safe to call from any goroutine.
func (e *Env) NewClient(addr, laddr string, fd int, kill func()) *Client {
	c := &Client{
		ID:        e.Clients.nextID.Add(1),
		Addr:      addr,
		LAddr:     laddr,
		FD:        fd,
		Created:   time.Now(),
		W:         resp.NewWriter(),
		Namespace: metadata.DefaultNamespace,
		Admin:     true,
		kill:      kill,
	}
	c.Authed = e.Config.RequirePass.Get() == ""
	c.W.SetOnError(countErrorReply)
	c.proto.Store(2)
	// A copy: pointing at c.Namespace would let setNamespace's write
	// race with another connection's read through the pointer.
	ns := c.Namespace
	c.sharedNS.Store(&ns)
	c.out.ready = make(chan struct{}, 1)
	c.multiLen.Store(-1)
	c.lastActive.Store(c.Created.UnixMilli())
	c.ctx = Ctx{W: c.W, Client: c, Env: e}
	return c
}

// setNamespace puts the connection in namespace ns.
func (c *Client) setNamespace(ns string) {
	c.Namespace = ns
	c.sharedNS.Store(&ns)
}

// namespaceName returns the connection's namespace from any goroutine.
func (c *Client) namespaceName() string { return *c.sharedNS.Load() }

// setProtocol switches the connection to RESP2 or RESP3.
func (c *Client) setProtocol(p int) {
	c.W.SetProtocol(p)
	c.proto.Store(int32(p))
}

// Name returns the name set with CLIENT SETNAME.
func (c *Client) Name() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mu.name
}

// IdleSince returns when the client last ran a command.
func (c *Client) IdleSince() time.Time { return time.UnixMilli(c.lastActive.Load()) }

// FeedsReplica reports whether the connection feeds a replica: the idle
// timeout spares it.
func (c *Client) FeedsReplica() bool { return c.replica.Load() }

// Kill closes the client's connection.
func (c *Client) Kill() {
	if c.killed.CompareAndSwap(false, true) {
		c.kill()
	}
}

// Clients is the registry of connected clients.
type Clients struct {
	nextID atomic.Int64
	mu     sync.Mutex
	byID   map[int64]*Client
}

func newClients() *Clients { return &Clients{byID: map[int64]*Client{}} }

// Add registers a client unless max clients are already connected.
func (cs *Clients) Add(c *Client, max int) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if len(cs.byID) >= max {
		return false
	}
	cs.byID[c.ID] = c
	return true
}

// Disconnected forgets a client whose connection closed. An import still
// running over it failed: what it imported is dropped.
func (e *Env) Disconnected(c *Client) {
	e.Clients.Remove(c)
	if c.monitor.Load() {
		e.monitors.remove(c)
	}
	e.watches.unwatch(c)
	e.pubsub.unsubscribeAll(c)
	if !c.Importing || e.Cluster == nil {
		return
	}
	if r, drop := e.Cluster.ImportBroken(c.ID); drop {
		if err := e.Storage.DeleteSlots(slotRange(r)); err != nil {
			slog.Error("drop the slots of a broken import", "slots", r.String(), "err", err)
		}
	}
}

// Get returns the client with id, or nil.
func (cs *Clients) Get(id int64) *Client {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.byID[id]
}

// Remove unregisters a client.
func (cs *Clients) Remove(c *Client) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	delete(cs.byID, c.ID)
}

// Count returns the number of connected clients.
func (cs *Clients) Count() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return len(cs.byID)
}

// List returns the connected clients ordered by id.
func (cs *Clients) List() []*Client {
	cs.mu.Lock()
	out := make([]*Client, 0, len(cs.byID))
	for _, c := range cs.byID {
		out = append(out, c)
	}
	cs.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
