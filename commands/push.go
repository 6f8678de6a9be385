package commands

import (
	"bytes"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basaltdb/basalt/config"
)

// A client that receives pushes (pub/sub messages, MONITOR lines) has one
// ordered output stream: what is pushed to it, from any goroutine, and its
// own replies, which its connection queues behind them instead of writing
// them (PushReply). The server's pusher goroutine writes the stream and is
// then the socket's only writer, so a subscription's confirmation, queued
// while the subscription is registered, reaches the client before any
// message of the channel, and replies keep the order the client sent its
// commands in. Publishers never wait: a client whose unsent output passes
// its class's client-output-buffer-limit is disconnected.

// pushStream is the output stream of a client that receives pushes.
type pushStream struct {
	on    atomic.Bool   // set once the client receives pushes
	ready chan struct{} // signalled when the queue becomes non-empty
	mu    struct {
		sync.Mutex
		queue [][]byte
	}
	bytes, count atomic.Int64 // queued and not yet written
	// overSoft is when the unsent output last went above the soft limit
	// (Unix ns), 0 while it is below it.
	overSoft atomic.Int64
}

// startPushes makes the client one that messages are pushed to, with
// what it was answered so far first in its stream.
func (c *Client) startPushes() {
	c.out.on.Store(true)
	c.queueReplies()
}

// Pushing reports whether the client's output goes through its push
// stream: the server then writes it from PushReady and TakePushes.
func (c *Client) Pushing() bool { return c.out.on.Load() }

// PushReady is signalled when the push stream has output to write.
func (c *Client) PushReady() <-chan struct{} { return c.out.ready }

// TakePushes appends the queued output to dst, emptying the queue. The
// server calls Delivered once it wrote it.
func (c *Client) TakePushes(dst [][]byte) [][]byte {
	c.out.mu.Lock()
	defer c.out.mu.Unlock()
	dst = append(dst, c.out.mu.queue...)
	clear(c.out.mu.queue)
	c.out.mu.queue = c.out.mu.queue[:0]
	return dst
}

// Delivered accounts n pushed items of size bytes in all as written.
func (c *Client) Delivered(n, size int) {
	c.out.bytes.Add(-int64(size))
	c.out.count.Add(-int64(n))
}

// PendingOutput returns the bytes of the push stream not written yet.
func (c *Client) PendingOutput() int64 { return c.out.bytes.Load() }

// PushReply queues replies behind what was pushed to the client before;
// reply must not be modified afterwards.
func (c *Client) PushReply(reply []byte) { c.push(reply) }

// queueReplies moves the replies the writer holds into the push stream,
// once the WAL holds what they reveal, so that what is pushed next comes
// after them. It writes nothing to the socket: callers may hold locks.
func (c *Client) queueReplies() {
	if c.W.Len() == 0 {
		return
	}
	st := c.ctx.Env.Storage
	if err := st.Durable(st.LatestSequence()); err != nil {
		slog.Error("replies withheld", "client", c.ID, "err", err)
		c.W.Reset()
		c.Kill()
		return
	}
	c.push(bytes.Clone(c.W.Bytes()))
	c.W.Reset()
}

// push queues msg for the client without blocking, or disconnects a
// client that does not read fast enough.
func (c *Client) push(msg []byte) {
	class := config.ClassPubSub
	if c.monitor.Load() {
		class = config.ClassNormal // as Redis classes a MONITOR client
	}
	if !c.outputAllowed(class, c.out.bytes.Add(int64(len(msg)))) {
		c.out.bytes.Add(-int64(len(msg)))
		slog.Warn("closing client over its output buffer limit", "client", c.ID, "addr", c.Addr, "class", config.ClassName(class), "bytes", c.out.bytes.Load())
		c.Kill()
		return
	}
	c.out.count.Add(1)
	c.out.mu.Lock()
	c.out.mu.queue = append(c.out.mu.queue, msg)
	c.out.mu.Unlock()
	select {
	case c.out.ready <- struct{}{}:
	default: // already signalled
	}
}

// outputAllowed reports whether held bytes of unsent output stay within
// the class's client-output-buffer-limit: below hard (or maxHeldReply when
// it is 0), and not above soft for longer than soft-seconds.
func (c *Client) outputAllowed(class int, held int64) bool {
	limit := c.ctx.Env.Config.ClientLimits.OutputBuffer.Get(class)
	hard := limit.Hard
	if hard == 0 {
		hard = maxHeldReply
	}
	if held > hard {
		return false
	}
	if limit.Soft == 0 || held <= limit.Soft {
		c.out.overSoft.Store(0)
		return true
	}
	now := time.Now().UnixNano()
	since := c.out.overSoft.Load()
	if since == 0 {
		c.out.overSoft.CompareAndSwap(0, now)
		return true
	}
	return time.Duration(now-since) <= time.Duration(limit.SoftSeconds)*time.Second
}
