package it

import (
	"strconv"
	"testing"
	"time"
)

// rsid is the setting of the tests of this file: writes carry a
// replication id and PSYNC sends it (use-rsid-psync).
var rsid = []string{"--use-rsid-psync", "yes"}

// TestReplicationReplIDDiverged: a master demoted after its replica was
// promoted has writes the new master never saw, at sequence numbers the
// new master used for writes of its own. Its PSYNC would be accepted by
// the sequence number alone; the replication id tells the histories
// apart, so it syncs in full and ends with the new master's data.
func TestReplicationReplIDDiverged(t *testing.T) {
	_, ops := replicationSizes()
	a, b := startBasalt(t, rsid...), startBasalt(t, rsid...)
	ac, bc := a.client(t, 2), b.client(t, 2)
	slaveOf(t, bc, a)
	writeLoad(t, a.Addr(), 2, ops/4, 31)
	waitCaughtUp(t, ac, bc)

	// b is promoted; a goes on taking writes the new master never gets.
	must(t, bc.Do(ctx, "SLAVEOF", "NO", "ONE").Err())
	for i := 0; i < 3; i++ {
		must(t, ac.Set(ctx, "a-only:"+strconv.Itoa(i), i, 0).Err())
	}
	for i := 0; i < 20; i++ {
		must(t, bc.Set(ctx, "b-only:"+strconv.Itoa(i), i, 0).Err())
	}
	if sa, sb := sequenceOf(t, ac), sequenceOf(t, bc); sa >= sb {
		t.Fatalf("the demoted master is at %d, the new one at %d: the sequence alone would tell", sa, sb)
	}

	slaveOf(t, ac, b)
	waitCaughtUp(t, bc, ac)
	compareDumps(t, "the demoted master", dumpServer(t, b, interopCase{}), dumpServer(t, a, interopCase{}))
	stats := infoFields(t, bc, "stats")
	if stats["sync_partial_err"] == "0" || stats["sync_full"] == "0" {
		t.Errorf("the new master's sync_partial_err %s, sync_full %s: the diverged PSYNC was not refused", stats["sync_partial_err"], stats["sync_full"])
	}
	if n := ac.Exists(ctx, "a-only:0").Val(); n != 0 {
		t.Error("the demoted master kept a write of its diverged history")
	}
}

// TestReplicationReplIDResume: with replication ids, a restarted replica
// and a restarted master (which starts a new id) still resume with a
// partial sync: the id compared is the one of the shared history.
func TestReplicationReplIDResume(t *testing.T) {
	t.Parallel()
	_, ops := replicationSizes()
	m, r := startBasalt(t, rsid...), startBasalt(t, rsid...)
	mc, rc := m.client(t, 2), r.client(t, 2)
	slaveOf(t, rc, m)
	writeLoad(t, m.Addr(), 2, ops/4, 41)
	waitCaughtUp(t, mc, rc)

	r.Stop()
	writeLoad(t, m.Addr(), 2, ops/4, 42)
	r = startBasaltAt(t, r.Dir, r.Port, append(rsid, "--slaveof", "127.0.0.1 "+strconv.Itoa(m.Port))...)
	rc = r.client(t, 2)
	waitCaughtUp(t, mc, rc)

	m.Stop()
	m = startBasaltAt(t, m.Dir, m.Port, rsid...)
	mc = m.client(t, 2)
	writeLoad(t, m.Addr(), 2, ops/4, 43)
	waitCaughtUp(t, mc, rc)
	compareDumps(t, "the replica", dumpServer(t, m, interopCase{}), dumpServer(t, r, interopCase{}))
	if full := infoFields(t, mc, "stats")["sync_full"]; full != "0" {
		t.Errorf("sync_full %s: a restart did not resume incrementally", full)
	}
}

// TestKvrocksReplicationReplID: replication ids written by one
// implementation are read by the other: a Basalt replica of a Kvrocks
// master and a Kvrocks replica of a Basalt master, both with
// use-rsid-psync, resume incrementally after a restart.
func TestKvrocksReplicationReplID(t *testing.T) {
	kvrocksBin(t)
	_, ops := replicationSizes()
	t.Run("BasaltReplicaOfKvrocks", func(t *testing.T) {
		k, b := startKvrocks(t, rsid...), startBasalt(t, rsid...)
		kc, bc := interopClient(t, k, "", 30*time.Second), b.client(t, 2)
		writeLoad(t, k.Addr(), 2, ops/4, 51)
		slaveOf(t, bc, k)
		waitCaughtUp(t, kc, bc)
		// The first attach may sync in full: a new node writes its own
		// replication id when it starts, as Kvrocks does.
		before := infoFields(t, kc, "stats")["sync_full"]
		b.Stop()
		writeLoad(t, k.Addr(), 2, ops/4, 52)
		b = startBasaltAt(t, b.Dir, b.Port, append(rsid, "--slaveof", "127.0.0.1 "+strconv.Itoa(k.Port))...)
		bc = b.client(t, 2)
		waitCaughtUp(t, kc, bc)
		compareDumps(t, "the Basalt replica", dumpServer(t, k, interopCase{}), dumpServer(t, b, interopCase{}))
		if full := infoFields(t, kc, "stats")["sync_full"]; full != before {
			t.Errorf("Kvrocks's sync_full went from %s to %s: the restarted replica did not resume incrementally", before, full)
		}
	})
	t.Run("KvrocksReplicaOfBasalt", func(t *testing.T) {
		b, k := startBasalt(t, rsid...), startKvrocks(t, rsid...)
		bc, kc := b.client(t, 2), interopClient(t, k, "", 30*time.Second)
		slaveOf(t, kc, b)
		writeLoad(t, b.Addr(), 2, ops/4, 53)
		waitCaughtUp(t, bc, kc)
		b.Stop()
		b = startBasaltAt(t, b.Dir, b.Port, rsid...)
		bc = b.client(t, 2)
		writeLoad(t, b.Addr(), 2, ops/4, 54)
		waitCaughtUp(t, bc, kc)
		compareDumps(t, "the Kvrocks replica", dumpServer(t, b, interopCase{}), dumpServer(t, k, interopCase{}))
		// The counters start again with the process.
		if stats := infoFields(t, bc, "stats"); stats["sync_full"] != "0" || stats["sync_partial_ok"] == "0" {
			t.Errorf("Basalt's sync_full %s, sync_partial_ok %s after its restart: Kvrocks did not resume incrementally", stats["sync_full"], stats["sync_partial_ok"])
		}
	})
}
