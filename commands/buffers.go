package commands

import (
	"errors"
	"log/slog"
	"time"

	"github.com/basaltdb/basalt/config"
)

// The memory a client makes the server hold: its request being read (the
// server's reader reports it), its replies, and the messages pushed to it.
// Limits follow Redis 7: client-query-buffer-limit and maxmemory-clients
// for requests, client-output-buffer-limit for output.

// argOverhead is the bookkeeping counted per queued argument.
const argOverhead = 24

// maxHeldReply bounds a reply that cannot be sent while it is produced
// when the normal class has no hard limit.
const maxHeldReply = 1 << 30

var errReplyTooBig = errors.New("commands: reply passes the output buffer limit")

// SetQueryBuffer records the client's request buffer: the bytes received
// and not parsed yet, and all the memory the reader holds.
func (c *Client) SetQueryBuffer(buffered, held int64) {
	c.queryBuffered.Store(buffered)
	c.queryHeld.Store(held)
	if held > c.queryPeak.Load() {
		c.queryPeak.Store(held)
	}
}

// QueryHeld returns the memory the client's request reader holds.
func (c *Client) QueryHeld() int64 { return c.queryHeld.Load() }

// NoEvict reports whether CLIENT NO-EVICT spares the client from
// maxmemory-clients.
func (c *Client) NoEvict() bool { return c.noEvict.Load() }

// SpillReply is the writer's spill function: a long reply is sent as it
// grows. Only a read outside a transaction is sent in parts; it lets go
// of the gate while it waits on the socket, so that a client that does
// not read holds up no one. Any other reply, and one in the middle of an
// aggregate whose length comes last (send false), stays whole, bounded by
// the normal class's hard limit (or maxHeldReply): past it the client is
// disconnected.
func (c *Client) SpillReply(send bool) error {
	if !send || !c.spillable || c.Flush == nil {
		limit := c.ctx.Env.Config.ClientLimits.OutputBuffer.Get(config.ClassNormal).Hard
		if limit == 0 {
			limit = maxHeldReply
		}
		if int64(c.W.Len()) <= limit {
			return nil
		}
		slog.Warn("closing client over its output buffer limit", "client", c.ID, "addr", c.Addr, "bytes", c.W.Len())
		c.Kill()
		return errReplyTooBig
	}
	gate := &c.ctx.Env.gate
	gate.RUnlock()
	defer gate.RLock()
	c.SyncTo = c.ctx.Env.Storage.LatestSequence()
	if err := c.Flush(); err != nil {
		c.Kill()
		return err
	}
	return nil
}

// pushAllowed accounts a message of n bytes pushed to the client, and
// reports whether its unsent messages stay within the pubsub class's
// limits: below hard, and not above soft for longer than soft-seconds.
func (c *Client) pushAllowed(n int) bool {
	limit := c.ctx.Env.Config.ClientLimits.OutputBuffer.Get(config.ClassPubSub)
	held := c.pushBytes.Add(int64(n))
	c.pushCount.Add(1)
	if limit.Hard > 0 && held > limit.Hard {
		return false
	}
	if limit.Soft == 0 || held <= limit.Soft {
		c.overSoft.Store(0)
		return true
	}
	now := time.Now().UnixNano()
	since := c.overSoft.Load()
	if since == 0 {
		c.overSoft.CompareAndSwap(0, now)
		return true
	}
	return time.Duration(now-since) <= time.Duration(limit.SoftSeconds)*time.Second
}

// PendingOutput returns the bytes of pushed messages not written yet.
func (c *Client) PendingOutput() int64 { return c.pushBytes.Load() }

// outputMemory returns the bytes of output the client holds: unsent
// pushed messages, and the replies its writer holds (read without the
// writer's goroutine, so only as an estimate for CLIENT LIST and INFO).
func (c *Client) outputMemory() int64 { return c.pushBytes.Load() }

// bufferPeaks returns the largest request buffer and the largest output
// any connected client holds now (INFO's client_recent_max_input_buffer
// and client_recent_max_output_buffer).
func (cs *Clients) bufferPeaks() (in, out int64) {
	for _, c := range cs.List() {
		in = max(in, c.queryHeld.Load())
		out = max(out, c.outputMemory())
	}
	return in, out
}
