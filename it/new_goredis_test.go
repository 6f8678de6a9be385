package it

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// go-redis's own helpers for the commands Redis 7.4-8.4 added, against
// Basalt, in RESP2 and RESP3: what a Go application sends, read back with
// the client's own reply parsers.

// TestGoRedisConditionalWrites: Digest, SetIFEQ/IFNE/IFDEQ/IFDNE (and
// their Get forms), DelExArgs and MSetEX.
func TestGoRedisConditionalWrites(t *testing.T) {
	protocols(t, startBasalt(t), func(t *testing.T, c *redis.Client) {
		must(t, c.FlushAll(ctx).Err())
		must(t, c.Set(ctx, "k", "hello", 0).Err())
		d, err := c.Digest(ctx, "k").Result()
		if err != nil || d != 0x9555e8555c62dcfd { // REDIS-NEW.md §2.1
			t.Fatalf("Digest: %x %v", d, err)
		}
		if err := c.Digest(ctx, "nokey").Err(); !errors.Is(err, redis.Nil) {
			t.Fatalf("Digest of a missing key: %v", err)
		}
		if r, err := c.SetIFEQ(ctx, "k", "world", "hello", time.Minute).Result(); r != "OK" || err != nil {
			t.Fatalf("SetIFEQ: %q %v", r, err)
		}
		if ttl := c.TTL(ctx, "k").Val(); ttl <= 0 {
			t.Fatalf("SetIFEQ with an expiry: TTL %v", ttl)
		}
		if err := c.SetIFEQ(ctx, "k", "x", "hello", 0).Err(); !errors.Is(err, redis.Nil) {
			t.Fatalf("SetIFEQ not met: %v", err)
		}
		if old, err := c.SetIFNEGet(ctx, "k", "x", "world", redis.KeepTTL).Result(); old != "world" || err != nil {
			t.Fatalf("SetIFNEGet not met: %q %v", old, err)
		}
		if r, err := c.SetIFNE(ctx, "k", "hello", "x", 0).Result(); r != "OK" || err != nil {
			t.Fatalf("SetIFNE: %q %v", r, err)
		}
		if r, err := c.SetIFDEQ(ctx, "k", "123", 0x9555e8555c62dcfd, 0).Result(); r != "OK" || err != nil {
			t.Fatalf("SetIFDEQ: %q %v", r, err)
		}
		if old, err := c.SetIFDNEGet(ctx, "k", "v", 0x404a763b3f4c8c9a, 0).Result(); old != "123" || err != nil {
			t.Fatalf("SetIFDNEGet not met: %q %v", old, err)
		}
		if old, err := c.SetIFDEQGet(ctx, "k", "v8", 0x404a763b3f4c8c9a, 0).Result(); old != "123" || err != nil {
			t.Fatalf("SetIFDEQGet: %q %v", old, err)
		}
		if n, err := c.DelExArgs(ctx, "k", redis.DelExArgs{Mode: "IFDNE", MatchDigest: 0x0cc76dbb41381419}).Result(); n != 0 || err != nil {
			t.Fatalf("DelEx IFDNE not met: %d %v", n, err)
		}
		if n, err := c.DelExArgs(ctx, "k", redis.DelExArgs{Mode: "IFEQ", MatchValue: "v8"}).Result(); n != 1 || err != nil {
			t.Fatalf("DelEx IFEQ: %d %v", n, err)
		}
		n, err := c.MSetEX(ctx, redis.MSetEXArgs{Condition: redis.NX, Expiration: &redis.ExpirationOption{Mode: redis.EX, Value: 100}}, "a", "1", "b", "2").Result()
		if n != 1 || err != nil {
			t.Fatalf("MSetEX NX EX: %d %v", n, err)
		}
		if ttl := c.TTL(ctx, "b").Val(); ttl <= 0 {
			t.Fatalf("MSetEX: TTL %v", ttl)
		}
		if n, err := c.MSetEX(ctx, redis.MSetEXArgs{Condition: redis.XX}, "a", "3", "c", "4").Result(); n != 0 || err != nil {
			t.Fatalf("MSetEX XX with c missing: %d %v", n, err)
		}
	})
}

