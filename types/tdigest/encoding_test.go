package tdigest

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/resp"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The vectors follow KVROCKS-TYPES.md §5.1–5.2 with FORMAT.md §10's
// conventions: default namespace, new encoding, no TTL, version
// V = 305120c0f2000001. They were computed by hand from the layout, not
// read from a Kvrocks 2.14+ data directory (none can be run here), so
// they hold the layout as documented, merged_weight's place included.
const (
	vecNS      = "0b5f5f6e616d657370616365"
	vecVersion = 0x305120c0f2000001
	vecHeader  = "8c 0000000000000000 305120c0f2000001 0000000000000000" // flags, expire, version, size 0
)

// vecSteps are the records of key "t" after each command, in order.
var vecSteps = []struct {
	name string
	meta string            // the extension
	recs map[string]string // subkey → value, every record the key holds
}{{
	name: "TDIGEST.CREATE t",
	meta: "00000064 00000262" + // compression 100, capacity 610
		" 0000000000000000 0000000000000000" + // unmerged, merged nodes
		" 0000000000000000 0000000000000000" + // total, merged weight
		" ffefffffffffffff 0010000000000000" + // min DBL_MAX, max -DBL_MAX
		" 0000000000000000 0000000000000000", // observations, merges
}, {
	name: "TDIGEST.ADD t 1 -2.5",
	meta: "00000064 00000262 0000000000000002 0000000000000000 0000000000000002 0000000000000000" +
		" ffefffffffffffff 0010000000000000 0000000000000002 0000000000000000",
	recs: map[string]string{"00": "bff0000000000000 3ffbffffffffffff"},
}, {
	name: "TDIGEST.MIN t (merges the buffer)",
	meta: "00000064 00000262 0000000000000000 0000000000000002 0000000000000002 0000000000000002" +
		" 3ffbffffffffffff bff0000000000000 0000000000000002 0000000000000001",
	recs: map[string]string{
		"01 3ffbffffffffffff 00000000": "bff0000000000000",
		"01 bff0000000000000 00000001": "bff0000000000000",
	},
}, {
	name: "TDIGEST.ADD t 1",
	meta: "00000064 00000262 0000000000000001 0000000000000002 0000000000000003 0000000000000002" +
		" 3ffbffffffffffff bff0000000000000 0000000000000003 0000000000000001",
	recs: map[string]string{
		"00":                           "bff0000000000000",
		"01 3ffbffffffffffff 00000000": "bff0000000000000",
		"01 bff0000000000000 00000001": "bff0000000000000",
	},
}, {
	name: "TDIGEST.MAX t (equal means keep apart by position)",
	meta: "00000064 00000262 0000000000000000 0000000000000003 0000000000000003 0000000000000003" +
		" 3ffbffffffffffff bff0000000000000 0000000000000003 0000000000000002",
	recs: map[string]string{
		"01 3ffbffffffffffff 00000000": "bff0000000000000",
		"01 bff0000000000000 00000001": "bff0000000000000",
		"01 bff0000000000000 00000002": "bff0000000000000",
	},
}, {
	name: "TDIGEST.RESET t",
	meta: "00000064 00000262 0000000000000000 0000000000000000 0000000000000000 0000000000000000" +
		" ffefffffffffffff 0010000000000000 0000000000000000 0000000000000000",
}}

