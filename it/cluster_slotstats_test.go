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
