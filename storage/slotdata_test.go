package storage

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/basaltdb/basalt/metadata"
)

// dumpKey renders a key's type and contents, for comparing two nodes.
func dumpKey(t *testing.T, db DB, key []byte) string {
	t.Helper()
	typ, err := db.Type(key)
	if err != nil {
		t.Fatal(err)
	}
	out := typ.String()
	switch typ {
	case metadata.TypeNone:
	case metadata.TypeString:
		v, _, err := db.Get(key)
		if err != nil {
			t.Fatal(err)
		}
		out += " " + string(v)
	default:
		if _, err := db.Walk(key, typ, func(sub, value []byte) { out += fmt.Sprintf(" %q=%q", sub, value) }); err != nil {
			t.Fatal(err)
		}
	}
	if at, found, err := db.ExpireAt(key); err != nil || (found && at > 0) {
		out += fmt.Sprintf(" ttl@%d %v", at, err)
	}
	return out
}

// keysInSlot returns a name that hashes to slot.
func keyInSlot(slot uint16, prefix string) []byte {
	for i := 0; ; i++ {
		k := []byte(fmt.Sprintf("%s%d", prefix, i))
		if metadata.HashSlot(k) == slot {
			return k
		}
	}
}

// TestSlotCopyBySnapshotAndWAL copies a slot range from one node to another
// the way raw-key-value migration does: a snapshot, then the WAL since.
func TestSlotCopyBySnapshotAndWAL(t *testing.T) {
	src, dst := openTest(t, t.TempDir(), true), openTest(t, t.TempDir(), true)
	defer src.Close()
	defer dst.Close()
	in, out := SlotRange{From: 100, To: 101}, uint16(102)
	db, dstDB := src.DB(metadata.DefaultNamespace), dst.DB(metadata.DefaultNamespace)

	var keys [][]byte
	for _, slot := range []uint16{100, 101, out} {
		for _, typ := range []string{"s", "h", "l", "z", "S", "gone"} {
			keys = append(keys, keyInSlot(slot, typ))
		}
	}
	write := func(round string) {
		for _, k := range keys {
			var err error
			switch k[0] {
			case 's':
				_, err = db.Set(k, []byte("v"+round), SetArgs{})
			case 'h':
				_, err = db.HSet(k, [][]byte{[]byte("f" + round), []byte("x\x00\xff"), []byte("g"), []byte(round)}, false)
			case 'l':
				_, err = db.Push(k, [][]byte{[]byte("a" + round), []byte("b")}, round == "1", false)
			case 'z':
				_, err = db.ZAdd(k, ZAddFlags{}, []float64{1.5, -2}, [][]byte{[]byte("m" + round), []byte("n")})
			case 'S':
				_, err = db.SAdd(k, [][]byte{[]byte("m" + round)})
			case 'g':
				if round == "0" {
					_, err = db.Set(k, []byte("doomed"), SetArgs{})
				} else {
					_, err = db.Del([][]byte{k})
				}
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	write("0")
	if _, err := db.Expire(keys[0], nowMs()+100_000, ExpireCond{}); err != nil {
		t.Fatal(err)
	}
	snap := src.NewSnapshot()
	raw := src.NewRawBatch()
	err := snap.EachKey(in, func(k *SlotKey) error {
		raw.Put(CFMetadata, k.NSKey, k.Raw)
		return k.EachElement(func(cf CF, ikey, _, value []byte) error {
			raw.Put(cf, ikey, value)
			return nil
		})
	})
	snap.Release()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dst.ApplyBatch(raw.Bytes(), nil); err != nil {
		t.Fatal(err)
	}

	write("1")
	if _, err := db.HDel(keyInSlot(100, "h"), [][]byte{[]byte("g")}); err != nil {
		t.Fatal(err)
	}
	raw.Reset()
	last, err := src.ReadWAL(snap.Seq, in, func(cs []Change) error {
		for _, c := range cs {
			raw.AddChange(c)
		}
		return nil
	})
	if err != nil || last != src.LatestSequence() {
		t.Fatalf("ReadWAL: last %d of %d, %v", last, src.LatestSequence(), err)
	}
	if _, err := dst.ApplyBatch(raw.Bytes(), nil); err != nil {
		t.Fatal(err)
	}

	before := map[string]string{}
	for _, k := range keys {
		want, got := dumpKey(t, db, k), dumpKey(t, dstDB, k)
		before[string(k)] = want
		if !in.Contains(metadata.HashSlot(k)) {
			want = "none"
		}
		if want != got {
			t.Errorf("key %q: source %q, copy %q", k, want, got)
		}
	}

	if err := src.DeleteSlots(in); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		want := before[string(k)]
		if in.Contains(metadata.HashSlot(k)) {
			want = "none"
		}
		if got := dumpKey(t, db, k); got != want {
			t.Errorf("after DeleteSlots, key %q is %q, want %q", k, got, want)
		}
	}
	if _, err := src.ReadWAL(last, in, func([]Change) error { return nil }); !errors.Is(err, ErrSlotsFlushed) {
		t.Fatalf("WAL with the slots' deletion: %v, want ErrSlotsFlushed", err)
	}
	if _, err := src.ReadWAL(last, SlotRange{From: 200, To: 300}, func([]Change) error { return nil }); err != nil {
		t.Fatalf("WAL with another range's deletion: %v", err)
	}
}

func TestApplyBatchRefusesMalformedInput(t *testing.T) {
	s := openTest(t, t.TempDir(), true)
	defer s.Close()
	good := s.NewRawBatch()
	good.Put(CFDefault, []byte("k"), []byte("v"))
	valid := slices.Clone(good.Bytes())
	cases := map[string][]byte{
		"short":        valid[:5],
		"wrong count":  append(slices.Clone(valid[:8]), append([]byte{2, 0, 0, 0}, valid[12:]...)...),
		"truncated":    valid[:len(valid)-1],
		"unknown type": append(slices.Clone(valid), 0x42),
		"unknown cf":   append(append(slices.Clone(valid[:12]), recCFPut, 99), valid[14:]...),
		"huge length":  append(slices.Clone(valid[:14]), 0xff, 0xff, 0xff, 0xff, 0x0f),
	}
	for name, data := range cases {
		if _, err := s.ApplyBatch(data, nil); !errors.Is(err, ErrBadBatch) {
			t.Errorf("%s: %v, want ErrBadBatch", name, err)
		}
	}
	if n, err := s.ApplyBatch(valid, nil); err != nil || n != 1 {
		t.Fatalf("valid batch: %d %v", n, err)
	}
	v, found, err := s.get(CFDefault, []byte("k"), nil)
	if err != nil || !found || !bytes.Equal(v, []byte("v")) {
		t.Fatalf("applied record: %q %v %v", v, found, err)
	}
}
