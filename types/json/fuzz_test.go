package json

import (
	"bytes"
	"testing"
)

// FuzzStored feeds arbitrary stored bytes to Decode and what decodes to
// every read command: a corrupt JSON or CBOR value is an error, never a
// panic, and what decodes encodes back to bytes that decode the same.
func FuzzStored(f *testing.F) {
	for _, c := range storedVectors {
		v, _ := Parse([]byte(c.in), DefaultMaxDepth)
		f.Add(Encode(v, c.format))
	}
	f.Add([]byte{1, 0x9f, 0x01, 0xff})
	f.Add([]byte{1, 0xc2, 0x41, 0x05})
	f.Add([]byte{0, '[', '1', ']'})
	f.Fuzz(func(t *testing.T, stored []byte) {
		doc, format, err := Decode(stored)
		if err != nil {
			return
		}
		for _, f := range []Format{FormatJSON, FormatCBOR} {
			again, _, err := Decode(Encode(doc, f))
			if err != nil {
				t.Fatalf("%x: re-encoded as %s does not decode: %v", stored, f, err)
			}
			if !bytes.Equal(Text(again), Text(doc)) && f == FormatCBOR {
				t.Fatalf("%x: %s round trip changed %s into %s", stored, f, Text(doc), Text(again))
			}
		}
		_, _ = Get(doc, [][]byte{[]byte("$..*")})
		_, _ = Resp(doc, nil)
		_, _ = DebugMemory(doc, format, [][]byte{[]byte("MEMORY"), []byte("$..*")})
	})
}

// FuzzCommand runs the commands with arbitrary arguments on a document:
// every input is answered or refused, none panics.
func FuzzCommand(f *testing.F) {
	f.Add(`{"a":[1,2,{"b":"x"}],"c":1.5}`, "$..a", "1", "2")
	f.Add(`[1,"x",null,true]`, "$[?(@ > 1 || length(@) == 1)]", `"y"`, "-1")
	f.Add(`{"a":{"a":{}}}`, ".a", "[[[1]]]", "0")
	f.Add(`"s"`, "$[::-1]", `{"k":null}`, "99999999999999999999")
	f.Add(`{}`, "$['a',*,0:2:0]", "1e400", "x")
	f.Fuzz(func(t *testing.T, docText, path, value, index string) {
		cfg := Config{MaxDepth: 16}
		p, v, i := []byte(path), []byte(value), []byte(index)
		for _, call := range []func(*Value) (Result, error){
			func(d *Value) (Result, error) { return Set(d, [][]byte{p, v}, cfg) },
			func(d *Value) (Result, error) { return Set(d, [][]byte{p, v, i}, cfg) },
			func(d *Value) (Result, error) { return Del(d, [][]byte{p}, cfg) },
			func(d *Value) (Result, error) { return Merge(d, [][]byte{p, v}, cfg) },
			func(d *Value) (Result, error) { return Clear(d, [][]byte{p}, cfg) },
			func(d *Value) (Result, error) { return Toggle(d, [][]byte{p}, cfg) },
			func(d *Value) (Result, error) { return NumIncrBy(d, [][]byte{p, v}, cfg) },
			func(d *Value) (Result, error) { return NumMultBy(d, [][]byte{p, v}, cfg) },
			func(d *Value) (Result, error) { return StrAppend(d, [][]byte{p, v}, cfg) },
			func(d *Value) (Result, error) { return StrAppend(d, [][]byte{v}, cfg) },
			func(d *Value) (Result, error) { return ArrAppend(d, [][]byte{p, v, v}, cfg) },
			func(d *Value) (Result, error) { return ArrInsert(d, [][]byte{p, i, v}, cfg) },
			func(d *Value) (Result, error) { return ArrPop(d, [][]byte{p, i}, cfg) },
			func(d *Value) (Result, error) { return ArrTrim(d, [][]byte{p, i, i}, cfg) },
			func(d *Value) (Result, error) {
				r, err := Get(d, [][]byte{[]byte("INDENT"), i, p, p})
				return Result{Reply: r}, err
			},
			func(d *Value) (Result, error) { r, err := Type(d, [][]byte{p}); return Result{Reply: r}, err },
			func(d *Value) (Result, error) { r, err := StrLen(d, [][]byte{p}); return Result{Reply: r}, err },
			func(d *Value) (Result, error) { r, err := ArrLen(d, [][]byte{p}); return Result{Reply: r}, err },
			func(d *Value) (Result, error) {
				r, err := ArrIndex(d, [][]byte{p, v, i, i}, cfg)
				return Result{Reply: r}, err
			},
			func(d *Value) (Result, error) { r, err := ObjKeys(d, [][]byte{p}); return Result{Reply: r}, err },
			func(d *Value) (Result, error) { r, err := ObjLen(d, [][]byte{p}); return Result{Reply: r}, err },
			func(d *Value) (Result, error) { r, err := Resp(d, [][]byte{p}); return Result{Reply: r}, err },
			func(d *Value) (Result, error) { r, err := MGetOne(d, p); return Result{Reply: r}, err },
		} {
			doc, err := Parse([]byte(docText), cfg.MaxDepth)
			if err != nil {
				doc = nil
			}
			res, err := call(doc)
			if err == nil && res.Write && res.Root != nil {
				if _, _, err := Decode(Encode(res.Root, FormatCBOR)); err != nil {
					t.Fatalf("a written document does not decode: %v", err)
				}
			}
		}
	})
}
