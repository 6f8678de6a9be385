package timeseries

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/basaltdb/basalt/metadata"
)

// unhex decodes hex written with spaces between fields.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const (
	vectorNS      = "0b 5f5f6e616d657370616365" // the default namespace, KVROCKS-TYPES.md preamble
	vectorVersion = "305120c0f2000001"          // V of FORMAT.md §10
)

// TestVectorCreateAdd is KVROCKS-TYPES.md §6.7: TS.CREATE ts, then
// TS.ADD ts 1000 1.5, written as Basalt writes it (last_timestamp is the
// newest sample, 1000; the doc leaves 0 or 1000 open).
func TestVectorCreateAdd(t *testing.T) {
	mem := newMemChunks()
	s := OpenSeries([]byte("ts"), NewMeta(), 0, nil, mem)
	if res, err := s.Add(Sample{TS: 1000, V: 1.5}, PolicyNone); err != nil || res.TS != 1000 {
		t.Fatal(res, err)
	}
	changes := s.Changes()
	if len(changes) != 1 {
		t.Fatalf("changes %v", changes)
	}
	sub := append(unhex(t, vectorNS+" 00000002 7473 "+vectorVersion), changes[0].Subkey...)
	wantSub := unhex(t, vectorNS+" 00000002 7473 "+vectorVersion+" 00 00000000000003e8")
	if !bytes.Equal(sub, wantSub) {
		t.Errorf("chunk key %x, want %x", sub, wantSub)
	}
	wantValue := unhex(t, "00000000 00000001 e803000000000000 000000000000f83f")
	if !bytes.Equal(changes[0].Value, wantValue) {
		t.Errorf("chunk value %x, want %x", changes[0].Value, wantValue)
	}
	hdr := metadata.Metadata{Type: TypeNumber, Version: 0x305120c0f2000001, Size: s.Size}
	value := s.Meta.AppendTo(hdr.AppendTo(nil))
	wantMeta := unhex(t, "8d 0000000000000000 "+vectorVersion+" 0000000000000001 0000000000000000 0000000000000400 00 00 00000000 00000000000003e8")
	if !bytes.Equal(value, wantMeta) {
		t.Errorf("metadata %x, want %x", value, wantMeta)
	}
	// metadata.Decode does not know type 13 yet (phase 2 adds it): the
	// extension starts after the 25-byte header.
	m, err := DecodeMeta(value[25:])
	if err != nil || m.ChunkSize != 1024 || m.LastTimestamp != 1000 || !m.HasLast || m.Duplicate != PolicyBlock {
		t.Fatalf("decoded %+v, %v", m, err)
	}
}

func TestMetaRoundTrip(t *testing.T) {
	cases := []Meta{
		NewMeta(),
		{Retention: 5000, ChunkSize: 48, Encoding: Compressed, Duplicate: PolicySum, SourceKey: []byte("src"), LastTimestamp: 77, HasLast: true},
		{ChunkSize: 1024, Duplicate: PolicyLast, LastTimestamp: 9, HasLast: true, IgnoreTime: 10, IgnoreValue: 0.5},
		{ChunkSize: 4096}, // written before PR #3177: no last_timestamp
	}
	for _, m := range cases {
		got, err := DecodeMeta(m.AppendTo(nil))
		if err != nil {
			t.Fatal(err)
		}
		if got.Retention != m.Retention || got.ChunkSize != m.ChunkSize || got.Encoding != m.Encoding ||
			got.Duplicate != m.Duplicate || !bytes.Equal(got.SourceKey, m.SourceKey) || got.HasLast != m.HasLast ||
			got.LastTimestamp != m.LastTimestamp || got.IgnoreTime != m.IgnoreTime || got.IgnoreValue != m.IgnoreValue {
			t.Errorf("%+v came back as %+v", m, got)
		}
	}
	// Kvrocks's record before PR #3177 ends after source_key.
	old := unhex(t, "0000000000000064 0000000000000400 00 02 00000000")
	if m, err := DecodeMeta(old); err != nil || m.HasLast || m.Retention != 100 || m.Duplicate != PolicyLast {
		t.Errorf("old record: %+v %v", m, err)
	}
}

func TestMetaCorrupt(t *testing.T) {
	for _, b := range []string{
		"",
		"0000000000000064 0000000000000400 00 02",               // no source_key length
		"0000000000000064 0000000000000400 00 02 00000005 61",   // source_key cut short
		"0000000000000064 0000000000000400 00 09 00000000",      // no such policy
		"0000000000000064 0000000000000400 07 00 00000000",      // no such chunk type
		"8000000000000000 0000000000000400 00 00 00000000",      // negative retention
		"0000000000000064 0000000000000400 00 00 00000000 0102", // a cut last_timestamp
	} {
		if _, err := DecodeMeta(unhex(t, b)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", b, err)
		}
	}
}

