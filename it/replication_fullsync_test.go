package it

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
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
	t.Parallel()
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
	t.Parallel()
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

// TestReplicationFullSyncSwapIsAtomic: clients reading a replica while it
// swaps in its master's data see, in every reply, either all of the
// replica's old keys and none of the master's, or the reverse: never a
// database half swapped, never an error.
func TestReplicationFullSyncSwapIsAtomic(t *testing.T) {
	const keys = 200
	m := startBasalt(t, purgedWAL...)
	mc := m.client(t, 2)
	fillStrings(t, mc, "new:", keys, 10)
	// The master's sequence passes the replica's, so that the replica's
	// PSYNC is refused (an equal one would be accepted: without
	// use-rsid-psync only the sequence decides, as in Kvrocks).
	for i := 0; i < keys; i++ {
		must(t, mc.Incr(ctx, "pad").Err())
	}
	flushWAL(t, m)
	r := startBasalt(t)
	rc := r.client(t, 2)
	fillStrings(t, rc, "old:", keys, 10)
	mget := []any{"MGET"}
	for i := 0; i < keys; i++ {
		mget = append(mget, "old:"+strconv.Itoa(i), "new:"+strconv.Itoa(i))
	}
	if sm, sr := sequenceOf(t, mc), sequenceOf(t, rc); sm <= sr {
		t.Fatalf("the master's sequence %d is not past the replica's %d", sm, sr)
	}

	const readers = 4
	stop := make(chan struct{})
	type outcome struct {
		reads, before, after int
		err                  error
	}
	results := make(chan outcome, readers)
	var ready atomic.Int32 // readers that read once, or failed
	for i := 0; i < readers; i++ {
		c := r.longClient(t, 2)
		go func() {
			var o outcome
			defer func() {
				if o.reads == 0 {
					ready.Add(1)
				}
				results <- o
			}()
			for {
				select {
				case <-stop:
					return
				default:
				}
				vals, err := c.Do(ctx, mget...).Slice()
				if err != nil {
					o.err = fmt.Errorf("read %d: %v", o.reads, err)
					return
				}
				old, fresh := 0, 0
				for j, v := range vals {
					if v != nil && j%2 == 0 {
						old++
					} else if v != nil {
						fresh++
					}
				}
				switch {
				case old == keys && fresh == 0:
					if o.after > 0 {
						o.err = fmt.Errorf("read %d: the old data again after the new", o.reads)
						return
					}
					o.before++
				case old == 0 && fresh == keys:
					o.after++
				default:
					o.err = fmt.Errorf("read %d: %d old keys and %d new ones", o.reads, old, fresh)
					return
				}
				if o.reads++; o.reads == 1 {
					ready.Add(1)
				}
			}
		}()
	}
	waitFor(t, time.Minute, "every reader reading the old data", func() bool { return ready.Load() == readers })
	slaveOf(t, rc, m)
	waitCaughtUp(t, mc, rc)
	// And a while after the swap.
	time.Sleep(200 * time.Millisecond)
	close(stop)
	sawSwap := false
	for i := 0; i < readers; i++ {
		o := <-results
		if o.err != nil {
			t.Error(o.err)
		}
		t.Logf("reader %d: %d reads, %d of the old data, %d of the master's", i, o.reads, o.before, o.after)
		sawSwap = sawSwap || (o.before > 0 && o.after > 0)
	}
	if !sawSwap {
		t.Error("no reader read across the swap")
	}
}
