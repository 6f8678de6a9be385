package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestChecksum(t *testing.T) {
	// The test vector of Redis's crc64.c.
	if got := checksum([]byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("crc64(123456789) = %#x, want 0xe9c6d914c4b8d9ca", got)
	}
}

// Payloads redis-server 7.0.15 dumped (rdbcompression no), as redis-cli
// prints them.
var redisDumps = []struct {
	name    string
	v       Value
	payload string
}{
	{"int8 string", Value{Kind: String, Str: []byte("123")}, "\x00\xc0{\n\x00H\xe2S\xe1\x00zg\xb9"},
	{"negative int8", Value{Kind: String, Str: []byte("-5")}, "\x00\xc0\xfb\n\x00I\xc4\xc6\xf4\xd7&?h"},
	{"plain string", Value{Kind: String, Str: []byte("hello")}, "\x00\x05hello\n\x00cr\xdfve4 \n"},
	{"empty string", Value{Kind: String, Str: []byte{}}, "\x00\x00\n\x00]\x9b\\@\x0f\x7f\xa2\xda"},
	{"integer beyond 32 bits", Value{Kind: String, Str: []byte("123456789012")}, "\x00\x0c123456789012\n\x00\x91\x10\x01\xb1\xd1\x16\xe7\xac"},
	{"list", Value{Kind: List, Elems: strs("a", "b", "c", "1", "2", "300", "-5000", "100000")},
		"\x12\x01\x02  \x00\x00\x00\b\x00\x81a\x02\x81b\x02\x81c\x02\x01\x01\x02\x01\xc1,\x02\xf1x\xec\x03\xf2\xa0\x86\x01\x04\xff\n\x00\x8fR\x05[\xd38\xc3\xfb"},
	{"intset", Value{Kind: Set, Elems: strs("3", "1", "2", "-70000")},
		"\x0b\x18\x04\x00\x00\x00\x04\x00\x00\x00\x90\xee\xfe\xff\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00\n\x00\xa8\xb6<b,\xbf,\x9c"},
	{"listpack hash", Value{Kind: Hash, Elems: strs("f", "v", "1", "2")},
		"\x10\x11\x11\x00\x00\x00\x04\x00\x81f\x02\x81v\x02\x01\x01\x02\x01\xff\n\x00\x1aM\xf2\x17^\x0b\xff\x9b"},
	{"listpack zset", Value{Kind: ZSet, Elems: strs("a", "b", "c", "d", "e"), Scores: []float64{1.5, 2, 0.1, -3, math.Inf(1)}},
		"\x11::\x00\x00\x00\n\x00\x81d\x02\xdf\xfd\x02\x81c\x02\x930.10000000000000001\x14\x81a\x02\x831.5\x04\x81b\x02\x02\x01\x81e\x02\x83inf\x04\xff\n\x00\xe0\x82x\xaf\xe0\xa8\xc9\x95"},
	{"stream with a group", Value{Kind: Stream,
		Entries: []StreamEntry{{StreamID{1, 1}, strs("a", "1", "b", "x")}, {StreamID{1, 2}, strs("a", "2", "b", "y")}, {StreamID{3, 0}, strs("c", "z")}},
		Stream: &StreamInfo{Length: 3, LastID: StreamID{3, 0}, FirstID: StreamID{1, 1}, EntriesAdded: 3,
			Groups: []StreamGroup{{Name: []byte("g"), LastID: StreamID{1, 1}, EntriesRead: 1}}}},
		"\x13\x01\x10\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01@@@\x00\x00\x00\x19\x00\x03\x01\x00\x01\x02\x01\x81a\x02\x81b\x02\x00\x01\x02\x01\x00\x01\x00\x01\x01\x01\x81x\x02\x05\x01\x02\x01\x00\x01\x01\x01\x02\x01\x81y\x02\x05\x01\x00\x01\x02\x01\xdf\xff\x02\x01\x01\x81c\x02\x81z\x02\x06\x01\xff\x03\x03\x00\x01\x01\x00\x00\x03\x01\x01g\x01\x01\x01\x00\x00\n\x00-\r\x90\xaf\xc0\x94\x7f\x0e"},
}