func TestChunkBytes(t *testing.T) {
	samples := []Sample{{1, -2.5}, {2, 0}, {1 << 40, math.MaxFloat64}}
	b := AppendChunk(nil, samples)
	want := unhex(t, "00000000 00000003"+
		" 0100000000000000 00000000000004c0"+
		" 0200000000000000 0000000000000000"+
		" 0000000000010000 ffffffffffffef7f")
	if !bytes.Equal(b, want) {
		t.Fatalf("%x\nwant %x", b, want)
	}
	ch, err := ParseChunk(b)
	if err != nil || ch.Len() != 3 || ch.At(2) != samples[2] || ch.Search(2) != 1 || ch.Search(3) != 2 {
		t.Fatal(ch.Samples(), err)
	}
	for _, bad := range []string{
		"000000",
		"00000001 00000000", // compressed
		"00000000 00000002 0100000000000000 0000000000000000",                                   // count beyond the bytes
		"00000000 00000002 0200000000000000 0000000000000000 0100000000000000 0000000000000000", // out of order
		"00000000 00000001 ffffffffffffffff 0000000000000000",                                   // negative timestamp
	} {
		if _, err := ParseChunk(unhex(t, bad)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func TestSubkeys(t *testing.T) {
	if got := AppendChunkSubkey(nil, 1000); !bytes.Equal(got, unhex(t, "00 00000000000003e8")) {
		t.Errorf("chunk subkey %x", got)
	}
	if got := AppendLabelSubkey(nil, []byte("city")); !bytes.Equal(got, unhex(t, "01 63697479")) {
		t.Errorf("label subkey %x", got)
	}
	if got := AppendRuleSubkey(nil, []byte("ts:avg")); !bytes.Equal(got, unhex(t, "02 74733a617667")) {
		t.Errorf("rule subkey %x", got)
	}
	if _, err := ParseChunkSubkey(unhex(t, "01 00000000000003e8")); !errors.Is(err, ErrCorrupt) {
		t.Error(err)
	}
}

// TestIndexEntry is the label index entry of §6.3 for a series ts with
// label city=paris in the default namespace: no slot, the raw user key.
func TestIndexEntry(t *testing.T) {
	got := AppendIndexKey(nil, metadata.DefaultNamespace, []byte("city"), []byte("paris"), []byte("ts"))
	want := unhex(t, vectorNS+" 00 00000004 63697479 00000005 7061726973 7473")
	if !bytes.Equal(got, want) {
		t.Fatalf("%x\nwant %x", got, want)
	}
	e, err := ParseIndexKey(got)
	if err != nil || string(e.NS) != metadata.DefaultNamespace || string(e.Label) != "city" || string(e.Value) != "paris" || string(e.Key) != "ts" {
		t.Fatalf("%q %v", e, err)
	}
	prefix := AppendIndexPrefix(nil, metadata.DefaultNamespace, []byte("city"), []byte("paris"))
	if !bytes.HasPrefix(got, prefix) {
		t.Fatal("the seek prefix is not a prefix of the entry")
	}
	for _, bad := range []string{"", "0b 5f5f", vectorNS + " 01", vectorNS + " 00 00000009 6369"} {
		if _, err := ParseIndexKey(unhex(t, bad)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// TestRuleValue is a rule's value (§6.2): a fresh SUM rule of 60 s
// buckets, then one with an open AVG bucket.
func TestRuleValue(t *testing.T) {
	r := NewRule([]byte("d"), AggSum, 60000, 0)
	want := unhex(t, "01 000000000000ea60 0000000000000000 ffffffffffffffff 00 01 8000000000000000")
	if got := r.AppendValue(nil); !bytes.Equal(got, want) {
		t.Fatalf("%x\nwant %x", got, want)
	}
	r = NewRule([]byte("d"), AggAvg, 10, 5)
	r.state.open = 15
	r.state.acc.add(Sample{16, 2})
	r.state.acc.add(Sample{17, 4})
	want = unhex(t, "07 000000000000000a 0000000000000005 000000000000000f 01 01 0000000000000002 c018000000000000")
	got := r.AppendValue(nil)
	if !bytes.Equal(got, want) {
		t.Fatalf("%x\nwant %x", got, want)
	}
	back, err := DecodeRule(AppendRuleSubkey(nil, []byte("d")), got)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := back.Latest(); !ok || s != (Sample{15, 3}) {
		t.Fatalf("latest %v %v", s, ok)
	}
	for _, bad := range []string{
		"01 000000000000ea60 0000000000000000 ffffffffffffffff 00 02 8000000000000000", // counts not SUM's
		"0d 000000000000ea60 0000000000000000 ffffffffffffffff 00 01 8000000000000000", // no such aggregator
		"01 0000000000000000 0000000000000000 ffffffffffffffff 00 01 8000000000000000", // zero bucket
		"01 000000000000ea60 0000000000000000 ffffffffffffffff 00 01 80",               // cut
	} {
		if _, err := DecodeRule(AppendRuleSubkey(nil, []byte("d")), unhex(t, bad)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// TestChunkPastRetention is KVROCKS-TYPES.md §6.5's example: retention
// 100, last timestamp 110: the chunk [1,2,3] is dropped, [4,5,10] kept.
func TestChunkPastRetention(t *testing.T) {
	m := Meta{Retention: 100, LastTimestamp: 110, HasLast: true, ChunkSize: 3}
	old := AppendChunk(nil, []Sample{{1, 0}, {2, 0}, {3, 0}})
	kept := AppendChunk(nil, []Sample{{4, 0}, {5, 0}, {10, 0}})
	if !ChunkPastRetention(&m, old) || ChunkPastRetention(&m, kept) {
		t.Fatal("wrong chunk dropped")
	}
	forever := m
	forever.Retention = 0
	noLast := m
	noLast.HasLast = false
	if ChunkPastRetention(&forever, old) || ChunkPastRetention(&noLast, old) || ChunkPastRetention(&m, []byte{1}) {
		t.Fatal("dropped without a retention, a last timestamp or a readable chunk")
	}
	if !RuleOrphaned([]byte("s"), nil) || !RuleOrphaned([]byte("s"), &Meta{SourceKey: []byte("t")}) || RuleOrphaned([]byte("s"), &Meta{SourceKey: []byte("s")}) {
		t.Fatal("rule orphans")
	}
	e := IndexEntry{Label: []byte("a"), Value: []byte("1")}
	if IndexEntryStale(e, true, []Label{{[]byte("a"), []byte("1")}}) || !IndexEntryStale(e, true, []Label{{[]byte("a"), []byte("2")}}) || !IndexEntryStale(e, false, nil) {
		t.Fatal("index entries")
	}
}