// TestGoRedisBitOps: BitOpDiff, BitOpDiff1, BitOpAndOr and BitOpOne on
// REDIS-NEW.md §4's worked bytes.
func TestGoRedisBitOps(t *testing.T) {
	protocols(t, startBasalt(t), func(t *testing.T, c *redis.Client) {
		must(t, c.FlushAll(ctx).Err())
		must(t, c.Set(ctx, "x", "\xf0", 0).Err())
		must(t, c.Set(ctx, "y", "\x0f\x55", 0).Err())
		for _, tt := range []struct {
			name string
			run  func(ctx context.Context, dst string, keys ...string) *redis.IntCmd
			want string
		}{{"diff", c.BitOpDiff, "\xf0\x00"}, {"diff1", c.BitOpDiff1, "\x0f\x55"}, {"andor", c.BitOpAndOr, "\x00\x00"}, {"one", c.BitOpOne, "\xff\x55"}} {
			if n, err := tt.run(ctx, "d", "x", "y").Result(); n != 2 || err != nil {
				t.Fatalf("%s: %d %v", tt.name, n, err)
			}
			if got := c.Get(ctx, "d").Val(); got != tt.want {
				t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
			}
		}
	})
}

// TestGoRedisStreamClaim: XReadGroup with Claim hands over an entry idle
// for at least min-idle-time (and not before), with its idle time and
// deliveries as go-redis reads them (REDIS-NEW.md §3.5); XAckDel and
// XDelEx (§3.2, §3.3).
func TestGoRedisStreamClaim(t *testing.T) {
	protocols(t, startBasalt(t), func(t *testing.T, c *redis.Client) {
		must(t, c.FlushAll(ctx).Err())
		for _, id := range []string{"1-0", "2-0"} {
			must(t, c.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: id, Values: []string{"f", "v" + id}}).Err())
		}
		must(t, c.XGroupCreate(ctx, "s", "g", "0").Err())
		must(t, c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "c1", Streams: []string{"s", ">"}, Count: 1, Block: -1}).Err())
		read := func(consumer string, claim time.Duration) []redis.XMessage {
			res, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: consumer, Streams: []string{"s", ">"}, Claim: claim, Block: -1}).Result()
			if errors.Is(err, redis.Nil) {
				return nil
			}
			must(t, err)
			return res[0].Messages
		}
		// An hour is more than 1-0 has been idle: nothing to claim, and
		// 2-0 comes new, with 0 and 0.
		if got := read("c3", time.Hour); len(got) != 1 || got[0].ID != "2-0" || got[0].MillisElapsedFromDelivery != 0 || got[0].DeliveredCount != 0 {
			t.Fatalf("CLAIM of an hour: %+v", got)
		}
		waitFor(t, 30*time.Second, "1-0 idle for 50 ms", func() bool {
			p := c.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: "s", Group: "g", Start: "1-0", End: "1-0", Count: 1}).Val()
			return len(p) == 1 && p[0].Idle >= 60*time.Millisecond
		})
		got := read("c2", 50*time.Millisecond)
		if len(got) == 0 || got[0].ID != "1-0" || got[0].Values["f"] != "v1-0" || got[0].MillisElapsedFromDelivery < 50 || got[0].DeliveredCount != 1 {
			t.Fatalf("CLAIM 50: %+v", got)
		}
		p := c.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: "s", Group: "g", Start: "1-0", End: "1-0", Count: 1}).Val()
		if len(p) != 1 || p[0].Consumer != "c2" || p[0].RetryCount != 2 {
			t.Fatalf("after the claim: %+v", p)
		}
		res, err := c.XAckDel(ctx, "s", "g", "ACKED", "1-0", "3-0").Result()
		if err != nil || len(res) != 2 || res[0] != int64(1) || res[1] != int64(-1) {
			t.Fatalf("XAckDel: %v %v", res, err)
		}
		if res, err = c.XDelEx(ctx, "s", "ACKED", "2-0").Result(); err != nil || len(res) != 1 || res[0] != int64(2) {
			t.Fatalf("XDelEx ACKED of 2-0, pending for c3: %v %v", res, err)
		}
		res, err = c.XDelEx(ctx, "s", "DELREF", "2-0").Result()
		if err != nil || len(res) != 1 || res[0] != int64(1) || c.XLen(ctx, "s").Val() != 0 || c.XPending(ctx, "s", "g").Val().Count != 0 {
			t.Fatalf("XDelEx DELREF: %v %v", res, err)
		}
	})
}