func strs(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

func TestEncodeAsRedis(t *testing.T) {
	for _, tc := range redisDumps {
		t.Run(tc.name, func(t *testing.T) {
			if got := Encode(&tc.v, DefaultLimits); string(got) != tc.payload {
				t.Fatalf("Encode = %q\nwant     %q", got, tc.payload)
			}
			v, err := Decode([]byte(tc.payload))
			if err != nil {
				t.Fatal(err)
			}
			if !sameValue(v, &tc.v) {
				t.Fatalf("Decode = %+v, want %+v", v, tc.v)
			}
		})
	}
}

// sameValue compares values as Redis does: a list in order, the others
// as sets of elements (and of pairs).
func sameValue(a, b *Value) bool {
	return a.Kind == b.Kind && string(a.Str) == string(b.Str) && slices.Equal(canonical(a), canonical(b))
}

func canonical(v *Value) []string {
	var out []string
	switch v.Kind {
	case Hash:
		for i := 0; i+1 < len(v.Elems); i += 2 {
			out = append(out, string(v.Elems[i])+"\x00"+string(v.Elems[i+1]))
		}
	case ZSet:
		for i, m := range v.Elems {
			out = append(out, string(m)+"\x00"+strconv.FormatFloat(v.Scores[i], 'g', -1, 64))
		}
	case Stream:
		// In order; the length a payload states is not kept (Encode
		// writes the entries').
		for _, e := range v.Entries {
			out = append(out, fmt.Sprintf("%v %q", e.ID, e.Fields))
		}
		info := *v.Stream
		info.Length = 0
		return append(out, fmt.Sprintf("%+v", info))
	default:
		for _, e := range v.Elems {
			out = append(out, string(e))
		}
	}
	if v.Kind != List {
		slices.Sort(out)
	}
	return out
}

// Payloads other writers produce: redis-server 7.0 with rdbcompression
// yes (LZF), Kvrocks 2.10 (RDB version 6: a quicklist of ziplists, plain
// hashes, sets and sorted sets with binary scores).
func TestDecodeOtherWriters(t *testing.T) {
	for _, tc := range []struct {
		name    string
		payload string
		want    Value
	}{
		{"redis LZF string", "\x00\xc3\x15A,\nabcdefghija\xe0\xff\t\xe1\x0e\r\x01ij\n\x008\xca\x02Z\xda\xf5@\x90",
			Value{Kind: String, Str: []byte(strings.Repeat("abcdefghij", 30))}},
		{"redis LZF listpack", "\x12\x01\x02\xc3<B-\x10-\x02\x00\x002\x00\x89element-1\n\xe0\x00\n\x002\xe0\x01\n\x003\xe0\x01\n\x004\xe0\x01\n\x005\xe0\x01\n\x006\xe0\x01\n\x000\xe0\x01\n\xe0\xffL\xe1\xbe3\x01\n\xff\n\x00F\xd4Y\xdc\x1d\x04\xe3\x95",
			Value{Kind: List, Elems: func() [][]byte {
				var out [][]byte
				for i := 1; i <= 50; i++ {
					out = append(out, []byte(fmt.Sprintf("element-%d", i%7)))
				}
				return out
			}()}},
		{"kvrocks quicklist of ziplists", "\x0e\x03\x0e\x0e\x00\x00\x00\n\x00\x00\x00\x01\x00\x00\x01a\xff\x0e\x0e\x00\x00\x00\n\x00\x00\x00\x01\x00\x00\x01b\xff\x0e\x0e\x00\x00\x00\n\x00\x00\x00\x01\x00\x00\x01c\xff\x06\x00l\x8a\xfa\xc4\x86d\xa7\x9f",
			Value{Kind: List, Elems: strs("a", "b", "c")}},
		{"kvrocks hash", "\x04\x02\x01f\x01v\x01g\xc0\x0c\x06\x009\x81\xd8\x8d\x1d\x1e\xe1\x8e", Value{Kind: Hash, Elems: strs("f", "v", "g", "12")}},
		{"kvrocks set", "\x02\x02\x01x\x01y\x06\x00:\xd7\xe5\xe8\xe4\xd1\x96\xa2", Value{Kind: Set, Elems: strs("x", "y")}},
		{"kvrocks set of integers", "\x02\x03\xc0\x01\xc0\x02\xc0\x03\x06\x00\xbb4\x12S\xe7Q/\xcf", Value{Kind: Set, Elems: strs("1", "2", "3")}},
		{"kvrocks zset", "\x05\x02\x01b\x00\x00\x00\x00\x00\x00\x00@\x01a\x00\x00\x00\x00\x00\x00\xf8?\x06\x00q\x91c\x93j\x1b[\x8d",
			Value{Kind: ZSet, Elems: strs("a", "b"), Scores: []float64{1.5, 2}}},
		{"kvrocks int16 string", "\x00\xc190\x06\x00\x0by\x82\xa7f\xa94*", Value{Kind: String, Str: []byte("12345")}},
		// Built here: the encodings of Redis before 7.0.
		{"ziplist list", payload(10, str(ziplist("a", "12", "-1", "300", "70000", "5000000000", strings.Repeat("x", 70)))),
			Value{Kind: List, Elems: strs("a", "12", "-1", "300", "70000", "5000000000", strings.Repeat("x", 70))}},
		{"ziplist hash", payload(13, str(ziplist("f", "1", "g", "v"))), Value{Kind: Hash, Elems: strs("f", "1", "g", "v")}},
		{"ziplist zset", payload(12, str(ziplist("a", "1", "b", "2.5"))), Value{Kind: ZSet, Elems: strs("a", "b"), Scores: []float64{1, 2.5}}},
		{"old zset", payload(3, "\x02\x01a\x031.5\x01b\xfe"), Value{Kind: ZSet, Elems: strs("a", "b"), Scores: []float64{1.5, math.Inf(1)}}},
		{"linked list", payload(1, "\x02\x01a\xc0\x05"), Value{Kind: List, Elems: strs("a", "5")}},
		{"plain node", payload(18, "\x02\x01\x03big\x02"+str(string(listpackOf("a")))), Value{Kind: List, Elems: strs("big", "a")}},
		{"empty node skipped", payload(18, "\x02\x02"+str(string(listpackOf()))+"\x02"+str(string(listpackOf("a")))), Value{Kind: List, Elems: strs("a")}},
		{"32-bit length", payload(0, "\x80\x00\x00\x00\x02ab"), Value{Kind: String, Str: []byte("ab")}},
		{"64-bit length", payload(0, "\x81\x00\x00\x00\x00\x00\x00\x00\x02ab"), Value{Kind: String, Str: []byte("ab")}},
		{"trailing bytes ignored", payload(0, "\x01ab"), Value{Kind: String, Str: []byte("a")}},
		{"a value cut short reads the footer", payload(0, "\x03a"), Value{Kind: String, Str: []byte("a\n\x00")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Decode([]byte(tc.payload))
			if err != nil {
				t.Fatal(err)
			}
			if !sameValue(v, &tc.want) {
				t.Fatalf("Decode = %q %q %v, want %q %q %v", v.Str, v.Elems, v.Scores, tc.want.Str, tc.want.Elems, tc.want.Scores)
			}
		})
	}
}

// payload wraps an encoded value of RDB type t in a valid footer.
func payload(t byte, body string) string {
	out := append([]byte{t}, body...)
	out = binary.LittleEndian.AppendUint16(out, Version)
	return string(binary.LittleEndian.AppendUint64(out, checksum(out)))
}

func str(s string) string { return string(appendLen(nil, uint64(len(s)))) + s }

func listpackOf(elems ...string) []byte {
	lp := newListpack()
	for _, e := range elems {
		lp.add([]byte(e))
	}
	return lp.finish()
}

// ziplist builds a ziplist as Redis before 7.0 did: integers in the
// smallest encoding, strings with a 6-, 14- or 32-bit length.
func ziplist(elems ...string) string {
	body := []byte{}
	prev, last := 0, 0
	for _, e := range elems {
		last = zlHeaderSize + len(body)
		var entry []byte
		if prev < 254 {
			entry = append(entry, byte(prev))
		} else {
			entry = binary.LittleEndian.AppendUint32(append(entry, 254), uint32(prev))
		}
		v, err := strconv.ParseInt(e, 10, 64)
		switch {
		case err != nil && len(e) < 64:
			entry = append(append(entry, byte(len(e))), e...)
		case err != nil:
			entry = append(append(entry, 0x40|byte(len(e)>>8), byte(len(e))), e...)
		case v >= 0 && v <= 12:
			entry = append(entry, 0xf1+byte(v))
		case v >= math.MinInt8 && v <= math.MaxInt8:
			entry = append(entry, 0xfe, byte(v))
		case v >= math.MinInt16 && v <= math.MaxInt16:
			entry = binary.LittleEndian.AppendUint16(append(entry, 0xc0), uint16(v))
		case v >= -1<<23 && v < 1<<23:
			entry = append(entry, 0xf0, byte(v), byte(v>>8), byte(v>>16))
		case v >= math.MinInt32 && v <= math.MaxInt32:
			entry = binary.LittleEndian.AppendUint32(append(entry, 0xd0), uint32(v))
		default:
			entry = binary.LittleEndian.AppendUint64(append(entry, 0xe0), uint64(v))
		}
		prev = len(entry)
		body = append(body, entry...)
	}
	if len(elems) == 0 {
		last = zlHeaderSize
	}
	out := binary.LittleEndian.AppendUint32(nil, uint32(zlHeaderSize+len(body)+1))
	out = binary.LittleEndian.AppendUint32(out, uint32(last))
	out = binary.LittleEndian.AppendUint16(out, uint16(len(elems)))
	return string(append(append(out, body...), zlEnd))
}

func TestRoundTrip(t *testing.T) {
	seq := func(n int, f func(i int) string) [][]byte {
		out := make([][]byte, n)
		for i := range out {
			out[i] = []byte(f(i))
		}
		return out
	}
	scores := func(n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = float64(i%17) * 0.25
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		v     Value
		rdbTy byte
	}{
		{"long string", Value{Kind: String, Str: bytes.Repeat([]byte("ab"), 40000)}, typeString},
		{"binary string", Value{Kind: String, Str: []byte("\x00\xff\r\n")}, typeString},
		{"int32 string", Value{Kind: String, Str: []byte("-2147483648")}, typeString},
		{"long list", Value{Kind: List, Elems: seq(3000, func(i int) string { return strings.Repeat("x", i%300) })}, typeListQuicklist2},
		{"list of integers", Value{Kind: List, Elems: seq(2000, func(i int) string { return strconv.Itoa(i*i*i - 5000) })}, typeListQuicklist2},
		{"big element", Value{Kind: List, Elems: seq(3, func(i int) string { return strings.Repeat("y", 9000) })}, typeListQuicklist2},
		{"big hash", Value{Kind: Hash, Elems: seq(1200, func(i int) string { return "f" + strconv.Itoa(i) })}, typeHash},
		{"long hash value", Value{Kind: Hash, Elems: strs("f", strings.Repeat("v", 65))}, typeHash},
		{"big zset", Value{Kind: ZSet, Elems: seq(129, func(i int) string { return "m" + strconv.Itoa(i) }), Scores: scores(129)}, typeZSet2},
		{"long zset member", Value{Kind: ZSet, Elems: strs(strings.Repeat("m", 65), "b"), Scores: []float64{math.Inf(-1), 1e300}}, typeZSet2},
		{"zset scores", Value{Kind: ZSet, Elems: strs("a", "b", "c", "d"), Scores: []float64{-0.5, 4503599627370495, 4503599627370496, 1e-300}}, typeZSetListpack},
		{"set of strings", Value{Kind: Set, Elems: strs("a", "1", "")}, typeSet},
		{"big set of integers", Value{Kind: Set, Elems: seq(513, strconv.Itoa)}, typeSet},
		{"intset 16", Value{Kind: Set, Elems: strs("-32768", "32767")}, typeSetIntset},
		{"intset 32", Value{Kind: Set, Elems: strs("-32769", "5")}, typeSetIntset},
		{"intset 64", Value{Kind: Set, Elems: strs("-9223372036854775808", "9223372036854775807")}, typeSetIntset},
		{"empty stream", Value{Kind: Stream, Stream: &StreamInfo{LastID: StreamID{5, 5}, MaxDeletedID: StreamID{5, 5}, EntriesAdded: 9}}, typeStreamListpacks2},
		{"stream of many nodes", testStream(1000, 0), typeStreamListpacks2},
		{"stream with groups", testStream(300, 3), typeStreamListpacks2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Encode(&tc.v, DefaultLimits)
			if p[0] != tc.rdbTy {
				t.Fatalf("type %d, want %d", p[0], tc.rdbTy)
			}
			v, err := Decode(p)
			if err != nil {
				t.Fatal(err)
			}
			if !sameValue(v, &tc.v) {
				t.Fatalf("Decode(Encode(v)) differs")
			}
		})
	}
}

