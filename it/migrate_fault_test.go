package it

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Slot migrations that fail half-way: the destination or the source
// killed, the source flushed. Each ends as Kvrocks ends it (the source
// reports migrating_state fail, the destination import_state error),
// every key stays on exactly one node, and the next migration of the same
// slots succeeds. Measured against Kvrocks 2.10 by hand with the same
// steps; where Kvrocks does worse, the test says so.

// migrationInfo returns the lines of node c's CLUSTER INFO that start with
// prefix, joined by " | ".
func migrationInfo(t *testing.T, c *redis.Client, prefix string) string {
	t.Helper()
	info, err := c.Do(ctx, "CLUSTER", "INFO").Text()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(info, "\r\n") {
		if l != "" && strings.HasPrefix(l, prefix) {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, " | ")
}

// checkFailed checks that the source reports the job on slots as failed,
// under both names of the range the controllers read.
func checkFailed(t *testing.T, src *redis.Client, slots string) {
	t.Helper()
	if state := waitMigration(t, src, 5*time.Minute); state != "fail" {
		t.Fatalf("the migration ended in %s", state)
	}
	if got, want := migrationInfo(t, src, "migrating_"), "migrating_slot(s): "+slots+" | migrating_slot: "+slots+" | migrating_state: fail"; got != want {
		t.Errorf("CLUSTER INFO of the source: %q, want %q", got, want)
	}
}

// TestSlotMigrationSurvivesDestinationDeath kills the destination during a
// SYNC migration whose timeout passed (it replied nil), and again during
// a SYNC retry without one: each time the job fails, the second with an
// error reply, the source keeps every key and serves writes, and the
// restarted destination has dropped the keys the import had written
// (Kvrocks keeps them, unserved but in DBSIZE and KEYS, until another
// import of the slots). The third attempt succeeds, every key ends on the
// destination alone, and migrating the slots back returns them intact.
func TestSlotMigrationSurvivesDestinationDeath(t *testing.T) {
	t.Parallel()
	n := 20_000
	if raceBuild() {
		n = 4_000
	}
	nodeArgs := []string{"--cluster-enabled", "yes", "--migrate-type", "raw-key-value", "--migrate-speed", "0"}
	nodes, ids := clusterNodes(t, 3, "--migrate-speed", strconv.Itoa(n/5))
	pushTopology(t, nodes, mastersText(nodes, ids, initialRanges), 1)
	src := nodes[0].longClient(t, 2)
	keys := slotKeys(n, migFrom, migTo)
	model := preload(t, src, keys)
	preloaded := time.Now() // the short TTLs end by 2 s after this
	slots := fmt.Sprintf("%d-%d", migFrom, migTo)
	for _, timeout := range []string{"1", ""} {
		args := []any{"CLUSTERX", "MIGRATE", slots, ids[1], "SYNC"}
		if timeout != "" {
			args = append(args, timeout)
		}
		reply := make(chan error, 1)
		go func() { reply <- src.Do(ctx, args...).Err() }()
		if timeout != "" {
			// As Kvrocks, nil once the timeout passes; the job goes on
			// (at n/5 keys a second, for 5 s).
			if err := <-reply; err != redis.Nil {
				t.Fatalf("SYNC %s: %v, want nil", timeout, err)
			}
		}
		// Kill the destination once it holds some of the keys: at n/5
		// keys a second the migration is then still running.
		dying := nodes[1].longClient(t, 2)
		waitFor(t, time.Minute, "the destination receives keys", func() bool { return keyCountIn(t, dying, migFrom, migTo) > 0 })
		nodes[1].Kill()
		if timeout == "" {
			if err := <-reply; err == nil || !strings.HasPrefix(err.Error(), "ERR ") {
				t.Errorf("SYNC migration to a killed destination replied %v", err)
			}
		}
		checkFailed(t, src, slots)
		nodes[1] = startBasaltAt(t, nodes[1].Dir, nodes[1].Port, nodeArgs...)
		dst := nodes[1].longClient(t, 2)
		if left, size := keyCountIn(t, dst, migFrom, migTo), dst.DBSize(ctx).Val(); left != 0 || size != 0 {
			t.Errorf("after the attempt %v, the restarted destination holds %d keys of the slots, DBSIZE %d", args, left, size)
		}
	}
	time.Sleep(time.Until(preloaded.Add(2100 * time.Millisecond)))
	checkModel(t, src, model)
	if err := src.Set(ctx, keys[0], "after", 0).Err(); err != nil {
		t.Fatalf("write after the failed migration: %v", err)
	}
	model[keys[0]] = &keyState{typ: 's', exists: true, str: "after"}

	must(t, src.ConfigSet(ctx, "migrate-speed", "0").Err())
	if err := src.Do(ctx, "CLUSTERX", "MIGRATE", slots, ids[1], "SYNC").Err(); err != nil {
		t.Fatalf("retry: %v", err)
	}
	pushTopology(t, nodes, mastersText(nodes, ids, migratedRanges), 2)
	dst := nodes[1].longClient(t, 2)
	checkModel(t, dst, model)
	live := int64(0)
	for _, st := range model {
		if st.exists {
			live++
		}
	}
	if got, left := keyCountIn(t, dst, migFrom, migTo), keyCountIn(t, src, migFrom, migTo); got != live || left != 0 {
		t.Errorf("after the migration: %d keys on the destination, %d on the source; the model has %d", got, left, live)
	}

	// And back, in raw-key-value mode.
	if err := dst.Do(ctx, "CLUSTERX", "MIGRATE", slots, ids[0], "SYNC").Err(); err != nil {
		t.Fatalf("migrate back: %v", err)
	}
	pushTopology(t, nodes, mastersText(nodes, ids, initialRanges), 3)
	checkModel(t, src, model)
	if left := keyCountIn(t, dst, migFrom, migTo); left != 0 {
		t.Errorf("node 1 still holds %d keys of the slots it gave back", left)
	}
}

// TestSlotMigrationSourceFlushed flushes the source during a migration:
// as in Kvrocks, the flush stops the job at once (it does not copy the
// rest of the slots first), the destination drops what it got, and a
// migration of the keys written after the flush carries exactly those.
func TestSlotMigrationSourceFlushed(t *testing.T) {
	t.Parallel()
	nodes, ids := clusterNodes(t, 2, "--migrate-speed", "50")
	pushTopology(t, nodes, mastersText(nodes, ids, []string{"0-8191", "8192-16383"}), 1)
	src, dst := nodes[0].longClient(t, 2), nodes[1].longClient(t, 2)
	pipe := src.Pipeline()
	for _, k := range slotKeys(3000, migFrom, migTo) {
		pipe.Set(ctx, k, k, 0)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	// 3,000 keys at 50 a second: a minute of copying.
	slots := fmt.Sprintf("%d-%d", migFrom, migTo)
	must(t, src.Do(ctx, "CLUSTERX", "MIGRATE", slots, ids[1]).Err())
	waitFor(t, time.Minute, "the destination receives keys", func() bool { return keyCountIn(t, dst, migFrom, migTo) > 0 })
	must(t, src.FlushAll(ctx).Err())
	if state := waitMigration(t, src, 20*time.Second); state != "fail" {
		t.Fatalf("a migration whose source was flushed ended in %s", state)
	}
	checkFailed(t, src, slots)
	waitFor(t, time.Minute, "the destination fails the import", func() bool {
		return migrationInfo(t, dst, "import_state") == "import_state: error"
	})
	if left, size := keyCountIn(t, dst, migFrom, migTo), src.DBSize(ctx).Val(); left != 0 || size != 0 {
		t.Errorf("after the flush: %d keys of the slots on the destination, DBSIZE %d on the source", left, size)
	}

	fresh := slotKeys(10, 0, 999)
	for _, k := range fresh {
		must(t, src.Set(ctx, k, "new "+k, 0).Err())
	}
	must(t, src.ConfigSet(ctx, "migrate-speed", "0").Err())
	if err := src.Do(ctx, "CLUSTERX", "MIGRATE", slots, ids[1], "SYNC").Err(); err != nil {
		t.Fatalf("migration after the flush: %v", err)
	}
	pushTopology(t, nodes, mastersText(nodes, ids, []string{"1000-8191", "0-999 8192-16383"}), 2)
	if got, left := dst.DBSize(ctx).Val(), src.DBSize(ctx).Val(); got != int64(len(fresh)) || left != 0 {
		t.Errorf("after the migration: DBSIZE %d on the destination, %d on the source; want %d and 0", got, left, len(fresh))
	}
	for _, k := range fresh {
		if v := dst.Get(ctx, k).Val(); v != "new "+k {
			t.Errorf("%s on the destination: %q", k, v)
		}
	}
}

// TestSlotMigrationSourceKilled kills the source during a migration: the
// destination sees the import's connection close and drops what it got;
// the restarted source has every key and, as Kvrocks, no memory of the
// job; a new migration carries every key.
func TestSlotMigrationSourceKilled(t *testing.T) {
	t.Parallel()
	n := 10_000
	if raceBuild() {
		n = 3_000
	}
	args := []string{"--cluster-enabled", "yes", "--migrate-speed", strconv.Itoa(n / 5)}
	nodes, ids := clusterNodes(t, 2, args[2:]...)
	pushTopology(t, nodes, mastersText(nodes, ids, []string{"0-8191", "8192-16383"}), 1)
	src, dst := nodes[0].longClient(t, 2), nodes[1].longClient(t, 2)
	keys := slotKeys(n, migFrom, migTo)
	model := preload(t, src, keys)
	preloaded := time.Now()
	slots := fmt.Sprintf("%d-%d", migFrom, migTo)
	must(t, src.Do(ctx, "CLUSTERX", "MIGRATE", slots, ids[1]).Err())
	waitFor(t, time.Minute, "the destination receives keys", func() bool { return keyCountIn(t, dst, migFrom, migTo) > 0 })
	nodes[0].Kill()
	waitFor(t, time.Minute, "the destination fails the import", func() bool {
		return migrationInfo(t, dst, "import_state") == "import_state: error"
	})
	if left := keyCountIn(t, dst, migFrom, migTo); left != 0 {
		t.Errorf("the destination keeps %d keys of the broken import", left)
	}
	nodes[0] = startBasaltAt(t, nodes[0].Dir, nodes[0].Port, args...)
	src = nodes[0].longClient(t, 2)
	if lines := migrationInfo(t, src, "migrating_"); lines != "" {
		t.Errorf("the restarted source reports a migration: %s", lines)
	}
	time.Sleep(time.Until(preloaded.Add(2100 * time.Millisecond)))
	checkModel(t, src, model)

	must(t, src.ConfigSet(ctx, "migrate-speed", "0").Err())
	if err := src.Do(ctx, "CLUSTERX", "MIGRATE", slots, ids[1], "SYNC").Err(); err != nil {
		t.Fatalf("migration after the restart: %v", err)
	}
	pushTopology(t, nodes, mastersText(nodes, ids, []string{"1000-8191", "0-999 8192-16383"}), 2)
	checkModel(t, dst, model)
	if left := keyCountIn(t, src, migFrom, migTo); left != 0 {
		t.Errorf("the source keeps %d keys of the migrated slots", left)
	}
}

// TestKvrocksMigrateFaults fails a migration on a Kvrocks and on a Basalt
// pair alike, by flushing the source and by killing the destination, and
// compares what CLUSTER INFO says on both nodes and how many keys each
// keeps. The one difference is Basalt's on purpose: a destination killed
// during an import drops the import's keys when it starts again, where
// Kvrocks keeps them (unserved, but counted and listed) until the next
// import.
func TestKvrocksMigrateFaults(t *testing.T) {
	for _, fault := range []string{"flush", "kill"} {
		t.Run(fault, func(t *testing.T) {
			var seen [2]string
			for i, kind := range []string{"kvrocks", "basalt"} {
				start, startAt := startKvrocks, startKvrocksAt
				if kind == "basalt" {
					start, startAt = startBasalt, startBasaltAt
				}
				args := []string{"--cluster-enabled", "yes", "--migrate-speed", "100"}
				src, dst := start(t, args...), start(t, args...)
				text := shardIDs[0] + " 127.0.0.1 " + strconv.Itoa(src.Port) + " master - 0-8191\n" +
					shardIDs[1] + " 127.0.0.1 " + strconv.Itoa(dst.Port) + " master - 8192-16383\n"
				pushTopology(t, []*proc{src, dst}, text, 1)
				sc, dc := src.longClient(t, 2), dst.longClient(t, 2)
				pipe := sc.Pipeline()
				for k := 0; k < 600; k++ {
					pipe.Set(ctx, "{c}"+strconv.Itoa(k), k, 0)
				}
				if _, err := pipe.Exec(ctx); err != nil {
					t.Fatal(err)
				}
				// 600 keys at 100 a second: 6 s of copying.
				must(t, sc.Do(ctx, "CLUSTERX", "MIGRATE", "7365", shardIDs[1]).Err())
				waitFor(t, time.Minute, kind+": the destination receives keys", func() bool { return len(dc.Keys(ctx, "*").Val()) > 0 })
				var report []string
				if fault == "flush" {
					must(t, sc.FlushAll(ctx).Err())
					waitFor(t, time.Minute, kind+": the destination fails the import", func() bool {
						return migrationInfo(t, dc, "import_state") == "import_state: error"
					})
					report = append(report, "destination: "+migrationInfo(t, dc, "import"))
				} else {
					dst.Kill()
					dst = startAt(t, dst.Dir, dst.Port, args...)
					dc = dst.longClient(t, 2)
					// Kvrocks's own stray keys, the thing Basalt does not copy.
					if stray := len(dc.Keys(ctx, "*").Val()); (kind == "kvrocks") != (stray > 0) {
						t.Errorf("%s: the restarted destination holds %d keys of the failed import", kind, stray)
					}
				}
				waitMigration(t, sc, time.Minute)
				report = append(report, "source: "+legacySlotLine.ReplaceAllString(migrationInfo(t, sc, ""), ""))
				report = append(report, fmt.Sprint("keys on the source: ", len(sc.Keys(ctx, "*").Val())))
				seen[i] = strings.Join(report, "\n")
				// The same slot migrates once the fault is gone.
				must(t, sc.Set(ctx, "{c}after", "1", 0).Err())
				must(t, sc.ConfigSet(ctx, "migrate-speed", "0").Err())
				if err := sc.Do(ctx, "CLUSTERX", "MIGRATE", "7365", shardIDs[1], "SYNC").Err(); err != nil {
					t.Errorf("%s: migration after the %s: %v", kind, fault, err)
				}
				if n, want := len(dc.Keys(ctx, "*").Val()), map[string]int{"flush": 1, "kill": 601}[fault]; n != want {
					t.Errorf("%s: %d keys on the destination after the migration, want %d", kind, n, want)
				}
			}
			t.Logf("after the %s:\n%s", fault, seen[1])
			if seen[0] != seen[1] {
				t.Errorf("after the %s:\nkvrocks:\n%s\nbasalt:\n%s", fault, seen[0], seen[1])
			}
		})
	}
}

// TestImportMarkerAtStart starts a node on an import marker left in its
// data directory: a marker naming a slot drops that slot's keys and no
// other; one that names nothing (garbage bytes) is removed and the node
// starts with every key.
func TestImportMarkerAtStart(t *testing.T) {
	nodes, ids := clusterNodes(t, 1)
	node := nodes[0]
	pushTopology(t, nodes, mastersText(nodes, ids, []string{"0-16383"}), 1)
	c := node.client(t, 2)
	for _, k := range []string{"{b}1", "{b}2", "{c}1", "{c}2"} { // slots 3300 and 7365
		must(t, c.Set(ctx, k, k, 0).Err())
	}
	marker := filepath.Join(node.Dir, "importing-slots")
	for _, tc := range []struct {
		content string
		keys    int64
	}{
		{"7365\n", 2},
		{"\xff\x00 not-a-slot 99999-1\n", 2},
		{"", 2},
	} {
		node.Stop()
		if err := os.WriteFile(marker, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		node = startBasaltAt(t, node.Dir, node.Port, "--cluster-enabled", "yes")
		c = node.client(t, 2)
		if n := c.DBSize(ctx).Val(); n != tc.keys {
			t.Errorf("marker %q: DBSIZE %d, want %d", tc.content, n, tc.keys)
		}
		if v := c.Get(ctx, "{b}1").Val(); v != "{b}1" {
			t.Errorf("marker %q: a key of another slot is %q", tc.content, v)
		}
		if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("marker %q left in place: %v", tc.content, err)
		}
	}
}

// TestImportMarkerUnwritable refuses an import whose marker cannot be
// written, and ends it as failed, so that the next one may start.
func TestImportMarkerUnwritable(t *testing.T) {
	nodes, ids := clusterNodes(t, 2)
	pushTopology(t, nodes, mastersText(nodes, ids, []string{"0-8191", "8192-16383"}), 1)
	marker := filepath.Join(nodes[1].Dir, "importing-slots")
	must(t, os.Mkdir(marker, 0o755)) // a directory: the file cannot be made
	c := nodes[1].client(t, 2)
	if err := c.Do(ctx, "CLUSTER", "IMPORT", "7365", "0").Err(); err == nil || !strings.HasPrefix(err.Error(), "ERR import marker: ") {
		t.Errorf("IMPORT with an unwritable marker: %v", err)
	}
	if got := migrationInfo(t, c, "import"); got != "importing_slot(s): 7365 | import_state: error" {
		t.Errorf("CLUSTER INFO after the refused import: %s", got)
	}
	must(t, os.Remove(marker))
	if err := c.Do(ctx, "CLUSTER", "IMPORT", "7365", "0").Err(); err != nil {
		t.Errorf("IMPORT once the marker can be written: %v", err)
	}
}
