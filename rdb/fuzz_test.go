package rdb

import (
	"encoding/binary"
	"testing"
)

// FuzzRestorePayload feeds Decode hostile values behind a valid footer
// (the checksum is recomputed, so the fuzzer reaches the decoder) and
// checks that it never panics, that a hash's field TTLs go with its
// fields, and that whatever it accepts encodes and decodes back to the
// same value (without the TTLs, which Encode does not write).
func FuzzRestorePayload(f *testing.F) {
	for _, tc := range redisDumps {
		f.Add([]byte(tc.payload[:len(tc.payload)-footerSize]))
	}
	f.Add([]byte(payload(10, str(ziplist("a", "12", "-1", "300", "70000", "5000000000")))))
	f.Add([]byte(payload(13, str(ziplist("f", "1", "g", "v")))))
	f.Add([]byte(payload(12, str(ziplist("a", "1", "b", "2.5")))))
	f.Add([]byte(payload(14, "\x01"+str(ziplist("a", "b")))))
	f.Add([]byte(payload(18, "\x02\x01\x03big\x02"+str(string(listpackOf("a", "-4000", "70000"))))))
	f.Add([]byte(payload(3, "\x02\x01a\x031.5\x01b\xfe")))
	f.Add([]byte(payload(0, "\xc3\x15A,\nabcdefghija\xe0\xff\t\xe1\x0e\r\x01ij")))
	f.Add([]byte(payload(11, str("\x04\x00\x00\x00\x02\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00"))))
	for _, c := range newerCases() {
		f.Add([]byte(c.body))
	}
	for _, v := range []Value{testStream(30, 2), testStream(120, 0)} {
		p := Encode(&v, DefaultLimits)
		f.Add(p[:len(p)-footerSize])
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p := binary.LittleEndian.AppendUint16(append([]byte(nil), body...), Version)
		p = binary.LittleEndian.AppendUint64(p, checksum(p))
		v, err := Decode(p)
		if err != nil {
			return
		}
		if v.Kind == String {
			ParseHLL(v.Str)
		}
		if n := len(v.FieldExpires); n != 0 && (v.Kind != Hash || n != len(v.Elems)/2) {
			t.Fatalf("Decode(%q): %d field TTLs for %d elements", body, n, len(v.Elems))
		}
		back, err := Decode(Encode(v, DefaultLimits))
		if err != nil {
			t.Fatalf("Decode(Encode(%q)): %v", body, err)
		}
		if !sameValue(back, v) {
			t.Fatalf("Decode(Encode(%q)) differs", body)
		}
	})
}