// testStream is a stream of n entries, every fifth with other fields and
// some IDs far apart, and groups groups each with consumers owning
// pending entries (one consumer owns none).
func testStream(n, groups int) Value {
	v := Value{Kind: Stream, Stream: &StreamInfo{EntriesAdded: uint64(n) + 4, MaxDeletedID: StreamID{1, 0}}}
	for i := range n {
		id := StreamID{uint64(100 + i/3), uint64(i % 3)}
		if i%50 == 49 {
			id.Ms += 1 << 40
		}
		if len(v.Entries) > 0 && id.Compare(v.Entries[len(v.Entries)-1].ID) <= 0 {
			id = StreamID{v.Entries[len(v.Entries)-1].ID.Ms, v.Entries[len(v.Entries)-1].ID.Seq + 1}
		}
		fields := strs("a", strconv.Itoa(i), "b", strings.Repeat("v", i%90))
		if i%5 == 0 {
			fields = strs("other", "-"+strconv.Itoa(i*1000))
		}
		v.Entries = append(v.Entries, StreamEntry{ID: id, Fields: fields})
	}
	v.Stream.Length = uint64(n)
	v.Stream.FirstID, v.Stream.LastID = v.Entries[0].ID, v.Entries[n-1].ID
	for g := range groups {
		grp := StreamGroup{Name: []byte("group" + strconv.Itoa(g)), LastID: v.Entries[n/2].ID, EntriesRead: int64(n / 2)}
		if g == 1 {
			grp.EntriesRead = -1
		}
		grp.Consumers = []StreamConsumer{{Name: strs("alice")[0], SeenTime: 1700000000000}, {Name: strs("bob")[0], SeenTime: 1700000000123}, {Name: strs("idle")[0], SeenTime: 5}}
		for i := 0; i < n/2; i += 7 {
			owner := i % 2
			grp.Pending = append(grp.Pending, StreamPending{ID: v.Entries[i].ID, DeliveryTime: 1700000000000 + int64(i), DeliveryCount: uint64(i % 4), Consumer: grp.Consumers[owner].Name})
			grp.Consumers[owner].Pending++
		}
		for i := range grp.Consumers {
			grp.Consumers[i].ActiveTime = grp.Consumers[i].SeenTime
		}
		v.Stream.Groups = append(v.Stream.Groups, grp)
	}
	return v
}

