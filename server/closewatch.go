package server

import (
	"net"
	"syscall"
	"time"
)

// closeWatcher returns the WatchClose of a connection: while a client
// waits in a blocking command nobody reads its socket, so a peek (which
// consumes nothing the command reader will need) tells when the peer
// closes it, or the server does (a shutdown closes every connection). The
// watch ends when stop is called (it returns once the socket is the
// command reader's again), or when the client sends data, which Redis
// would only queue anyway.
func closeWatcher(c net.Conn) func() (closed <-chan struct{}, stop func()) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return func() (<-chan struct{}, func()) {
		closed := make(chan struct{})
		ended := make(chan struct{})
		go func() {
			defer close(ended)
			var eof bool
			buf := make([]byte, 1)
			err := raw.Read(func(fd uintptr) bool {
				n, _, err := syscall.Recvfrom(int(fd), buf, syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
				if err == syscall.EAGAIN || err == syscall.EINTR {
					return false // not readable yet: wait in the poller
				}
				eof = n == 0 || err != nil
				return true
			})
			// A failed wait is a closed socket, or stop's deadline,
			// which nobody watches for any more.
			if err != nil || eof {
				close(closed)
			}
		}()
		stop := func() {
			// Wake the peek with a deadline, and clear it before the
			// command reader reads again.
			c.SetReadDeadline(time.Now())
			<-ended
			c.SetReadDeadline(time.Time{})
		}
		return closed, stop
	}
}
