package it

import (
	"net"
	"strings"
	"testing"
	"time"
)

// TestOutputBufferLimitOffByDefault: as in Kvrocks 2.17
// (KVROCKS-TYPES.md §8, PR #3560), client-output-buffer-limit is off for
// every class until set: a subscriber that stops reading keeps its
// subscription past 40 MB of backlog (Redis's old pubsub default, 32mb,
// would close it); set live, the limit closes it.
func TestOutputBufferLimitOffByDefault(t *testing.T) {
	p := startBasalt(t)
	pub := p.longClient(t, 2)
	if v := pub.ConfigGet(ctx, "client-output-buffer-limit").Val()["client-output-buffer-limit"]; v != "normal 0 0 0 slave 0 0 0 pubsub 0 0 0" {
		t.Errorf("default client-output-buffer-limit %q", v)
	}
	slow := dial(t, p)
	slow.do("SUBSCRIBE", "firehose")
	payload := strings.Repeat("x", 64<<10)
	for i := 0; i < 640; i++ {
		if n, err := pub.Publish(ctx, "firehose", payload).Result(); err != nil || n != 1 {
			t.Fatalf("publish %d (%d MB): %d receivers, %v", i, i>>4, n, err)
		}
	}
	if err := pub.ConfigSet(ctx, "client-output-buffer-limit", "pubsub 1mb 0 0").Err(); err != nil {
		t.Fatal(err)
	}
	gone := false
	for i := 0; i < 100 && !gone; i++ {
		gone = pub.Publish(ctx, "firehose", payload).Val() == 0
	}
	if !gone {
		t.Error("over the limit set live, the subscriber still receives")
	}
	if !closedByServer(slow, 3*time.Second) {
		t.Error("the slow subscriber's connection is still open")
	}
}

// TestNormalOutputBufferLimit: a reply past the normal class's hard limit
// closes the connection, as redis-server does; one under it is sent. Past
// the soft limit, a client that does not read for soft-seconds is closed.
func TestNormalOutputBufferLimit(t *testing.T) {
	big := strings.Repeat("b", 2<<20)
	for _, srv := range []struct {
		name string
		p    *proc
	}{{"basalt", startBasalt(t)}, {"redis", startRedis(t)}} {
		c := srv.p.longClient(t, 2)
		must(t, c.Set(ctx, "big", big, 0).Err())
		must(t, c.Set(ctx, "small", big[:512<<10], 0).Err())
		must(t, c.ConfigSet(ctx, "client-output-buffer-limit", "normal 1mb 0 0").Err())
		r := dial(t, srv.p)
		if got := r.do("GET", "small"); len(got) != 512<<10+11 {
			t.Errorf("%s: GET of 512 KB: %d bytes", srv.name, len(got))
		}
		r.send("*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n")
		r.c.SetReadDeadline(time.Now().Add(longTimeout))
		if line, err := r.rd.ReadString('\n'); err == nil {
			t.Errorf("%s: GET of 2 MB past the hard limit of 1 MB answered %q", srv.name, line)
		}
		must(t, c.ConfigSet(ctx, "client-output-buffer-limit", "normal 0 0 0").Err())
	}

	p := startBasalt(t)
	c := p.longClient(t, 2)
	must(t, c.Set(ctx, "big", strings.Repeat("b", 16<<20), 0).Err())
	must(t, c.ConfigSet(ctx, "client-output-buffer-limit", "normal 0 256kb 1").Err())
	// A client that asks and does not read: the kernel's buffers take a
	// few MB, the rest stays above soft until the second has passed.
	nc, err := net.Dial("tcp", p.Addr())
	must(t, err)
	defer nc.Close()
	if tc, ok := nc.(*net.TCPConn); ok {
		tc.SetReadBuffer(64 << 10)
	}
	_, err = nc.Write([]byte("*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n"))
	must(t, err)
	waitFor(t, 30*time.Second, "the client that does not read closed", func() bool {
		return !strings.Contains(c.ClientList(ctx).Val(), "cmd=get")
	})
}
