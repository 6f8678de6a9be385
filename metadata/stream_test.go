package metadata

import (
	"bytes"
	"math"
	"testing"
)

func TestStreamVectors(t *testing.T) {
	std := Layout{}
	ns := DefaultNamespace
	m := Metadata{Type: TypeStream, Version: v, Size: 1}
	sm := StreamMeta{
		LastGenerated: StreamID{1, 1}, RecordedFirst: StreamID{1, 1}, First: StreamID{1, 1},
		Last: StreamID{1, 1}, EntriesAdded: 1, Groups: 1,
	}
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"stream metadata", sm.AppendTo(m.AppendTo(nil)), "88 0000000000000000 305120c0f2000001 0000000000000001" +
			" 0000000000000001 0000000000000001" + // last generated
			" 0000000000000001 0000000000000001" + // recorded first
			" 0000000000000000 0000000000000000" + // max deleted
			" 0000000000000001 0000000000000001" + // first
			" 0000000000000001 0000000000000001" + // last
			" 0000000000000001 0000000000000001"}, // entries added, groups
		{"entry key", std.AppendInternalKey(nil, ns, []byte("s"), v, AppendStreamEntryKey(nil, StreamID{1, 1})),
			"0b5f5f6e616d657370616365 00000001 73 305120c0f2000001 0000000000000001 0000000000000001"},
		{"entry value", AppendStreamEntryValue(nil, [][]byte{[]byte("f"), []byte("value")}), "01 66 05 76616c7565"},
		{"entry value long", AppendStreamEntryValue(nil, [][]byte{bytes.Repeat([]byte("a"), 200), nil})[:2], "c801"},
		{"group key", AppendStreamGroupKey(nil, []byte("g")), "ffffffffffffffff 01 0000000000000001 67"},
		{"group value", (&StreamGroup{Consumers: 1, Pending: 2, LastDelivered: StreamID{3, 4}, EntriesRead: -1, Lag: 5}).AppendTo(nil),
			"0000000000000001 0000000000000002 0000000000000003 0000000000000004 ffffffffffffffff 0000000000000005"},
		{"consumer key", AppendStreamConsumerKey(nil, []byte("g"), []byte("alice")), "ffffffffffffffff 02 0000000000000001 67 0000000000000005 616c696365"},
		{"consumer value", (&StreamConsumer{Pending: 1, SeenTime: 1700000000000, ActiveTime: 1700000000001}).AppendTo(nil),
			"0000000000000001 0000018bcfe56800 0000018bcfe56801"},
		{"pending key", AppendStreamPendingKey(nil, []byte("g"), StreamID{1, 1}), "ffffffffffffffff 03 0000000000000001 67 0000000000000001 0000000000000001"},
		{"pending value", (&StreamPending{DeliveryTime: 1700000000000, DeliveryCount: 2, Consumer: []byte("alice")}).AppendTo(nil),
			"0000018bcfe56800 0000000000000002 0000000000000005 616c696365"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if want := unhex(t, tt.want); !bytes.Equal(tt.got, want) {
				t.Fatalf("got %x, want %x", tt.got, want)
			}
		})
	}
}

