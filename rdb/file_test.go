package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"testing"
)

// fileKey is a key of a file a test builds.
type fileKey struct {
	db     uint64
	key    string
	expire int64
	v      *Value
}

// rdbFile builds an RDB file of version 10 holding keys (their values as
// Encode writes them), with what Redis writes around them: auxiliary
// fields, database selections, expire times (in ms, and in seconds when
// whole seconds), LFU and LRU hints, a function library and a module's
// auxiliary data.
func rdbFile(keys []fileKey) []byte {
	out := []byte("REDIS0010")
	aux := func(k, v string) { out = append(append(append(out, opAux), str(k)...), str(v)...) }
	aux("redis-ver", "7.0.15")
	aux("redis-bits", "64")
	out = append(append(out, opFunction), str("#!lua name=lib\nredis.register_function('f', function() return 1 end)")...)
	// A module's auxiliary data: id, when_opcode, when, an unsigned
	// integer, a string, a double, the end.
	out = append(out, opModuleAux, 0x81, 0, 0, 0, 0, 0, 0, 0, 1, 2, 2, 2, 7, 5)
	out = append(append(out, str("mod")...), 4, 1, 2, 3, 4, 5, 6, 7, 8, 0)
	db := uint64(1 << 62)
	for _, k := range keys {
		if k.db != db {
			db = k.db
			out = appendLen(append(out, opSelectDB), db)
			out = appendLen(appendLen(append(out, opResizeDB), 10), 1)
		}
		switch {
		case k.expire != 0 && k.expire%1000 == 0:
			out = binary.LittleEndian.AppendUint32(append(out, opExpireTime), uint32(k.expire/1000))
		case k.expire != 0:
			out = binary.LittleEndian.AppendUint64(append(out, opExpireTimeMS), uint64(k.expire))
		}
		out = append(out, opFreq, 3)
		out = appendLen(append(out, opIdle), 12)
		p := Encode(k.v, DefaultLimits)
		out = append(out, p[0])
		out = append(out, str(k.key)...)
		out = append(out, p[1:len(p)-footerSize]...)
	}
	out = append(out, opEOF)
	return binary.LittleEndian.AppendUint64(out, checksum(out))
}

// readAll reads a file and puts the chunks of each key back together.
func readAll(t *testing.T, file []byte) ([]fileKey, *FileInfo, error) {
	t.Helper()
	var out []fileKey
	info, err := ReadFile(bytes.NewReader(file), int64(len(file)), func(e *Entry) error {
		if e.Function != nil {
			if !bytes.HasPrefix(e.Function, []byte("#!lua name=lib")) {
				t.Fatalf("function %q", e.Function)
			}
			return nil
		}
		if e.First {
			out = append(out, fileKey{db: e.DB, key: string(e.Key), expire: e.Expire, v: &Value{Kind: e.Value.Kind}})
		}
		k := out[len(out)-1]
		if k.key != string(e.Key) {
			t.Fatalf("chunk of %q while reading %q", e.Key, k.key)
		}
		k.v.Str = append([]byte(nil), e.Value.Str...)
		for _, el := range e.Value.Elems {
			k.v.Elems = append(k.v.Elems, append([]byte(nil), el...))
		}
		k.v.Scores = append(k.v.Scores, e.Value.Scores...)
		return nil
	})
	return out, info, err
}

// bigValues are collections past chunkBytes: they come in chunks.
func bigValues() []fileKey {
	var list, hash, set, zset Value
	list.Kind, hash.Kind, set.Kind, zset.Kind = List, Hash, Set, ZSet
	for i := 0; i < 60000; i++ {
		e := []byte(fmt.Sprintf("element-%06d-%s", i, bytes.Repeat([]byte{'x'}, i%40)))
		list.Elems = append(list.Elems, e)
		hash.Elems = append(hash.Elems, e, []byte(strconv.Itoa(i)))
		set.Elems = append(set.Elems, e)
		zset.Elems, zset.Scores = append(zset.Elems, e), append(zset.Scores, float64(i%100)/7)
	}
	return []fileKey{{key: "bl", v: &list}, {key: "bh", v: &hash}, {key: "bs", v: &set}, {key: "bz", v: &zset, expire: 1e13 + 1}}
}

