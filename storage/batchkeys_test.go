package storage

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/basaltdb/basalt/metadata"
)

func TestParseLogData(t *testing.T) {
	for _, tc := range []struct {
		blob   string
		ok     bool
		typ    metadata.Type
		cmd    LogCommand
		args   string
		sides  [2]bool
		moveOK bool
	}{
		{blob: "1", ok: true, typ: metadata.TypeString, cmd: LogNoCommand},
		{blob: "0", ok: true, typ: metadata.TypeNone, cmd: LogNoCommand},
		{blob: "0 8", ok: true, typ: metadata.TypeNone, cmd: LogExpire},
		{blob: "3 6", ok: true, typ: metadata.TypeList, cmd: LogLPush},
		{blob: "3 5 2 a b", ok: true, typ: metadata.TypeList, cmd: LogLRem, args: "2 a b"},
		{blob: "6 9 100", ok: true, typ: metadata.TypeBitmap, cmd: LogSetBit, args: "100"},
		{blob: "3 12 src dst left right", ok: true, typ: metadata.TypeList, cmd: LogLMove, args: "src dst left right", sides: [2]bool{true, false}, moveOK: true},
		// Keys with spaces: the sides are the last two words.
		{blob: "3 12 a b c d right left", ok: true, typ: metadata.TypeList, cmd: LogLMove, args: "a b c d right left", sides: [2]bool{false, true}, moveOK: true},
		{blob: "3 12 src dst up left", ok: true, typ: metadata.TypeList, cmd: LogLMove, args: "src dst up left"},
		{blob: "3 12 left", ok: true, typ: metadata.TypeList, cmd: LogLMove, args: "left"},
		{blob: "1 ", ok: true, typ: metadata.TypeString, cmd: LogNoCommand},
		{blob: "3 99999999999", ok: true, typ: metadata.TypeList, cmd: LogNoCommand},
		// Not a command's: the replication id, a message's namespace,
		// junk.
		{blob: "r 0123456789ABCDEF"},
		{blob: "basalt-pubsub-ns tenant"},
		{blob: ""},
		{blob: "1x"},
		{blob: "256"},
		{blob: "9999999999"},
	} {
		c, ok := parseLogData([]byte(tc.blob))
		if ok != tc.ok || c.Logged != tc.ok {
			t.Errorf("%q: ok %v logged %v, want %v", tc.blob, ok, c.Logged, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		if c.Type != tc.typ || c.Cmd != tc.cmd || string(c.Args) != tc.args {
			t.Errorf("%q: %v %v %q, want %v %v %q", tc.blob, c.Type, c.Cmd, c.Args, tc.typ, tc.cmd, tc.args)
		}
		src, dst, moveOK := c.MoveSides()
		if moveOK != tc.moveOK || (moveOK && [2]bool{src, dst} != tc.sides) {
			t.Errorf("%q: MoveSides %v %v %v, want %v %v", tc.blob, src, dst, moveOK, tc.sides, tc.moveOK)
		}
	}
}

// changesOf returns what the batches fn writes change, as a replica
// would read them.
func changesOf(t *testing.T, s *Storage, fn func() error) *BatchChanges {
	t.Helper()
	seq := s.LatestSequence()
	if err := fn(); err != nil {
		t.Fatal(err)
	}
	var records []WALRecord
	if _, err := s.ReadWALBatches(seq, func(wb WALBatch) error {
		r, err := s.WALRecords(bytes.Clone(wb.Data))
		records = append(records, r...)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return s.ChangesOf(records)
}

// TestBatchChanges reads the keys real writes change from their batches.
func TestBatchChanges(t *testing.T) {
	db := newTestDB(t)
	s := db.s
	one := func(ch *BatchChanges) *KeyChange {
		t.Helper()
		if len(ch.Keys) != 1 {
			t.Fatalf("%d changes, want 1: %+v", len(ch.Keys), ch.Keys)
		}
		return &ch.Keys[0]
	}

	k := one(changesOf(t, s, func() error { _, err := db.HSet(b("h"), [][]byte{b("f"), b("v"), b("g"), b("w")}, false); return err }))
	if k.NS != metadata.DefaultNamespace || string(k.Key) != "h" || k.Cmd.Type != metadata.TypeHash || !k.Added || k.Removed || !k.MetaWritten || k.Meta == nil {
		t.Errorf("HSET: %+v", k)
	}
	k = one(changesOf(t, s, func() error { _, err := db.HDel(b("h"), [][]byte{b("f")}); return err }))
	if !k.Removed || k.Added {
		t.Errorf("HDEL: %+v", k)
	}
	k = one(changesOf(t, s, func() error { _, err := db.Del([][]byte{b("h"), b("none")}); return err }))
	if string(k.Key) != "h" || k.Cmd.Type != metadata.TypeNone || !k.MetaWritten || k.Meta != nil {
		t.Errorf("DEL: %+v", k)
	}

	if _, err := db.Push(b("src"), [][]byte{b("a")}, true, false); err != nil {
		t.Fatal(err)
	}
	ch := changesOf(t, s, func() error { _, _, err := db.LMove(b("src"), b("dst"), true, false); return err })
	if len(ch.Keys) != 2 || string(ch.Keys[0].Key) != "src" || string(ch.Keys[1].Key) != "dst" ||
		!ch.Keys[0].Removed || ch.Keys[0].Added || !ch.Keys[1].Added || ch.Keys[0].Command != ch.Keys[1].Command {
		t.Fatalf("LMOVE: %+v", ch.Keys)
	}
	if src, dst, ok := ch.Keys[0].Cmd.MoveSides(); !ok || !src || dst {
		t.Errorf("LMOVE's sides: %v %v %v", src, dst, ok)
	}

	k = one(changesOf(t, s, func() error {
		_, _, err := db.XAdd(b("x"), &XAddArgs{ID: metadata.StreamID{Ms: 1, Seq: 1}}, [][]byte{b("f"), b("v")})
		return err
	}))
	if k.Cmd.Type != metadata.TypeStream || !k.Added {
		t.Errorf("XADD: %+v", k)
	}

	ch = changesOf(t, s, func() error { return s.DB("tenant").Flush() })
	if len(ch.Keys) != 0 || ch.FlushedAll || len(ch.Flushed) != 1 || ch.Flushed[0] != "tenant" {
		t.Errorf("FLUSHDB of a namespace: %+v", ch)
	}
	ch = changesOf(t, s, s.FlushAll)
	if len(ch.Keys) != 0 || !ch.FlushedAll {
		t.Errorf("FLUSHALL: %+v", ch)
	}
}

// TestBatchChangesImport: a raw batch without LogData, of many keys each
// written by several records, lists each key once, unlogged; the states
// before follow from one change to the next.
func TestBatchChangesImport(t *testing.T) {
	db := newTestDB(t)
	s := db.s
	if _, err := db.Set(b("k3"), b("old"), SetArgs{}); err != nil {
		t.Fatal(err)
	}
	raw := s.NewRawBatch()
	value := EncodeString([]byte("v"), 0)
	for round := 0; round < 2; round++ {
		for i := 0; i < 20; i++ {
			raw.Put(CFMetadata, s.layout.AppendNSKey(nil, metadata.DefaultNamespace, b("k"+strconv.Itoa(i))), value)
		}
	}
	records, err := s.WALRecords(raw.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	ch := s.ChangesOf(records)
	if len(ch.Keys) != 20 {
		t.Fatalf("%d changes, want 20", len(ch.Keys))
	}
	for i, k := range ch.Keys {
		if string(k.Key) != "k"+strconv.Itoa(i) || k.Cmd.Logged || !k.MetaWritten {
			t.Errorf("change %d: %+v", i, k)
		}
	}
	if err := s.ReadBefore(ch); err != nil {
		t.Fatal(err)
	}
	now := nowMs()
	if !ch.Keys[3].Before.Alive || ch.Keys[4].Before.Alive || !ch.Keys[4].After(now).Alive {
		t.Errorf("states: k3 before %+v, k4 before %+v after %+v", ch.Keys[3].Before, ch.Keys[4].Before, ch.Keys[4].After(now))
	}
}