func TestStreamDecode(t *testing.T) {
	sm := StreamMeta{LastGenerated: StreamID{9, 8}, RecordedFirst: StreamID{1, 2}, MaxDeleted: StreamID{3, 4},
		First: StreamID{5, 6}, Last: StreamID{7, 8}, EntriesAdded: 10, Groups: 3}
	enc := sm.AppendTo(nil)
	got, err := DecodeStreamMeta(enc)
	if err != nil || got != sm {
		t.Fatalf("round trip = %+v, %v", got, err)
	}
	// Older data lacks the group count.
	got, err = DecodeStreamMeta(enc[:len(enc)-8])
	if sm.Groups = 0; err != nil || got != sm {
		t.Fatalf("without groups = %+v, %v", got, err)
	}
	if _, err := DecodeStreamMeta(enc[:len(enc)-9]); err == nil {
		t.Fatal("a short extension decoded")
	}

	fv := [][]byte{[]byte("a"), {}, bytes.Repeat([]byte("x"), 300), []byte("v")}
	out, err := ParseStreamEntryValue(AppendStreamEntryValue(nil, fv))
	if err != nil || len(out) != 4 || !bytes.Equal(out[2], fv[2]) || len(out[1]) != 0 {
		t.Fatalf("entry round trip = %q, %v", out, err)
	}
	for _, bad := range [][]byte{{0x05, 'a'}, {0x80}, {0x01, 'a'}, {0xff, 0xff, 0xff, 0xff, 0xff, 0x01}} {
		if _, err := ParseStreamEntryValue(bad); err == nil {
			t.Errorf("ParseStreamEntryValue(%x) accepted", bad)
		}
	}

	g := StreamGroup{Consumers: 1, Pending: 2, LastDelivered: StreamID{3, 4}, EntriesRead: -1, Lag: 5}
	if got, err := DecodeStreamGroup(g.AppendTo(nil)); err != nil || got != g {
		t.Fatalf("group round trip = %+v, %v", got, err)
	}
	c := StreamConsumer{Pending: 1, SeenTime: 2, ActiveTime: 3}
	if got, err := DecodeStreamConsumer(c.AppendTo(nil)); err != nil || got != c {
		t.Fatalf("consumer round trip = %+v, %v", got, err)
	}
	p := StreamPending{DeliveryTime: 1, DeliveryCount: 2, Consumer: []byte("bob")}
	if got, err := DecodeStreamPending(p.AppendTo(nil)); err != nil || got.DeliveryTime != 1 || got.DeliveryCount != 2 || string(got.Consumer) != "bob" {
		t.Fatalf("pending round trip = %+v, %v", got, err)
	}
	if _, err := DecodeStreamPending(p.AppendTo(nil)[:26]); err == nil {
		t.Fatal("a cut pending record decoded")
	}

	if g, ok := ParseStreamGroupKey(AppendStreamGroupKey(nil, []byte("grp"))); !ok || string(g) != "grp" {
		t.Fatalf("ParseStreamGroupKey = %q, %v", g, ok)
	}
	if _, ok := ParseStreamGroupKey(AppendStreamConsumerKey(nil, []byte("g"), []byte("c"))); ok {
		t.Fatal("a consumer key parsed as a group key")
	}
	prefix := AppendStreamConsumersStart(nil, []byte("g"))
	if c, ok := ParseStreamConsumerKey(AppendStreamConsumerKey(nil, []byte("g"), []byte("bob")), len(prefix)); !ok || string(c) != "bob" {
		t.Fatalf("ParseStreamConsumerKey = %q, %v", c, ok)
	}
	if id, ok := ParseStreamEntryKey(AppendStreamEntryKey(nil, StreamID{7, 9})); !ok || id != (StreamID{7, 9}) {
		t.Fatalf("ParseStreamEntryKey = %v, %v", id, ok)
	}
}

func TestStreamID(t *testing.T) {
	max := MaxStreamID
	if _, ok := max.Next(); ok {
		t.Fatal("the largest ID has a next")
	}
	if _, ok := (StreamID{}).Prev(); ok {
		t.Fatal("0-0 has a previous")
	}
	if n, _ := (StreamID{1, math.MaxUint64}).Next(); n != (StreamID{2, 0}) {
		t.Fatalf("next of 1-max = %v", n)
	}
	if p, _ := (StreamID{2, 0}).Prev(); p != (StreamID{1, math.MaxUint64}) {
		t.Fatalf("prev of 2-0 = %v", p)
	}
	if (StreamID{1, 2}).Compare(StreamID{1, 3}) != -1 || (StreamID{2, 0}).Compare(StreamID{1, 9}) != 1 || max.Compare(max) != 0 {
		t.Fatal("Compare")
	}
	if s := (StreamID{12, 3}).String(); s != "12-3" {
		t.Fatalf("String = %q", s)
	}
}

func TestParseStreamSubkey(t *testing.T) {
	g, c := []byte("grp"), []byte("bob")
	tests := []struct {
		sub  []byte
		want StreamRecord
	}{
		{AppendStreamEntryKey(nil, StreamID{7, 9}), StreamRecord{Kind: StreamEntryRecord, ID: StreamID{7, 9}}},
		{AppendStreamGroupKey(nil, g), StreamRecord{Kind: StreamGroupRecord, Group: g}},
		{AppendStreamConsumerKey(nil, g, c), StreamRecord{Kind: StreamConsumerRecord, Group: g, Consumer: c}},
		{AppendStreamPendingKey(nil, g, StreamID{1, 2}), StreamRecord{Kind: StreamPendingRecord, Group: g, ID: StreamID{1, 2}}},
		{AppendStreamGroupKey(nil, nil), StreamRecord{Kind: StreamGroupRecord, Group: []byte{}}},
	}
	for _, tt := range tests {
		got, ok := ParseStreamSubkey(tt.sub)
		if !ok || got.Kind != tt.want.Kind || got.ID != tt.want.ID || !bytes.Equal(got.Group, tt.want.Group) || !bytes.Equal(got.Consumer, tt.want.Consumer) {
			t.Errorf("ParseStreamSubkey(%x) = %+v, %v; want %+v", tt.sub, got, ok, tt.want)
		}
	}
	for _, bad := range [][]byte{
		{1, 2, 3},
		append(AppendStreamGroupKey(nil, g), 'x'),
		AppendStreamGroupKey(nil, g)[:18],
		AppendStreamPendingKey(nil, g, StreamID{1, 2})[:30],
		append(AppendStreamGroupsStart(nil)[:8], 9, 0, 0, 0, 0, 0, 0, 0, 0),
	} {
		if r, ok := ParseStreamSubkey(bad); ok {
			t.Errorf("ParseStreamSubkey(%x) = %+v", bad, r)
		}
	}
}
