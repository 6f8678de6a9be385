package session

import (
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/reply"
)

// The memory a client makes the server hold: its request being read (the
// server's reader reports it), its replies, and what is pushed to it.
// Limits follow Redis 7: client-query-buffer-limit and maxmemory-clients
// for requests, client-output-buffer-limit for output.
//
// A client that receives pushes (pub/sub messages, MONITOR lines) has one
// ordered output stream: what is pushed to it, from any goroutine, and its
// own replies, which its connection queues behind them instead of writing
// them (PushReply). The server's pusher goroutine writes the stream and is
// then the socket's only writer, so a subscription's confirmation, queued
// while the subscription is registered, reaches the client before any
// message of the channel, and replies keep the order the client sent its
// commands in. Publishers never wait: a client whose unsent output passes
// its class's client-output-buffer-limit is disconnected.

// ArgOverhead is the bookkeeping counted per queued argument.
const ArgOverhead = 24

// maxHeldReply bounds a reply that cannot be sent while it is produced
// when the normal class has no hard limit.
const maxHeldReply = 1 << 30

// ErrReplyTooBig is returned by HoldReply for a reply past the output
// buffer limit: the client is being disconnected.
var ErrReplyTooBig = errors.New("session: reply passes the output buffer limit")

// pushStream is the output stream of a client that receives pushes.
type pushStream struct {
	on    atomic.Bool   // set once the client receives pushes
	ready chan struct{} // signalled when the queue becomes non-empty
	mu    struct {
		sync.Mutex
		queue [][]byte
		// early holds what another goroutine pushed to a session that
		// did not receive pushes yet (PushStarting): it joins the queue
		// behind the replies the session was given before.
		early [][]byte
	}
	bytes, count atomic.Int64 // queued and not yet written
	// overSoft is when the unsent output last went above the soft limit
	// (Unix ns), 0 while it is below it.
	overSoft atomic.Int64
}

// StartPushes makes the session one that messages are pushed to, with
// what it was answered so far first in its stream, then what was pushed
// to it early. It is called by the session's goroutine, or by another
// while the connection waits for a request, its replies all sent
// (Conn.WakePushes).
func (s *Session) StartPushes() {
	s.conn.QueueReplies()
	s.out.mu.Lock()
	s.out.mu.queue = append(s.out.mu.queue, s.out.mu.early...)
	clear(s.out.mu.early)
	s.out.mu.early = nil
	s.out.on.Store(true)
	s.out.mu.Unlock()
	s.signalPushes()
}

// Pushing reports whether the session's output goes through its push
// stream: the server then writes it from PushReady and TakePushes.
func (s *Session) Pushing() bool { return s.out.on.Load() }

// PushReady is signalled when the push stream has output to write.
func (s *Session) PushReady() <-chan struct{} { return s.out.ready }

// TakePushes appends the queued output to dst, emptying the queue. The
// server calls Delivered once it wrote it.
func (s *Session) TakePushes(dst [][]byte) [][]byte {
	s.out.mu.Lock()
	defer s.out.mu.Unlock()
	dst = append(dst, s.out.mu.queue...)
	clear(s.out.mu.queue)
	s.out.mu.queue = s.out.mu.queue[:0]
	return dst
}

// Delivered accounts n pushed items of size bytes in all as written.
func (s *Session) Delivered(n, size int) {
	s.out.bytes.Add(-int64(size))
	s.out.count.Add(-int64(n))
}

// PendingOutput returns the bytes of the push stream not written yet.
func (s *Session) PendingOutput() int64 { return s.out.bytes.Load() }

// PushReply queues rendered replies behind what was pushed to the session
// before; reply must not be modified afterwards.
func (s *Session) PushReply(reply []byte) { s.push(reply) }

// Push renders what write writes in the session's protocol and queues it.
func (s *Session) Push(write func(reply.Sink)) {
	s.push(s.reg.render(s.Protocol(), write))
}

// PushStarting is Push to a session that may not receive pushes yet, from
// any goroutine: the message then waits until the connection starts
// writing them (at once if it waits for a request, else before it next
// does, see Conn.WakePushes), after the replies it was given so far.
func (s *Session) PushStarting(write func(reply.Sink)) {
	msg := s.reg.render(s.Protocol(), write)
	if !s.admit(msg) {
		return
	}
	s.out.mu.Lock()
	started := s.out.on.Load()
	if started {
		s.out.mu.queue = append(s.out.mu.queue, msg)
	} else {
		s.out.mu.early = append(s.out.mu.early, msg)
	}
	s.out.mu.Unlock()
	if started {
		s.signalPushes()
		return
	}
	s.conn.WakePushes()
}

// push queues msg for the session without blocking, or disconnects a
// client that does not read fast enough.
func (s *Session) push(msg []byte) {
	if !s.admit(msg) {
		return
	}
	s.out.mu.Lock()
	s.out.mu.queue = append(s.out.mu.queue, msg)
	s.out.mu.Unlock()
	s.signalPushes()
}