func TestReadFile(t *testing.T) {
	keys := []fileKey{
		{key: "s", v: &Value{Kind: String, Str: []byte("hello")}},
		{key: "n", v: &Value{Kind: String, Str: []byte("-12345")}, expire: 2e12},
		{key: "l", v: &Value{Kind: List, Elems: strs("a", "1", "b")}, expire: 1e13 + 7},
		{key: "h", v: &Value{Kind: Hash, Elems: strs("f", "v", "g", "300")}},
		{key: "i", v: &Value{Kind: Set, Elems: strs("3", "1", "2")}},
		{key: "t", v: &Value{Kind: Set, Elems: strs("x", "y")}},
		{db: 3, key: "z", v: &Value{Kind: ZSet, Elems: strs("a", "b"), Scores: []float64{1.5, -2}}},
		{db: 3, key: "", v: &Value{Kind: String, Str: []byte{}}},
	}
	keys = append(keys, bigValues()...)
	got, info, err := readAll(t, rdbFile(keys))
	if err != nil {
		t.Fatal(err)
	}
	if info.Version != 10 || info.Aux["redis-ver"] != "7.0.15" || info.Skipped != 1 {
		t.Fatalf("info %+v", info)
	}
	if len(got) != len(keys) {
		t.Fatalf("%d keys, want %d", len(got), len(keys))
	}
	for i, want := range keys {
		g := got[i]
		if g.db != want.db || g.key != want.key || g.expire != want.expire || !sameValue(g.v, want.v) {
			t.Errorf("key %d: db %d %q expire %d %v, want db %d %q expire %d", i, g.db, g.key, g.expire, g.v.Kind, want.db, want.key, want.expire)
		}
	}
	if err := VerifyChecksum(bytes.NewReader(rdbFile(keys)), int64(len(rdbFile(keys)))); err != nil {
		t.Fatalf("VerifyChecksum: %v", err)
	}
}

// A member that repeats in a later chunk is found, as Redis finds it.
func TestReadFileDuplicateAcrossChunks(t *testing.T) {
	big := bigValues()[2] // the set
	big.v.Elems = append(big.v.Elems, big.v.Elems[0])
	var body []byte
	body = appendLen(append(body, typeSet), uint64(len(big.v.Elems)))
	for _, e := range big.v.Elems {
		body = append(body, str(string(e))...)
	}
	file := append([]byte("REDIS0010"), typeSet)
	file = append(append(file, str("dup")...), body[1:]...)
	file = append(file, opEOF)
	file = binary.LittleEndian.AppendUint64(file, checksum(file))
	if _, _, err := readAll(t, file); !errors.Is(err, ErrFormat) {
		t.Fatalf("a set whose first member repeats at its end: %v", err)
	}
}

func TestReadFileBad(t *testing.T) {
	good := rdbFile([]fileKey{{key: "s", v: &Value{Kind: String, Str: []byte("hello")}}, bigValues()[0]})
	for _, tc := range []struct {
		name string
		file []byte
		want error
	}{
		{"empty", nil, ErrSignature},
		{"not RDB", []byte("root:x:0:0:root:/root:/bin/bash\n"), ErrSignature},
		{"bad version", []byte("REDIS00x0"), ErrSignature},
		{"version 13", append([]byte("REDIS0013"), good[9:]...), ErrVersion},
		{"version 80 (Valkey 9)", append([]byte("REDIS0080"), good[9:]...), ErrVersion},
		{"no EOF", good[:len(good)-9], ErrTruncated},
		{"unknown type", append([]byte("REDIS0010\x63\x01k"), good[9:]...), ErrFormat},
		{"module value", []byte("REDIS0010\x06\x01k\x81\x00\x00\x00\x00\x00\x00\x00\x01"), ErrFormat},
		{"stream cut short", []byte("REDIS0010\x13\x01k\x00\xff"), ErrFormat},
		{"huge string", []byte("REDIS0010\x00\x01k\x81\xff\xff\xff\xff\xff\xff\xff\xffab"), ErrTruncated},
		{"huge count", []byte("REDIS0010\x02\x01k\x81\x00\x00\x01\x00\x00\x00\x00\x00\x01a"), ErrFormat},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := readAll(t, tc.file); !errors.Is(err, tc.want) {
				t.Fatalf("ReadFile = %v, want %v", err, tc.want)
			}
		})
	}
	// Every prefix of a good file is refused, without a panic.
	for n := 0; n < len(good); n += 1 + n/64 {
		if _, _, err := readAll(t, good[:n]); err == nil {
			t.Fatalf("a file cut at %d of %d bytes read", n, len(good))
		}
	}
	bad := append([]byte(nil), good...)
	bad[len(bad)/2] ^= 1
	if err := VerifyChecksum(bytes.NewReader(bad), int64(len(bad))); !errors.Is(err, ErrFileChecksum) {
		t.Fatalf("VerifyChecksum of a changed file: %v", err)
	}
	// Checksum 0: written with rdbchecksum no, not checked.
	clear(bad[len(bad)-8:])
	if err := VerifyChecksum(bytes.NewReader(bad), int64(len(bad))); err != nil {
		t.Fatalf("VerifyChecksum of a file without checksum: %v", err)
	}
	if err := VerifyChecksum(bytes.NewReader(good[:12]), 12); !errors.Is(err, ErrTruncated) {
		t.Fatalf("VerifyChecksum of a cut file: %v", err)
	}
}

