package it

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestClusterSlotStatsModel: the key counts of CLUSTER SLOT-STATS, over
// every slot of the shard, against the slots CLUSTER KEYSLOT gives for
// random keys written and deleted; ORDERBY's order against a sort of
// those counts (REDIS-NEW.md §5: descending by default, ties by slot).
func TestClusterSlotStatsModel(t *testing.T) {
	c := clusterSlotStatsNode(t).client(t, 3)
	rng := rand.New(rand.NewSource(7))
	counts := map[int64]int64{}
	pipe := c.Pipeline()
	slotOf := map[string]*redis.IntCmd{}
	for i := 0; i < 600; i++ {
		// Hash tags put several keys in one slot.
		k := fmt.Sprintf("{t%d}k%d", rng.Intn(150), i)
		slotOf[k] = pipe.ClusterKeySlot(ctx, k)
	}
	_, err := pipe.Exec(ctx)
	must(t, err)
	pipe = c.Pipeline()
	for k, cmd := range slotOf {
		slot := cmd.Val()
		if slot >= 6 && slot <= 9 {
			continue // the other node's
		}
		pipe.Set(ctx, k, "v", 0)
		counts[slot]++
		if rng.Intn(5) == 0 {
			pipe.Del(ctx, k)
			counts[slot]--
		}
	}
	_, err = pipe.Exec(ctx)
	must(t, err)

	type line struct{ slot, keys int64 }
	read := func(args ...any) []line {
		res, err := c.Do(ctx, append([]any{"CLUSTER", "SLOT-STATS"}, args...)...).Slice()
		must(t, err)
		out := make([]line, len(res))
		for i, r := range res {
			pair := r.([]any)
			out[i] = line{pair[0].(int64), pair[1].(map[any]any)["key-count"].(int64)}
		}
		return out
	}
	all := read("SLOTSRANGE", 0, 16383)
	if len(all) != 16384-4 {
		t.Fatalf("SLOTSRANGE 0 16383: %d slots, want the shard's 16380", len(all))
	}
	for i, l := range all {
		if l.keys != counts[l.slot] || (i > 0 && l.slot <= all[i-1].slot) || (l.slot >= 6 && l.slot <= 9) {
			t.Fatalf("SLOTSRANGE line %d: %+v, want %d keys, slots ascending, not 6-9", i, l, counts[l.slot])
		}
	}
	want := slices.Clone(all)
	slices.SortStableFunc(want, func(a, b line) int { return int(b.keys - a.keys) })
	if got := read("ORDERBY", "key-count", "LIMIT", 200); !slices.Equal(got, want[:200]) {
		t.Fatalf("ORDERBY key-count LIMIT 200 differs from the model:\n got  %v\n want %v", got[:10], want[:10])
	}
	slices.SortStableFunc(want, func(a, b line) int { return int(a.keys - b.keys) })
	if got := read("ORDERBY", "key-count", "ASC"); !slices.Equal(got, want) {
		t.Fatal("ORDERBY key-count ASC differs from the model")
	}
}

// TestClusterSlotStatsDisabled: without cluster mode, CLUSTER answers
// Kvrocks's text for SLOT-STATS as for its other subcommands.
func TestClusterSlotStatsDisabled(t *testing.T) {
	err := startBasalt(t).client(t, 2).Do(ctx, "CLUSTER", "SLOT-STATS", "SLOTSRANGE", 0, 1).Err()
	if err == nil || !strings.Contains(err.Error(), "Cluster mode is not enabled") {
		t.Fatalf("CLUSTER SLOT-STATS without cluster mode: %v", err)
	}
}

// slotUsage reads CLUSTER SLOT-STATS SLOTSRANGE slot slot as a map of
// metric to value.
func slotUsage(t *testing.T, p *proc, slot int) map[string]int64 {
	t.Helper()
	c := p.client(t, 3)
	reply, err := c.Do(ctx, "CLUSTER", "SLOT-STATS", "SLOTSRANGE", slot, slot).Slice()
	must(t, err)
	if len(reply) != 1 {
		t.Fatalf("SLOT-STATS of slot %d: %v", slot, reply)
	}
	line := reply[0].([]any)
	out := map[string]int64{}
	for k, v := range line[1].(map[any]any) {
		out[k.(string)] = v.(int64)
	}
	return out
}

// TestClusterSlotStatsUsage: with cluster-slot-stats-enabled (CONFIG SET,
// live) each command with keys adds its run time and the bytes of its
// request and its reply to its slot, which SLOT-STATS shows and ORDERBY
// sorts by; off (the default) nothing is counted, the metrics are not
// shown and ORDERBY refuses them; CONFIG RESETSTAT zeroes them.
func TestClusterSlotStatsUsage(t *testing.T) {
	p := clusterSlotStatsNode(t)
	c := p.client(t, 2)
	must(t, c.Set(ctx, "k596", "v", 0).Err()) // slot 0, not counted: off
	if got := slotUsage(t, p, 0); len(got) != 2 || got["key-count"] != 1 || got["memory-bytes"] != 0 {
		t.Fatalf("off: %v, want key-count 1 and memory-bytes 0 alone", got)
	}
	must(t, c.ConfigSet(ctx, "cluster-slot-stats-enabled", "yes").Err())
	// *3 $3 SET $4 k596 $1 v: 30 bytes in, +OK: 5 out; *2 $3 GET $4 k596:
	// 23 in, $1 v: 7 out. Ten of each.
	for range 10 {
		must(t, c.Set(ctx, "k596", "v", 0).Err())
		must(t, c.Get(ctx, "k596").Err())
	}
	got := slotUsage(t, p, 0)
	if len(got) != 5 || got["network-bytes-in"] != 530 || got["network-bytes-out"] != 120 || got["cpu-usec"] <= 0 || got["key-count"] != 1 {
		t.Fatalf("on: %v, want network-bytes-in 530, network-bytes-out 120, cpu-usec > 0", got)
	}
	if other := slotUsage(t, p, 1); other["network-bytes-in"] != 0 || other["cpu-usec"] != 0 {
		t.Fatalf("slot 1 counted %v", other)
	}
	top, err := c.Do(ctx, "CLUSTER", "SLOT-STATS", "ORDERBY", "network-bytes-out", "LIMIT", 1).Slice()
	must(t, err)
	if len(top) != 1 || top[0].([]any)[0].(int64) != 0 {
		t.Fatalf("ORDERBY network-bytes-out LIMIT 1: %v, want slot 0", top)
	}
	must(t, c.Do(ctx, "CLUSTER", "SLOT-STATS", "ORDERBY", "memory-bytes", "ASC").Err())
	must(t, c.ConfigSet(ctx, "cluster-slot-stats-enabled", "no").Err())
	must(t, c.Get(ctx, "k596").Err()) // not counted
	if err := c.Do(ctx, "CLUSTER", "SLOT-STATS", "ORDERBY", "cpu-usec").Err(); err == nil || err.Error() != "ERR Unrecognized sort metric for ORDERBY." {
		t.Fatalf("ORDERBY cpu-usec off: %v", err)
	}
	must(t, c.ConfigSet(ctx, "cluster-slot-stats-enabled", "yes").Err())
	if again := slotUsage(t, p, 0); again["network-bytes-in"] != 530 {
		t.Fatalf("counted while off: %v", again)
	}
	must(t, c.ConfigResetStat(ctx).Err())
	if reset := slotUsage(t, p, 0); reset["network-bytes-in"] != 0 || reset["cpu-usec"] != 0 || reset["network-bytes-out"] != 0 {
		t.Fatalf("after CONFIG RESETSTAT: %v", reset)
	}
}
