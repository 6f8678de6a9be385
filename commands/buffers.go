package commands

import (
	"errors"
	"log/slog"
	"strings"

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
// grows. Only a read outside a transaction is sent in parts (send false:
// in the middle of an aggregate whose length comes last); it lets go of
// the command gate while it waits on the socket, so that a client that
// does not read holds up no one. That is safe only because a handler
// holds no other lock while it writes replies: one that must reply under
// a lock of its own pushes instead (see push.go). Any other reply stays
// whole, within the normal class's output limit.
func (c *Client) SpillReply(send bool) error {
	if !send || !c.spillable || c.Flush == nil {
		return c.holdReply()
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

// holdReply checks a reply that stays whole against the normal class's
// client-output-buffer-limit, and disconnects the client past it.
func (c *Client) holdReply() error {
	if c.outputAllowed(config.ClassNormal, int64(c.W.Len())) {
		return nil
	}
	slog.Warn("closing client over its output buffer limit", "client", c.ID, "addr", c.Addr, "class", "normal", "bytes", c.W.Len())
	c.Kill()
	return errReplyTooBig
}

// SetReplyHeld records the size of the replies the server is writing to
// the client (0 once written), for CLIENT LIST and INFO.
func (c *Client) SetReplyHeld(n int) { c.replyHeld.Store(int64(n)) }

// outputMemory returns the bytes of output the server holds for the
// client: replies being written and its push stream.
func (c *Client) outputMemory() int64 { return c.replyHeld.Load() + c.out.bytes.Load() }

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

// kind is the client's type as CLIENT LIST TYPE and CLIENT KILL TYPE name
// it: pubsub while it is subscribed, normal otherwise (MONITOR included,
// as in Redis); no replica or master connections exist yet.
func (c *Client) kind() string {
	if c.replica.Load() {
		return "replica"
	}
	if c.subscribed() {
		return "pubsub"
	}
	return "normal"
}

// subscribed reports, from any goroutine, whether the client has
// subscriptions.
func (c *Client) subscribed() bool {
	for i := range c.subN {
		if c.subN[i].Load() > 0 {
			return true
		}
	}
	return false
}

// flags renders CLIENT LIST's flags as Redis does: O monitor, P
// subscribed, x in MULTI, b blocked, S a replica being fed, N none.
func (c *Client) flags() string {
	var f []byte
	if c.replica.Load() {
		f = append(f, 'S')
	}
	if c.monitor.Load() {
		f = append(f, 'O')
	}
	if c.subscribed() {
		f = append(f, 'P')
	}
	if c.multiLen.Load() >= 0 {
		f = append(f, 'x')
	}
	if c.blockedNow.Load() {
		f = append(f, 'b')
	}
	if len(f) == 0 {
		return "N"
	}
	return string(f)
}

// clientKind parses a client type of CLIENT LIST and CLIENT KILL.
func clientKind(s string) (string, bool) {
	switch t := strings.ToLower(s); t {
	case "normal", "master", "pubsub":
		return t, true
	case "replica", "slave":
		return "replica", true
	}
	return "", false
}
