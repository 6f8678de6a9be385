package storage

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/basaltdb/basalt/metadata"
)

func sid(ms, seq uint64) metadata.StreamID { return metadata.StreamID{Ms: ms, Seq: seq} }

// streamIDs returns the stream's entry IDs, read with a full range, and
// checks them against the metadata's length and ends.
func streamIDs(t *testing.T, db DB, key string) string {
	t.Helper()
	var ids []string
	found, err := db.XRange(b(key), metadata.StreamID{}, metadata.MaxStreamID, false, 0, func(e StreamEntry) bool {
		ids = append(ids, e.ID.String())
		return true
	})
	if err != nil || !found {
		t.Fatalf("XRange %s: found %v, %v", key, found, err)
	}
	info, _, err := db.XStreamInfo(b(key), StreamInfoWant{})
	if err != nil {
		t.Fatal(err)
	}
	if int(info.Length) != len(ids) {
		t.Fatalf("length %d, %d entries", info.Length, len(ids))
	}
	if len(ids) > 0 && (info.First.String() != ids[0] || info.Last.String() != ids[len(ids)-1] || info.RecordedFirst != info.First) {
		t.Fatalf("ends %v %v (recorded %v), entries %v", info.First, info.Last, info.RecordedFirst, ids)
	}
	if len(ids) == 0 && (!info.First.IsZero() || !info.Last.IsZero()) {
		t.Fatalf("empty stream with ends %v %v", info.First, info.Last)
	}
	return strings.Join(ids, ",")
}

