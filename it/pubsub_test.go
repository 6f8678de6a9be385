package it

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestPubSubOrderAndPatterns publishes 1,000 messages to a subscriber of
// the channel and of a matching pattern, in RESP2 and RESP3: each stream
// arrives complete and in publish order.
func TestPubSubOrderAndPatterns(t *testing.T) {
	p := startBasalt(t)
	pub := p.client(t, 2)
	for _, proto := range []int{2, 3} {
		t.Run("RESP"+strconv.Itoa(proto), func(t *testing.T) {
			// The previous round's subscriber is closed, but the server
			// drops its subscriptions only once it sees the connection go.
			waitFor(t, 10*time.Second, "the previous subscriber's subscriptions to go", func() bool {
				return pub.PubSubNumPat(ctx).Val() == 0 && pub.PubSubNumSub(ctx, "news.tech").Val()["news.tech"] == 0
			})
			sub := p.client(t, proto)
			ps := sub.Subscribe(ctx, "news.tech")
			defer ps.Close()
			if err := ps.PSubscribe(ctx, "news.*", "sport.*"); err != nil {
				t.Fatal(err)
			}
			// Wait for the three confirmations.
			for i := 0; i < 3; i++ {
				if _, err := ps.Receive(ctx); err != nil {
					t.Fatal(err)
				}
			}
			const n = 1000
			for i := 0; i < n; i++ {
				if got := pub.Publish(ctx, "news.tech", i).Val(); got != 2 {
					t.Fatalf("PUBLISH reached %d subscriptions, want 2", got)
				}
			}
			if got := pub.Publish(ctx, "weather", "x").Val(); got != 0 {
				t.Fatalf("PUBLISH to nobody = %d", got)
			}
			next := map[string]int{}
			for received := 0; received < 2*n; received++ {
				msg, err := ps.ReceiveTimeout(ctx, 5*time.Second)
				if err != nil {
					t.Fatalf("after %d messages: %v", received, err)
				}
				m, ok := msg.(*redis.Message)
				if !ok {
					t.Fatalf("unexpected %T %v", msg, msg)
				}
				if m.Channel != "news.tech" || m.Payload != strconv.Itoa(next[m.Pattern]) {
					t.Fatalf("message %+v, want payload %d for pattern %q", m, next[m.Pattern], m.Pattern)
				}
				next[m.Pattern]++
			}
			if next[""] != n || next["news.*"] != n {
				t.Fatalf("received %v", next)
			}
			chans := pub.PubSubChannels(ctx, "news*").Val()
			if len(chans) != 1 || chans[0] != "news.tech" {
				t.Errorf("PUBSUB CHANNELS news* = %v", chans)
			}
			if nums := pub.PubSubNumSub(ctx, "news.tech", "none").Val(); nums["news.tech"] != 1 || nums["none"] != 0 {
				t.Errorf("PUBSUB NUMSUB = %v", nums)
			}
			if n := pub.PubSubNumPat(ctx).Val(); n != 2 {
				t.Errorf("PUBSUB NUMPAT = %d", n)
			}
		})
	}
}

