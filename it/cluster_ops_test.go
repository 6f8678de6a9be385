package it

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestClusterXFlushSlots: CLUSTERX FLUSHSLOTS deletes every key of the
// slots given and no other, and is refused while those slots (or any)
// migrate, on both ends (KVROCKS-TYPES.md §8, Kvrocks 2.16).
func TestClusterXFlushSlots(t *testing.T) {
	nodes, ids := clusterNodes(t, 2)
	pushTopology(t, nodes, mastersText(nodes, ids, []string{"0-8191", "8192-16383"}), 1)
	src, dst := nodes[0].longClient(t, 2), nodes[1].longClient(t, 2)
	// Two tags the first node serves, in different slots.
	var tags []string
	var slots []int64
	for i := 0; len(tags) < 2; i++ {
		tag := fmt.Sprint("t", i)
		slot := src.ClusterKeySlot(ctx, tag).Val()
		if slot < 8192 && (len(slots) == 0 || slots[0] != slot) {
			tags, slots = append(tags, tag), append(slots, slot)
		}
	}
	for _, tag := range tags {
		for i := 0; i < 10; i++ {
			key := fmt.Sprintf("{%s}%d", tag, i)
			if err := src.Set(ctx, key, "v", 0).Err(); err != nil {
				t.Fatal(err)
			}
			src.RPush(ctx, "{"+tag+"}list", i)
		}
	}
	one := strconv.FormatInt(slots[0], 10)
	if err := src.Do(ctx, "CLUSTERX", "FLUSHSLOTS", one+"-"+one).Err(); err != nil {
		t.Fatal(err)
	}
	for i, slot := range slots {
		want := []int64{0, 11}[i]
		if n := src.ClusterCountKeysInSlot(ctx, int(slot)).Val(); n != want {
			t.Errorf("slot %d holds %d keys after the flush of slot %d, want %d", slot, n, slots[0], want)
		}
	}
	for _, bad := range []string{"16384-16384", "5-3", "x"} {
		if err := src.Do(ctx, "CLUSTERX", "FLUSHSLOTS", bad).Err(); err == nil {
			t.Errorf("FLUSHSLOTS %s accepted", bad)
		}
	}

	// A migration of the other slot, one key a second: refused on both
	// ends while it runs.
	two := strconv.FormatInt(slots[1], 10)
	if err := src.ConfigSet(ctx, "migrate-speed", "1").Err(); err != nil {
		t.Fatal(err)
	}
	if err := src.Do(ctx, "CLUSTERX", "MIGRATE", two, ids[1]).Err(); err != nil {
		t.Fatal(err)
	}
	if err := src.Do(ctx, "CLUSTERX", "FLUSHSLOTS", two+"-"+two).Err(); err == nil || err.Error() != "ERR Can't flush slots while migrating slot" {
		t.Errorf("FLUSHSLOTS on the source during a migration: %v", err)
	}
	waitFor(t, 30*time.Second, "the destination importing", func() bool {
		return strings.Contains(dst.ClusterInfo(ctx).Val(), "import_state: start")
	})
	if err := dst.Do(ctx, "CLUSTERX", "FLUSHSLOTS", two+"-"+two).Err(); err == nil || err.Error() != "ERR Can't flush slots while importing slot" {
		t.Errorf("FLUSHSLOTS on the destination during a migration: %v", err)
	}
	if n := src.ClusterCountKeysInSlot(ctx, int(slots[1])).Val(); n != 11 {
		t.Errorf("slot %d holds %d keys after refused flushes", slots[1], n)
	}
}

