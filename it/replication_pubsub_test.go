package it

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Pub/sub across replication (REPLICATION.md §4): a master's PUBLISH and
// MPUBLISH write each message to the pubsub column family, in a WAL batch
// of its own; a replica delivers the messages of the batches it applies to
// its own subscribers, and writes nothing for its own PUBLISH.

// replSubscriber is a subscription on one node whose messages a test
// reads in order.
type replSubscriber struct {
	name string
	ps   *redis.PubSub
}

// subscribeOn subscribes c to channels and patterns and waits for the
// confirmations.
func subscribeOn(t *testing.T, name string, c *redis.Client, channels, patterns []string) *replSubscriber {
	t.Helper()
	ps := c.Subscribe(ctx)
	t.Cleanup(func() { ps.Close() })
	if len(channels) > 0 {
		must(t, ps.Subscribe(ctx, channels...))
	}
	if len(patterns) > 0 {
		must(t, ps.PSubscribe(ctx, patterns...))
	}
	for i := 0; i < len(channels)+len(patterns); i++ {
		if _, err := ps.ReceiveTimeout(ctx, time.Minute); err != nil {
			t.Fatalf("%s: subscribing: %v", name, err)
		}
	}
	return &replSubscriber{name: name, ps: ps}
}

// expect reads the next messages, each "<pattern>|<channel>|<payload>".
func (s *replSubscriber) expect(t *testing.T, want ...string) {
	t.Helper()
	for i, w := range want {
		msg, err := s.ps.ReceiveTimeout(ctx, replWait)
		if err != nil {
			t.Fatalf("%s: message %d of %d (%s): %v", s.name, i, len(want), w, err)
		}
		m, ok := msg.(*redis.Message)
		if !ok {
			t.Fatalf("%s: %T %v instead of message %s", s.name, msg, msg, w)
		}
		if got := m.Pattern + "|" + m.Channel + "|" + m.Payload; got != w {
			t.Fatalf("%s: message %d is %q, want %q", s.name, i, got, w)
		}
	}
}

// publishAll publishes n messages "<prefix><i>" on channel through pub, as
// PUBLISH and MPUBLISH of two in turn, and returns them in order.
func publishAll(t *testing.T, pub *redis.Client, channel, prefix string, n int) []string {
	t.Helper()
	var sent []string
	for i := 0; len(sent) < n; i++ {
		a, b := prefix+strconv.Itoa(len(sent)), prefix+strconv.Itoa(len(sent)+1)
		if i%2 == 0 {
			must(t, pub.Publish(ctx, channel, a).Err())
			sent = append(sent, a)
			continue
		}
		must(t, pub.Do(ctx, "MPUBLISH", channel, a, b).Err())
		sent = append(sent, a, b)
	}
	return sent
}

// asMessages renders payloads as expect wants them.
func asMessages(pattern, channel string, payloads []string) []string {
	out := make([]string, len(payloads))
	for i, p := range payloads {
		out[i] = pattern + "|" + channel + "|" + p
	}
	return out
}

func TestReplicationPubSub(t *testing.T) {
	_, ops := replicationSizes()
	args := []string{"--requirepass", "admin", "--masterauth", "admin", "--repl-namespace-enabled", "yes"}
	m, r, end := startBasalt(t, args...), startBasalt(t, args...), startBasalt(t, args...)
	admin := func(p *proc) *redis.Client {
		return newClient(t, &redis.Options{Addr: p.Addr(), Password: "admin", Protocol: 2, DisableIdentity: true, MaxRetries: -1, ReadTimeout: longTimeout, WriteTimeout: longTimeout})
	}
	mc, rc, ec := admin(m), admin(r), admin(end)
	slaveOf(t, rc, m)
	slaveOf(t, ec, r)
	must(t, mc.Do(ctx, "NAMESPACE", "ADD", "ns1", "token-1").Err())
	waitCaughtUp(t, mc, rc)
	waitCaughtUp(t, mc, ec)

	onReplica := subscribeOn(t, "channel subscriber of the replica", admin(r), []string{"news"}, nil)
	patternOnReplica := subscribeOn(t, "pattern subscriber of the replica", admin(r), nil, []string{"new*"})
	tenantOnReplica := subscribeOn(t, "ns1 subscriber of the replica", tenant(t, r, "token-1"), []string{"news"}, nil)
	onEnd := subscribeOn(t, "subscriber of the replica's replica", admin(end), []string{"news"}, nil)

	// Each message takes one sequence number of the master.
	before := sequenceOf(t, mc)
	must(t, mc.Publish(ctx, "news", "first").Err())
	must(t, mc.Do(ctx, "MPUBLISH", "news", "second", "third").Err())
	if after := sequenceOf(t, mc); after != before+3 {
		t.Errorf("three messages moved the master's sequence from %d to %d", before, after)
	}
	// More, from the default namespace and from ns1, while a write load
	// shares the master's WAL with them.
	loaded := make(chan error, 1)
	go func() { loaded <- runWriteLoadAs(m.Addr(), "admin", 2, ops/2, 61) }()
	sent := append([]string{"first", "second", "third"}, publishAll(t, mc, "news", "m", 200)...)
	tenantSent := publishAll(t, tenant(t, m, "token-1"), "news", "t", 50)
	if err := <-loaded; err != nil {
		t.Fatal(err)
	}

	onReplica.expect(t, asMessages("", "news", sent)...)
	patternOnReplica.expect(t, asMessages("new*", "news", sent)...)
	tenantOnReplica.expect(t, asMessages("", "news", tenantSent)...)
	onEnd.expect(t, asMessages("", "news", sent)...)

	// A replica's own PUBLISH reaches its subscribers and writes nothing:
	// its sequence stays its master's, and its replica gets nothing.
	waitCaughtUp(t, mc, rc)
	seq := sequenceOf(t, rc)
	if n, err := rc.Publish(ctx, "news", "local").Result(); err != nil || n != 2 {
		t.Errorf("PUBLISH on the replica: %d %v, want its 2 local receivers", n, err)
	}
	if n, err := rc.Do(ctx, "MPUBLISH", "news", "local2").Int(); err != nil || n != 2 {
		t.Errorf("MPUBLISH on the replica: %d %v", n, err)
	}
	if got := sequenceOf(t, rc); got != seq {
		t.Errorf("PUBLISH on the replica moved its sequence from %d to %d", seq, got)
	}
	onReplica.expect(t, "|news|local", "|news|local2")
	must(t, mc.Publish(ctx, "news", "last").Err())
	onReplica.expect(t, "|news|last")
	onEnd.expect(t, "|news|last")
	waitCaughtUp(t, mc, rc)
	compareDumps(t, "the replica", dumpServer(t, m, interopCase{conf: []string{"requirepass admin"}}), dumpServer(t, r, interopCase{conf: []string{"requirepass admin"}}))
}