// FuzzReadFile feeds ReadFile hostile files: it must never panic, and
// must refuse what it cannot read.
func FuzzReadFile(f *testing.F) {
	f.Add(rdbFile([]fileKey{
		{key: "s", v: &Value{Kind: String, Str: []byte("hello")}, expire: 1e13},
		{key: "l", v: &Value{Kind: List, Elems: strs("a", "1", "b")}},
		{key: "h", v: &Value{Kind: Hash, Elems: strs("f", "v")}},
		{db: 2, key: "i", v: &Value{Kind: Set, Elems: strs("3", "1")}},
		{key: "z", v: &Value{Kind: ZSet, Elems: strs("a"), Scores: []float64{1.5}}},
	}))
	f.Add(streamFile(typeStreamListpacks2))
	f.Add(streamFile(typeStreamListpacks3))
	var keys []rawKey
	for _, c := range newerCases() {
		keys = append(keys, rawKey{name: c.name, body: c.body})
	}
	f.Add(redis74File(keys))
	f.Add([]byte("REDIS0009\xfe\x00\xfc\x00\x00\x00\x00\x00\x00\x00\x01\x0e\x01k\x01" + ziplist("a", "b") + "\xff"))
	f.Fuzz(func(t *testing.T, file []byte) {
		keys := 0
		ReadFile(bytes.NewReader(file), int64(len(file)), func(e *Entry) error {
			if e.Function != nil {
				return nil
			}
			if e.Value == nil || (e.Value.Kind == ZSet && len(e.Value.Scores) != len(e.Value.Elems)) {
				t.Fatalf("bad entry %+v", e)
			}
			keys++
			return nil
		})
		VerifyChecksum(bytes.NewReader(file), int64(len(file)))
	})
}

// Files of Redis 5 and 6 (RDB 9: ziplists, a quicklist of ziplists) and of
// Redis 7.2 (RDB 11: a set in a listpack) read as Redis reads them.
func TestReadFileVersions(t *testing.T) {
	for _, tc := range []struct {
		version string
		t       byte
		body    string
		want    *Value
	}{
		{"0009", typeHashZiplist, str(ziplist("f", "1", "g", "v")), &Value{Kind: Hash, Elems: strs("f", "1", "g", "v")}},
		{"0009", typeZSetZiplist, str(ziplist("a", "1.5", "b", "-3")), &Value{Kind: ZSet, Elems: strs("a", "b"), Scores: []float64{1.5, -3}}},
		{"0009", typeListQuicklist, "\x02" + str(ziplist("a", "300")) + str(ziplist("70000")), &Value{Kind: List, Elems: strs("a", "300", "70000")}},
		{"0009", typeListZiplist, str(ziplist("x", "-1")), &Value{Kind: List, Elems: strs("x", "-1")}},
		{"0011", typeSetListpack, str(string(listpackOf("m", "12", "n"))), &Value{Kind: Set, Elems: strs("m", "12", "n")}},
		{"0006", typeSetIntset, str("\x02\x00\x00\x00\x02\x00\x00\x00\x01\x00\x02\x00"), &Value{Kind: Set, Elems: strs("1", "2")}},
	} {
		file := append([]byte("REDIS"+tc.version), tc.t)
		file = append(append(file, str("k")...), tc.body...)
		file = append(file, opEOF)
		file = binary.LittleEndian.AppendUint64(file, checksum(file))
		got, info, err := readAll(t, file)
		if err != nil || len(got) != 1 || !sameValue(got[0].v, tc.want) {
			t.Errorf("version %s type %d: %v %+v", tc.version, tc.t, err, got)
			continue
		}
		if v, _ := strconv.Atoi(tc.version); info.Version != v {
			t.Errorf("version %d, want %s", info.Version, tc.version)
		}
		if err := VerifyChecksum(bytes.NewReader(file), int64(len(file))); err != nil {
			t.Errorf("version %s: %v", tc.version, err)
		}
	}
}

