// Package resptest runs fake Redis-protocol peers for tests: a server on a
// loopback port that answers as the test scripts it, hostile answers
// included, so that a client's limits are tested over a real socket. (It
// imports no Basalt package, so that resp's own tests may use it.)
package resptest

import (
	"net"
	"sync"
	"testing"
)

// Serve listens on a loopback port and runs handle for every connection
// until the test ends; it then closes the listener and the connections
// and waits for the handlers. It returns the address to dial.
func Serve(t testing.TB, handle func(conn net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		conns  []net.Conn
		closed bool
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			if closed {
				conn.Close()
			}
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				handle(conn)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		closed = true
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}