// TestByteVectors runs the commands of vecSteps and checks the bytes the
// engine would write, whole keys included: the metadata record under the
// namespace key, each record under its internal key.
func TestByteVectors(t *testing.T) {
	layout := metadata.Layout{}
	metaKey := layout.AppendNSKey(nil, metadata.DefaultNamespace, []byte("t"))
	if want := unhex(t, vecNS+"74"); !bytes.Equal(metaKey, want) {
		t.Fatalf("metadata key %x, want %x", metaKey, want)
	}
	db := memDB{}
	steps := [][]string{
		{"TDIGEST.CREATE", "t"}, {"TDIGEST.ADD", "t", "1", "-2.5"}, {"TDIGEST.MIN", "t"},
		{"TDIGEST.ADD", "t", "1"}, {"TDIGEST.MAX", "t"}, {"TDIGEST.RESET", "t"},
	}
	for i, step := range vecSteps {
		var args [][]byte
		for _, a := range steps[i] {
			args = append(args, []byte(a))
		}
		db.do(args, resp.NewWriter())
		k := db["t"]
		header := metadata.Metadata{Type: TypeNumber, Version: vecVersion}
		value := k.meta.AppendExt(header.AppendTo(nil))
		if want := unhex(t, vecHeader+step.meta); !bytes.Equal(value, want) {
			t.Errorf("%s: metadata\n got %x\nwant %x", step.name, value, want)
		}
		if got, err := DecodeExt(value[len(unhex(t, vecHeader)):]); err != nil || got != k.meta {
			t.Errorf("%s: DecodeExt = %+v, %v; want %+v", step.name, got, err, k.meta)
		}
		if len(k.store.recs) != len(step.recs) {
			t.Errorf("%s: %d records, want %d", step.name, len(k.store.recs), len(step.recs))
		}
		for sub, val := range step.recs {
			got, ok := k.store.recs[string(unhex(t, sub))]
			if !ok || !bytes.Equal(got, unhex(t, val)) {
				t.Errorf("%s: record %s = %x (present %v), want %s", step.name, sub, got, ok, val)
			}
			ikey := layout.AppendInternalKey(nil, metadata.DefaultNamespace, []byte("t"), vecVersion, unhex(t, sub))
			if want := unhex(t, vecNS+"00000001 74 305120c0f2000001"+sub); !bytes.Equal(ikey, want) {
				t.Errorf("%s: internal key %x, want %x", step.name, ikey, want)
			}
		}
	}
}

// TestDecodeExtRefusesShort: an extension shorter than the layout is
// corrupt (a 64-byte one, the layout without merged_weight, included);
// longer ones are read as Kvrocks reads them, the rest ignored.
func TestDecodeExtRefusesShort(t *testing.T) {
	ext := NewMeta(100).AppendExt(nil)
	if len(ext) != ExtLen {
		t.Fatalf("extension of %d bytes, want %d", len(ext), ExtLen)
	}
	for _, n := range []int{0, 8, 64, ExtLen - 1} {
		if _, err := DecodeExt(ext[:n]); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%d bytes: %v, want ErrCorrupt", n, err)
		}
	}
	if m, err := DecodeExt(append(ext, 1, 2, 3)); err != nil || m != NewMeta(100) {
		t.Errorf("longer extension: %+v, %v", m, err)
	}
}

// TestSubkeys: centroid subkeys sort by mean, then position; records of
// the older 9-byte form read; anything else is corrupt.
func TestSubkeys(t *testing.T) {
	means := []float64{math.Inf(-1), -2.5, -1, math.Copysign(0, -1), 0, 1, 1.5, math.Inf(1)}
	var prev []byte
	for _, mean := range means {
		for seq := uint32(0); seq < 2; seq++ {
			sub := AppendCentroidSubkey(nil, mean, seq)
			if prev != nil && bytes.Compare(prev, sub) >= 0 {
				t.Errorf("subkey of %v/%d %x not after %x", mean, seq, sub, prev)
			}
			prev = sub
			c, err := ParseCentroid(sub, AppendCentroidValue(nil, 3))
			if err != nil || !sameFloat(c.Mean, mean) || c.Weight != 3 {
				t.Errorf("ParseCentroid(%x) = %+v, %v", sub, c, err)
			}
		}
	}
	if c, err := ParseCentroid(unhex(t, "01 bff8000000000000"), unhex(t, "c000000000000000")); err != nil || c != (Centroid{1.5, 2}) {
		t.Errorf("9-byte subkey: %+v, %v", c, err)
	}
	for _, bad := range []struct{ sub, value string }{
		{"", "bff0000000000000"},
		{"01", "bff0000000000000"},
		{"01 bff8000000000000 0000", "bff0000000000000"},
		{"00 bff8000000000000 00000000", "bff0000000000000"},
		{"02 bff8000000000000 00000000", "bff0000000000000"},
		{"01 bff8000000000000 00000000", "bff00000"},
		{"01 bff8000000000000 00000000", ""},
	} {
		if _, err := ParseCentroid(unhex(t, bad.sub), unhex(t, bad.value)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("ParseCentroid(%s, %s): %v, want ErrCorrupt", bad.sub, bad.value, err)
		}
	}
	if _, err := ParseBuffer(nil, make([]byte, 12)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("buffer of 12 bytes: %v", err)
	}
}

func sameFloat(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
