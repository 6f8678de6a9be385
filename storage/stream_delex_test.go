package storage

import (
	"slices"
	"testing"

	"github.com/basaltdb/basalt/metadata"
)

// TestStreamDelExAndClaimCounters: XREADGROUP's CLAIM and XDELEX/XACKDEL
// under each policy keep the groups' and consumers' counters equal to
// their records, and the stream's length and ends right.
func TestStreamDelExAndClaimCounters(t *testing.T) {
	db := newTestDB(t)
	addN(t, db, "s", 1, 10)
	for _, g := range []string{"g", "h"} {
		if err := db.XGroupCreate(b("s"), b(g), XGroupCreateArgs{EntriesRead: -1}); err != nil {
			t.Fatal(err)
		}
	}
	read := func(group, consumer string, count int64, claim bool) ([]StreamEntry, []StreamClaim) {
		t.Helper()
		entries, claims, _, err := db.XReadGroupClaim(b("s"), &XReadGroupArgs{Group: b(group), Consumer: b(consumer), Count: count, Claim: claim})
		if err != nil {
			t.Fatal(err)
		}
		return entries, claims
	}
	check := func(wantLen uint64) {
		t.Helper()
		checkGroupCounts(t, db, "s", "g")
		checkGroupCounts(t, db, "s", "h")
		info, _, err := db.XStreamInfo(b("s"), StreamInfoWant{})
		if err != nil || info.Length != wantLen {
			t.Fatalf("length %d (%v), want %d", info.Length, err, wantLen)
		}
	}
	delex := func(group string, policy StreamRefPolicy, want []int64, ids ...uint64) {
		t.Helper()
		var g []byte
		if group != "" {
			g = b(group)
		}
		sids := make([]metadata.StreamID, len(ids))
		for i, id := range ids {
			sids[i] = sid(id, 0)
		}
		got, err := db.XDelEx(b("s"), g, policy, sids)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("XDelEx %s %d %v: %v %v, want %v", group, policy, ids, got, err, want)
		}
	}
	read("g", "alice", 4, false) // 1-4 pending for alice in g
	read("h", "bob", 6, false)   // 1-6 pending for bob in h
	// CLAIM 0 in g: alice's four first (COUNT 5), then one new entry.
	entries, claims := read("g", "carol", 5, true)
	if len(entries) != 5 || len(claims) != 4 || entries[0].ID != sid(1, 0) || entries[4].ID != sid(5, 0) || claims[0].Count != 1 {
		t.Fatalf("claim: %d entries, claims %+v", len(entries), claims)
	}
	check(10)
	delex("", Acked, []int64{2, 2}, 1, 9)    // pending in both; 9 delivered by neither
	delex("g", Acked, []int64{2, -1}, 1, 11) // acknowledged in g, still pending in h
	delex("h", Acked, []int64{1}, 1)         // acknowledged by both now
	delex("", KeepRef, []int64{1, -1}, 2, 2) // deleted, references kept
	delex("h", KeepRef, []int64{-1}, 2)      // h's reference acknowledged, no entry
	delex("", DelRef, []int64{-1, 1}, 2, 3)  // g's dangling reference and 3's go
	delex("g", DelRef, []int64{1, 1, 1}, 4, 5, 10)
	check(4)
	delex("nogroup", DelRef, []int64{-1}, 6)
	info := checkGroupCounts(t, db, "s", "h")
	if info.Pending != 1 { // 6, pending for bob
		t.Fatalf("h has %d pending, want 1 (6)", info.Pending)
	}
	check(4)
	// The ends followed: 6 is the first entry left, 9 the last.
	st, _, _ := db.XStreamInfo(b("s"), StreamInfoWant{})
	if st.First != sid(6, 0) || st.Last != sid(9, 0) || st.MaxDeleted != sid(10, 0) {
		t.Fatalf("ends %v %v, max deleted %v", st.First, st.Last, st.MaxDeleted)
	}
}

