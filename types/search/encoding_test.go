package search

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

var defaultNS = []byte("__namespace")

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ToLower(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The records of a real Kvrocks 5fccd57 data directory (read with ldb
// from the search column family) after:
//
//	FT.CREATE idx ON HASH PREFIX 1 p: SCHEMA t TAG n NUMERIC
//	HSET p:1 t Foo,bar n 2.5
//	FT.CREATE hv ON HASH PREFIX 2 h: hh: SCHEMA tg TAG SEPARATOR | CASESENSITIVE
//	  num NUMERIC NOINDEX vec VECTOR HNSW 16 TYPE FLOAT64 DIM 2 DISTANCE_METRIC COSINE
//	  M 4 EF_CONSTRUCTION 20 EF_RUNTIME 5 EPSILON 0.5
//	HSET h:1 tg A|b num -1 vec <1.0 2.0>;  HSET h:2 tg A num 3 vec <3.0 1.0>
//	FT.CREATE jv ON JSON PREFIX 1 j: SCHEMA $.tags TAG price NUMERIC
//	  emb VECTOR HNSW 6 TYPE FLOAT64 DIM 3 DISTANCE_METRIC IP
//	JSON.SET j:1 $ {"tags":["x","Y"],"price":9.5,"emb":[1,0,0]}
//	JSON.SET j:2 $ {"tags":"p,q","price":1,"emb":[0,1,0.5]}
var kvrocksSchemaRecords = []struct{ key, value string }{
	{"0B5F5F6E616D65737061636500000000026876", "0002"},
	{"0B5F5F6E616D65737061636500000000026A76", "000A"},
	{"0B5F5F6E616D6573706163650000000003696478", "0002"},
	{"0B5F5F6E616D65737061636501000000026876", "00000002683A0000000368683A"},
	{"0B5F5F6E616D65737061636501000000026A76", "000000026A3A"},
	{"0B5F5F6E616D6573706163650100000003696478", "00000002703A"},
	{"0B5F5F6E616D65737061636502000000026876000000027467", "027C01"},
	{"0B5F5F6E616D65737061636502000000026876000000036E756D", "05"},
	{"0B5F5F6E616D6573706163650200000002687600000003766563", "06010002020007A12000040000001400000005BFE00000000000000003"},
	{"0B5F5F6E616D65737061636502000000026A7600000003656D62", "06010003010007A1200010000000C80000000ABF847AE147AE147B0001"},
	{"0B5F5F6E616D65737061636502000000026A76000000057072696365", "04"},
	{"0B5F5F6E616D65737061636502000000026A7600000006242E74616773", "022C00"},
	{"0B5F5F6E616D6573706163650200000003696478000000016E", "04"},
	{"0B5F5F6E616D65737061636502000000036964780000000174", "022C00"},
}

// TestSchemaRecordsAsKvrocks: FT.CREATE's arguments give the records
// Kvrocks wrote (the vector fields' level counts aside, which grow with
// the graph), and the records decode to the schema.
func TestSchemaRecordsAsKvrocks(t *testing.T) {
	creates := map[string]string{
		"idx": "idx ON HASH PREFIX 1 p: SCHEMA t TAG n NUMERIC",
		"hv":  "hv ON HASH PREFIX 2 h: hh: SCHEMA tg TAG SEPARATOR | CASESENSITIVE num NUMERIC NOINDEX vec VECTOR HNSW 16 TYPE FLOAT64 DIM 2 DISTANCE_METRIC COSINE M 4 EF_CONSTRUCTION 20 EF_RUNTIME 5 EPSILON 0.5",
		"jv":  "jv ON JSON PREFIX 1 j: SCHEMA $.tags TAG price NUMERIC emb VECTOR HNSW 6 TYPE FLOAT64 DIM 3 DISTANCE_METRIC IP",
	}
	levels := map[string]uint16{"hv": 3, "jv": 1}
	want := map[string]string{}
	for _, r := range kvrocksSchemaRecords {
		want[r.key] = r.value
	}
	for name, args := range creates {
		s, err := ParseCreate(splitWords(t, args))
		if err != nil {
			t.Fatal(err)
		}
		for i := range s.Fields {
			if s.Fields[i].Type == FieldVector {
				s.Fields[i].Vector.NumLevels = levels[name]
			}
		}
		recs := SchemaRecords(defaultNS, s)
		var fields []Record
		for _, r := range recs {
			k := strings.ToUpper(hex.EncodeToString(r.Key))
			v, ok := want[k]
			if !ok {
				t.Errorf("%s: record %s is not Kvrocks's", name, k)
				continue
			}
			if got := strings.ToUpper(hex.EncodeToString(r.Value)); got != v {
				t.Errorf("%s: %s = %s, Kvrocks wrote %s", name, k, got, v)
			}
			if bytes.HasPrefix(r.Key, FieldMetaPrefix(defaultNS, name)) {
				fields = append(fields, r)
			}
		}
		back, err := DecodeSchema(defaultNS, name, recs[0].Value, recs[1].Value, fields, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(back.Fields) != len(s.Fields) || back.On != s.On || strings.Join(back.Prefixes, " ") != strings.Join(s.Prefixes, " ") {
			t.Errorf("%s: decoded %+v, want %+v", name, back, s)
		}
		for i := range s.Fields {
			if back.Fields[i] != s.Fields[i] {
				t.Errorf("%s: field %+v decoded as %+v", name, s.Fields[i], back.Fields[i])
			}
		}
	}
}

// TestDataRecordsAsKvrocks: the tag, numeric and HNSW keys and values
// Kvrocks wrote for the documents above.
func TestDataRecordsAsKvrocks(t *testing.T) {
	ns := defaultNS
	cases := []struct {
		got  []byte
		want string
	}{
		{TagKey(ns, "idx", "t", []byte("bar"), []byte("p:1")), "0B5F5F6E616D657370616365030000000369647800000001740000000362617200000003703A31"},
		{TagKey(ns, "idx", "t", []byte("foo"), []byte("p:1")), "0B5F5F6E616D6573706163650300000003696478000000017400000003666F6F00000003703A31"},
		{NumericKey(ns, "idx", "n", 2.5, []byte("p:1")), "0B5F5F6E616D6573706163650300000003696478000000016EC00400000000000000000003703A31"},
		{TagKey(ns, "hv", "tg", []byte("A"), []byte("h:2")), "0B5F5F6E616D65737061636503000000026876000000027467000000014100000003683A32"},
		{NumericKey(ns, "jv", "price", 1, []byte("j:2")), "0B5F5F6E616D65737061636503000000026A76000000057072696365BFF0000000000000000000036A3A32"},
		{NumericKey(ns, "jv", "price", 9.5, []byte("j:1")), "0B5F5F6E616D65737061636503000000026A76000000057072696365C023000000000000000000036A3A31"},
		{TagKey(ns, "jv", "$.tags", []byte("y"), []byte("j:1")), "0B5F5F6E616D65737061636503000000026A7600000006242E746167730000000179000000036A3A31"},
		{NodeKey(ns, "hv", "vec", 0, []byte("h:1")), "0B5F5F6E616D657370616365030000000268760000000376656300000100000003683A31"},
		{NodeKey(ns, "hv", "vec", 2, []byte("h:1")), "0B5F5F6E616D657370616365030000000268760000000376656300020100000003683A31"},
		{EdgeKey(ns, "hv", "vec", 0, []byte("h:1"), []byte("h:2")), "0B5F5F6E616D657370616365030000000268760000000376656300000200000003683A3100000003683A32"},
		{EdgeKey(ns, "jv", "emb", 0, []byte("j:2"), []byte("j:1")), "0B5F5F6E616D65737061636503000000026A7600000003656D62000002000000036A3A32000000036A3A31"},
		{EncodeNode(Node{Neighbours: 3, Vector: []float64{1, 2}}), "00030002BFF0000000000000C000000000000000"},
		{EncodeNode(Node{Neighbours: 0, Vector: []float64{1, 2}}), "00000002BFF0000000000000C000000000000000"},
		{EncodeNode(Node{Neighbours: 1, Vector: []float64{0, 1, 0.5}}), "000100038000000000000000BFF0000000000000BFE0000000000000"},
	}
	for i, c := range cases {
		if got := strings.ToUpper(hex.EncodeToString(c.got)); got != c.want {
			t.Errorf("case %d: %s, Kvrocks wrote %s", i, got, c.want)
		}
	}
	// And back.
	rest := unhex(t, "0B5F5F6E616D6573706163650300000003696478000000016EC00400000000000000000003703A31")[len(FieldDataPrefix(ns, "idx", "n")):]
	v, key, err := ParseNumericEntry(rest)
	if err != nil || v != 2.5 || string(key) != "p:1" {
		t.Errorf("numeric entry: %v %q %v", v, key, err)
	}
	rest = unhex(t, "0B5F5F6E616D657370616365030000000369647800000001740000000362617200000003703A31")[len(FieldDataPrefix(ns, "idx", "t")):]
	tag, key, err := ParseTagEntry(rest)
	if err != nil || string(tag) != "bar" || string(key) != "p:1" {
		t.Errorf("tag entry: %q %q %v", tag, key, err)
	}
	n, err := DecodeNode(unhex(t, "00010003BFF000000000000080000000000000008000000000000000"))
	if err != nil || n.Neighbours != 1 || len(n.Vector) != 3 || n.Vector[0] != 1 || n.Vector[1] != 0 {
		t.Errorf("node: %+v %v", n, err)
	}
}

// TestCorruptRecords: truncated and overlong bytes are errors.
func TestCorruptRecords(t *testing.T) {
	for _, b := range [][]byte{nil, {0}, {0, 0, 0, 9, 'a'}, {0xff, 0xff, 0xff, 0xff}} {
		if _, _, err := ParseTagEntry(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("tag entry %x: %v", b, err)
		}
		if _, _, err := ParseNumericEntry(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("numeric entry %x: %v", b, err)
		}
		if _, err := DecodeNode(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("node %x: %v", b, err)
		}
	}
	for _, b := range []string{"", "06", "0601000202", "08", "02"} {
		if _, err := DecodeFieldMeta("f", unhex(t, b)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("field meta %s: %v", b, err)
		}
	}
}
