package server

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net"
	"sort"
	"sync"
	"time"

	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/resp"
	"github.com/basaltdb/basalt/session"
)

// spillAt is the size at which a reply being produced is sent before it
// is complete: a reply of any size is held in bounded memory.
const spillAt = 64 << 10

var (
	errQueryBufferLimit = errors.New("server: client-query-buffer-limit reached")
	errClientsMemory    = errors.New("server: maxmemory-clients reached")
	errRepliesWithheld  = errors.New("server: the WAL could not hold what the replies reveal")
)

// conn serves one client connection. Its goroutine reads a request, runs
// it and reads the next; the replies of everything the client has sent so
// far go out in one write when the next read would have to wait, so a
// pipeline is answered in as few writes as it was sent in. A client that
// receives pushes (pub/sub, MONITOR) has one ordered output stream
// (session.Session.Pushing), which a pusher goroutine writes: its replies
// are queued there too, so the pusher is then the socket's only writer.
// conn is the session's session.Conn.
type conn struct {
	s     *Server
	nc    net.Conn
	w     *resp.Writer // the replies not sent yet
	sess  *session.Session
	ctx   *executor.Ctx // where the session's commands run
	rd    *resp.Reader
	watch func() (closed <-chan struct{}, stop func())

	// mu guards the pusher's start, which another goroutine may ask for
	// (WakePushes): pushDone, once the pusher runs, is closed to stop it
	// (it writes what is queued first); idle is set while the
	// connection's goroutine waits for a request, all its replies sent;
	// wantPushes when another goroutine pushed to it early; ended once
	// the pusher may no longer start.
	mu struct {
		sync.Mutex
		pushDone                chan struct{}
		idle, wantPushes, ended bool
	}
	pusher sync.WaitGroup
}

// serve runs a connection until it closes.
func (s *Server) serve(nc net.Conn) {
	defer s.conns.Done()
	defer nc.Close()
	c := &conn{s: s, nc: nc, w: resp.NewWriter(), watch: closeWatcher(nc)}
	c.w.SetOnError(executor.CountErrorReply)
	c.sess = s.env.Sessions.New(nc.RemoteAddr().String(), nc.LocalAddr().String(), connFD(nc), c.w, c)
	c.ctx = s.env.NewContext(c.sess)
	s.env.Stats.ConnectionsReceived.Add(1)
	if !s.env.Sessions.Add(c.sess, int(s.cfg.MaxClients.Get())) {
		s.env.Stats.RejectedConnections.Add(1)
		c.w.Error("ERR max number of clients reached")
		c.Flush()
		return
	}
	defer c.end()
	if !s.track(nc) {
		return // the server is stopping
	}
	defer s.untrack(nc)
	c.w.SetSpill(spillAt, s.env.Spill(c.ctx))
	c.rd = resp.NewReader(requestReader{c})
	c.rd.Budget = c.budget
	c.rd.BeforeRead = c.beforeRead
	defer c.rd.Close()
	c.loop()
}

// loop reads and runs requests until the connection fails or closes.
func (c *conn) loop() {
	for {
		c.rd.Authed = c.sess.Authed
		c.rd.MaxBulk = c.s.cfg.ProtoMaxBulkLen.Get()
		args, err := c.rd.ReadRequest()
		c.sess.SetQueryBuffer(int64(c.rd.Buffered()), c.rd.Held())
		if err != nil {
			c.readFailed(err)
			return
		}
		c.s.env.Dispatch(c.ctx, args)
		if take := c.sess.TakeOver; take != nil {
			// The connection now belongs to replication, which writes
			// its own bytes: the replies so far go out first.
			c.sess.TakeOver = nil
			c.Flush()
			c.stopPusher()
			take(c.nc)
			return
		}
		if c.sess.CloseAfterReply {
			c.Flush()
			c.stopPusher()
			return
		}
		if c.sess.Pushing() {
			c.startPusher()
		}
	}
}

// readFailed ends the connection after a failed read: a protocol error is
// replied, as Redis does, and a client over a memory limit logged.
func (c *conn) readFailed(err error) {
	var pe resp.ProtocolError
	switch {
	case errors.As(err, &pe):
		c.w.Error("ERR " + pe.Error())
		c.Flush()
		c.stopPusher() // it writes what is queued, the error last
	case errors.Is(err, errClientsMemory): // evictClients logged it
	case errors.Is(err, resp.ErrBudget):
		slog.Warn("closing client over its memory limit", "client", c.sess.ID, "addr", c.sess.Addr, "err", err)
	case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
	default:
		slog.Debug("client read failed", "client", c.sess.ID, "err", err)
		c.Flush()
	}
}

