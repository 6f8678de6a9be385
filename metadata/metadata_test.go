package metadata

import (
	"bytes"
	"encoding/hex"
	"math"
	"strings"
	"testing"
)

// v is the version used by every vector of FORMAT.md §10:
// (1700000000000000 << 11) + 1.
const v = uint64(0x305120c0f2000001)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

func TestFormatVectors(t *testing.T) {
	std, cluster := Layout{}, Layout{Cluster: true}
	ns := DefaultNamespace
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"string key", std.AppendNSKey(nil, ns, []byte("foo")), "0b5f5f6e616d657370616365 666f6f"},
		{"string value", append((&Metadata{Type: TypeString}).AppendTo(nil), "bar"...), "81 0000000000000000 626172"},
		{"string value PXAT", append((&Metadata{Type: TypeString, Expire: 1700000060000}).AppendTo(nil), "bar"...), "81 0000018bcfe65260 626172"},
		{"string value legacy", append((&Metadata{Type: TypeString, Legacy: true, Expire: 1700000060000}).AppendTo(nil), "bar"...), "01 6553f13c 626172"},
		{"string key cluster", cluster.AppendNSKey(nil, ns, []byte("foo")), "0b5f5f6e616d657370616365 2f96 666f6f"},
		{"hash metadata", (&Metadata{Type: TypeHash, Version: v, Size: 1}).AppendTo(nil), "82 0000000000000000 305120c0f2000001 0000000000000001"},
		{"hash subkey", std.AppendInternalKey(nil, ns, []byte("h"), v, []byte("f")), "0b5f5f6e616d657370616365 00000001 68 305120c0f2000001 66"},
		{"hash subkey cluster", cluster.AppendInternalKey(nil, ns, []byte("h"), v, []byte("f")), "0b5f5f6e616d657370616365 2dae 00000001 68 305120c0f2000001 66"},
		{"legacy hash metadata", (&Metadata{Type: TypeHash, Legacy: true, Version: v, Size: 1}).AppendTo(nil), "02 00000000 305120c0f2000001 00000001"},
		{"zset metadata", (&Metadata{Type: TypeZSet, Version: v, Size: 1}).AppendTo(nil), "85 0000000000000000 305120c0f2000001 0000000000000001"},
		{"zset member", std.AppendInternalKey(nil, ns, []byte("z"), v, []byte("m")), "0b5f5f6e616d657370616365 00000001 7a 305120c0f2000001 6d"},
		{"zset member value", AppendScore(nil, 1.5), "bff8000000000000"},
		{"zset score key", std.AppendInternalKey(nil, ns, []byte("z"), v, append(AppendScore(nil, 1.5), 'm')), "0b5f5f6e616d657370616365 00000001 7a 305120c0f2000001 bff8000000000000 6d"},
		{"list metadata", func() []byte {
			m := New(TypeList, v)
			m.Size, m.Tail = 1, m.Tail+1
			return m.AppendTo(nil)
		}(), "83 0000000000000000 305120c0f2000001 0000000000000001 7fffffffffffffff 8000000000000000"},
		{"list item", std.AppendInternalKey(nil, ns, []byte("l"), v, []byte{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}), "0b5f5f6e616d657370616365 00000001 6c 305120c0f2000001 7fffffffffffffff"},
		{"bitmap metadata", (&Metadata{Type: TypeBitmap, Version: v, Size: 2}).AppendTo(nil), "86 0000000000000000 305120c0f2000001 0000000000000002"},
		{"hll metadata", append((&Metadata{Type: TypeHyperLogLog, Version: v}).AppendTo(nil), 0), "8b 0000000000000000 305120c0f2000001 0000000000000000 00"},
		{"json metadata", append((&Metadata{Type: TypeJSON}).AppendTo(nil), "\x00{\"a\":1}"...), "8a 0000000000000000 00 7b2261223a317d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if want := unhex(t, tt.want); !bytes.Equal(tt.got, want) {
				t.Fatalf("got %x, want %x", tt.got, want)
			}
		})
	}
}