// TestStreamTrimPolicyCounters: XTRIM and XADD trimming under ACKED keep
// what a group still references and go on past it, under DELREF take the
// entries out of every PEL; the groups' and consumers' counters stay equal
// to their records and the stream's length and ends right, holes
// included.
func TestStreamTrimPolicyCounters(t *testing.T) {
	db := newTestDB(t)
	addN(t, db, "s", 1, 10)
	for _, g := range []string{"g", "h"} {
		if err := db.XGroupCreate(b("s"), b(g), XGroupCreateArgs{EntriesRead: -1}); err != nil {
			t.Fatal(err)
		}
	}
	read := func(group, consumer string, count int64) {
		t.Helper()
		if _, _, err := db.XReadGroup(b("s"), &XReadGroupArgs{Group: b(group), Consumer: b(consumer), Count: count}); err != nil {
			t.Fatal(err)
		}
	}
	ack := func(group string, ids ...uint64) {
		t.Helper()
		sids := make([]metadata.StreamID, len(ids))
		for i, id := range ids {
			sids[i] = sid(id, 0)
		}
		if _, err := db.XAck(b("s"), b(group), sids); err != nil {
			t.Fatal(err)
		}
	}
	trim := func(tr StreamTrim, wantN int64, wantIDs string) {
		t.Helper()
		n, err := db.XTrim(b("s"), tr)
		if err != nil || n != wantN {
			t.Fatalf("XTrim %+v: %d %v, want %d", tr, n, err, wantN)
		}
		if got := streamIDs(t, db, "s"); got != wantIDs {
			t.Fatalf("XTrim %+v left %s, want %s", tr, got, wantIDs)
		}
		checkGroupCounts(t, db, "s", "g")
		checkGroupCounts(t, db, "s", "h")
	}
	read("g", "alice", 4) // 1-4 pending in g
	read("h", "bob", 6)   // 1-6 pending in h
	all := "1-0,2-0,3-0,4-0,5-0,6-0,7-0,8-0,9-0,10-0"
	trim(StreamTrim{Strategy: TrimMaxLen, MaxLen: 8, Policy: Acked}, 0, all)
	ack("g", 1, 2, 3)
	ack("h", 1, 2, 3, 4)
	// 1-3 acknowledged by both; 4 still pending in g.
	trim(StreamTrim{Strategy: TrimMinID, MinID: sid(5, 0), Policy: Acked}, 3, "4-0,5-0,6-0,7-0,8-0,9-0,10-0")
	// A hole: 5 pending in g, 6 acknowledged by both goes.
	read("g", "alice", 2)
	ack("g", 4, 6)
	ack("h", 5, 6)
	trim(StreamTrim{Strategy: TrimMinID, MinID: sid(7, 0), Policy: Acked}, 2, "5-0,7-0,8-0,9-0,10-0")
	if st, _, _ := db.XStreamInfo(b("s"), StreamInfoWant{}); st.MaxDeleted != sid(6, 0) {
		t.Fatalf("max deleted %v, want 6-0", st.MaxDeleted)
	}
	// DELREF: 5 leaves g's PEL with the entry.
	trim(StreamTrim{Strategy: TrimMaxLen, MaxLen: 2, Policy: DelRef}, 3, "9-0,10-0")
	if g := checkGroupCounts(t, db, "s", "g"); g.Pending != 0 {
		t.Fatalf("g has %d pending after DELREF, want 0", g.Pending)
	}
	// XADD's trim keeps what no group has delivered, the new entry too.
	if _, _, err := db.XAdd(b("s"), &XAddArgs{ID: sid(11, 0), Trim: StreamTrim{Strategy: TrimMaxLen, MaxLen: 1, Policy: Acked}}, [][]byte{b("f"), b("v")}); err != nil {
		t.Fatal(err)
	}
	trim(StreamTrim{Strategy: TrimMaxLen, MaxLen: 1, Policy: Acked}, 0, "9-0,10-0,11-0")
	// The last entries go and the first stays: the stream ends at it.
	read("g", "alice", 0)
	read("h", "bob", 0)
	ack("g", 10, 11)
	ack("h", 9, 10, 11)
	trim(StreamTrim{Strategy: TrimMaxLen, MaxLen: 0, Policy: Acked}, 2, "9-0")
	// KEEPREF (the default) leaves 9 pending in g.
	trim(StreamTrim{Strategy: TrimMaxLen, MaxLen: 0}, 1, "")
	if g := checkGroupCounts(t, db, "s", "g"); g.Pending != 1 {
		t.Fatalf("g has %d pending after KEEPREF, want 1", g.Pending)
	}
	// Kept entries leave the threshold to the next node: with nodes of two,
	// 1 and 2 are pending, the trim goes on to 3.
	addN(t, db, "n", 1, 4)
	if err := db.XGroupCreate(b("n"), b("g"), XGroupCreateArgs{EntriesRead: -1}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.XReadGroup(b("n"), &XReadGroupArgs{Group: b("g"), Consumer: b("c")}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.XAck(b("n"), b("g"), []metadata.StreamID{sid(3, 0), sid(4, 0)}); err != nil {
		t.Fatal(err)
	}
	n, err := db.XTrim(b("n"), StreamTrim{Strategy: TrimMaxLen, MaxLen: 3, NodeEntries: 2, Policy: Acked})
	if got := streamIDs(t, db, "n"); n != 1 || err != nil || got != "1-0,2-0,4-0" {
		t.Fatalf("XTrim MAXLEN 3 ACKED by nodes of 2: %d %v, left %s", n, err, got)
	}
	checkGroupCounts(t, db, "n", "g")
}