// TestStreamNodes checks where Encode ends a stream's listpack nodes:
// after stream-node-max-entries entries, or before an entry that would
// take the node to stream-node-max-bytes.
func TestStreamNodes(t *testing.T) {
	nodes := func(v Value, lim Limits) uint64 {
		r := &reader{src: &memSource{b: Encode(&v, lim)}}
		if _, err := r.byte(); err != nil {
			t.Fatal(err)
		}
		n, err := r.plainLength()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	many := testStream(1000, 0)
	if got := nodes(many, DefaultLimits); got < 10 || got > 40 {
		t.Fatalf("1000 entries in %d nodes", got)
	}
	lim := DefaultLimits
	lim.StreamNodeMaxBytes, lim.StreamNodeMaxEntries = 0, 7
	if got := nodes(many, lim); got != 143 {
		t.Fatalf("1000 entries of at most 7 a node: %d nodes", got)
	}
	lim.StreamNodeMaxBytes, lim.StreamNodeMaxEntries = 0, 0
	if got := nodes(many, lim); got != 1 {
		t.Fatalf("1000 entries without limits: %d nodes", got)
	}
}

// TestListNodes checks the quicklist's node sizes against what redis-server
// 7.0 made of 700 RPUSHes of a 10-byte element: 681 in the first node.
func TestListNodes(t *testing.T) {
	elems := make([][]byte, 700)
	for i := range elems {
		elems[i] = []byte("aaaaaaaaaa")
	}
	p := Encode(&Value{Kind: List, Elems: elems}, DefaultLimits)
	r := &reader{src: &memSource{b: p[1 : len(p)-footerSize]}}
	if n, _ := r.plainLength(); n != 2 {
		t.Fatalf("%d nodes, want 2", n)
	}
	r.plainLength()
	lp, err := r.string()
	if err != nil {
		t.Fatal(err)
	}
	if n := binary.LittleEndian.Uint16(lp[4:]); n != 681 {
		t.Fatalf("first node of %d elements, want 681", n)
	}
}

func TestDecodeBad(t *testing.T) {
	good := payload(0, "\x01a")
	for _, tc := range []struct {
		name    string
		payload string
		want    error
	}{
		{"empty", "", ErrChecksum},
		{"shorter than the footer", good[:9], ErrChecksum},
		{"bad checksum", good[:len(good)-1] + "x", ErrChecksum},
		{"newer version", func() string {
			b := []byte("\x00\x01a\x0d\x00")
			return string(binary.LittleEndian.AppendUint64(b, checksum(b)))
		}(), ErrChecksum},
		// A CRC64 from 0 ignores leading zero bytes: the footer of the type
		// byte 0 alone is also that of nothing.
		{"no type", payload(0, "")[1:], ErrFormat},
		{"nothing after the type", payload(0, ""), ErrFormat},
		{"truncated string", payload(0, "\x0fabc"), ErrFormat},
		{"huge string", payload(0, "\x81\xff\xff\xff\xff\xff\xff\xff\xffab"), ErrFormat},
		{"unknown length marker", payload(0, "\x82ab"), ErrFormat},
		{"unknown string encoding", payload(0, "\xc4ab"), ErrFormat},
		{"huge count", payload(2, "\x81\x00\x00\x01\x00\x00\x00\x00\x00\x01a"), ErrFormat},
		{"empty set", payload(2, "\x00"), ErrFormat},
		{"empty list", payload(1, "\x00"), ErrFormat},
		{"empty hash", payload(4, "\x00"), ErrFormat},
		{"empty zset", payload(5, "\x00"), ErrFormat},
		{"duplicate member", payload(2, "\x02\x01a\x01a"), ErrFormat},
		{"duplicate field", payload(4, "\x02\x01a\x01x\x01a\x01y"), ErrFormat},
		{"duplicate zset member", payload(5, "\x02\x01a"+strings.Repeat("\x00", 8)+"\x01a"+strings.Repeat("\x00", 8)), ErrFormat},
		{"NaN score", payload(5, "\x01\x01a\x00\x00\x00\x00\x00\x00\xf8\x7f"), ErrFormat},
		{"NaN string score", payload(3, "\x01\x01a\xfd"), ErrFormat},
		{"bad string score", payload(3, "\x01\x01a\x01x"), ErrFormat},
		{"module", payload(7, "\x01a"), ErrFormat},
		{"zipmap", payload(9, "\x01a"), ErrFormat},
		{"unknown type", payload(99, "\x01a"), ErrFormat},
		{"stream", payload(15, "\x01a"), ErrFormat},
		{"stream 2", payload(19, "\x01a"), ErrFormat},
		{"bad LZF", payload(0, "\xc3\x02\x05\x1fa"), ErrFormat},
		{"LZF short of its length", payload(0, "\xc3\x02\x05\x01ab"), ErrFormat},
		{"LZF reference before the start", payload(0, "\xc3\x02\x05\x20\x05"), ErrFormat},
		{"LZF beyond its ratio", payload(0, "\xc3\x02\x81\x00\x00\x00\x01\x00\x00\x00\x00\x00ab"), ErrFormat},
		{"empty listpack", payload(16, str(string(listpackOf()))), ErrFormat},
		{"odd listpack hash", payload(16, str(string(listpackOf("a", "b", "c")))), ErrFormat},
		{"listpack hash duplicate", payload(16, str(string(listpackOf("a", "b", "a", "c")))), ErrFormat},
		{"listpack zset bad score", payload(17, str(string(listpackOf("a", "x")))), ErrFormat},
		{"listpack size", payload(16, str(string(listpackOf("a", "b"))+"\xff")), ErrFormat},
		{"listpack count", payload(16, str(func() string {
			lp := listpackOf("a", "b")
			lp[4] = 3
			return string(lp)
		}())), ErrFormat},
		{"listpack backlen", payload(16, str(func() string {
			lp := listpackOf("a", "b")
			lp[lpHeaderSize+2] = 9
			return string(lp)
		}())), ErrFormat},
		{"listpack entry past its end", payload(16, str(func() string {
			lp := listpackOf("a", "b")
			lp[lpHeaderSize] = 0x80 | 20
			return string(lp)
		}())), ErrFormat},
		{"listpack bad encoding", payload(16, str(func() string {
			lp := listpackOf("a", "b")
			lp[lpHeaderSize] = 0xf6
			return string(lp)
		}())), ErrFormat},
		{"empty quicklist", payload(18, "\x01\x02"+str(string(listpackOf()))), ErrFormat},
		{"unknown container", payload(18, "\x01\x03"+str(string(listpackOf("a")))), ErrFormat},
		{"intset unsorted", payload(11, str("\x02\x00\x00\x00\x02\x00\x00\x00\x02\x00\x01\x00")), ErrFormat},
		{"intset width", payload(11, str("\x03\x00\x00\x00\x01\x00\x00\x00\x02\x00\x01")), ErrFormat},
		{"intset count", payload(11, str("\x02\x00\x00\x00\x03\x00\x00\x00\x01\x00\x02\x00")), ErrFormat},
		{"empty intset", payload(11, str("\x02\x00\x00\x00\x00\x00\x00\x00")), ErrFormat},
		{"ziplist prevlen", payload(10, str(func() string {
			zl := []byte(ziplist("a", "b"))
			zl[zlHeaderSize+3] = 2
			return string(zl)
		}())), ErrFormat},
		{"ziplist tail", payload(10, str(func() string {
			zl := []byte(ziplist("a", "b"))
			zl[4] = 10
			return string(zl)
		}())), ErrFormat},
		{"ziplist count", payload(10, str(func() string {
			zl := []byte(ziplist("a", "b"))
			zl[8] = 1
			return string(zl)
		}())), ErrFormat},
		{"ziplist bad encoding", payload(10, str(func() string {
			zl := []byte(ziplist("a", "b"))
			zl[zlHeaderSize+1] = 0xc5
			return string(zl)
		}())), ErrFormat},
		{"empty ziplist", payload(10, str(ziplist())), ErrFormat},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Decode([]byte(tc.payload)); !errors.Is(err, tc.want) {
				t.Fatalf("Decode(%q) = %v, want %v", tc.payload, err, tc.want)
			}
		})
	}
}