func TestDecodeRoundTrip(t *testing.T) {
	tests := []struct {
		hex  string
		want Metadata
		rest string
	}{
		{"81 0000000000000000 626172", Metadata{Type: TypeString}, "bar"},
		{"01 6553f13c 626172", Metadata{Type: TypeString, Legacy: true, Expire: 1700000060000}, "bar"},
		{"82 0000000000000000 305120c0f2000001 0000000000000001", Metadata{Type: TypeHash, Version: v, Size: 1}, ""},
		{"02 00000000 305120c0f2000001 00000001", Metadata{Type: TypeHash, Legacy: true, Version: v, Size: 1}, ""},
		// KVROCKS-TYPES.md §7.6: a hash in field-expiration mode.
		{"82 0000000000000000 305120c0f2000001 0000000000000001 01 0000000000000000 0000018bcfe65260 0000018bcfe65260",
			Metadata{Type: TypeHash, Version: v, Size: 1, FieldTTL: true, LowerTTL: 1700000060000, UpperTTL: 1700000060000}, ""},
		{"82 0000000000000000 305120c0f2000001 0000000000000001 01 0000000000000001 0000000000000000 0000000000000000",
			Metadata{Type: TypeHash, Version: v, Size: 1, FieldTTL: true, Persist: 1}, ""},
		{"83 0000000000000000 305120c0f2000001 0000000000000001 7fffffffffffffff 8000000000000000",
			Metadata{Type: TypeList, Version: v, Size: 1, Head: ListInitialIndex, Tail: ListInitialIndex + 1}, ""},
		{"89 0000000000000000 305120c0f2000001 0000000000000000 0001 0002 00000064 bf847ae147ae147b 00000080",
			Metadata{Type: TypeBloom, Version: v}, "\x00\x01\x00\x02\x00\x00\x00\x64\xbf\x84\x7a\xe1\x47\xae\x14\x7b\x00\x00\x00\x80"},
	}
	for _, tt := range tests {
		raw := unhex(t, tt.hex)
		m, rest, err := Decode(raw)
		if err != nil {
			t.Fatalf("%s: %v", tt.hex, err)
		}
		if m != tt.want || string(rest) != tt.rest {
			t.Fatalf("%s: got %+v rest %q, want %+v rest %q", tt.hex, m, rest, tt.want, tt.rest)
		}
		if tt.want.Type.SingleKV() {
			continue
		}
		if again := m.AppendTo(nil); !bytes.Equal(again, raw[:len(raw)-len(rest)]) {
			t.Fatalf("%s: re-encoded as %x", tt.hex, again)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, h := range []string{"", "81 00", "01 000000", "82 0000000000000000 3051", "83 0000000000000000 305120c0f2000001 0000000000000001 7fff", "00 0000000000000000", "8f 0000000000000000"} {
		if _, _, err := Decode(unhex(t, h)); err == nil {
			t.Errorf("Decode(%s) succeeded, want error", h)
		}
	}
}

func TestLegacyExpireRounding(t *testing.T) {
	for ms, want := range map[int64]uint32{0: 0, 1: 1, 999: 1, 1000: 1, 1499: 1, 1500: 1, 1501: 2, 1700000060000: 1700000060} {
		if got := legacyExpireSeconds(ms); got != want {
			t.Errorf("legacyExpireSeconds(%d) = %d, want %d", ms, got, want)
		}
	}
}

func TestLiveness(t *testing.T) {
	m := Metadata{Type: TypeHash, Size: 0}
	if !m.Dead(1) {
		t.Error("empty hash must be dead")
	}
	// A hash whose fields all have TTLs is dead after the latest.
	h := Metadata{Type: TypeHash, Size: 2, FieldTTL: true, LowerTTL: 500, UpperTTL: 1000}
	if h.Dead(1000) || !h.Dead(1001) {
		t.Error("a hash of TTL'd fields is alive until its upper bound")
	}
	if h.Persist = 1; h.Dead(1001) {
		t.Error("a hash with a field without TTL is alive")
	}
	s := Metadata{Type: TypeString, Expire: 1000}
	if s.Dead(1000) || !s.Dead(1001) {
		t.Error("a key is alive at its expire ms and dead one ms later")
	}
}

func TestScoreVectors(t *testing.T) {
	for score, want := range map[float64]string{
		1.5: "bff8000000000000", -2.5: "3ffbffffffffffff", 1.0: "bff0000000000000", -1.0: "400fffffffffffff",
		0: "8000000000000000", math.Copysign(0, -1): "7fffffffffffffff", math.Inf(1): "fff0000000000000", math.Inf(-1): "000fffffffffffff",
	} {
		got := AppendScore(nil, score)
		if hex.EncodeToString(got) != want {
			t.Errorf("AppendScore(%v) = %x, want %s", score, got, want)
		}
		back, ok := DecodeScore(got)
		if !ok || math.Float64bits(back) != math.Float64bits(score) {
			t.Errorf("DecodeScore(%x) = %v, want %v", got, back, score)
		}
	}
	ordered := []float64{math.Inf(-1), -1e300, -2.5, -1, math.Copysign(0, -1), 0, 1e-300, 1, 1.5, 1e300, math.Inf(1)}
	for i := 1; i < len(ordered); i++ {
		if bytes.Compare(AppendScore(nil, ordered[i-1]), AppendScore(nil, ordered[i])) >= 0 {
			t.Errorf("encoding of %v does not sort before %v", ordered[i-1], ordered[i])
		}
	}
}

func TestHashSlot(t *testing.T) {
	if got := CRC16([]byte("123456789")); got != 0x31c3 {
		t.Fatalf("CRC16 check value = %#x", got)
	}
	for key, want := range map[string]uint16{
		"foo": 12182, "h": 11694, "{user1000}.following": 3443, "foo{}{bar}": 8363,
		"foo{{bar}}zap": 4015, "foo{bar}{zap}": 5061, "123456789": 12739,
	} {
		if got := HashSlot([]byte(key)); got != want {
			t.Errorf("HashSlot(%q) = %d, want %d", key, got, want)
		}
	}
}

func TestVersion(t *testing.T) {
	g := NewVersionGenerator()
	g.counter.Store(1)
	now := VersionTime(v)
	if got := g.Next(now); got != v {
		t.Fatalf("Next = %#x, want %#x", got, v)
	}
	seen := map[uint64]bool{}
	for i := 0; i < 4096; i++ {
		x := g.Next(now.Add(1000 * 1000)) // the counter keeps versions apart within one µs for 2048 calls
		if i < 2048 && seen[x] {
			t.Fatalf("duplicate version %#x", x)
		}
		seen[x] = true
	}
}

func TestParseKeys(t *testing.T) {
	for _, l := range []Layout{{}, {Cluster: true}} {
		nsKey := l.AppendNSKey(nil, "tenant", []byte("user:1"))
		ns, key, err := l.ParseNSKey(nsKey)
		if err != nil || string(ns) != "tenant" || string(key) != "user:1" {
			t.Fatalf("ParseNSKey = %q %q %v", ns, key, err)
		}
		ikey := l.AppendInternalKey(nil, "tenant", []byte("user:1"), v, []byte("field"))
		k, err := l.ParseInternalKey(ikey)
		if err != nil || string(k.Namespace) != "tenant" || string(k.Key) != "user:1" || k.Version != v || string(k.Sub) != "field" {
			t.Fatalf("ParseInternalKey = %+v %v", k, err)
		}
		if n := l.SubkeyPrefixLen("tenant", []byte("user:1")); n != len(ikey)-len("field") {
			t.Fatalf("SubkeyPrefixLen = %d, the prefix has %d bytes", n, len(ikey)-len("field"))
		}
		if got := l.AppendNSKeyOf(nil, k); !bytes.Equal(got, nsKey) {
			t.Fatalf("AppendNSKeyOf = %x, want %x", got, nsKey)
		}
		if _, err := l.ParseInternalKey(ikey[:len(ikey)-len("field")-3]); err == nil {
			t.Fatal("truncated internal key parsed")
		}
	}
	if got := PrefixEnd([]byte{1, 0xff}); !bytes.Equal(got, []byte{2}) {
		t.Fatalf("PrefixEnd = %x", got)
	}
	if PrefixEnd([]byte{0xff}) != nil {
		t.Fatal("PrefixEnd of all-0xff must be nil")
	}
}
