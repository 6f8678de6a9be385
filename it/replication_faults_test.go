package it

import (
	"syscall"
	"testing"
)

// TestReplicationMasterStopped: a master stopped (SIGSTOP) past the
// replica's timeout leaves the replica with its link down, serving stale
// reads while slave-serve-stale-data is yes and MASTERDOWN when it is no;
// on SIGCONT the replica catches up with what the master wrote since, and
// serves again.
// It waits out the replica's 30 s silence timeout, so it runs in
// parallel with the other slow tests.
func TestReplicationMasterStopped(t *testing.T) {
	t.Parallel()
	_, ops := replicationSizes()
	m, r := startBasalt(t), startBasalt(t)
	mc, rc := m.client(t, 2), r.client(t, 2)
	slaveOf(t, rc, m)
	writeLoad(t, m.Addr(), 2, ops/4, 11)
	if err := mc.Set(ctx, "before", "stop", 0).Err(); err != nil {
		t.Fatal(err)
	}
	waitCaughtUp(t, mc, rc)

	pid := m.cmd.Process.Pid
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
				t.Error(err)
			}
		}
	}
	defer resume()
	waitFor(t, replWait, "the replica's link going down", func() bool {
		return infoFields(t, rc, "replication")["master_link_status"] == "down"
	})
	if v, err := rc.Get(ctx, "before").Result(); err != nil || v != "stop" {
		t.Errorf("a stale read with slave-serve-stale-data yes: %q %v", v, err)
	}
	if err := rc.ConfigSet(ctx, "slave-serve-stale-data", "no").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rc.Get(ctx, "before").Err(); err == nil || err.Error() != "MASTERDOWN Link with MASTER is down and slave-serve-stale-data is set to 'no'." {
		t.Errorf("a read with slave-serve-stale-data no: %v", err)
	}
	// As in Kvrocks, only INFO and SLAVEOF are served then: not even
	// CONFIG.
	if err := rc.ConfigSet(ctx, "slave-serve-stale-data", "yes").Err(); err == nil {
		t.Error("CONFIG SET served by a replica with slave-serve-stale-data no and its link down")
	}

	resume()
	writeLoad(t, m.Addr(), 2, ops/4, 12)
	waitCaughtUp(t, mc, rc)
	if v, err := rc.Get(ctx, "before").Result(); err != nil || v != "stop" {
		t.Errorf("a read once the link is up again: %q %v", v, err)
	}
	compareDumps(t, "the replica after SIGCONT", dumpServer(t, m, interopCase{}), dumpServer(t, r, interopCase{}))
}

// TestReplicationChained: a replica of a replica gets the master's
// writes through the middle node, with the same sequence numbers, and so
// do two replicas of one master.
func TestReplicationChained(t *testing.T) {
	t.Parallel()
	keys, ops := replicationSizes()
	m, middle, end, sibling := startBasalt(t), startBasalt(t), startBasalt(t), startBasalt(t)
	mc := m.client(t, 2)
	slaveOf(t, middle.client(t, 2), m)
	slaveOf(t, sibling.client(t, 2), m)
	slaveOf(t, end.client(t, 2), middle)
	replicationLoad(t, m, 21, keys, ops)
	for _, r := range []*proc{middle, sibling, end} {
		waitCaughtUp(t, mc, r.client(t, 2))
	}
	want := dumpServer(t, m, interopCase{})
	for name, r := range map[string]*proc{"the middle replica": middle, "the second replica": sibling, "the replica of the replica": end} {
		compareDumps(t, name, want, dumpServer(t, r, interopCase{}))
	}
	t.Logf("%d keys alike on four nodes at sequence %d", want.keys(), sequenceOf(t, mc))
}

// TestReplicationClientKillMaster: CLIENT KILL TYPE master on a replica
// drops its link, as Redis's does; the replica reconnects and resumes
// with a partial sync.
func TestReplicationClientKillMaster(t *testing.T) {
	m, r := startBasalt(t), startBasalt(t)
	mc, rc := m.client(t, 2), r.client(t, 2)
	if n, err := rc.Do(ctx, "CLIENT", "KILL", "TYPE", "master").Int(); err != nil || n != 0 {
		t.Errorf("CLIENT KILL TYPE master on a master: %d %v", n, err)
	}
	slaveOf(t, rc, m)
	waitCaughtUp(t, mc, rc)
	if n, err := rc.Do(ctx, "CLIENT", "KILL", "TYPE", "master").Int(); err != nil || n != 1 {
		t.Fatalf("CLIENT KILL TYPE master on a replica: %d %v", n, err)
	}
	waitFor(t, replWait, "a second partial sync", func() bool {
		return infoFields(t, mc, "stats")["sync_partial_ok"] == "2"
	})
	if err := mc.Set(ctx, "after", "kill", 0).Err(); err != nil {
		t.Fatal(err)
	}
	waitCaughtUp(t, mc, rc)
	if v := rc.Get(ctx, "after").Val(); v != "kill" {
		t.Errorf("the replica holds %q after its link was killed", v)
	}
}