// streamFile builds a file of one stream of RDB type t: a node of three
// entries (one with the master fields, one with others, one deleted), and
// a group with two pending entries, one consumer owning both.
func streamFile(t byte) []byte {
	id := func(ms, seq uint64) string {
		return string(binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, ms), seq))
	}
	lp := listpackOf(
		"2", "1", "1", "f", "0", // master: 2 live, 1 deleted, field f
		"2", "0", "0", "v1", "5", // 5-1: same fields
		"0", "0", "1", "2", "a", "x", "b", "y", "7", // 5-2: a x b y
		"3", "1", "0", "gone", "5", // 6-1 deleted, same fields
	)
	body := "\x01" + str(id(5, 1)) + str(string(lp))
	body += "\x02" + "\x06\x01" // length 2, last ID 6-1
	if t != typeStreamListpacks {
		body += "\x05\x01" + "\x06\x01" + "\x03" // first 5-1, max deleted 6-1, 3 added
	}
	body += "\x01" + str("g") + "\x05\x02" // group g, last delivered 5-2
	if t != typeStreamListpacks {
		body += "\x02" // entries read
	}
	body += "\x02" // two pending
	for _, e := range []string{id(5, 1), id(5, 2)} {
		body += e + string(binary.LittleEndian.AppendUint64(nil, 1700000000000)) + "\x01"
	}
	body += "\x01" + str("alice") + string(binary.LittleEndian.AppendUint64(nil, 1700000000001))
	if t == typeStreamListpacks3 {
		body += string(binary.LittleEndian.AppendUint64(nil, 1700000000002))
	}
	body += "\x02" + id(5, 1) + id(5, 2)
	file := append([]byte("REDIS0011"), t)
	file = append(append(file, str("s")...), body...)
	file = append(file, opEOF)
	return binary.LittleEndian.AppendUint64(file, checksum(file))
}

func TestReadFileStream(t *testing.T) {
	for _, typ := range []byte{typeStreamListpacks, typeStreamListpacks2, typeStreamListpacks3} {
		var entries []StreamEntry
		var info *StreamInfo
		_, err := ReadFile(bytes.NewReader(streamFile(typ)), int64(len(streamFile(typ))), func(e *Entry) error {
			if e.Function != nil {
				return nil
			}
			for _, en := range e.Value.Entries {
				f := make([][]byte, len(en.Fields))
				for i, x := range en.Fields {
					f[i] = append([]byte(nil), x...)
				}
				entries = append(entries, StreamEntry{ID: en.ID, Fields: f})
			}
			if e.Last {
				info = e.Value.Stream
			}
			return nil
		})
		if err != nil {
			t.Fatalf("type %d: %v", typ, err)
		}
		if len(entries) != 2 || entries[0].ID != (StreamID{5, 1}) || fmt.Sprintf("%s", entries[0].Fields) != "[f v1]" ||
			entries[1].ID != (StreamID{5, 2}) || fmt.Sprintf("%s", entries[1].Fields) != "[a x b y]" {
			t.Fatalf("type %d: entries %+v", typ, entries)
		}
		g := info.Groups[0]
		if info.Length != 2 || info.LastID != (StreamID{6, 1}) || info.FirstID != (StreamID{5, 1}) || string(g.Name) != "g" ||
			len(g.Pending) != 2 || string(g.Pending[1].Consumer) != "alice" || g.Consumers[0].Pending != 2 {
			t.Fatalf("type %d: info %+v group %+v", typ, info, g)
		}
		// Redis 5's files: entries added is the length, entries read
		// estimated (5-2 is the stream's last live entry, not its last ID).
		if typ == typeStreamListpacks && (info.EntriesAdded != 2 || g.EntriesRead != -1) {
			t.Fatalf("RDB 9 stream: added %d, read %d", info.EntriesAdded, g.EntriesRead)
		}
		if typ != typeStreamListpacks && (info.EntriesAdded != 3 || info.MaxDeletedID != (StreamID{6, 1}) || g.EntriesRead != 2) {
			t.Fatalf("type %d: added %d, max deleted %v, read %d", typ, info.EntriesAdded, info.MaxDeletedID, g.EntriesRead)
		}
		wantActive := int64(1700000000001)
		if typ == typeStreamListpacks3 {
			wantActive = 1700000000002
		}
		if c := g.Consumers[0]; c.SeenTime != 1700000000001 || c.ActiveTime != wantActive {
			t.Fatalf("type %d: consumer %+v", typ, c)
		}
	}
}
