package storage

import (
	"bytes"
	"errors"
	"testing"

	"github.com/basaltdb/basalt/metadata"
)

// checkGroupCounts checks that the counters a group's records keep match
// the records they count: the group's pending entries and consumers, and
// each consumer's pending entries.
func checkGroupCounts(t *testing.T, db DB, key, group string) StreamGroupInfo {
	t.Helper()
	info, _, err := db.XStreamInfo(b(key), StreamInfoWant{Full: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range info.GroupList {
		if string(g.Name) != group {
			continue
		}
		if g.Pending != uint64(len(g.PendingList)) || g.Consumers != uint64(len(g.ConsumerList)) {
			t.Fatalf("group %s counts %d pending, %d consumers; has %d, %d", group, g.Pending, g.Consumers, len(g.PendingList), len(g.ConsumerList))
		}
		for _, c := range g.ConsumerList {
			if c.Pending != uint64(len(c.PendingList)) {
				t.Fatalf("consumer %s counts %d pending, has %d", c.Name, c.Pending, len(c.PendingList))
			}
		}
		return g
	}
	t.Fatalf("no group %s in %s", group, key)
	return StreamGroupInfo{}
}

// TestStreamGroupCounters runs every command that changes a group and
// checks after each that its counters match its records.
func TestStreamGroupCounters(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	defer s.Close()
	db := s.DB(metadata.DefaultNamespace)
	addN(t, db, "s", 1, 10)
	if err := db.XGroupCreate(b("s"), b("g"), XGroupCreateArgs{EntriesRead: -1}); err != nil {
		t.Fatal(err)
	}
	if err := db.XGroupCreate(b("s"), b("g"), XGroupCreateArgs{EntriesRead: -1}); !errors.Is(err, ErrBusyGroup) {
		t.Fatalf("second create: %v", err)
	}
	read := func(consumer string, count int64) []StreamEntry {
		t.Helper()
		entries, _, err := db.XReadGroup(b("s"), &XReadGroupArgs{Group: b("g"), Consumer: b(consumer), Count: count})
		if err != nil {
			t.Fatal(err)
		}
		return entries
	}
	read("alice", 4)
	read("bob", 3)
	checkGroupCounts(t, db, "s", "g")
	if n, err := db.XAck(b("s"), b("g"), []metadata.StreamID{sid(1, 0), sid(1, 0), sid(5, 0), sid(9, 0)}); err != nil || n != 2 {
		t.Fatalf("XAck = %d, %v", n, err)
	}
	checkGroupCounts(t, db, "s", "g")
	claimed, err := db.XClaim(b("s"), &XClaimArgs{Group: b("g"), Consumer: b("carol"), IDs: []metadata.StreamID{sid(2, 0), sid(6, 0), sid(6, 0)}, RetryCount: -1, Now: 1, DeliveryTime: 1})
	if err != nil || len(claimed) != 3 {
		t.Fatalf("XClaim = %v, %v", claimed, err)
	}
	g := checkGroupCounts(t, db, "s", "g")
	if g.Consumers != 3 || g.Pending != 5 {
		t.Fatalf("after XCLAIM: %+v", g.StreamGroup)
	}
	// A deleted entry leaves the PEL when XAUTOCLAIM meets it.
	if _, err := db.XDel(b("s"), []metadata.StreamID{sid(3, 0)}); err != nil {
		t.Fatal(err)
	}
	res, err := db.XAutoClaim(b("s"), &XAutoClaimArgs{Group: b("g"), Consumer: b("dave"), Count: 2, Now: 2})
	if err != nil || len(res.Deleted) != 1 || res.Deleted[0] != sid(3, 0) || len(res.Claimed) != 1 || res.Next != sid(4, 0) {
		t.Fatalf("XAutoClaim = %+v, %v", res, err)
	}
	checkGroupCounts(t, db, "s", "g")
	// dave took 2-0 from carol; 3-0 left.
	if n, err := db.XGroupDelConsumer(b("s"), b("g"), b("carol")); err != nil || n != 1 {
		t.Fatalf("XGroupDelConsumer = %d, %v", n, err)
	}
	g = checkGroupCounts(t, db, "s", "g")
	if g.Consumers != 3 || g.Pending != 3 {
		t.Fatalf("after DELCONSUMER: %+v", g.StreamGroup)
	}
	// NOACK reads leave nothing pending; the group still moves on.
	entries, _, err := db.XReadGroup(b("s"), &XReadGroupArgs{Group: b("g"), Consumer: b("erin"), NoAck: true})
	if err != nil || len(entries) != 3 {
		t.Fatalf("NOACK read: %v, %v", entries, err)
	}
	g = checkGroupCounts(t, db, "s", "g")
	if g.LastDelivered != sid(10, 0) || g.Pending != 3 || g.Consumers != 4 {
		t.Fatalf("after NOACK: %+v", g.StreamGroup)
	}
	if ok, err := db.XGroupDestroy(b("s"), b("g")); !ok || err != nil {
		t.Fatalf("XGroupDestroy = %v, %v", ok, err)
	}
	// Only the 9 entries are left.
	if got := countRecords(t, s, CFStream); got != 9 {
		t.Fatalf("%d records after DESTROY", got)
	}
	if _, _, err := db.XReadGroup(b("s"), &XReadGroupArgs{Group: b("g"), Consumer: b("x")}); !errors.Is(err, ErrNoGroup) {
		t.Fatalf("read of a destroyed group: %v", err)
	}
}

// TestStreamGroupNames: groups and consumers come back in name order,
// although their records sort by name length first.
func TestStreamGroupNames(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	defer s.Close()
	db := s.DB(metadata.DefaultNamespace)
	names := [][]byte{b("b"), b("aa"), b("a"), b("ab"), b("\xff")}
	for _, n := range names {
		if err := db.XGroupCreate(b("s"), n, XGroupCreateArgs{EntriesRead: -1, MkStream: true}); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range names {
		if _, err := db.XGroupCreateConsumer(b("s"), b("a"), n); err != nil {
			t.Fatal(err)
		}
	}
	info, _, err := db.XStreamInfo(b("s"), StreamInfoWant{Groups: true})
	if err != nil || len(info.GroupList) != len(names) || info.Groups != uint64(len(names)) {
		t.Fatalf("groups %+v, %v", info, err)
	}
	consumers, _, _, err := db.XConsumers(b("s"), b("a"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(names); i++ {
		if bytes.Compare(info.GroupList[i-1].Name, info.GroupList[i].Name) >= 0 || bytes.Compare(consumers[i-1].Name, consumers[i].Name) >= 0 {
			t.Fatalf("out of order: %q, %q", info.GroupList[i-1].Name, consumers[i-1].Name)
		}
	}
}
