package json

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// Values read out of a Kvrocks 5fccd57 data directory (ldb scan of the
// metadata column family) after JSON.SET with json-storage-format json
// and cbor: the bytes after the 9-byte metadata header (flags 0x8a, no
// expiry).
var storedVectors = []struct {
	in     string
	format Format
	stored string // hex
}{
	{`{"a":1}`, FormatJSON, "00" + hex.EncodeToString([]byte(`{"a":1}`))},
	{`{"a":1}`, FormatCBOR, "01a1616101"},
	{`{"b":1,"a":[2.0,1.5,0.1,-1,-24,-25,255,256,65536,4294967296,18446744073709551615,123456789012345678901234,-123456789012345678901234,"x",true,false,null,1e400,3.4028234663852886e38,1e-7,-0.0,0.0,100000.0],"aa":"é","":{}}`,
		FormatCBOR, "01a460a0616197fa40000000fa3fc00000fb3fb999999999999a2037381818ff1901001a000100001b00000001000000001bffffffffffffffffc24a1a249b1f10a06c96aff2c34a1a249b1f10a06c96aff16178f5f4f6fa7f800000fa7f7ffffffb3e7ad7f29abcaf48fa80000000fa00000000fa47c3500062616162c3a9616201"},
	{`"\u00e9\ud83d\ude00\u0001\t\n\"\\/ é 😀 \u2028"`, FormatJSON, "00" + "22c3a9f09f98805c75303030315c745c6e5c225c5c2f20c3a920f09f988020e280a822"},
}

func TestStoredBytesAsKvrocks(t *testing.T) {
	for _, c := range storedVectors {
		want := c.stored
		v, err := Parse([]byte(c.in), DefaultMaxDepth)
		if err != nil {
			t.Fatal(err)
		}
		got := hex.EncodeToString(Encode(v, c.format))
		if got != want {
			t.Errorf("Encode(%s, %s)\n got %s\nwant %s", c.in, c.format, got, want)
		}
		raw, _ := hex.DecodeString(want)
		back, f, err := Decode(raw)
		if err != nil || f != c.format {
			t.Fatalf("Decode(%s) = %v, %v", want, f, err)
		}
		if !bytes.Equal(Encode(back, c.format), raw) {
			t.Errorf("Decode then Encode of %s gives %x", want, Encode(back, c.format))
		}
	}
}

func TestDecodeRefusesBadBytes(t *testing.T) {
	for _, b := range []string{"", "02", "00", "007b", "01", "01a1", "01a10101", "01ff", "019f"} {
		raw, _ := hex.DecodeString(b)
		if _, _, err := Decode(raw); err == nil {
			t.Errorf("Decode(%s) accepted", b)
		}
	}
}