// budget admits the growth of the memory the connection's request reader
// holds: client-query-buffer-limit bounds one client; past
// maxmemory-clients for all of them together (0: no bound), the clients
// holding the most are closed, as Redis evicts them, until the rest fit.
func (c *conn) budget(delta int64) error {
	if delta > 0 && c.rd.Held()+delta > c.s.cfg.ClientLimits.QueryBufferLimit.Get() {
		return errQueryBufferLimit
	}
	total := c.s.clientMemory.Add(delta)
	if delta < 0 {
		c.s.freed.Add(-delta)
	}
	c.sess.SetQueryBuffer(int64(c.rd.Buffered()), c.rd.Held()+delta)
	if limit := c.s.cfg.ClientLimits.MaxMemoryClients.Get(); delta > 0 && limit > 0 && total > limit {
		if c.s.evictClients(total-limit, c.sess) {
			c.s.clientMemory.Add(-delta)
			c.sess.SetQueryBuffer(int64(c.rd.Buffered()), c.rd.Held())
			return errClientsMemory
		}
	}
	return nil
}

// evictClients closes the clients holding the most request memory until
// excess bytes are let go of, sparing those with CLIENT NO-EVICT on. It
// reports whether self is among them; the others see their connection
// closed.
func (s *Server) evictClients(excess int64, self *session.Session) (evictedSelf bool) {
	s.evictMu.Lock()
	defer s.evictMu.Unlock()
	clients := s.env.Sessions.List()
	sort.Slice(clients, func(i, j int) bool { return clients[i].QueryHeld() > clients[j].QueryHeld() })
	for _, cl := range clients {
		if excess <= 0 {
			break
		}
		if cl.NoEvict() || cl.QueryHeld() == 0 {
			continue
		}
		excess -= cl.QueryHeld()
		s.env.Stats.EvictedClients.Add(1)
		slog.Warn("evicting client over maxmemory-clients", "client", cl.ID, "addr", cl.Addr, "bytes", cl.QueryHeld())
		if cl == self {
			evictedSelf = true
			continue
		}
		cl.Kill()
	}
	return evictedSelf
}

// Flush sends the replies the writer holds, once the WAL holds every
// write they reveal; to the push stream when there is one.
func (c *conn) Flush() error {
	if c.w.Len() == 0 {
		return nil
	}
	if !c.durable(c.sess.SyncTo) {
		return errRepliesWithheld
	}
	var err error
	if c.sess.Pushing() {
		c.sess.PushReply(bytes.Clone(c.w.Bytes()))
	} else {
		err = c.writeReplies(c.w.Bytes())
	}
	c.w.Reset()
	return err
}

// writeReplies writes replies held for the client, within the normal
// class's client-output-buffer-limit: a write that blocks past its soft
// seconds fails, and the connection closes.
func (c *conn) writeReplies(b []byte) error {
	deadline, err := c.sess.SendingReplies(int64(len(b)))
	if err != nil {
		return err
	}
	c.sess.SetReplyHeld(len(b))
	defer c.sess.SetReplyHeld(0)
	if deadline.IsZero() {
		return c.write(b)
	}
	c.nc.SetWriteDeadline(deadline)
	defer c.nc.SetWriteDeadline(time.Time{})
	return c.write(b)
}

// QueueReplies moves the replies the writer holds into the push stream,
// once the WAL holds what they reveal, so that what is pushed next comes
// after them. It writes nothing to the socket: callers may hold locks.
func (c *conn) QueueReplies() {
	if c.w.Len() == 0 || !c.durable(c.s.env.Storage.LatestSequence()) {
		return
	}
	c.sess.PushReply(bytes.Clone(c.w.Bytes()))
	c.w.Reset()
}

// durable returns once the WAL holds every write up to sequence number
// seq. When it cannot, the replies held are dropped and the connection
// closed: nothing they reveal may be acknowledged.
func (c *conn) durable(seq uint64) bool {
	err := c.s.env.Storage.Durable(seq)
	if err == nil {
		return true
	}
	slog.Error("replies withheld", "client", c.sess.ID, "err", err)
	c.w.Reset()
	c.sess.Kill()
	return false
}

