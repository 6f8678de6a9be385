package it

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Replication across implementations: a Basalt replica of a real Kvrocks
// master and a real Kvrocks replica of a Basalt master, each under a write
// load, end with the master's data exactly. Both speak Kvrocks's protocol
// and stream RocksDB write batches, so the data and the sequence numbers
// match record for record. INFO replication must then show the fields
// Kvrocks shows, in its order, on a master and on a replica.

// replicationInfoKeys returns the keys of INFO replication in order, with
// the slave<i> lines kept.
func replicationInfoKeys(t testing.TB, c *redis.Client) []string {
	t.Helper()
	text, err := c.Info(ctx, "replication").Result()
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, line := range strings.Split(text, "\r\n") {
		if k, _, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, "#") {
			keys = append(keys, k)
		}
	}
	return keys
}

func TestKvrocksReplication(t *testing.T) {
	kvrocksBin(t)
	keys, ops := replicationSizes()
	// role -> implementation -> INFO replication keys
	infoKeys := map[string]map[string][]string{"master": {}, "slave": {}}

	t.Run("BasaltReplicaOfKvrocks", func(t *testing.T) {
		k := startKvrocks(t)
		b := startBasalt(t)
		kc, bc := interopClient(t, k, "", 30*time.Second), b.client(t, 2)
		writeLoad(t, k.Addr(), 2, ops/4, 11)
		slaveOf(t, bc, k)
		replicationLoad(t, k, 12, keys, ops)
		waitCaughtUp(t, kc, bc)
		want := dumpServer(t, k, interopCase{})
		if want.keys() < 100 {
			t.Fatalf("the load left only %d keys", want.keys())
		}
		compareDumps(t, "the Basalt replica of Kvrocks", want, dumpServer(t, b, interopCase{}))
		t.Logf("%d keys, %d elements alike at sequence %d", want.keys(), want.elements(), sequenceOf(t, bc))
		infoKeys["master"]["kvrocks"] = replicationInfoKeys(t, kc)
		infoKeys["slave"]["basalt"] = replicationInfoKeys(t, bc)
		if got := infoFields(t, kc, "replication")["slave0"]; !strings.HasPrefix(got, fmt.Sprintf("ip=127.0.0.1,port=%d,", b.Port)) {
			t.Errorf("Kvrocks's slave0:%s", got)
		}
		if err := bc.Set(ctx, "k", "v", 0).Err(); err == nil || !strings.HasPrefix(err.Error(), "READONLY ") {
			t.Errorf("SET on the replica: %v", err)
		}
		// The replica restarts while Kvrocks takes more writes, and
		// resumes from its own sequence.
		b.Stop()
		writeLoad(t, k.Addr(), 2, ops/4, 14)
		b = startBasaltAt(t, b.Dir, b.Port, "--slaveof", "127.0.0.1 "+strconv.Itoa(k.Port))
		bc = b.client(t, 2)
		writeLoad(t, k.Addr(), 2, ops/4, 15)
		waitCaughtUp(t, kc, bc)
		again := dumpServer(t, k, interopCase{})
		compareDumps(t, "the restarted Basalt replica of Kvrocks", again, dumpServer(t, b, interopCase{}))
		t.Logf("after the replica's restart: %d keys alike at sequence %d", again.keys(), sequenceOf(t, bc))
		if full := infoFields(t, kc, "stats")["sync_full"]; full != "0" {
			t.Errorf("Kvrocks's sync_full %s: the restarted replica did not resume incrementally", full)
		}
	})

	t.Run("KvrocksReplicaOfBasalt", func(t *testing.T) {
		b := startBasalt(t)
		k := startKvrocks(t)
		bc, kc := b.client(t, 2), interopClient(t, k, "", 30*time.Second)
		// Kvrocks's replica starts from sequence 0: its PSYNC 1 is
		// served incrementally by an empty master.
		slaveOf(t, kc, b)
		replicationLoad(t, b, 13, keys, ops)
		waitCaughtUp(t, bc, kc)
		want := dumpServer(t, b, interopCase{})
		compareDumps(t, "the Kvrocks replica of Basalt", want, dumpServer(t, k, interopCase{}))
		t.Logf("%d keys, %d elements alike at sequence %d", want.keys(), want.elements(), sequenceOf(t, kc))
		infoKeys["master"]["basalt"] = replicationInfoKeys(t, bc)
		infoKeys["slave"]["kvrocks"] = replicationInfoKeys(t, kc)
		if got := infoFields(t, bc, "replication")["slave0"]; !strings.HasPrefix(got, fmt.Sprintf("ip=127.0.0.1,port=%d,", k.Port)) {
			t.Errorf("Basalt's slave0:%s", got)
		}
		// The master restarts; Kvrocks reconnects by itself and follows
		// the writes made after.
		b.Stop()
		b = startBasaltAt(t, b.Dir, b.Port)
		bc = b.client(t, 2)
		writeLoad(t, b.Addr(), 2, ops/4, 16)
		waitCaughtUp(t, bc, kc)
		again := dumpServer(t, b, interopCase{})
		compareDumps(t, "the Kvrocks replica of the restarted Basalt", again, dumpServer(t, k, interopCase{}))
		t.Logf("after the master's restart: %d keys alike at sequence %d", again.keys(), sequenceOf(t, kc))
		if full := infoFields(t, bc, "stats")["sync_full"]; full != "0" {
			t.Errorf("Basalt's sync_full %s after its restart: Kvrocks did not resume incrementally", full)
		}
	})

	for _, role := range []string{"master", "slave"} {
		b, k := infoKeys[role]["basalt"], infoKeys[role]["kvrocks"]
		if b == nil || k == nil {
			continue
		}
		if strings.Join(b, " ") != strings.Join(k, " ") {
			t.Errorf("INFO replication of a %s:\nbasalt  %v\nkvrocks %v", role, b, k)
		} else {
			t.Logf("INFO replication of a %s, as Kvrocks's: %v", role, b)
		}
	}
}
