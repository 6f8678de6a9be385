package server

import (
	"log/slog"
	"sync"

	"github.com/basaltdb/basalt/commands"
	"github.com/tidwall/redcon"
)

// serveDetached serves a connection that messages are pushed to (a
// MONITOR client) until it closes: a goroutine writes the pushed messages
// while this one reads and runs the client's commands. The writer lock
// keeps a reply and a message from interleaving.
func (s *Server) serveDetached(dc redcon.DetachedConn, cl *commands.Client) {
	var mu sync.Mutex
	write := func(b []byte) error {
		mu.Lock()
		defer mu.Unlock()
		dc.WriteRaw(b)
		return dc.Flush()
	}
	done := make(chan struct{})
	var pusher sync.WaitGroup
	pusher.Add(1)
	go func() {
		defer pusher.Done()
		for {
			select {
			case msg := <-cl.Pushes():
				// Write what else is queued with it: one flush for a
				// burst of messages.
				// Messages are shared between receivers: never append to
				// one.
				batch := msg
				for more := true; more && len(batch) < 64<<10; {
					select {
					case next := <-cl.Pushes():
						batch = append(batch[:len(batch):len(batch)], next...)
					default:
						more = false
					}
				}
				if err := write(batch); err != nil {
					cl.Kill()
					return
				}
				cl.Delivered(batch)
			case <-done:
				return
			}
		}
	}()
	defer func() {
		close(done)
		// Closing the socket first unblocks a push stuck on a client
		// that does not read; the pusher must be gone before the
		// connection's writer is released.
		dc.NetConn().Close()
		pusher.Wait()
		dc.Close()
		s.env.Disconnected(cl)
		s.conns.Done()
	}()
	if err := write(nil); err != nil { // the reply to the command that detached
		return
	}
	for {
		cmd, err := dc.ReadCommand()
		if err != nil {
			return
		}
		s.env.Dispatch(cl, cmd.Args)
		if err := s.env.Storage.Durable(cl.SyncTo); err != nil {
			slog.Error("replies withheld", "client", cl.ID, "err", err)
			return
		}
		err = write(cl.W.Bytes())
		cl.W.Reset()
		if err != nil || cl.CloseAfterReply {
			return
		}
	}
}