// WatchClose watches for the peer closing the connection while the
// session waits in a blocking command (closewatch.go).
func (c *conn) WatchClose() (closed <-chan struct{}, stop func()) {
	if c.watch == nil {
		return nil, func() {}
	}
	return c.watch()
}

// Close closes the connection; the session's goroutine sees its next read
// fail. Safe from any goroutine.
func (c *conn) Close() { c.nc.Close() }

// write sends b. Only one goroutine writes at a time: the connection's
// until the pusher starts, the pusher from then on.
func (c *conn) write(b []byte) error {
	n, err := c.nc.Write(b)
	c.s.env.Stats.NetOutputBytes.Add(int64(n))
	return err
}

// beforeRead sends the replies before the connection waits for more
// requests; the push stream another goroutine asked for starts then,
// behind them.
func (c *conn) beforeRead() error {
	if err := c.Flush(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.wantPushes {
		c.startPushesLocked()
	}
	c.mu.idle = true
	return nil
}

// WakePushes implements session.Conn. While the connection's goroutine
// waits for a request, it neither writes nor touches its writer, which is
// empty: the push stream starts at once.
func (c *conn) WakePushes() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mu.wantPushes = true
	if c.mu.idle {
		c.startPushesLocked()
	}
}

// startPushesLocked starts the push stream another goroutine asked for.
func (c *conn) startPushesLocked() {
	c.mu.wantPushes = false
	if c.mu.ended {
		return
	}
	c.sess.StartPushes()
	c.startPusherLocked()
}

// startPusher starts the goroutine that writes the client's push stream,
// once it first subscribes, monitors or tracks keys.
func (c *conn) startPusher() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.startPusherLocked()
}

func (c *conn) startPusherLocked() {
	if c.mu.pushDone != nil || c.mu.ended {
		return
	}
	ready := c.sess.PushReady()
	done := make(chan struct{})
	c.mu.pushDone = done
	c.pusher.Add(1)
	go func() {
		defer c.pusher.Done()
		var batch [][]byte
		for {
			select {
			case <-ready:
				if !c.writePushes(&batch) {
					c.sess.Kill()
					return
				}
			case <-done:
				c.writePushes(&batch)
				return
			}
		}
	}()
}

// writePushes writes everything queued in the push stream with one
// vectored write; batch is reused between calls. It reports whether the
// write succeeded.
func (c *conn) writePushes(batch *[][]byte) bool {
	*batch = c.sess.TakePushes((*batch)[:0])
	size := 0
	for _, b := range *batch {
		size += len(b)
	}
	// The messages are shared between receivers: WriteTo only moves the
	// batch's own slice headers over them.
	bufs := net.Buffers(*batch)
	n, err := bufs.WriteTo(c.nc)
	c.s.env.Stats.NetOutputBytes.Add(n)
	c.sess.Delivered(len(*batch), size)
	clear(*batch)
	return err == nil
}

// stopPusher stops the pusher, once it wrote what is queued, for good:
// the connection ends or is handed over.
func (c *conn) stopPusher() {
	c.mu.Lock()
	done := c.mu.pushDone
	c.mu.pushDone, c.mu.ended = nil, true
	c.mu.Unlock()
	if done != nil {
		close(done)
		c.pusher.Wait()
	}
}

// end unregisters the client; a pusher is stopped first, after the socket
// is closed, which unblocks a push to a client that does not read.
func (c *conn) end() {
	c.nc.Close()
	c.stopPusher()
	c.s.freed.Add(c.sess.PendingOutput())
	c.s.env.Disconnected(c.sess)
}

// requestReader reads the client's requests for the request reader,
// counting the bytes for INFO's total_net_input_bytes; the connection is
// no longer idle once a read returns.
type requestReader struct{ c *conn }

func (r requestReader) Read(p []byte) (int, error) {
	c := r.c
	n, err := c.nc.Read(p)
	c.mu.Lock()
	c.mu.idle = false
	c.mu.Unlock()
	c.s.env.Stats.NetInputBytes.Add(int64(n))
	return n, err
}

// acceptLoop accepts connections on ln until it is closed.
func (s *Server) acceptLoop(ln net.Listener) {
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors and the like: wait, as net/http
			// does, rather than spin.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			slog.Warn("accept failed", "err", err, "retry in", backoff)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		s.conns.Add(1)
		go s.serve(nc)
	}
}
