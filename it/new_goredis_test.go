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