func addN(t *testing.T, db DB, key string, from, n uint64) {
	t.Helper()
	for i := from; i < from+n; i++ {
		if _, _, err := db.XAdd(b(key), &XAddArgs{ID: sid(i, 0)}, [][]byte{b("f"), b(fmt.Sprint(i))}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestStreamAddAndRange(t *testing.T) {
	db := newTestDB(t)
	addN(t, db, "s", 1, 3)
	if _, _, err := db.XAdd(b("s"), &XAddArgs{ID: sid(3, 0)}, [][]byte{b("f"), b("v")}); err != ErrStreamIDTooSmall {
		t.Fatalf("XAdd of the top ID: %v", err)
	}
	id, _, err := db.XAdd(b("s"), &XAddArgs{ID: sid(3, 0), AutoSeq: true}, [][]byte{b("f"), b("v")})
	if err != nil || id != sid(3, 1) {
		t.Fatalf("XAdd 3-*: %v %v", id, err)
	}
	id, _, err = db.XAdd(b("s"), &XAddArgs{Auto: true}, [][]byte{b("f"), b("v")})
	if err != nil || id.Ms < 1000 {
		t.Fatalf("XAdd *: %v %v", id, err)
	}
	if _, added, err := db.XAdd(b("none"), &XAddArgs{ID: sid(1, 1), NoMkStream: true}, [][]byte{b("f"), b("v")}); added || err != nil {
		t.Fatalf("NOMKSTREAM created a stream: %v", err)
	}
	if got := streamIDs(t, db, "s"); got != "1-0,2-0,3-0,3-1,"+id.String() {
		t.Fatalf("entries %s", got)
	}
	var rev []string
	db.XRange(b("s"), sid(2, 0), sid(3, 0), true, 0, func(e StreamEntry) bool {
		rev = append(rev, e.ID.String()+"="+string(e.FieldsValues[1]))
		return true
	})
	if strings.Join(rev, ",") != "3-0=3,2-0=2" {
		t.Fatalf("reverse range %v", rev)
	}
}

// Entries whose ms is 2^64-1 sort among the group records; ranges still
// find them, in order, and only them.
func TestStreamTopMillisecond(t *testing.T) {
	db := newTestDB(t)
	addN(t, db, "s", 1, 2)
	for _, seq := range []uint64{0, 1 << 57, math.MaxUint64} {
		if _, _, err := db.XAdd(b("s"), &XAddArgs{ID: sid(math.MaxUint64, seq)}, [][]byte{b("f"), b("v")}); err != nil {
			t.Fatal(err)
		}
	}
	// A group record between those entries, as Kvrocks writes it.
	v, err := db.streamRead(b("s"))
	if err != nil {
		t.Fatal(err)
	}
	prefix, _ := v.prefix()
	v.release()
	g := metadata.StreamGroup{EntriesRead: -1}
	db.s.put(CFStream, metadata.AppendStreamGroupKey(append([]byte(nil), prefix...), b("g")), g.AppendTo(nil))
	want := "1-0,2-0,18446744073709551615-0,18446744073709551615-144115188075855872,18446744073709551615-18446744073709551615"
	if got := streamIDs(t, db, "s"); got != want {
		t.Fatalf("entries %s", got)
	}
	if _, _, err := db.XAdd(b("s"), &XAddArgs{Auto: true}, [][]byte{b("f"), b("v")}); err != ErrStreamExhausted {
		t.Fatalf("XAdd * after the last ID: %v", err)
	}
	if n, err := db.XDel(b("s"), []metadata.StreamID{sid(math.MaxUint64, math.MaxUint64)}); n != 1 || err != nil {
		t.Fatalf("XDel: %d %v", n, err)
	}
	if n, err := db.XTrim(b("s"), StreamTrim{Strategy: TrimMaxLen, MaxLen: 1}); n != 3 || err != nil {
		t.Fatalf("XTrim: %d %v", n, err)
	}
	if got := streamIDs(t, db, "s"); got != "18446744073709551615-144115188075855872" {
		t.Fatalf("after trims %s", got)
	}
	info, _, err := db.XStreamInfo(b("s"), StreamInfoWant{Groups: true})
	if err != nil || len(info.GroupList) != 1 || string(info.GroupList[0].Name) != "g" {
		t.Fatalf("groups %+v, %v", info.GroupList, err)
	}
}

func TestStreamTrim(t *testing.T) {
	db := newTestDB(t)
	addN(t, db, "s", 1, 250)
	// Approximate: whole nodes of 100 entries only.
	if n, _ := db.XTrim(b("s"), StreamTrim{Strategy: TrimMaxLen, MaxLen: 120, Approx: true}); n != 100 {
		t.Fatalf("MAXLEN ~ 120 removed %d", n)
	}
	if n, _ := db.XTrim(b("s"), StreamTrim{Strategy: TrimMinID, MinID: sid(250, 0), Approx: true}); n != 100 {
		t.Fatalf("MINID ~ 250 removed %d", n)
	}
	if got := streamIDs(t, db, "s"); !strings.HasPrefix(got, "201-0,") {
		t.Fatalf("after approximate trims %s", got)
	}
	// The limit stops before a node it cannot take whole.
	addN(t, db, "l", 1, 250)
	if n, _ := db.XTrim(b("l"), StreamTrim{Strategy: TrimMaxLen, MaxLen: 0, Approx: true, Limit: 150}); n != 100 {
		t.Fatalf("LIMIT 150 removed %d", n)
	}
	// Exact trims, one by one and in one range deletion.
	if n, _ := db.XTrim(b("s"), StreamTrim{Strategy: TrimMinID, MinID: sid(210, 0)}); n != 9 {
		t.Fatalf("MINID 210 removed %d", n)
	}
	if n, _ := db.XTrim(b("l"), StreamTrim{Strategy: TrimMaxLen, MaxLen: 3}); n != 147 {
		t.Fatalf("MAXLEN 3 removed %d", n)
	}
	if got := streamIDs(t, db, "l"); got != "248-0,249-0,250-0" {
		t.Fatalf("after MAXLEN 3: %s", got)
	}
	// XADD trims its own entry away with MAXLEN 0.
	id, _, err := db.XAdd(b("l"), &XAddArgs{ID: sid(300, 0), Trim: StreamTrim{Strategy: TrimMaxLen}}, [][]byte{b("f"), b("v")})
	if err != nil || id != sid(300, 0) {
		t.Fatalf("XADD MAXLEN 0: %v %v", id, err)
	}
	if got := streamIDs(t, db, "l"); got != "" {
		t.Fatalf("after XADD MAXLEN 0: %s", got)
	}
	info, found, _ := db.XStreamInfo(b("l"), StreamInfoWant{})
	if !found || info.LastGenerated != sid(300, 0) || info.EntriesAdded != 251 {
		t.Fatalf("emptied stream: found %v, %+v", found, info)
	}
}

func TestStreamDelAndSetID(t *testing.T) {
	db := newTestDB(t)
	addN(t, db, "s", 1, 5)
	if n, _ := db.XDel(b("s"), []metadata.StreamID{sid(1, 0), sid(1, 0), sid(5, 0), sid(9, 0)}); n != 2 {
		t.Fatalf("XDel removed %d", n)
	}
	if got := streamIDs(t, db, "s"); got != "2-0,3-0,4-0" {
		t.Fatalf("after XDel %s", got)
	}
	info, _, _ := db.XStreamInfo(b("s"), StreamInfoWant{Ends: true})
	if info.MaxDeleted != sid(5, 0) || info.LastGenerated != sid(5, 0) || info.FirstEntry.ID != sid(2, 0) || info.LastEntry.ID != sid(4, 0) {
		t.Fatalf("after XDel %+v", info)
	}
	if err := db.XSetID(b("s"), XSetIDArgs{ID: sid(3, 0), EntriesAdded: -1}); err != ErrStreamSetIDSmall {
		t.Fatalf("XSetID below the top: %v", err)
	}
	if err := db.XSetID(b("s"), XSetIDArgs{ID: sid(9, 0), EntriesAdded: 2}); err != ErrStreamEntriesLow {
		t.Fatalf("XSetID entries below the length: %v", err)
	}
	if err := db.XSetID(b("none"), XSetIDArgs{ID: sid(9, 0), EntriesAdded: -1}); err != ErrNoSuchKey {
		t.Fatalf("XSetID of no key: %v", err)
	}
	if err := db.XSetID(b("s"), XSetIDArgs{ID: sid(9, 0), EntriesAdded: 10, MaxDeleted: sid(8, 0)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.XAdd(b("s"), &XAddArgs{ID: sid(9, 0)}, [][]byte{b("f"), b("v")}); err != ErrStreamIDTooSmall {
		t.Fatalf("XAdd at the set ID: %v", err)
	}
	if n, _ := db.XDel(b("s"), []metadata.StreamID{sid(2, 0), sid(3, 0), sid(4, 0)}); n != 3 {
		t.Fatalf("XDel removed %d", n)
	}
	if got := streamIDs(t, db, "s"); got != "" {
		t.Fatalf("after deleting all %s", got)
	}
	if typ, _ := db.Type(b("s")); typ != metadata.TypeStream {
		t.Fatalf("an emptied stream is gone: %v", typ)
	}
	db.HSet(b("h"), [][]byte{b("f"), b("v")}, false)
	if _, _, err := db.XAdd(b("h"), &XAddArgs{Auto: true}, [][]byte{b("f"), b("v")}); err != ErrWrongType {
		t.Fatalf("XAdd to a hash: %v", err)
	}
}

func TestStreamLag(t *testing.T) {
	sm := metadata.StreamMeta{LastGenerated: sid(5, 0), RecordedFirst: sid(1, 0), EntriesAdded: 5}
	if lag, ok := sm.Lag(5, metadata.StreamGroup{LastDelivered: sid(2, 0), EntriesRead: 2}); !ok || lag != 3 {
		t.Fatalf("lag %d %v", lag, ok)
	}
	if lag, ok := sm.Lag(5, metadata.StreamGroup{LastDelivered: sid(0, 0), EntriesRead: -1}); !ok || lag != 5 {
		t.Fatalf("lag of a new group %d %v", lag, ok)
	}
	sm.MaxDeleted = sid(3, 0)
	if _, ok := sm.Lag(4, metadata.StreamGroup{LastDelivered: sid(2, 0), EntriesRead: -1}); ok {
		t.Fatal("lag known across a deletion")
	}
}

// TestStreamCompactAndCopy: COPY and RENAME take a stream's entries and
// groups along; compaction drops the records of deleted and re-created
// streams and keeps the live ones.
func TestStreamCompactAndCopy(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	defer s.Close()
	db := s.DB(metadata.DefaultNamespace)
	for _, k := range []string{"live", "deleted", "recreated", "renamed"} {
		addN(t, db, k, 1, 50)
		addGroup(t, db, k, 5)
	}
	db.Del([][]byte{b("deleted"), b("recreated")})
	addN(t, db, "recreated", 1, 2)
	if ok, err := db.Copy(b("live"), b("copy"), false); !ok || err != nil {
		t.Fatalf("Copy: %v %v", ok, err)
	}
	if ok, err := db.Rename(b("renamed"), b("moved"), false); !ok || err != nil {
		t.Fatalf("Rename: %v %v", ok, err)
	}
	for _, k := range []string{"copy", "moved"} {
		if got := streamIDs(t, db, k); !strings.HasPrefix(got, "1-0,2-0,") || strings.Count(got, ",") != 49 {
			t.Fatalf("%s: %s", k, got)
		}
	}
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"copy", "moved"} {
		if sum, err := db.XPendingSummary(b(k), b("g")); err != nil || sum.Count != 5 || len(sum.Consumers) != 1 {
			t.Fatalf("the group of %s: %+v, %v", k, sum, err)
		}
	}
	// live, copy and moved: 50 entries, a group, a consumer and 5 pending
	// entries each; recreated: 2 entries.
	if got, want := countRecords(t, s, CFStream), 3*(50+1+1+5)+2; got != want {
		t.Fatalf("stream column family keeps %d records, want %d", got, want)
	}
}

// addGroup creates group g on a stream and has consumer c read n entries.
func addGroup(t *testing.T, db DB, key string, n int64) {
	t.Helper()
	if err := db.XGroupCreate(b(key), b("g"), XGroupCreateArgs{EntriesRead: -1}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.XReadGroup(b(key), &XReadGroupArgs{Group: b("g"), Consumer: b("c"), Count: n}); err != nil {
		t.Fatal(err)
	}
}

// TestStreamRangeSized: XRangeSized announces exactly the entries it
// hands over, for whole ranges, parts, COUNTs and empty ranges.
func TestStreamRangeSized(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	defer s.Close()
	db := s.DB(metadata.DefaultNamespace)
	addN(t, db, "s", 1, 3000)
	if _, err := db.XDel(b("s"), []metadata.StreamID{sid(1, 0), sid(1500, 0)}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		start, end metadata.StreamID
		rev        bool
		count      int64
	}{
		{metadata.StreamID{}, metadata.MaxStreamID, false, 0},
		{metadata.StreamID{}, metadata.MaxStreamID, true, 100},
		{sid(10, 0), sid(2500, 0), false, 0},
		{sid(10, 0), sid(2500, 0), true, 2000},
		{sid(10, 0), sid(20, 0), false, 5},
		{sid(1400, 0), sid(1600, 0), false, 5000},
		{sid(20, 0), sid(10, 0), false, 0},
		{sid(5000, 0), metadata.MaxStreamID, false, 0},
	} {
		announced, handed := int64(-2), int64(0)
		_, err := db.XRangeSized(b("s"), tc.start, tc.end, tc.rev, tc.count, func(n int64) { announced = n }, func(StreamEntry) bool {
			handed++
			return true
		})
		if err != nil || (announced != -1 && announced != handed) || announced == -2 {
			t.Errorf("%+v: announced %d, handed %d, %v", tc, announced, handed, err)
		}
	}
}
