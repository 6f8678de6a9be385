package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/basaltdb/basalt/cluster"
	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/metrics"
	"github.com/basaltdb/basalt/namespace"
	"github.com/basaltdb/basalt/resp"
	"github.com/basaltdb/basalt/session"
	"github.com/basaltdb/basalt/storage"
)

// Run starts a server with cfg and serves until SIGINT, SIGTERM or
// SHUTDOWN, then stops accepting, lets running commands finish and closes
// the storage. It returns an error when the server cannot start.
func Run(cfg *config.Config) error {
	closeLog, toFiles, err := setupLogging(cfg)
	if err != nil {
		return err
	}
	defer closeLog()
	// The warnings of loading went to standard output; a log file gets
	// them too.
	if toFiles {
		for _, w := range cfg.Warnings {
			slog.Warn(w)
		}
	}
	if len(cfg.BindAddrs()) == 0 && cfg.UnixSocket.Get() == "" {
		return errors.New("no bind address to listen on")
	}
	// workers bounds the goroutines that run at once, live as Kvrocks
	// adds and removes worker threads.
	setWorkers := func() { runtime.GOMAXPROCS(min(int(cfg.Workers.Get()), runtime.NumCPU())) }
	setWorkers()
	cfg.Watch("workers", setWorkers)
	st, err := storage.Open(cfg)
	if err != nil {
		return err
	}
	namespaces, err := namespace.Open(cfg, st)
	if err != nil {
		st.Close()
		return err
	}
	env := executor.NewEnv(st, cfg, namespaces, session.NewRegistry(cfg, resp.Render))
	s := &Server{env: env, cfg: cfg}
	// abort undoes what was started so far when start-up fails.
	abort := func(err error) error {
		s.closeListeners()
		env.Close()
		st.Close()
		return err
	}
	if cfg.ClusterEnabled.Get() {
		nodesFile := ""
		if cfg.PersistClusterNodes.Get() {
			nodesFile = filepath.Join(cfg.Dir.Get(), "nodes.conf")
		}
		if env.Cluster, err = cluster.Open(nodesFile, cfg.BindAddrs(), int(cfg.Port.Get())); err != nil {
			return abort(err)
		}
		if err := env.DropUnfinishedImport(); err != nil {
			return abort(err)
		}
	}
	// The metrics endpoint is up before the first client is accepted, so
	// that a server answering PING answers scrapes too.
	if err := s.serveMetrics(env); err != nil {
		if cfg.Explicit("metrics-port") {
			return abort(err)
		}
		// The default port: a kvrocks.conf, which has no metrics-port, or
		// a second server on the host must start all the same.
		slog.Warn("metrics endpoint off: set metrics-port to serve it", "err", err)
	}
	// SIGTERM and SIGINT shut down cleanly from the moment a client can
	// be answered: one sent right after a reply (a test's, an
	// orchestrator's) would otherwise kill the process before the
	// handler below was installed.
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
	if err := s.listen(); err != nil {
		return abort(err)
	}
	if err := writePidfile(cfg.Pidfile.Get()); err != nil {
		return abort(err)
	}
	// A replica follows its master once it serves: the slaveof setting,
	// or in cluster mode the topology nodes.conf kept.
	if err := env.Repl.Start(); err != nil {
		return abort(err)
	}
	env.FollowTopology()
	env.Repl.StartHistory()
	stop := make(chan struct{})
	var once sync.Once
	env.Shutdown = func() { once.Do(func() { close(stop) }) }

	cluster := "disabled"
	if cfg.ClusterEnabled.Get() {
		cluster = "enabled"
	}
	slog.Info("basalt started", "version", executor.Version, "listen", s.addrs(), "dir", cfg.Dir.Get(),
		"cluster", cluster, "pid", os.Getpid(), "rocksdb", st.RocksDBVersion())

	go s.idleLoop(stop)
	var crons sync.WaitGroup
	crons.Add(1)
	go func() {
		defer crons.Done()
		s.cronLoop(stop)
	}()
	select {
	case <-ctx.Done():
		slog.Info("signal received, shutting down")
	case <-stop:
		slog.Info("SHUTDOWN received, shutting down")
	}
	env.Shutdown()
	env.Repl.Close()
	st.StopCompactions()
	s.closeListeners()
	s.conns.Wait()
	crons.Wait()
	env.Close()
	st.Close()
	if p := cfg.Pidfile.Get(); p != "" {
		os.Remove(p)
	}
	slog.Info("basalt stopped")
	return nil
}

// Server is a running set of listeners over one Env.
type Server struct {
	env     *executor.Env
	cfg     *config.Config
	lns     []net.Listener
	conns   sync.WaitGroup  // one per open connection
	metrics *metrics.Server // nil when the endpoint is off
	// clientMemory is what the request readers of all connections hold,
	// bounded by maxmemory-clients.
	clientMemory atomic.Int64
	// freed counts the bytes connections let go of since the memory was
	// last returned to the system.
	freed atomic.Int64
	// evictMu makes one connection at a time choose whom
	// maxmemory-clients evicts.
	evictMu sync.Mutex

	mu struct {
		sync.Mutex
		open    map[net.Conn]struct{}
		stopped bool
	}
}

