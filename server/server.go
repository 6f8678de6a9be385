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
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/basaltdb/basalt/cluster"
	"github.com/basaltdb/basalt/commands"
	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/metrics"
	"github.com/basaltdb/basalt/namespace"
	"github.com/basaltdb/basalt/storage"
	"github.com/tidwall/redcon"
)

// Run starts a server with cfg and serves until SIGINT, SIGTERM or
// SHUTDOWN, then stops accepting, lets running commands finish and closes
// the storage. It returns an error when the server cannot start.
func Run(cfg *config.Config) error {
	closeLog, err := setupLogging(cfg)
	if err != nil {
		return err
	}
	defer closeLog()
	if len(cfg.BindAddrs()) == 0 {
		return errors.New("no bind address to listen on")
	}
	runtime.GOMAXPROCS(min(int(cfg.Workers.Get()), runtime.NumCPU()))
	st, err := storage.Open(cfg)
	if err != nil {
		return err
	}
	namespaces, err := namespace.Open(cfg, st)
	if err != nil {
		st.Close()
		return err
	}
	env := commands.NewEnv(st, cfg, namespaces)
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
	}
	// The metrics endpoint is up before the first client is accepted, so
	// that a server answering PING answers scrapes too.
	if port := cfg.MetricsPort.Get(); port > 0 {
		addr := net.JoinHostPort(cfg.BindAddrs()[0], strconv.FormatInt(port, 10))
		if s.metrics, err = metrics.Serve(addr, env); err != nil {
			return abort(err)
		}
	}
	if err := s.listen(); err != nil {
		return abort(err)
	}
	if err := writePidfile(cfg.Pidfile.Get()); err != nil {
		return abort(err)
	}
	stop := make(chan struct{})
	var once sync.Once
	env.Shutdown = func() { once.Do(func() { close(stop) }) }

	cluster := "disabled"
	if cfg.ClusterEnabled.Get() {
		cluster = "enabled"
	}
	slog.Info("basalt started", "version", commands.Version, "listen", s.addrs(), "dir", cfg.Dir.Get(),
		"cluster", cluster, "pid", os.Getpid(), "rocksdb", st.RocksDBVersion())
	for _, w := range cfg.Warnings {
		slog.Warn(w)
	}

	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
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
	env     *commands.Env
	cfg     *config.Config
	servers []*redcon.Server
	lns     []net.Listener
	conns   sync.WaitGroup  // one per open connection
	metrics *metrics.Server // nil when metrics-port is 0
}

func (s *Server) listen() error {
	port := strconv.Itoa(int(s.cfg.Port.Get()))
	for _, host := range s.cfg.BindAddrs() {
		addr := net.JoinHostPort(host, port)
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("cannot listen on %s: %w", addr, err)
		}
		srv := redcon.NewServerNetwork("tcp", addr, s.handle, s.accept, s.closed)
		srv.AcceptError = func(err error) { slog.Warn("accept failed", "err", err) }
		s.servers = append(s.servers, srv)
		s.lns = append(s.lns, ln)
		go srv.Serve(&listener{Listener: ln, s: s})
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
	for _, srv := range s.servers {
		srv.Close()
	}
	for _, ln := range s.lns {
		ln.Close()
	}
}

// listener wraps accepted connections in a frameConn.
type listener struct {
	net.Listener
	s *Server
}

func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	stats := &l.s.env.Stats
	fc := &frameConn{Conn: c, maxBulk: l.s.cfg.ProtoMaxBulkLen.Get, in: &stats.NetInputBytes, out: &stats.NetOutputBytes}
	fc.authed = func() bool { return true }
	return fc, nil
}

// session is the per-connection state kept in the redcon context.
type session struct {
	client *commands.Client
	// detached is set when the connection leaves redcon's loop for
	// serveDetached, which then owns its end.
	detached bool
}

func (s *Server) accept(conn redcon.Conn) bool {
	nc := conn.NetConn()
	fc := nc.(*frameConn)
	s.env.Stats.ConnectionsReceived.Add(1)
	cl := s.env.NewClient(conn.RemoteAddr(), nc.LocalAddr().String(), connFD(fc.Conn), func() { nc.Close() })
	if !s.env.Clients.Add(cl, int(s.cfg.MaxClients.Get())) {
		s.env.Stats.RejectedConnections.Add(1)
		nc.Write([]byte("-ERR max number of clients reached\r\n"))
		return false
	}
	fc.authed = func() bool { return cl.Authed }
	cl.WatchClose = closeWatcher(fc.Conn)
	s.conns.Add(1)
	conn.SetContext(&session{client: cl})
	return true
}

func (s *Server) closed(conn redcon.Conn, err error) {
	sess, ok := conn.Context().(*session)
	if !ok || sess.detached {
		return
	}
	s.env.Disconnected(sess.client)
	s.conns.Done()
}

func (s *Server) handle(conn redcon.Conn, cmd redcon.Command) {
	sess := conn.Context().(*session)
	cl := sess.client
	s.env.Dispatch(cl, cmd.Args)
	conn.WriteRaw(cl.W.Bytes())
	cl.W.Reset()
	// redcon sends the replies of a pipeline together once its last command
	// is handled: one WAL flush before then covers all of them.
	if cl.CloseAfterReply || len(conn.PeekPipeline()) == 0 {
		if err := s.env.Storage.Durable(cl.SyncTo); err != nil {
			slog.Error("replies withheld", "client", cl.ID, "err", err)
			conn.NetConn().Close()
			return
		}
	}
	if cl.CloseAfterReply {
		conn.Close()
		return
	}
	if cl.Pushes() != nil && !sess.detached {
		sess.detached = true
		go s.serveDetached(conn.Detach(), cl)
	}
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
			timeout := time.Duration(s.cfg.Timeout.Get()) * time.Second
			if timeout == 0 {
				continue
			}
			for _, cl := range s.env.Clients.List() {
				if now.Sub(cl.IdleSince()) > timeout {
					cl.Kill()
				}
			}
		}
	}
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
