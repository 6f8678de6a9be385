package search

import (
	"strings"
	"testing"
)

// FuzzQuery runs arbitrary text through both query languages, the checks
// and the planner against the explain indexes: every input is answered
// or refused with an error of the package, none panics.
func FuzzQuery(f *testing.F) {
	f.Add("@t:{a|b} -@n:[(1 +inf] | (@v:[VECTOR_RANGE 1 $b])", "select n from idx where not (n > 1 or t hastag \"x\") order by n desc limit 1, 2")
	f.Add("*=>[KNN $k @v $b]", "select * from idx order by v <-> [1, 2] limit 3")
	f.Add("-*", "select * from idx where not false and n != 1 and n != 2")
	f.Add("@t:{\"\\ud83d\"}", "select * from idx where n < 1e400")
	f.Fuzz(func(t *testing.T, query, sql string) {
		schemas := explainSchemasFuzz(t)
		blob := []byte("0123456789abcdef")
		for _, argv := range [][][]byte{
			{[]byte("FT.EXPLAIN"), []byte("idx"), []byte(query), []byte("PARAMS"), []byte("4"), []byte("b"), blob, []byte("k"), []byte("3")},
			{[]byte("FT.EXPLAIN"), []byte("idx2"), []byte(query), []byte("SORTBY"), []byte("m")},
			{[]byte("FT.EXPLAINSQL"), []byte(sql), []byte("DOT")},
			{[]byte("FT.EXPLAINSQL"), []byte(sql), []byte("PARAMS"), []byte("2"), []byte("p"), []byte("1")},
		} {
			out := explain(argv, schemas)
			if len(out) >= 12 && out[:12] == "not a reply:" {
				t.Fatalf("%q: %s", argv, out)
			}
		}
	})
}

// FuzzCreate parses arbitrary FT.CREATE arguments and, when they are an
// index, encodes and decodes its records.
func FuzzCreate(f *testing.F) {
	f.Add("idx ON JSON PREFIX 2 a b SCHEMA $.a AS a TAG SEPARATOR ; CASESENSITIVE NOINDEX n NUMERIC v VECTOR HNSW 8 TYPE FLOAT32 DIM 4 DISTANCE_METRIC COSINE M 4")
	f.Add("x PREFIX -1 SCHEMA a VECTOR HNSW 7 TYPE FLOAT64")
	f.Fuzz(func(t *testing.T, line string) {
		s, err := ParseCreate(fields(line))
		if err != nil {
			if _, ok := ReplyText(err); !ok {
				t.Fatalf("%q: %v is not a reply", line, err)
			}
			return
		}
		recs := SchemaRecords(defaultNS, s)
		var fields, aliases []Record
		for _, r := range recs[2:] {
			if string(r.Key[:len(FieldMetaPrefix(defaultNS, s.Name))]) == string(FieldMetaPrefix(defaultNS, s.Name)) {
				fields = append(fields, r)
			} else {
				aliases = append(aliases, r)
			}
		}
		back, err := DecodeSchema(defaultNS, s.Name, recs[0].Value, recs[1].Value, fields, aliases)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if len(back.Fields) != len(s.Fields) {
			t.Fatalf("%q: %d fields back of %d", line, len(back.Fields), len(s.Fields))
		}
	})
}

// FuzzStored feeds arbitrary bytes to the decoders of stored values.
func FuzzStored(f *testing.F) {
	f.Add([]byte{6, 1, 0, 2, 2, 0, 7, 0xa1, 0x20, 0, 4, 0, 0, 0, 0x14, 0, 0, 0, 5, 0xbf, 0xe0, 0, 0, 0, 0, 0, 0, 0, 3})
	f.Add([]byte{0, 1, 0, 3, 0xbf, 0xf0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if f, err := DecodeFieldMeta("f", b); err == nil {
			if _, err := DecodeFieldMeta("f", EncodeFieldMeta(&f)); err != nil {
				t.Fatalf("%x re-encoded does not decode: %v", b, err)
			}
		}
		if n, err := DecodeNode(b); err == nil && string(EncodeNode(n)) != string(b) {
			t.Fatalf("%x: node round trip gives %x", b, EncodeNode(n))
		}
		_, _ = DecodePrefixes(b)
		_, _ = DecodeIndexMeta(b)
		_, _, _ = ParseTagEntry(b)
		_, _, _ = ParseNumericEntry(b)
		_, _ = ParseSizedKey(b)
	})
}

func fields(line string) [][]byte {
	var out [][]byte
	for _, w := range strings.Fields(line) {
		out = append(out, []byte(w))
	}
	return out
}