// admit accounts msg as output held for the session, or disconnects a
// client that does not read fast enough and reports false.
func (s *Session) admit(msg []byte) bool {
	class := config.ClassPubSub
	if s.monitor.Load() {
		class = config.ClassNormal // as Redis classes a MONITOR client
	}
	if !s.outputAllowed(class, s.out.bytes.Add(int64(len(msg)))) {
		s.out.bytes.Add(-int64(len(msg)))
		slog.Warn("closing client over its output buffer limit", "client", s.ID, "addr", s.Addr, "class", config.ClassName(class), "bytes", s.out.bytes.Load())
		s.Kill()
		return false
	}
	s.out.count.Add(1)
	return true
}

// signalPushes tells the writer of the push stream that it has output.
func (s *Session) signalPushes() {
	select {
	case s.out.ready <- struct{}{}:
	default: // already signalled
	}
}

// outputAllowed reports whether held bytes of unsent output stay within
// the class's client-output-buffer-limit: below hard (or maxHeldReply when
// it is 0), and not above soft for longer than soft-seconds.
func (s *Session) outputAllowed(class int, held int64) bool {
	limit := s.reg.cfg.ClientLimits.OutputBuffer.Get(class)
	hard := limit.Hard
	if hard == 0 {
		hard = maxHeldReply
	}
	if held > hard {
		return false
	}
	if limit.Soft == 0 || held <= limit.Soft {
		s.out.overSoft.Store(0)
		return true
	}
	now := time.Now().UnixNano()
	since := s.out.overSoft.Load()
	if since == 0 {
		s.out.overSoft.CompareAndSwap(0, now)
		return true
	}
	return time.Duration(now-since) <= time.Duration(limit.SoftSeconds)*time.Second
}

// HoldReply checks a reply that stays whole in the writer against the
// normal class's client-output-buffer-limit, and disconnects the client
// past it.
func (s *Session) HoldReply() error {
	if s.outputAllowed(config.ClassNormal, int64(s.W.Len())) {
		return nil
	}
	slog.Warn("closing client over its output buffer limit", "client", s.ID, "addr", s.Addr, "class", "normal", "bytes", s.W.Len())
	s.Kill()
	return ErrReplyTooBig
}

// SendingReplies checks the held bytes of replies about to be written to
// the socket against the normal class's client-output-buffer-limit, as
// Kvrocks 2.17 and Redis check a client's output buffer: past hard, or
// past soft for soft-seconds, the client is disconnected (ErrReplyTooBig).
// Above soft, the deadline is when the soft-seconds run out: a write
// still blocked then (the client does not read) disconnects it. A zero
// deadline means no bound.
func (s *Session) SendingReplies(held int64) (deadline time.Time, err error) {
	if !s.outputAllowed(config.ClassNormal, held) {
		slog.Warn("closing client over its output buffer limit", "client", s.ID, "addr", s.Addr, "class", "normal", "bytes", held)
		s.Kill()
		return time.Time{}, ErrReplyTooBig
	}
	limit := s.reg.cfg.ClientLimits.OutputBuffer.Get(config.ClassNormal)
	if since := s.out.overSoft.Load(); limit.Soft > 0 && held > limit.Soft && since != 0 {
		return time.Unix(0, since).Add(time.Duration(limit.SoftSeconds) * time.Second), nil
	}
	return time.Time{}, nil
}

// SetQueryBuffer records the session's request buffer: the bytes received
// and not parsed yet, and all the memory the reader holds.
func (s *Session) SetQueryBuffer(buffered, held int64) {
	s.queryBuffered.Store(buffered)
	s.queryHeld.Store(held)
	if held > s.queryPeak.Load() {
		s.queryPeak.Store(held)
	}
}

// QueryHeld returns the memory the session's request reader holds.
func (s *Session) QueryHeld() int64 { return s.queryHeld.Load() }

// SetReplyHeld records the size of the replies the server is writing to
// the client (0 once written), for CLIENT LIST and INFO.
func (s *Session) SetReplyHeld(n int) { s.replyHeld.Store(int64(n)) }

// OutputMemory returns the bytes of output the server holds for the
// session: replies being written and its push stream.
func (s *Session) OutputMemory() int64 { return s.replyHeld.Load() + s.out.bytes.Load() }

// BufferPeaks returns the largest request buffer and the largest output
// any connected session holds now (INFO's client_recent_max_input_buffer
// and client_recent_max_output_buffer).
func (r *Registry) BufferPeaks() (in, out int64) {
	for _, s := range r.List() {
		in = max(in, s.queryHeld.Load())
		out = max(out, s.OutputMemory())
	}
	return in, out
}

// ReplyMode is CLIENT REPLY's state, used by the session's own goroutine
// only: replies are dropped while off, or for the one command after SKIP.
type ReplyMode struct {
	Off, Skip, SkipNext bool
	// Confirmed is set by a command whose reply is a pub/sub
	// confirmation: Redis writes those as pushes, which CLIENT REPLY
	// does not silence, even to a client that never subscribed.
	Confirmed bool
}

// Suppressed reports whether the running command's reply is dropped.
func (m *ReplyMode) Suppressed() bool { return m.Off || m.Skip }

// Done ends a command whose reply began at *from in w: it drops the reply
// when replies are suppressed (unless it confirmed), then moves SKIP on to
// the next command, as Redis's resetClient does.
func (m *ReplyMode) Done(w reply.Sink, from *int) {
	if m.Suppressed() && !m.Confirmed && w.Len() >= *from {
		w.Truncate(*from)
	}
	m.Skip, m.SkipNext, m.Confirmed = m.SkipNext, false, false
}
