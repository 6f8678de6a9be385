package session

import (
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/replication"
	"github.com/basaltdb/basalt/reply"
)

// Writer is the connection's reply writer: a reply.Sink whose protocol
// the session switches (HELLO, RESET). The server renders what it holds.
type Writer interface {
	reply.Sink
	SetProtocol(p int)
}

// Conn is what a session needs of its connection; the server implements
// it. Every method but Close and WakePushes is called by the connection's
// own goroutine (or by whoever it lent the session to, see Blocking).
type Conn interface {
	// Flush sends the replies the writer holds, once the WAL holds every
	// write they reveal (Session.SyncTo).
	Flush() error
	// QueueReplies moves the replies the writer holds into the session's
	// push stream, once the WAL holds what they reveal, writing nothing
	// to the socket: callers may hold locks.
	QueueReplies()
	// WatchClose watches for the peer closing the connection until stop
	// is called.
	WatchClose() (closed <-chan struct{}, stop func())
	// Close closes the connection; it is safe from any goroutine.
	Close()
	// WakePushes, safe from any goroutine, has the connection start
	// writing the session's push stream (Session.StartPushes): at once
	// when it waits for a request, its replies all sent, else before it
	// next waits, so that nothing pushed lands inside a reply.
	WakePushes()
}

// Session is the state of one connection. Fields without a lock or an
// atomic are owned by the connection's goroutine; the atomics and mu
// guard what other connections read (CLIENT LIST, CLIENT KILL, PUBLISH).
type Session struct {
	ID      int64
	Addr    string // remote address
	LAddr   string // local address
	FD      int
	Created time.Time
	W       Writer
	reg     *Registry
	conn    Conn

	// Namespace is the connection's namespace, for its own goroutine;
	// other goroutines read NamespaceName, since AUTH and RESET change it.
	Namespace string
	sharedNS  atomic.Pointer[string]
	Authed    bool
	Admin     bool
	// CloseAfterReply makes the server close the connection once the
	// current replies are sent (QUIT, CLIENT KILL of itself).
	CloseAfterReply bool
	// TakeOver, set by a handler, hands the connection over once the
	// replies so far are sent: the server calls it with the socket and
	// closes the socket when it returns (PSYNC's feed, _fetch_file).
	TakeOver func(nc net.Conn)
	// Announced is what the connection's REPLCONF said of the replica
	// behind it; replica is set once the connection feeds one.
	Announced replication.Announced
	replica   atomic.Bool
	// ReadOnly is set by READONLY: in cluster mode a slave then serves
	// reads of its master's slots. Importing is set on the connection a
	// migrating node imports slots through. Asking is set by ASKING for
	// the next command only.
	ReadOnly, Importing, Asking bool
	// SyncTo is the sequence number the WAL must reach before the
	// pending replies may be sent: the latest one when the last command
	// finished, which covers everything that command wrote or saw.
	SyncTo uint64
	// Replies is CLIENT REPLY's state.
	Replies ReplyMode

	Tx      *Tx          // the open MULTI, nil outside one
	watched []watchedKey // the WATCHed keys
	waiter  *Waiter      // set while a blocking command waits
	// Blocked is set by a blocking command that must wait now: the
	// dispatcher then waits on Waiter.
	Blocked bool
	subs    subscriptions
	track   tracking // CLIENT TRACKING (tracking.go)
	out     pushStream
	monitor atomic.Bool

	noEvict                  atomic.Bool
	queryBuffered, queryHeld atomic.Int64
	queryPeak                atomic.Int64 // the most queryHeld has been
	multiMem                 atomic.Int64 // bytes of the MULTI queue
	multiLen                 atomic.Int64 // commands queued, -1 outside MULTI
	replyHeld                atomic.Int64 // replies being written now (obl)
	blockedNow               atomic.Bool  // a blocking command waits (flag b)
	lastActive               atomic.Int64 // Unix ms of the last command
	lastCmd                  atomic.Pointer[string]
	proto                    atomic.Int32 // mirrors W's protocol for other goroutines
	killed                   atomic.Bool

	mu struct {
		sync.Mutex
		name, libName, libVer string
	}
}