// TestKvrocksReplicationPubSub: messages published on a Kvrocks master
// reach the subscribers of a Basalt replica, and messages published on a
// Basalt master those of a Kvrocks replica, whose channels are global:
// it gets the messages of every namespace. Both under a write load, so
// that messages share the WAL with other writes.
func TestKvrocksReplicationPubSub(t *testing.T) {
	kvrocksBin(t)
	_, ops := replicationSizes()
	t.Run("BasaltReplicaOfKvrocks", func(t *testing.T) {
		k, b := startKvrocks(t), startBasalt(t)
		kc, bc := interopClient(t, k, "", 30*time.Second), b.client(t, 2)
		slaveOf(t, bc, k)
		waitCaughtUp(t, kc, bc)
		sub := subscribeOn(t, "subscriber of the Basalt replica", b.client(t, 2), []string{"news"}, []string{"n*"})
		loaded := make(chan error, 1)
		go func() { loaded <- runWriteLoad(k.Addr(), 2, ops/2, 62) }()
		sent := publishAll(t, kc, "news", "k", 200)
		if err := <-loaded; err != nil {
			t.Fatal(err)
		}
		// A channel and a pattern subscription: each message twice, the
		// channel's first.
		var want []string
		for _, p := range sent {
			want = append(want, "|news|"+p, "n*|news|"+p)
		}
		sub.expect(t, want...)
	})
	t.Run("KvrocksReplicaOfBasalt", func(t *testing.T) {
		b := startBasalt(t, "--requirepass", "admin", "--repl-namespace-enabled", "yes")
		k := startKvrocks(t, "--masterauth", "admin")
		bc := newClient(t, &redis.Options{Addr: b.Addr(), Password: "admin", Protocol: 2, DisableIdentity: true, MaxRetries: -1, ReadTimeout: longTimeout, WriteTimeout: longTimeout})
		kc := interopClient(t, k, "", 30*time.Second)
		must(t, bc.Do(ctx, "NAMESPACE", "ADD", "ns1", "token-1").Err())
		slaveOf(t, kc, b)
		waitCaughtUp(t, bc, kc)
		sub := subscribeOn(t, "subscriber of the Kvrocks replica", k.client(t, 2), []string{"news"}, nil)
		ns1 := tenant(t, b, "token-1")
		loaded := make(chan error, 1)
		go func() { loaded <- runWriteLoadAs(b.Addr(), "admin", 2, ops/2, 63) }()
		var sent []string
		for i := 0; i < 100; i++ {
			sent = append(sent, publishAll(t, bc, "news", fmt.Sprintf("b%d.", i), 3)...)
			sent = append(sent, publishAll(t, ns1, "news", fmt.Sprintf("t%d.", i), 1)...)
		}
		if err := <-loaded; err != nil {
			t.Fatal(err)
		}
		sub.expect(t, asMessages("", "news", sent)...)
		waitCaughtUp(t, bc, kc)
		compareDumps(t, "the Kvrocks replica", dumpServer(t, b, interopCase{conf: []string{"requirepass admin"}}), dumpServer(t, k, interopCase{}))
	})
}
