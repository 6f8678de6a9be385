package storage

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/basaltdb/basalt/metadata"
)

// t0 is the "now" of the tests below: 1700000000000, FORMAT.md's time.
const t0 = int64(1700000000000)

// records returns the metadata record of hash key and its field records
// (field: value), as stored, in hex.
func records(t *testing.T, db DB, key string) (meta string, fields map[string]string) {
	t.Helper()
	raw, found, err := db.s.get(CFMetadata, db.nsKey(b(key)), nil)
	if err != nil || !found {
		return "", nil
	}
	m, _, err := metadata.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	fields = map[string]string{}
	c := &collection{db: db, nsKey: db.nsKey(b(key)), key: b(key), meta: m}
	if err := c.each(CFDefault, nil, nil, 0, func(sub, value []byte) bool {
		fields[string(sub)] = hex.EncodeToString(value)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(raw), fields
}

func unspace(s string) string { return strings.ReplaceAll(s, " ", "") }

// TestFieldTTLByteVectors: KVROCKS-TYPES.md §7.6. A hash without field
// TTL keeps the plain 25-byte record and raw values; HPEXPIREAT turns it
// into field-expiration mode, with the extension and expiry prefixes of
// the vector (the version is the hash's own).
func TestFieldTTLByteVectors(t *testing.T) {
	db := newTestDB(t).At(t0)
	if _, err := db.HSet(b("h"), [][]byte{b("f"), b("v")}, false); err != nil {
		t.Fatal(err)
	}
	meta, fields := records(t, db, "h")
	v := meta[18:34]
	if want := unspace("82 0000000000000000" + v + "0000000000000001"); meta != want {
		t.Errorf("after HSET metadata %s, want %s", meta, want)
	}
	if fields["f"] != "76" {
		t.Errorf("after HSET field %s, want 76", fields["f"])
	}
	got, err := db.HExpire(b("h"), [][]byte{b("f")}, 1700000060000, ExpireCond{})
	if err != nil || !slices.Equal(got, []int64{FieldSet}) {
		t.Fatalf("HPEXPIREAT: %v %v", got, err)
	}
	meta, fields = records(t, db, "h")
	if want := unspace("82 0000000000000000" + v + "0000000000000001 01 0000000000000000 0000018bcfe65260 0000018bcfe65260"); meta != want {
		t.Errorf("after HPEXPIREAT metadata\n%s, want\n%s", meta, want)
	}
	if want := "0000018bcfe6526076"; fields["f"] != want {
		t.Errorf("after HPEXPIREAT field %s, want %s", fields["f"], want)
	}
	// HPERSIST: persist 1 again, bounds cleared, the mode stays.
	if got, _ := db.HPersist(b("h"), [][]byte{b("f"), b("x")}); !slices.Equal(got, []int64{FieldSet, FieldMissing}) {
		t.Errorf("HPERSIST = %v", got)
	}
	meta, fields = records(t, db, "h")
	if want := unspace("82 0000000000000000" + v + "0000000000000001 01 0000000000000001 0000000000000000 0000000000000000"); meta != want {
		t.Errorf("after HPERSIST metadata %s, want %s", meta, want)
	}
	if want := "000000000000000076"; fields["f"] != want {
		t.Errorf("after HPERSIST field %s, want %s", fields["f"], want)
	}
}

// TestFieldTTLTransitions: the counts and bounds of §7.3 through the
// commands, and what reads see of expired fields.
func TestFieldTTLTransitions(t *testing.T) {
	base := newTestDB(t)
	db := base.At(t0)
	pairs := [][]byte{b("a"), b("1"), b("b"), b("2"), b("c"), b("3"), b("d"), b("4")}
	if _, err := db.HSet(b("h"), pairs, false); err != nil {
		t.Fatal(err)
	}
	got, err := db.HExpire(b("h"), [][]byte{b("a"), b("b"), b("b"), b("zz")}, t0+1000, ExpireCond{NX: true})
	if err != nil || !slices.Equal(got, []int64{FieldSet, FieldSet, FieldNotMet, FieldMissing}) {
		t.Fatalf("HPEXPIREAT NX = %v %v", got, err)
	}
	got, _ = db.HExpire(b("h"), [][]byte{b("c"), b("a")}, t0+5000, ExpireCond{GT: true})
	if !slices.Equal(got, []int64{FieldNotMet, FieldSet}) {
		t.Fatalf("HPEXPIREAT GT = %v", got)
	}
	got, _ = db.HExpire(b("h"), [][]byte{b("d")}, t0, ExpireCond{})
	if !slices.Equal(got, []int64{FieldDeleted}) {
		t.Fatalf("HPEXPIREAT now = %v", got)
	}
	m := meta(t, db, "h")
	if m.Size != 3 || m.Persist != 1 || m.LowerTTL != t0+1000 || m.UpperTTL != t0+5000 {
		t.Fatalf("metadata %+v", m)
	}
	ttls, _ := db.HFieldExpires(b("h"), [][]byte{b("a"), b("b"), b("c"), b("d")})
	if !slices.Equal(ttls, []int64{t0 + 5000, t0 + 1000, 0, FieldMissing}) {
		t.Fatalf("expiries %v", ttls)
	}

	// Before any expiry, draws read the records, without their prefixes.
	_ = db.RandomElements(b("h"), metadata.TypeHash, 10, true, func(_ int64, chunk []Element) bool {
		for _, e := range chunk {
			if len(e.Value) != 1 {
				t.Errorf("HRANDFIELD WITHVALUES drew %q=%q", e.Sub, e.Value)
			}
		}
		return true
	})

	// Two seconds on, b has expired: invisible to every read.
	later := base.At(t0 + 2000)
	if _, found, _ := later.HGet(b("h"), b("b")); found {
		t.Error("HGET sees an expired field")
	}
	if vs, _ := later.HMGet(b("h"), [][]byte{b("a"), b("b")}); vs[0] == nil || vs[1] != nil {
		t.Errorf("HMGET %q", vs)
	}
	if n, _ := later.Len(b("h"), metadata.TypeHash); n != 2 {
		t.Errorf("HLEN %d, want 2", n)
	}
	var walked []string
	if _, err := later.Walk(b("h"), metadata.TypeHash, func(f, v []byte) { walked = append(walked, string(f)+"="+string(v)) }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(walked, []string{"a=1", "c=3"}) {
		t.Errorf("HGETALL %v", walked)
	}
	elems, _, _ := later.ScanElements(b("h"), metadata.TypeHash, nil, nil, 10)
	if len(elems) != 2 || string(elems[1].Value) != "3" {
		t.Errorf("HSCAN %v", elems)
	}
	for range 20 {
		_ = later.RandomElements(b("h"), metadata.TypeHash, -10, false, func(_ int64, chunk []Element) bool {
			for _, e := range chunk {
				if string(e.Sub) == "b" {
					t.Fatal("HRANDFIELD drew an expired field")
				}
			}
			return true
		})
	}
	// HINCRBY restarts an expired field from 0, without TTL; keeps a's.
	if n, _ := later.HIncrBy(b("h"), b("b"), 5); n != 5 {
		t.Errorf("HINCRBY of an expired field = %d", n)
	}
	if n, _ := later.HIncrBy(b("h"), b("a"), 5); n != 6 {
		t.Errorf("HINCRBY a = %d", n)
	}
	ttls, _ = later.HFieldExpires(b("h"), [][]byte{b("a"), b("b")})
	if !slices.Equal(ttls, []int64{t0 + 5000, 0}) {
		t.Errorf("expiries after HINCRBY %v", ttls)
	}
	if m := meta(t, later, "h"); m.Size != 3 || m.Persist != 2 {
		t.Errorf("metadata after HINCRBY %+v", m)
	}

	// All TTL'd and past: the hash is gone, and the sweep removes it.
	if _, err := later.HExpire(b("h"), [][]byte{b("b"), b("c")}, t0+3000, ExpireCond{}); err != nil {
		t.Fatal(err)
	}
	gone := base.At(t0 + 6000)
	if n, _ := gone.Exists([][]byte{b("h")}); n != 0 {
		t.Error("a hash whose every field expired exists")
	}
	if _, goneNow, err := gone.ReapFields(b("h"), 100); err != nil || !goneNow {
		t.Errorf("reap: gone %v, %v", goneNow, err)
	}
	if raw, found, _ := db.s.get(CFMetadata, db.nsKey(b("h")), nil); found {
		t.Errorf("metadata left: %x", raw)
	}
}

// TestFieldTTLReap: the sweep deletes expired fields, at most limit per
// call, and recounts.
func TestFieldTTLReap(t *testing.T) {
	base := newTestDB(t)
	db := base.At(t0)
	var pairs, fields [][]byte
	for i := range 10 {
		f := b(fmt.Sprintf("f%d", i))
		pairs, fields = append(pairs, f, b("v")), append(fields, f)
	}
	if _, err := db.HSet(b("h"), pairs, false); err != nil {
		t.Fatal(err)
	}
	if _, err := db.HExpire(b("h"), fields[:6], t0+10, ExpireCond{}); err != nil {
		t.Fatal(err)
	}
	later := base.At(t0 + 20)
	n, goneNow, err := later.ReapFields(b("h"), 4)
	if err != nil || n != 4 || goneNow {
		t.Fatalf("reap %d %v %v", n, goneNow, err)
	}
	if m := meta(t, later, "h"); m.Size != 6 || m.Persist != 4 || m.LowerTTL != t0+10 {
		t.Errorf("after a partial reap %+v", m)
	}
	if n, _, _ := later.ReapFields(b("h"), 4); n != 2 {
		t.Errorf("second reap %d", n)
	}
	if m := meta(t, later, "h"); m.Size != 4 || m.Persist != 4 || m.LowerTTL != 0 || m.UpperTTL != 0 {
		t.Errorf("after the reap %+v", m)
	}
}

// TestFieldTTLGetExSetExGetDel: HGETEX, HSETEX and HGETDEL.
func TestFieldTTLGetExSetExGetDel(t *testing.T) {
	db := newTestDB(t).At(t0)
	if _, err := db.HSetEx(b("h"), [][]byte{b("a"), b("1"), b("b"), b("2")}, false, false, FieldExpiry{Set: true, At: t0 + 60000}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.HSetEx(b("h"), [][]byte{b("a"), b("9"), b("c"), b("3")}, true, false, FieldExpiry{}); err != ErrFieldCondition {
		t.Fatalf("FNX: %v", err)
	}
	if _, err := db.HSetEx(b("h"), [][]byte{b("a"), b("10")}, false, true, FieldExpiry{KeepTTL: true}); err != nil {
		t.Fatal(err)
	}
	if ttls, _ := db.HFieldExpires(b("h"), [][]byte{b("a")}); ttls[0] != t0+60000 {
		t.Errorf("KEEPTTL lost the TTL: %v", ttls)
	}
	if _, err := db.HSetEx(b("h"), [][]byte{b("a"), b("11")}, false, false, FieldExpiry{}); err != nil {
		t.Fatal(err)
	}
	if ttls, _ := db.HFieldExpires(b("h"), [][]byte{b("a")}); ttls[0] != 0 {
		t.Errorf("HSETEX without option kept the TTL: %v", ttls)
	}
	vs, _, persisted, _, err := db.HGetEx(b("h"), [][]byte{b("a"), b("b"), b("x")}, FieldExpiry{Persist: true})
	if err != nil || string(vs[0]) != "11" || string(vs[1]) != "2" || vs[2] != nil || !persisted {
		t.Errorf("HGETEX PERSIST %q %v %v", vs, persisted, err)
	}
	vs, _, _, deleted, _ := db.HGetEx(b("h"), [][]byte{b("b")}, FieldExpiry{Set: true, At: 1})
	if string(vs[0]) != "2" || !deleted {
		t.Errorf("HGETEX past %q %v", vs, deleted)
	}
	vs, deleted, _ = db.HGetDel(b("h"), [][]byte{b("a"), b("a"), b("zz")})
	if string(vs[0]) != "11" || vs[1] != nil || vs[2] != nil || !deleted {
		t.Errorf("HGETDEL %q", vs)
	}
	if n, _ := db.Exists([][]byte{b("h")}); n != 0 {
		t.Error("HGETDEL of the last field left the hash")
	}
}

func meta(t *testing.T, db DB, key string) metadata.Metadata {
	t.Helper()
	raw, found, err := db.s.get(CFMetadata, db.nsKey(b(key)), nil)
	if err != nil || !found {
		t.Fatalf("no metadata of %s: %v", key, err)
	}
	m, _, err := metadata.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestFieldTTLOnLegacyHeader: a hash written by Kvrocks <= 2.8 (32-bit
// header) takes the 64-bit header with the extension at its first field
// TTL, and keeps its fields and expiry.
func TestFieldTTLOnLegacyHeader(t *testing.T) {
	db := newTestDB(t).At(t0)
	m := metadata.New(metadata.TypeHash, db.s.versions.Next(time.Now()))
	m.Legacy, m.Size, m.Expire = true, 2, (t0/1000+3600)*1000
	bt := db.s.newBatch(nil)
	bt.put(CFMetadata, db.nsKey(b("h")), m.AppendTo(nil))
	for _, f := range []string{"a", "b"} {
		bt.put(CFDefault, db.s.layout.AppendInternalKey(nil, db.ns, b("h"), m.Version, b(f)), b("v"+f))
	}
	if err := bt.commit(); err != nil {
		t.Fatal(err)
	}
	if got, err := db.HExpire(b("h"), [][]byte{b("a")}, t0+1000, ExpireCond{}); err != nil || got[0] != FieldSet {
		t.Fatalf("HPEXPIREAT: %v %v", got, err)
	}
	got := meta(t, db, "h")
	if got.Legacy || !got.FieldTTL || got.Size != 2 || got.Persist != 1 || got.Expire != m.Expire {
		t.Errorf("metadata %+v", got)
	}
	if v, found, _ := db.HGet(b("h"), b("b")); !found || string(v) != "vb" {
		t.Errorf("HGET b: %q %v", v, found)
	}
}
