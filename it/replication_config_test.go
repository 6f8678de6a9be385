package it

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The replication settings of the issue, each shown by CONFIG GET and
// obeyed: what a replica announces and its priority, the master's port
// plus one, the database name both must share, writes on a replica,
// the full sync's rate limit and emptying the database before it, and a
// replica that resumes after the master's WAL moved past it. Expired keys
// are not served by a replica either.

// fillStrings writes n keys "<prefix><i>" of size-byte values through c.
func fillStrings(t *testing.T, c *redis.Client, prefix string, n, size int) {
	t.Helper()
	value := strings.Repeat("v", size)
	pipe := c.Pipeline()
	for i := 0; i < n; i++ {
		pipe.Set(ctx, prefix+strconv.Itoa(i), value, 0)
		if pipe.Len() == 100 || i == n-1 {
			if _, err := pipe.Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// configGet returns the value of one key of CONFIG GET.
func configGet(t *testing.T, c *redis.Client, key string) string {
	t.Helper()
	v, err := c.ConfigGet(ctx, key).Result()
	if err != nil {
		t.Fatalf("CONFIG GET %s: %v", key, err)
	}
	return v[key]
}

func TestReplicationConfig(t *testing.T) {
	t.Parallel()
	t.Run("AnnounceAndPriority", func(t *testing.T) {
		m := startBasalt(t)
		r := startBasalt(t, "--replica-announce-ip", "10.1.2.3", "--replica-announce-port", "7777", "--slave-priority", "42")
		mc, rc := m.client(t, 2), r.client(t, 2)
		slaveOf(t, rc, m)
		must(t, mc.Set(ctx, "k", "v", 0).Err())
		waitCaughtUp(t, mc, rc)
		seq := strconv.FormatUint(sequenceOf(t, mc), 10)
		if got, want := infoFields(t, mc, "replication")["slave0"], "ip=10.1.2.3,port=7777,offset="+seq+",lag=0"; got != want {
			t.Errorf("the master's slave0:%s, want %s", got, want)
		}
		if got, err := mc.Do(ctx, "ROLE").Slice(); err != nil || fmt.Sprint(got) != "[master "+seq+" [[10.1.2.3 7777 "+seq+"]]]" {
			t.Errorf("the master's ROLE: %v %v", got, err)
		}
		for key, want := range map[string]string{"replica-announce-ip": "10.1.2.3", "replica-announce-port": "7777", "slave-priority": "42"} {
			if got := configGet(t, rc, key); got != want {
				t.Errorf("CONFIG GET %s = %q, want %q", key, got, want)
			}
		}
		if got := infoFields(t, rc, "replication")["slave_priority"]; got != "42" {
			t.Errorf("slave_priority:%s, want 42", got)
		}
		must(t, rc.ConfigSet(ctx, "slave-priority", "7").Err())
		if got := infoFields(t, rc, "replication")["slave_priority"]; got != "7" {
			t.Errorf("slave_priority:%s after CONFIG SET slave-priority 7", got)
		}
	})

	t.Run("MasterUseReplPort", func(t *testing.T) {
		m := startBasalt(t)
		r := startBasalt(t, "--master-use-repl-port", "yes")
		mc, rc := m.client(t, 2), r.client(t, 2)
		// The replica connects to the port after the one it is given.
		must(t, rc.Do(ctx, "SLAVEOF", "127.0.0.1", m.Port-1).Err())
		must(t, mc.Set(ctx, "k", "v", 0).Err())
		waitCaughtUp(t, mc, rc)
		if got := infoFields(t, rc, "replication")["master_port"]; got != strconv.Itoa(m.Port-1) {
			t.Errorf("master_port:%s, want the port given, %d", got, m.Port-1)
		}
		if got := configGet(t, rc, "master-use-repl-port"); got != "yes" {
			t.Errorf("CONFIG GET master-use-repl-port = %q", got)
		}
	})

	t.Run("DBName", func(t *testing.T) {
		m := startBasalt(t, "--db-name", "orders.db")
		mc := m.client(t, 2)
		must(t, mc.Set(ctx, "k", "v", 0).Err())
		dir, port := t.TempDir(), freePort(t)
		slave := "127.0.0.1 " + strconv.Itoa(m.Port)
		r := startBasaltAt(t, dir, port, "--slaveof", slave)
		waitFor(t, replWait, "the replica refusing a master of another db-name", func() bool {
			out := r.Output.String()
			return strings.Contains(out, "_db_name") && strings.Contains(out, "orders.db")
		})
		rc := r.client(t, 2)
		if info := infoFields(t, rc, "replication"); info["master_link_status"] != "down" || sequenceOf(t, rc) != 0 {
			t.Errorf("a replica of another db-name: %v, sequence %d", info, sequenceOf(t, rc))
		}
		stopClean(t, r)
		r = startBasaltAt(t, dir, port, "--slaveof", slave, "--db-name", "orders.db")
		rc = r.client(t, 2)
		waitCaughtUp(t, mc, rc)
		if got := configGet(t, rc, "db-name"); got != "orders.db" {
			t.Errorf("CONFIG GET db-name = %q", got)
		}
	})

	t.Run("SlaveReadOnly", func(t *testing.T) {
		m, r := startBasalt(t), startBasalt(t)
		mc, rc := m.client(t, 2), r.client(t, 2)
		slaveOf(t, rc, m)
		must(t, mc.Set(ctx, "k", "from the master", 0).Err())
		waitCaughtUp(t, mc, rc)
		if err := rc.Set(ctx, "local", "v", 0).Err(); err == nil || err.Error() != "READONLY You can't write against a read only replica." {
			t.Errorf("SET on a read-only replica: %v", err)
		}
		must(t, rc.ConfigSet(ctx, "slave-read-only", "no").Err())
		if got := configGet(t, rc, "slave-read-only"); got != "no" {
			t.Errorf("CONFIG GET slave-read-only = %q", got)
		}
		if err := rc.Set(ctx, "local", "v", 0).Err(); err != nil {
			t.Errorf("SET on a replica with slave-read-only no: %v", err)
		}
		// The master's writes go on arriving.
		must(t, mc.Set(ctx, "k2", "later", 0).Err())
		waitFor(t, replWait, "the master's write after a local one", func() bool { return rc.Get(ctx, "k2").Val() == "later" })
		must(t, rc.ConfigSet(ctx, "slave-read-only", "yes").Err())
		if err := rc.Del(ctx, "local").Err(); err == nil || !strings.HasPrefix(err.Error(), "READONLY ") {
			t.Errorf("DEL on a replica read-only again: %v", err)
		}
	})

	t.Run("ResumeOutsideWAL", func(t *testing.T) {
		// A replica that was following comes back after its master's WAL
		// moved past it: a full sync, then incremental again.
		_, ops := replicationSizes()
		m := startBasalt(t, purgedWAL...)
		mc := m.client(t, 2)
		dir, port := t.TempDir(), freePort(t)
		slave := "127.0.0.1 " + strconv.Itoa(m.Port)
		r := startBasaltAt(t, dir, port, "--slaveof", slave)
		writeLoad(t, m.Addr(), 2, ops/4, 71)
		waitCaughtUp(t, mc, r.client(t, 2))
		stopClean(t, r)
		writeLoad(t, m.Addr(), 2, ops/4, 72)
		flushWAL(t, m)
		r = startBasaltAt(t, dir, port, "--slaveof", slave)
		rc := r.client(t, 2)
		waitCaughtUp(t, mc, rc)
		writeLoad(t, m.Addr(), 2, ops/4, 73)
		waitCaughtUp(t, mc, rc)
		compareDumps(t, "the replica", dumpServer(t, m, interopCase{}), dumpServer(t, r, interopCase{}))
		// One full sync; the writes after it streamed.
		if full := infoFields(t, mc, "stats")["sync_full"]; full != "1" {
			t.Errorf("sync_full %s, want 1", full)
		}
	})
}

// TestReplicationMaxReplicationMB: a master sends a full sync's files at
// max-replication-mb, at an even pace: a file that takes longer than the
// replica's 30 s read timeout arrives without the link dropping. It takes
// over 30 s, so it runs in parallel with the other slow tests.
func TestReplicationMaxReplicationMB(t *testing.T) {
	t.Parallel()
	const mb = 33
	m := startBasalt(t, purgedWAL...)
	mc := m.client(t, 2)
	fillStrings(t, mc, "big:", mb*1000, 1000)
	flushWAL(t, m)
	must(t, mc.ConfigSet(ctx, "max-replication-mb", "1").Err())
	if got := configGet(t, mc, "max-replication-mb"); got != "1" {
		t.Errorf("CONFIG GET max-replication-mb = %q", got)
	}
	r := startBasalt(t)
	rc := r.client(t, 2)
	start := time.Now()
	slaveOf(t, rc, m)
	waitCaughtUp(t, mc, rc)
	took := time.Since(start)
	files, bytes := checkpointSize(t, m)
	t.Logf("%d files, %d bytes fetched in %v at max-replication-mb 1", files, bytes, took)
	if min := time.Duration(float64(bytes) / (1 << 20) * 0.9 * float64(time.Second)); took < min {
		t.Errorf("a full sync of %d bytes at 1 MB/s took %v, under %v", bytes, took, min)
	}
	if full := infoFields(t, mc, "stats")["sync_full"]; full != "1" {
		t.Errorf("sync_full:%s: the fetch was interrupted and begun again", full)
	}
	if got := rc.Get(ctx, "big:0").Val(); len(got) != 1000 {
		t.Errorf("the replica's big:0 has %d bytes", len(got))
	}
}

// checkpointSize returns the files and bytes of a master's checkpoint.
func checkpointSize(t *testing.T, m *proc) (int, int64) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(m.Dir, "checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	var bytes int64
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		bytes += info.Size()
	}
	return len(entries), bytes
}

// TestReplicationEmptyDBBeforeFullSync: without
// slave-empty-db-before-fullsync a replica serves its old data while it
// fetches its master's; with it, the old data is gone before the fetch
// and every command that needs data gets LOADING until the master's is
// in.
func TestReplicationEmptyDBBeforeFullSync(t *testing.T) {
	t.Parallel()
	m := startBasalt(t, purgedWAL...)
	mc := m.client(t, 2)
	fillStrings(t, mc, "master:", 2000, 100)
	flushWAL(t, m)
	for _, empty := range []string{"no", "yes"} {
		t.Run(empty, func(t *testing.T) {
			// A delay per file makes the fetch last seconds.
			r := startBasalt(t, "--slave-empty-db-before-fullsync", empty, "--fullsync-recv-file-delay", "1")
			rc := r.client(t, 2)
			fillStrings(t, rc, "mine:", 100, 10)
			if got := configGet(t, rc, "slave-empty-db-before-fullsync"); got != empty {
				t.Errorf("CONFIG GET slave-empty-db-before-fullsync = %q", got)
			}
			slaveOf(t, rc, m)
			waitFor(t, replWait, "the replica fetching files", func() bool {
				return infoFields(t, rc, "replication")["master_sync_in_progress"] == "1"
			})
			if empty == "no" {
				if v, err := rc.Get(ctx, "mine:1").Result(); err != nil || v != strings.Repeat("v", 10) {
					t.Errorf("GET of the replica's own key while it fetches: %q %v", v, err)
				}
			} else {
				waitFor(t, replWait, "the replica emptied", func() bool { return sequenceOf(t, rc) == 0 })
				for _, args := range [][]any{{"GET", "mine:1"}, {"DBSIZE"}, {"CONFIG", "GET", "dir"}, {"PING"}} {
					if err := rc.Do(ctx, args...).Err(); err == nil || err.Error() != "LOADING kvrocks is restoring the db from backup" {
						t.Errorf("%v while the database is emptied: %v", args, err)
					}
				}
				for _, args := range [][]any{{"INFO"}, {"ROLE"}, {"TIME"}} {
					if err := rc.Do(ctx, args...).Err(); err != nil {
						t.Errorf("%v while the database is emptied: %v", args, err)
					}
				}
				if info := infoFields(t, rc, "replication"); info["master_sync_in_progress"] != "1" {
					t.Errorf("the emptied replica's INFO replication: %v", info)
				}
				if got := infoFields(t, rc, "persistence")["loading"]; got != "1" {
					t.Errorf("the emptied replica's INFO loading:%s", got)
				}
			}
			waitCaughtUp(t, mc, rc)
			if got := infoFields(t, rc, "persistence")["loading"]; got != "0" {
				t.Errorf("INFO loading:%s after the full sync", got)
			}
			if n := rc.Exists(ctx, "mine:1").Val(); n != 0 {
				t.Error("the replica's own key outlived the full sync")
			}
			if n, err := rc.DBSize(ctx).Result(); err != nil || n != 2000 {
				t.Errorf("DBSIZE after the full sync: %d %v", n, err)
			}
		})
	}
	// The second replica fetched the checkpoint the first one did: it was
	// young and its sequence still the master's.
	if n := strings.Count(m.Output.String(), "checkpoint created for a full sync"); n != 1 {
		t.Errorf("the master made %d checkpoints for two full syncs in a row", n)
	}
}

// TestReplicationExpiry: a key that expired is served by no replica, even
// before the master's compaction drops it: every read checks the expiry.
func TestReplicationExpiry(t *testing.T) {
	m, r := startBasalt(t), startBasalt(t)
	mc, rc := m.client(t, 2), r.client(t, 2)
	slaveOf(t, rc, m)
	must(t, mc.Set(ctx, "short", "v", 1500*time.Millisecond).Err())
	must(t, mc.HSet(ctx, "shorthash", "f", "v").Err())
	must(t, mc.PExpire(ctx, "shorthash", 1500*time.Millisecond).Err())
	must(t, mc.Set(ctx, "long", "v", time.Hour).Err())
	waitCaughtUp(t, mc, rc)
	expired := func() bool {
		return rc.Exists(ctx, "short", "shorthash").Val() == 0
	}
	if expired() {
		t.Log("the keys expired before the replica was read")
	} else if v := rc.Get(ctx, "short").Val(); v != "v" {
		t.Errorf("the replica's short before it expires: %q", v)
	}
	waitFor(t, time.Minute, "the keys expiring on the replica", expired)
	if err := rc.Get(ctx, "short").Err(); err != redis.Nil {
		t.Errorf("GET of an expired key on the replica: %v", err)
	}
	if n := rc.HLen(ctx, "shorthash").Val(); n != 0 {
		t.Errorf("HLEN of an expired hash on the replica: %d", n)
	}
	if n := rc.DBSize(ctx).Val(); n != 1 {
		t.Errorf("DBSIZE on the replica: %d, want 1", n)
	}
	if keys, _ := rc.Scan(ctx, 0, "*", 100).Val(); fmt.Sprint(keys) != "[long]" {
		t.Errorf("SCAN on the replica: %v", keys)
	}
	if ttl := rc.TTL(ctx, "short").Val(); ttl != -2 {
		t.Errorf("TTL of an expired key on the replica: %v", ttl)
	}
}