func (s *Server) listen() error {
	port := strconv.Itoa(int(s.cfg.Port.Get()))
	for _, host := range s.cfg.BindAddrs() {
		addr := net.JoinHostPort(host, port)
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("cannot listen on %s: %w", addr, err)
		}
		s.lns = append(s.lns, ln)
	}
	if path := s.cfg.UnixSocket.Get(); path != "" {
		ln, err := listenUnix(path, os.FileMode(s.cfg.UnixSocketPerm.Get()))
		if err != nil {
			return err
		}
		s.lns = append(s.lns, ln)
	}
	for _, ln := range s.lns {
		go s.acceptLoop(ln)
	}
	return nil
}

func (s *Server) addrs() []string {
	out := make([]string, len(s.lns))
	for i, ln := range s.lns {
		out[i] = ln.Addr().String()
	}
	return out
}

// closeListeners stops accepting and closes every connection.
func (s *Server) closeListeners() {
	if s.metrics != nil {
		s.metrics.Close()
	}
	for _, ln := range s.lns {
		ln.Close()
	}
	s.mu.Lock()
	s.mu.stopped = true
	for nc := range s.mu.open {
		nc.Close()
	}
	s.mu.Unlock()
}

// track registers an open connection for closeListeners; false when the
// server is stopping already.
func (s *Server) track(nc net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.stopped {
		return false
	}
	if s.mu.open == nil {
		s.mu.open = map[net.Conn]struct{}{}
	}
	s.mu.open[nc] = struct{}{}
	return true
}

func (s *Server) untrack(nc net.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.mu.open, nc)
}

// idleLoop closes clients idle for longer than the timeout setting, which
// may change at any time.
func (s *Server) idleLoop(stop <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			s.returnFreedMemory()
			timeout := time.Duration(s.cfg.Timeout.Get()) * time.Second
			if timeout == 0 {
				continue
			}
			for _, cl := range s.env.Sessions.List() {
				if now.Sub(cl.IdleSince()) > timeout && !cl.FeedsReplica() {
					cl.Kill()
				}
			}
		}
	}
}

// freedReturnThreshold is how much client memory must have been let go
// before it is handed back to the system at once.
const freedReturnThreshold = 64 << 20

// returnFreedMemory gives the system back the memory that connections
// let go of, once there is much of it: left to itself the Go runtime
// keeps it until allocation resumes, so a burst of large requests or
// backlogs would leave the process big.
func (s *Server) returnFreedMemory() {
	if s.freed.Load() < freedReturnThreshold {
		return
	}
	s.freed.Store(0)
	debug.FreeOSMemory()
}

// connFD returns the file descriptor of a TCP connection, -1 if unknown.
func connFD(c net.Conn) int {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return -1
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	raw.Control(func(f uintptr) { fd = int(f) })
	return fd
}

func writePidfile(path string) error {
	if path == "" {
		return nil
	}
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return fmt.Errorf("cannot write pidfile: %w", err)
	}
	return nil
}

// listenUnix listens on the unix socket path with permissions perm
// (unixsocketperm). A socket file left by a server that did not stop
// cleanly is replaced; any other file there is an error.
func listenUnix(path string, perm os.FileMode) (net.Listener, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSocket != 0 {
		os.Remove(path)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on unix socket %s: %w", path, err)
	}
	if err := os.Chmod(path, perm.Perm()); err != nil {
		ln.Close()
		return nil, fmt.Errorf("cannot set the permissions of unix socket %s: %w", path, err)
	}
	return unixListener{ln, path + ":0"}, nil
}

// unixListener gives its connections the address Kvrocks shows for a
// unix socket client, "<path>:0", as their remote address (the peer of a
// unix socket has none).
type unixListener struct {
	net.Listener
	addr string
}

func (l unixListener) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return unixConn{nc.(*net.UnixConn), unixAddr(l.addr)}, nil
}

// unixConn is an accepted unix socket connection with unixListener's
// remote address.
type unixConn struct {
	*net.UnixConn
	remote unixAddr
}

func (c unixConn) RemoteAddr() net.Addr { return c.remote }

// unixAddr is a remote address shown as it is.
type unixAddr string

func (a unixAddr) Network() string { return "unix" }
func (a unixAddr) String() string  { return string(a) }

// serveMetrics starts the /metrics endpoint on metrics-port of the first
// bind address, unless the port is 0.
func (s *Server) serveMetrics(env *executor.Env) error {
	port := s.cfg.MetricsPort.Get()
	if port == 0 {
		return nil
	}
	if len(s.cfg.BindAddrs()) == 0 {
		return errors.New("metrics-port: no bind address to listen on (bind is empty and unixsocket is set)")
	}
	var err error
	s.metrics, err = metrics.Serve(net.JoinHostPort(s.cfg.BindAddrs()[0], strconv.FormatInt(port, 10)), env)
	return err
}