// New makes the session of a new connection from addr to laddr, which
// answers through w and conn. It is not registered yet (Registry.Add).
func (r *Registry) New(addr, laddr string, fd int, w Writer, conn Conn) *Session {
	s := &Session{
		ID:        r.nextID.Add(1),
		Addr:      addr,
		LAddr:     laddr,
		FD:        fd,
		Created:   time.Now(),
		W:         w,
		reg:       r,
		conn:      conn,
		Namespace: metadata.DefaultNamespace,
		Admin:     true,
		Authed:    r.cfg.RequirePass.Get() == "",
	}
	w.SetProtocol(2)
	s.proto.Store(2)
	// A copy: pointing at s.Namespace would let SetNamespace's write race
	// with another goroutine's read through the pointer.
	ns := s.Namespace
	s.sharedNS.Store(&ns)
	s.out.ready = make(chan struct{}, 1)
	s.multiLen.Store(-1)
	s.lastActive.Store(s.Created.UnixMilli())
	return s
}

// SetNamespace puts the connection in namespace ns.
func (s *Session) SetNamespace(ns string) {
	s.Namespace = ns
	s.sharedNS.Store(&ns)
}

// SelectNamespace makes ns the namespace of the connection's keys (SELECT
// of a database, which redis-databases keeps as namespace db<n>), leaving
// its tenant, NamespaceName, as AUTH made it: pub/sub and CLIENT LIST
// stay the tenant's, as Redis's pub/sub ignores databases.
func (s *Session) SelectNamespace(ns string) { s.Namespace = ns }

// NamespaceName returns the connection's tenant, the namespace AUTH
// put it in, from any goroutine.
func (s *Session) NamespaceName() string { return *s.sharedNS.Load() }

// SetProtocol switches the connection to RESP2 or RESP3.
func (s *Session) SetProtocol(p int) {
	s.W.SetProtocol(p)
	s.proto.Store(int32(p))
}

// Protocol returns the connection's protocol from any goroutine.
func (s *Session) Protocol() int { return int(s.proto.Load()) }

// Name returns the name set with CLIENT SETNAME.
func (s *Session) Name() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mu.name
}

// SetName sets the connection's name (CLIENT SETNAME, HELLO SETNAME).
func (s *Session) SetName(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.name = name
}

// SetLibrary sets what CLIENT SETINFO says of the client library; an
// empty value leaves that part as it is.
func (s *Session) SetLibrary(name, version string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if name != "" {
		s.mu.libName = name
	}
	if version != "" {
		s.mu.libVer = version
	}
}

// Ran records that the connection runs the command named *name now
// (CLIENT LIST's cmd and idle); name must stay valid.
func (s *Session) Ran(name *string, at time.Time) {
	s.lastActive.Store(at.UnixMilli())
	s.lastCmd.Store(name)
}

// IdleSince returns when the connection last ran a command.
func (s *Session) IdleSince() time.Time { return time.UnixMilli(s.lastActive.Load()) }

// FeedReplica marks the connection as one feeding a replica (CLIENT
// LIST's S flag; the idle timeout spares it).
func (s *Session) FeedReplica() { s.replica.Store(true) }

// FeedsReplica reports whether the connection feeds a replica.
func (s *Session) FeedsReplica() bool { return s.replica.Load() }

// SetNoEvict sets CLIENT NO-EVICT: maxmemory-clients spares the client.
func (s *Session) SetNoEvict(on bool) { s.noEvict.Store(on) }

// NoEvict reports whether CLIENT NO-EVICT is on.
func (s *Session) NoEvict() bool { return s.noEvict.Load() }

// Flush sends the replies held so far (before the connection waits).
func (s *Session) Flush() error { return s.conn.Flush() }

// Kill closes the connection, once, from any goroutine.
func (s *Session) Kill() {
	if s.killed.CompareAndSwap(false, true) {
		s.conn.Close()
	}
}

// Kind is the client's type as CLIENT LIST TYPE and CLIENT KILL TYPE name
// it: replica while it feeds one, pubsub while it is subscribed, normal
// otherwise (MONITOR included, as in Redis).
func (s *Session) Kind() string {
	switch {
	case s.replica.Load():
		return "replica"
	case s.subs.any():
		return "pubsub"
	}
	return "normal"
}

// ParseKind parses a client type of CLIENT LIST and CLIENT KILL.
func ParseKind(word string) (string, bool) {
	switch t := strings.ToLower(word); t {
	case "normal", "master", "pubsub":
		return t, true
	case "replica", "slave":
		return "replica", true
	}
	return "", false
}

