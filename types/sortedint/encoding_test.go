package sortedint

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/basaltdb/basalt/metadata"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// kvrocksKey is a sortedint key as the real Kvrocks 5fccd57 wrote it: the
// records read back out of its data directory after SIADD (and PEXPIREAT)
// in standalone or cluster mode.
type kvrocksKey struct {
	name    string
	cluster bool
	key     string
	metaKey string // metadata CF
	meta    string
	version uint64
	size    uint64
	expire  int64
	ids     []uint64 // in the order of the subkeys, each with an empty value
	subkeys []string // default CF
}

var kvrocksKeys = []kvrocksKey{{
	name:    "SIADD s 5",
	key:     "s",
	metaKey: "0b5f5f6e616d65737061636573",
	meta:    "870000000000000000330b37bb4f4bc3c90000000000000001",
	version: 0x330b37bb4f4bc3c9, size: 1,
	ids:     []uint64{5},
	subkeys: []string{"0b5f5f6e616d6573706163650000000173330b37bb4f4bc3c90000000000000005"},
}, {
	name:    "SIADD big 0 1 255 256 9223372036854775808 18446744073709551615",
	key:     "big",
	metaKey: "0b5f5f6e616d657370616365626967",
	meta:    "870000000000000000330b37bb5c1bdbca0000000000000006",
	version: 0x330b37bb5c1bdbca, size: 6,
	ids: []uint64{0, 1, 255, 256, 1 << 63, math.MaxUint64},
	subkeys: []string{
		"0b5f5f6e616d65737061636500000003626967330b37bb5c1bdbca0000000000000000",
		"0b5f5f6e616d65737061636500000003626967330b37bb5c1bdbca0000000000000001",
		"0b5f5f6e616d65737061636500000003626967330b37bb5c1bdbca00000000000000ff",
		"0b5f5f6e616d65737061636500000003626967330b37bb5c1bdbca0000000000000100",
		"0b5f5f6e616d65737061636500000003626967330b37bb5c1bdbca8000000000000000",
		"0b5f5f6e616d65737061636500000003626967330b37bb5c1bdbcaffffffffffffffff",
	},
}, {
	// Kvrocks counts an id named twice twice: size 2 for one subkey.
	name:    "SIADD dup 7 7",
	key:     "dup",
	metaKey: "0b5f5f6e616d657370616365647570",
	meta:    "870000000000000000330b37bb67d9e3cb0000000000000002",
	version: 0x330b37bb67d9e3cb, size: 2,
	ids:     []uint64{7},
	subkeys: []string{"0b5f5f6e616d65737061636500000003647570330b37bb67d9e3cb0000000000000007"},
}, {
	name:    "SIADD ttl 3; PEXPIREAT ttl 4102444800000",
	key:     "ttl",
	metaKey: "0b5f5f6e616d65737061636574746c",
	meta:    "87000003bb2cc3d800330b37bb8ede6bcd0000000000000001",
	version: 0x330b37bb8ede6bcd, size: 1, expire: 4102444800000,
	ids:     []uint64{3},
	subkeys: []string{"0b5f5f6e616d6573706163650000000374746c330b37bb8ede6bcd0000000000000003"},
}, {
	name:    "cluster mode: SIADD s 5 4294967296 (slot 3828)",
	cluster: true,
	key:     "s",
	metaKey: "0b5f5f6e616d6573706163650ef473",
	meta:    "870000000000000000330b37c7eaa67b4a0000000000000002",
	version: 0x330b37c7eaa67b4a, size: 2,
	ids: []uint64{5, 1 << 32},
	subkeys: []string{
		"0b5f5f6e616d6573706163650ef40000000173330b37c7eaa67b4a0000000000000005",
		"0b5f5f6e616d6573706163650ef40000000173330b37c7eaa67b4a0000000100000000",
	},
}}

// TestKvrocksBytes checks the subkeys and metadata Kvrocks wrote: Basalt
// encodes the same bytes and reads Kvrocks's back (its sizes as they are).
func TestKvrocksBytes(t *testing.T) {
	for _, k := range kvrocksKeys {
		t.Run(k.name, func(t *testing.T) {
			layout := metadata.Layout{Cluster: k.cluster}
			if got := layout.AppendNSKey(nil, metadata.DefaultNamespace, []byte(k.key)); !bytes.Equal(got, unhex(t, k.metaKey)) {
				t.Errorf("metadata key %x, Kvrocks %s", got, k.metaKey)
			}
			m, rest, err := metadata.Decode(unhex(t, k.meta))
			if err != nil || len(rest) != 0 || m.Type != metadata.TypeSortedint || m.Version != k.version || m.Size != k.size || m.Expire != k.expire {
				t.Errorf("Decode(%s) = %+v, rest %x, %v", k.meta, m, rest, err)
			}
			if got := m.AppendTo(nil); !bytes.Equal(got, unhex(t, k.meta)) {
				t.Errorf("metadata %x, Kvrocks %s", got, k.meta)
			}
			for i, id := range k.ids {
				want := unhex(t, k.subkeys[i])
				got := layout.AppendInternalKey(nil, metadata.DefaultNamespace, []byte(k.key), k.version, AppendSubkey(nil, id))
				if !bytes.Equal(got, want) {
					t.Errorf("subkey of %d: %x, Kvrocks %x", id, got, want)
				}
				ik, err := layout.ParseInternalKey(want)
				if err != nil {
					t.Fatal(err)
				}
				if back, err := ParseSubkey(ik.Sub); err != nil || back != id {
					t.Errorf("ParseSubkey(%x) = %d, %v; want %d", ik.Sub, back, err, id)
				}
			}
			// RocksDB's order (bytewise) is numeric order.
			if !slices.IsSortedFunc(k.subkeys, func(a, b string) int { return bytes.Compare(unhex(t, a), unhex(t, b)) }) || !slices.IsSorted(k.ids) {
				t.Errorf("subkeys or ids out of order")
			}
		})
	}
}

func TestParseSubkeyCorrupt(t *testing.T) {
	for _, sub := range []string{"", "00", "00000000000005", "000000000000000500"} {
		if _, err := ParseSubkey(unhex(t, sub)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("ParseSubkey(%s): %v, want ErrCorrupt", sub, err)
		}
	}
}