func TestHLL(t *testing.T) {
	// PFADD p a b c on redis-server 7.0: a sparse HyperLogLog.
	sparse := []byte("HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80`\xf3\x80P\xb1\x84K\xfb\x80BZ")
	dense, ok := ParseHLL(sparse)
	if !ok || len(dense) != hllDenseBytes {
		t.Fatalf("ParseHLL(sparse) = %d bytes, %v", len(dense), ok)
	}
	want := map[int]byte{8436: 1, 12711: 2, 15780: 1}
	for i := range hllRegisters {
		bit := i * 6
		w := uint16(dense[bit/8])
		if bit/8+1 < len(dense) {
			w |= uint16(dense[bit/8+1]) << 8
		}
		if got := byte(w>>(bit%8)) & 0x3f; got != want[i] {
			t.Fatalf("register %d = %d, want %d", i, got, want[i])
		}
	}
	s := HLLString(dense)
	if len(s) != hllHeaderSize+hllDenseBytes || string(s[:5]) != "HYLL\x00" || s[15]&0x80 == 0 {
		t.Fatalf("HLLString: %q", s[:hllHeaderSize])
	}
	if back, ok := ParseHLL(s); !ok || !bytes.Equal(back, dense) {
		t.Fatal("ParseHLL(HLLString(r)) != r")
	}
	for _, bad := range []string{"HYLL", "HYLX\x00" + strings.Repeat("\x00", 11+hllDenseBytes), "HYLL\x00" + strings.Repeat("\x00", 10+hllDenseBytes),
		"HYLL\x02" + strings.Repeat("\x00", 11+hllDenseBytes), string(sparse[:len(sparse)-1]), string(sparse) + "\x80"} {
		if _, ok := ParseHLL([]byte(bad)); ok {
			t.Errorf("ParseHLL(%.24q...) ok", bad)
		}
	}
}

// TestDecodeBadStream checks that Decode refuses streams Redis refuses or
// that would break the stream commands: repeated group or consumer names,
// and a last ID below the last entry (XADD would hand it out again).
func TestDecodeBadStream(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(v *Value)
	}{
		{"group repeats", func(v *Value) { v.Stream.Groups = append(v.Stream.Groups, StreamGroup{Name: v.Stream.Groups[0].Name}) }},
		{"consumer repeats", func(v *Value) {
			g := &v.Stream.Groups[0]
			g.Consumers = append(g.Consumers, StreamConsumer{Name: g.Consumers[2].Name})
		}},
		{"last ID below the last entry", func(v *Value) { v.Stream.LastID = StreamID{1, 0} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := testStream(20, 2)
			if _, err := Decode(Encode(&v, DefaultLimits)); err != nil {
				t.Fatalf("unspoilt: %v", err)
			}
			tc.spoil(&v)
			if _, err := Decode(Encode(&v, DefaultLimits)); !errors.Is(err, ErrFormat) {
				t.Fatalf("Decode: %v, want ErrFormat", err)
			}
		})
	}
}
