package it

import (
	"testing"
	"time"
)

// TestKvrocksReplicationFullSync: a Kvrocks replica of a non-empty Basalt
// master full-syncs from Basalt's checkpoint, and a Basalt replica of a
// non-empty Kvrocks master from Kvrocks's; both go on incrementally.
func TestKvrocksReplicationFullSync(t *testing.T) {
	kvrocksBin(t)
	keys, ops := replicationSizes()
	t.Run("KvrocksReplicaOfBasalt", func(t *testing.T) {
		b := startBasalt(t, purgedWAL...)
		bc := b.client(t, 2)
		replicationLoad(t, b, 41, keys, ops)
		flushWAL(t, b)
		k := startKvrocks(t)
		kc := interopClient(t, k, "", 30*time.Second)
		slaveOf(t, kc, b)
		writeLoad(t, b.Addr(), 2, ops/2, 42)
		waitCaughtUp(t, bc, kc)
		compareDumps(t, "the Kvrocks replica after a full sync from Basalt", dumpServer(t, b, interopCase{}), dumpServer(t, k, interopCase{}))
		if st := infoFields(t, bc, "stats"); st["sync_full"] != "1" {
			t.Errorf("Basalt's sync_full:%s, want 1", st["sync_full"])
		}
	})
	t.Run("BasaltReplicaOfKvrocks", func(t *testing.T) {
		k := startKvrocks(t, "--rocksdb.wal_ttl_seconds", "0", "--rocksdb.wal_size_limit_mb", "0")
		kc := interopClient(t, k, "", 60*time.Second)
		replicationLoad(t, k, 43, keys, ops)
		flushWAL(t, k)
		b := startBasalt(t)
		bc := b.client(t, 2)
		slaveOf(t, bc, k)
		writeLoad(t, k.Addr(), 2, ops/2, 44)
		waitCaughtUp(t, kc, bc)
		compareDumps(t, "the Basalt replica after a full sync from Kvrocks", dumpServer(t, k, interopCase{}), dumpServer(t, b, interopCase{}))
		if st := infoFields(t, kc, "stats"); st["sync_full"] != "1" {
			t.Errorf("Kvrocks's sync_full:%s, want 1", st["sync_full"])
		}
	})
}
