package commands

import (
	"bytes"
	"sync/atomic"

	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/resp"
)

// testClient is a connection without a network, built as the server
// builds one: its replies stay in W (the writer itself, where the Ctx
// sees only a reply.Sink) for the test to read.
type testClient struct {
	*executor.Ctx
	W    *resp.Writer
	conn *testConn
}

// testConn is a testClient's session.Conn: replies are "sent" by leaving
// them in the writer; those queued for a push stream move into it.
type testConn struct {
	cl     *testClient
	closed atomic.Bool
}

func (c *testConn) Flush() error { return nil }

func (c *testConn) QueueReplies() {
	if c.cl.W.Len() > 0 {
		c.cl.Session.PushReply(bytes.Clone(c.cl.W.Bytes()))
		c.cl.W.Reset()
	}
}

func (c *testConn) WatchClose() (<-chan struct{}, func()) { return nil, func() {} }

func (c *testConn) Close() { c.closed.Store(true) }

// WakePushes does nothing: a test client never waits for requests, the
// moment the server would start its push stream.
func (c *testConn) WakePushes() {}

// client connects a new client, as the server does.
func (h *fuzzHarness) client() *testClient {
	cl := &testClient{W: resp.NewWriter()}
	cl.W.SetOnError(executor.CountErrorReply)
	cl.conn = &testConn{cl: cl}
	s := h.env.Sessions.New("127.0.0.1:40000", "127.0.0.1:6666", -1, cl.W, cl.conn)
	cl.Ctx = h.env.NewContext(s)
	h.env.Sessions.Add(s, 1<<20)
	return cl
}

// setProtocol switches the client to RESP2 or RESP3, as HELLO does.
func (cl *testClient) setProtocol(p int) { cl.Session.SetProtocol(p) }