// TestSubscriberMode checks what a RESP2 subscriber may send, as Redis
// replies.
func TestSubscriberMode(t *testing.T) {
	p := startBasalt(t)
	c := dial(t, p)
	for _, tc := range []struct{ args, want string }{
		{"SUBSCRIBE a", "*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n"},
		{"GET x", "-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context\r\n"},
		{"PING hi", "*2\r\n$4\r\npong\r\n$2\r\nhi\r\n"},
		{"UNSUBSCRIBE", "*3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:0\r\n"},
		{"GET x", "$-1\r\n"},
	} {
		if got := c.do(strings.Fields(tc.args)...); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestPubSubNamespaces checks that channels are per namespace.
func TestPubSubNamespaces(t *testing.T) {
	conf := writeConf(t, "requirepass admin", "namespace.ns1 token1", "namespace.ns2 token2")
	p := startBasalt(t, "-c", conf)
	sub := tenant(t, p, "token1").Subscribe(ctx, "ch")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	if n := tenant(t, p, "token2").Publish(ctx, "ch", "x").Val(); n != 0 {
		t.Errorf("a publish in ns2 reached %d subscribers of ns1", n)
	}
	if n := tenant(t, p, "token1").Publish(ctx, "ch", "y").Val(); n != 1 {
		t.Errorf("a publish in ns1 reached %d subscribers", n)
	}
}

// TestSlowSubscriberIsDisconnected fills the buffer of a subscriber that
// never reads: it is disconnected, and publishers do not wait for it.
func TestSlowSubscriberIsDisconnected(t *testing.T) {
	p := startBasalt(t, "--client-output-buffer-limit", "pubsub 1mb 0 0")
	slow := dial(t, p)
	slow.do("SUBSCRIBE", "firehose")
	pub := p.client(t, 2)
	payload := strings.Repeat("x", 64<<10)
	var worst time.Duration
	gone := false
	for i := 0; i < 2000 && !gone; i++ {
		start := time.Now()
		n, err := pub.Publish(ctx, "firehose", payload).Result()
		if err != nil {
			t.Fatal(err)
		}
		worst = max(worst, time.Since(start))
		gone = n == 0
	}
	if !gone {
		t.Fatal("a subscriber that never reads still receives after 128 MB")
	}
	if worst > 500*time.Millisecond {
		t.Errorf("the slowest PUBLISH took %v", worst)
	}
	if n := pub.PubSubNumSub(ctx, "firehose").Val()["firehose"]; n != 0 {
		t.Errorf("PUBSUB NUMSUB after disconnection = %d", n)
	}
	t.Logf("slowest PUBLISH %v", worst)
}

// TestPushOrder subscribes and monitors while other clients publish and
// run commands without pause: a subscription's confirmation, and
// MONITOR's +OK, always come before any message they let through.
func TestPushOrder(t *testing.T) {
	p := startBasalt(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer func() { close(stop); wg.Wait() }()
	busy := p.client(t, 2)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				busy.Publish(ctx, "hot", "m")
			}
		}
	}()
	sub := dial(t, p)
	sub.do("SUBSCRIBE", "warm")
	for i := 0; i < 50; i++ {
		if got := sub.do("SUBSCRIBE", "hot"); got != "*3\r\n$9\r\nsubscribe\r\n$3\r\nhot\r\n:2\r\n" {
			t.Fatalf("round %d: the first reply after SUBSCRIBE hot is %q", i, got)
		}
		sub.send("*2\r\n$11\r\nUNSUBSCRIBE\r\n$3\r\nhot\r\n")
		for {
			if got := sub.reply(); strings.HasPrefix(got, "*3\r\n$11\r\nunsubscribe") {
				break
			}
		}
	}
	mon := dial(t, p)
	if got := mon.do("MONITOR"); got != "+OK\r\n" {
		t.Fatalf("the first reply after MONITOR is %q", got)
	}
}

// TestPubSubIntrospectionDiff compares PUBSUB's replies and errors with
// redis-server's, byte for byte, in RESP2 and RESP3.
func TestPubSubIntrospectionDiff(t *testing.T) {
	b, r := startBasalt(t), startRedis(t)
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			p := newBitsPair(t, b, r, proto)
			for _, c := range [][]string{{"PUBSUB"}, {"PUBSUB", "HELP"}, {"PUBSUB", "help", "x"}, {"PUBSUB", "FOO"},
				{"PUBSUB", "CHANNELS"}, {"PUBSUB", "CHANNELS", "a*"}, {"PUBSUB", "CHANNELS", "a", "b"},
				{"PUBSUB", "SHARDCHANNELS", "a", "b"}, {"PUBSUB", "NUMSUB"}, {"PUBSUB", "NUMSUB", "a", "b"},
				{"PUBSUB", "SHARDNUMSUB", "a"}, {"PUBSUB", "NUMPAT"}, {"PUBSUB", "NUMPAT", "x"}} {
				p.same(c...)
			}
		})
	}
}