// flags renders CLIENT LIST's flags as Redis does: S a replica being fed,
// O monitor, P subscribed, x in MULTI, b blocked, t tracking (R its
// redirection broken, B in BCAST mode), e no-evict, N none.
func (s *Session) flags() string {
	var f []byte
	if s.replica.Load() {
		f = append(f, 'S')
	}
	if s.monitor.Load() {
		f = append(f, 'O')
	}
	if s.subs.any() {
		f = append(f, 'P')
	}
	if s.multiLen.Load() >= 0 {
		f = append(f, 'x')
	}
	if s.blockedNow.Load() {
		f = append(f, 'b')
	}
	f = s.trackingFlags(f)
	if s.noEvict.Load() {
		f = append(f, 'e')
	}
	if len(f) == 0 {
		return "N"
	}
	return string(f)
}

// Describe renders the session as a CLIENT LIST line; argvMem is the size
// of the arguments of the command it runs now (only the caller's own
// session runs one while CLIENT LIST reads the others).
func (s *Session) Describe(now time.Time, argvMem int64) string {
	s.mu.Lock()
	name, libName, libVer := s.mu.name, s.mu.libName, s.mu.libVer
	s.mu.Unlock()
	cmd := "NULL"
	if last := s.lastCmd.Load(); last != nil {
		cmd = *last
	}
	var b strings.Builder
	field := func(k, v string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(v)
	}
	itoa := func(n int64) string { return strconv.FormatInt(n, 10) }
	field("id", itoa(s.ID))
	field("addr", s.Addr)
	field("laddr", s.LAddr)
	field("fd", itoa(int64(s.FD)))
	field("name", name)
	field("age", itoa(int64(now.Sub(s.Created).Seconds())))
	field("idle", itoa(int64(now.Sub(s.IdleSince()).Seconds())))
	field("flags", s.flags())
	field("db", "0")
	field("sub", itoa(s.subs.n[KindChannel].Load()))
	field("psub", itoa(s.subs.n[KindPattern].Load()))
	field("ssub", itoa(s.subs.n[KindShard].Load()))
	field("multi", itoa(s.multiLen.Load()))
	qbuf, held, multiMem, omem := s.queryBuffered.Load(), s.queryHeld.Load(), s.multiMem.Load(), s.OutputMemory()
	field("qbuf", itoa(qbuf))
	field("qbuf-free", itoa(max(held-qbuf, 0)))
	field("argv-mem", itoa(argvMem))
	field("multi-mem", itoa(multiMem))
	field("rbs", itoa(held))
	field("rbp", itoa(s.queryPeak.Load()))
	field("obl", itoa(s.replyHeld.Load()))
	field("oll", itoa(s.out.count.Load()))
	field("omem", itoa(omem))
	field("tot-mem", itoa(held+multiMem+omem))
	field("events", "r")
	field("cmd", cmd)
	field("user", "default")
	field("redir", itoa(s.trackingRedirect()))
	field("resp", itoa(int64(s.proto.Load())))
	field("lib-name", libName)
	field("lib-ver", libVer)
	field("namespace", s.NamespaceName())
	b.WriteByte('\n')
	return b.String()
}

// sessions is the set of connected sessions by id.
type sessions struct {
	nextID atomic.Int64
	mu     sync.Mutex
	byID   map[int64]*Session
}

// Add registers s unless max sessions are already connected.
func (r *Registry) Add(s *Session, max int) bool {
	r.sessions.mu.Lock()
	defer r.sessions.mu.Unlock()
	if len(r.sessions.byID) >= max {
		return false
	}
	r.sessions.byID[s.ID] = s
	return true
}

// Get returns the session with id, or nil.
func (r *Registry) Get(id int64) *Session {
	r.sessions.mu.Lock()
	defer r.sessions.mu.Unlock()
	return r.sessions.byID[id]
}

// Count returns the number of connected sessions.
func (r *Registry) Count() int {
	r.sessions.mu.Lock()
	defer r.sessions.mu.Unlock()
	return len(r.sessions.byID)
}

// List returns the connected sessions ordered by id.
func (r *Registry) List() []*Session {
	r.sessions.mu.Lock()
	out := make([]*Session, 0, len(r.sessions.byID))
	for _, s := range r.sessions.byID {
		out = append(out, s)
	}
	r.sessions.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Disconnected forgets a session whose connection closed: it leaves the
// registry, its watches, subscriptions and MONITOR.
func (r *Registry) Disconnected(s *Session) {
	r.sessions.mu.Lock()
	delete(r.sessions.byID, s.ID)
	r.sessions.mu.Unlock()
	r.Monitors.Stop(s)
	r.Watches.Unwatch(s)
	r.PubSub.UnsubscribeAll(s)
	s.DisableTracking()
}
