package it

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestSlotMigrationStreams moves streams with consumer groups, consumers
// and pending entries (and an empty one, and one with a TTL) to another
// node in both migration modes; the destination then reports the same
// entries, counters, groups, consumers and pending entries.
func TestSlotMigrationStreams(t *testing.T) {
	for _, mode := range []string{"redis-command", "raw-key-value"} {
		t.Run(mode, func(t *testing.T) {
			nodes, ids := clusterNodes(t, 3, "--migrate-type", mode, "--migrate-speed", "0")
			pushTopology(t, nodes, mastersText(nodes, ids, initialRanges), 1)
			src, dst := nodes[0].longClient(t, 2), nodes[1].longClient(t, 2)
			keys := slotKeys(4, migFrom, migTo)
			for i, k := range keys[:3] {
				for j := 1; j <= 10+i; j++ {
					must(t, src.XAdd(ctx, &redis.XAddArgs{Stream: k, ID: fmt.Sprint(j, "-1"), Values: []any{"f", j, "g", strings.Repeat("v", j*40)}}).Err())
				}
				src.XDel(ctx, k, "3-1", "10-1")
				must(t, src.XGroupCreate(ctx, k, "g1", "0").Err())
				must(t, src.XGroupCreate(ctx, k, "g2", "5-1").Err())
				src.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g1", Consumer: "alice", Streams: []string{k, ">"}, Count: 4})
				src.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g1", Consumer: "bob", Streams: []string{k, ">"}, Count: 2})
				src.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g2", Consumer: "carol", Streams: []string{k, ">"}, Count: 3})
				src.XAck(ctx, k, "g1", "1-1")
				src.Do(ctx, "XCLAIM", k, "g1", "bob", "0", "2-1", "TIME", "1000", "RETRYCOUNT", "5")
				src.XGroupCreateConsumer(ctx, k, "g2", "idle")
				src.Do(ctx, "XSETID", k, "99-1", "ENTRIESADDED", "50", "MAXDELETEDID", "10-1")
			}
			must(t, src.XGroupCreateMkStream(ctx, keys[3], "g", "$").Err())
			src.PExpire(ctx, keys[2], time.Hour)
			want := map[string]string{}
			for _, k := range keys {
				want[k] = migratedStream(t, src, k)
			}
			must(t, src.Do(ctx, "CLUSTERX", "MIGRATE", fmt.Sprintf("%d-%d", migFrom, migTo), ids[1]).Err())
			if state := waitMigration(t, src, 2*time.Minute); state != "success" {
				t.Fatalf("migration ended in %s\n%s", state, nodes[0].Output)
			}
			pushTopology(t, nodes, mastersText(nodes, ids, migratedRanges), 2)
			for _, k := range keys {
				if got := migratedStream(t, dst, k); got != want[k] {
					t.Errorf("%s on the destination:\n%s\nwant:\n%s", k, got, want[k])
				}
			}
			if ttl := dst.PTTL(ctx, keys[2]).Val(); ttl <= 0 || ttl > time.Hour {
				t.Errorf("TTL on the destination: %v", ttl)
			}
		})
	}
}

// migratedStream renders what a migration must keep of a stream: its
// entries, XINFO STREAM's stored fields, and its groups with their
// consumers and pending entries (not the consumers' seen times, which a
// redis-command migration sets anew).
func migratedStream(t *testing.T, c *redis.Client, key string) string {
	t.Helper()
	var b strings.Builder
	do := func(args ...any) any {
		v, err := c.Do(ctx, args...).Result()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return v
	}
	fmt.Fprintln(&b, do("XRANGE", key, "-", "+"))
	fmt.Fprintln(&b, do("XINFO", "STREAM", key))
	for _, g := range do("XINFO", "GROUPS", key).([]any) {
		fmt.Fprintln(&b, g)
		name := pairs(g)["name"]
		for _, cons := range do("XINFO", "CONSUMERS", key, name).([]any) {
			m := pairs(cons)
			fmt.Fprintln(&b, "consumer", m["name"], m["pending"])
		}
		for _, p := range do("XPENDING", key, name, "-", "+", 100).([]any) {
			f := p.([]any)
			fmt.Fprintln(&b, "pending", f[0], f[1], f[3])
		}
	}
	return b.String()
}
