package compactfilter

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/basaltdb/basalt/metadata"
)

// TestSubkeyBitmapZeroSegments: the subkey filter drops a bitmap segment
// whose bytes are all zero (FORMAT.md §6), keeps one with a bit set, and
// keeps zero bytes of every other type (a hash field "\x00\x00", a
// HyperLogLog segment of empty registers).
func TestSubkeyBitmapZeroSegments(t *testing.T) {
	future := time.Now().Add(time.Hour).UnixMilli()
	const version = 0x305120c0f2000001
	layout := metadata.Layout{}
	ns := metadata.DefaultNamespace
	metas := map[string][]byte{
		"bm":  (&metadata.Metadata{Type: metadata.TypeBitmap, Version: version, Size: 3000}).AppendTo(nil),
		"h":   (&metadata.Metadata{Type: metadata.TypeHash, Version: version, Size: 1}).AppendTo(nil),
		"hf":  (&metadata.Metadata{Type: metadata.TypeHash, Version: version, Size: 3, FieldTTL: true, Persist: 1, LowerTTL: 1, UpperTTL: future}).AppendTo(nil),
		"hll": append((&metadata.Metadata{Type: metadata.TypeHyperLogLog, Version: version}).AppendTo(nil), metadata.HLLDense),
	}
	f := &Subkey{
		Layout: layout,
		Now:    time.Now,
		Lookup: func(nsKey []byte) ([]byte, bool, error) {
			_, key, err := layout.ParseNSKey(nsKey)
			if err != nil {
				return nil, false, err
			}
			v, ok := metas[string(key)]
			return v, ok, nil
		},
	}
	sub := func(key string, s []byte) []byte {
		return layout.AppendInternalKey(nil, ns, []byte(key), version, s)
	}
	for _, tt := range []struct {
		name  string
		key   []byte
		value []byte
		drop  bool
	}{
		{"bitmap segment of zeros", sub("bm", metadata.AppendBitmapSegment(nil, 0)), make([]byte, 1024), true},
		{"short bitmap segment of zeros", sub("bm", metadata.AppendBitmapSegment(nil, 2)), make([]byte, 453), true},
		{"empty bitmap segment", sub("bm", metadata.AppendBitmapSegment(nil, 1)), nil, true},
		{"bitmap segment with its last bit set", sub("bm", metadata.AppendBitmapSegment(nil, 1)), append(make([]byte, 1023), 0x80), false},
		{"bitmap segment with its first bit set", sub("bm", metadata.AppendBitmapSegment(nil, 0)), []byte{1, 0, 0}, false},
		{"hash field of zero bytes", sub("h", []byte("f")), []byte{0, 0}, false},
		// KVROCKS-TYPES.md §7.4: an expired field goes at once; a field
		// without TTL, one not expired and a corrupt short one stay; a
		// plain hash's value is never read as an expiry.
		{"expired hash field", sub("hf", []byte("a")), ttlValue(1, "v"), true},
		{"hash field not expired", sub("hf", []byte("b")), ttlValue(future, "v"), false},
		{"hash field without TTL", sub("hf", []byte("c")), ttlValue(0, "v"), false},
		{"short hash field", sub("hf", []byte("d")), []byte{0, 0, 1}, false},
		{"plain hash value of 8 bytes", sub("h", []byte("e")), ttlValue(1, ""), false},
		{"HyperLogLog segment of zero registers", sub("hll", metadata.AppendHLLSegment(nil, 3)), make([]byte, metadata.HLLSegmentBytes), false},
		{"bitmap segment of another version", layout.AppendInternalKey(nil, ns, []byte("bm"), version+1, []byte("0")), []byte{1}, true},
		{"bitmap segment of a deleted key", sub("gone", []byte("0")), []byte{1}, true},
	} {
		if drop, _ := f.Filter(0, tt.key, tt.value); drop != tt.drop {
			t.Errorf("%s: drop %v, want %v", tt.name, drop, tt.drop)
		}
	}
}

// ttlValue is a field value of a hash in field-expiration mode.
func ttlValue(expire int64, v string) []byte {
	return append(binary.BigEndian.AppendUint64(nil, uint64(expire)), v...)
}
