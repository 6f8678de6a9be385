package it

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Full sync: a replica whose next sequence number the master's WAL no
// longer holds fetches a checkpoint of the master, swaps it in and goes
// on incrementally.

// purgedWAL are the settings of a master that keeps no WAL file once its
// memtables are flushed, so that a new replica cannot start from
// sequence 1.
var purgedWAL = []string{"--rocksdb.wal_ttl_seconds", "0", "--rocksdb.wal_size_limit_mb", "0"}

// flushWAL makes a master's WAL hold none of its data: COMPACT flushes the
// memtables, after which RocksDB deletes the WAL files.
func flushWAL(t testing.TB, p *proc) {
	t.Helper()
	c := p.longClient(t, 2)
	if err := c.Do(ctx, "COMPACT").Err(); err != nil {
		t.Fatalf("COMPACT: %v", err)
	}
	// On a raw connection: an accepted PSYNC turns it into a stream.
	waitFor(t, time.Minute, "the master refusing PSYNC 1", func() bool {
		return rawCommand(t, p, "PSYNC", "1") == "-ERR sequence out of range, please use fullsync"
	})
}

func TestReplicationFullSync(t *testing.T) {
	keys, ops := replicationSizes()
	m := startBasalt(t, purgedWAL...)
	mc := m.client(t, 2)
	replicationLoad(t, m, 21, keys, ops)
	flushWAL(t, m)

	dir := t.TempDir()
	r := startBasaltIn(t, dir)
	rc := r.client(t, 2)
	slaveOf(t, rc, m)
	// Writes go on during and after the full sync.
	writeLoad(t, m.Addr(), 2, ops/2, 22)
	waitCaughtUp(t, mc, rc)
	compareDumps(t, "the replica after a full sync", dumpServer(t, m, interopCase{}), dumpServer(t, r, interopCase{}))
	if st := infoFields(t, mc, "stats"); st["sync_full"] != "1" {
		t.Errorf("sync_full:%s, want 1", st["sync_full"])
	}
	for _, gone := range []string{"sync_checkpoint", "db.tmp"} {
		if _, err := os.Stat(filepath.Join(dir, gone)); err == nil {
			t.Errorf("%s left in the replica's dir", gone)
		}
	}
	// The checkpoint goes once idle (30 s, checked every 10 s).
	waitFor(t, 2*time.Minute, "the master removing its checkpoint", func() bool {
		_, err := os.Stat(filepath.Join(m.Dir, "checkpoint"))
		return os.IsNotExist(err)
	})
	// Incremental again: a restart resumes without a full sync.
	stopClean(t, r)
	writeLoad(t, m.Addr(), 1, ops/4, 23)
	r = startBasaltAt(t, dir, r.Port, "--slaveof", "127.0.0.1 "+strconv.Itoa(m.Port))
	rc = r.client(t, 2)
	waitCaughtUp(t, mc, rc)
	compareDumps(t, "the restarted replica", dumpServer(t, m, interopCase{}), dumpServer(t, r, interopCase{}))
	if st := infoFields(t, mc, "stats"); st["sync_full"] != "1" {
		t.Errorf("after the restart, sync_full:%s, want 1", st["sync_full"])
	}
}

// TestReplicationFullSyncKilled: a replica killed during a full sync
// starts the next one clean, and no partial directory is ever opened.
func TestReplicationFullSyncKilled(t *testing.T) {
	keys, ops := replicationSizes()
	// Many small SST files: the fetch takes a while with a delay per file.
	m := startBasalt(t, append(purgedWAL, "--rocksdb.write_buffer_size", "1")...)
	mc := m.client(t, 2)
	replicationLoad(t, m, 30, keys, ops)
	for i := 0; i < 4; i++ {
		writeLoad(t, m.Addr(), 4, ops, int64(31+i))
		if err := mc.Do(ctx, "COMPACT").Err(); err != nil {
			t.Fatal(err)
		}
	}
	flushWAL(t, m)
	dir, port := t.TempDir(), freePort(t)
	slave := "127.0.0.1 " + strconv.Itoa(m.Port)
	r := startBasaltAt(t, dir, port, "--slaveof", slave, "--fullsync-recv-file-delay", "1")
	rc := r.client(t, 2)
	waitFor(t, replWait, "the replica fetching files", func() bool {
		return infoFields(t, rc, "replication")["master_sync_in_progress"] == "1"
	})
	time.Sleep(1500 * time.Millisecond) // at least one file is in
	r.Kill()
	staged, err := os.ReadDir(filepath.Join(dir, "sync_checkpoint"))
	if err != nil {
		t.Fatalf("no staging directory after the kill: %v", err)
	}
	t.Logf("killed with %d files staged", len(staged))
	r = startBasaltAt(t, dir, port, "--slaveof", slave)
	rc = r.client(t, 2)
	writeLoad(t, m.Addr(), 1, ops/4, 39)
	waitCaughtUp(t, mc, rc)
	compareDumps(t, "the replica after a killed full sync", dumpServer(t, m, interopCase{}), dumpServer(t, r, interopCase{}))
	// The killed sync counted once, the clean one after the restart once.
	if st := infoFields(t, mc, "stats"); st["sync_full"] != "2" {
		t.Errorf("sync_full:%s, want 2", st["sync_full"])
	}
}