// TestClusterNodesFailFlag: a slave pushed with the role slave,fail is
// shown so by CLUSTER NODES and REPLICAS, as failed by CLUSTER SHARDS,
// and keeps the flag across a restart (nodes.conf), as in Kvrocks 2.16
// (KVROCKS-TYPES.md §8, PR #3386); master,fail and other flags are
// refused with Kvrocks's error.
func TestClusterNodesFailFlag(t *testing.T) {
	nodes, ids := clusterNodes(t, 2)
	line := func(role string) string {
		return ids[0] + " 127.0.0.1 " + strconv.Itoa(nodes[0].Port) + " master - 0-16383\n" +
			ids[1] + " 127.0.0.1 " + strconv.Itoa(nodes[1].Port) + " " + role + " " + ids[0] + "\n"
	}
	pushTopology(t, nodes, line("slave,fail"), 1)
	c := nodes[0].client(t, 2)
	check := func(c *redis.Client, when string) {
		t.Helper()
		text := c.ClusterNodes(ctx).Val()
		flags := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
			flags[strings.Fields(l)[0]] = strings.Fields(l)[2]
		}
		if len(flags) != 2 || flags[ids[0]] != "myself,master" || flags[ids[1]] != "slave,fail" {
			t.Errorf("%s: CLUSTER NODES flags %q\n%s", when, flags, text)
		}
	}
	check(c, "pushed")
	if r := c.Do(ctx, "CLUSTER", "REPLICAS", ids[0]).String(); !strings.Contains(r, " slave,fail "+ids[0]+" ") {
		t.Errorf("CLUSTER REPLICAS: %s", r)
	}
	if s := fmt.Sprint(c.Do(ctx, "CLUSTER", "SHARDS").Val()); !strings.Contains(s, "health failed") || !strings.Contains(s, "health online") {
		t.Errorf("CLUSTER SHARDS: %s", s)
	}
	nodes[0].Stop()
	again := startBasaltIn(t, nodes[0].Dir, "--cluster-enabled", "yes")
	check(again.client(t, 2), "after a restart")
	for _, role := range []string{"master,fail", "slave,pfail", "slave,"} {
		err := again.client(t, 2).Do(ctx, "CLUSTERX", "SETNODES", line(role), 2).Err()
		if err == nil || err.Error() != "ERR Invalid cluster node role" {
			t.Errorf("role %s: %v", role, err)
		}
	}
	pushTopology(t, []*proc{again}, line("slave"), 2)
	if text := again.client(t, 2).ClusterNodes(ctx).Val(); strings.Contains(text, "fail") {
		t.Errorf("the flag stays once the controller drops it:\n%s", text)
	}
}

// TestMigrateBatchKnobs: migrate-batch-size-kb shapes the APPLYBATCH
// batches of a raw-key-value migration and migrate-batch-rate-limit-mb
// paces them, and a CONFIG SET of either applies to the running job, as
// Kvrocks's callbacks do (KVROCKS-CONFIG.md; KVROCKS-TYPES.md §8).
func TestMigrateBatchKnobs(t *testing.T) {
	nodes, ids := clusterNodes(t, 2, "--migrate-type", "raw-key-value", "--migrate-speed", "0",
		"--migrate-batch-size-kb", "4", "--migrate-batch-rate-limit-mb", "1")
	pushTopology(t, nodes, mastersText(nodes, ids, []string{"0-16383", ""}), 1)
	src, dst := nodes[0].longClient(t, 2), nodes[1].longClient(t, 2)
	value := strings.Repeat("v", 20<<10)
	pipe := src.Pipeline()
	for i := 0; i < 1200; i++ { // 24 MB in one slot: 24 s at 1 MB/s
		pipe.Set(ctx, fmt.Sprintf("{tag}%d", i), value, 0)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	slot := strconv.FormatInt(src.ClusterKeySlot(ctx, "tag").Val(), 10)
	if err := src.Do(ctx, "CLUSTERX", "MIGRATE", slot, ids[1]).Err(); err != nil {
		t.Fatal(err)
	}
	applied := func() int64 {
		for _, l := range strings.Split(dst.Info(ctx, "commandstats").Val(), "\r\n") {
			if rest, ok := strings.CutPrefix(l, "cmdstat_applybatch:calls="); ok {
				n, _ := strconv.ParseInt(rest[:strings.IndexByte(rest, ',')], 10, 64)
				return n
			}
		}
		return 0
	}
	waitFor(t, 30*time.Second, "the first batches", func() bool { return applied() > 0 })
	if err := src.ConfigSet(ctx, "migrate-batch-rate-limit-mb", "0").Err(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 12*time.Second, "the migration done once unpaced", func() bool {
		return strings.Contains(src.ClusterInfo(ctx).Val(), "migrating_state: success")
	})
	// Every 20 KB key passes the 4 KB batch size: one batch per key.
	if n := applied(); n < 1200 {
		t.Errorf("%d APPLYBATCH calls for 1200 keys of 20 KB with 4 KB batches", n)
	}
	if n := dst.Do(ctx, "CLUSTER", "COUNTKEYSINSLOT", slot).Val(); n != int64(1200) {
		t.Errorf("the destination holds %v keys of the slot", n)
	}
}
