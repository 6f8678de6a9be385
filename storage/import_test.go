package storage

import (
	"strconv"
	"sync"
	"testing"

	"github.com/basaltdb/basalt/metadata"
)

// The Importer writes every type, NX leaves existing keys alone, a
// collection longer than a batch is whole once it ends, and commands on
// the same keys run meanwhile without deadlock or lost writes.
func TestImporter(t *testing.T) {
	s := openTest(t, t.TempDir(), false)
	defer s.Close()
	db := s.DB(metadata.DefaultNamespace)
	if _, err := db.Set(b("taken"), b("mine"), SetArgs{}); err != nil {
		t.Fatal(err)
	}
	// A writer busy on other keys of the same stripes meanwhile.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			k := b("other:" + strconv.Itoa(i%500))
			err := s.Update(&Write{NS: metadata.DefaultNamespace, Keys: [][]byte{k, b("s:" + strconv.Itoa(i%3000))}}, func(in DB) {
				in.MSet([][]byte{k, b("x")}, false)
			})
			if err != nil {
				t.Error(err)
				return
			}
		}
	}()
	im := db.NewImporter(true)
	for i := 0; i < 3000; i++ {
		if err := im.PutString(b("s:"+strconv.Itoa(i)), b("v"+strconv.Itoa(i)), 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := im.PutString(b("taken"), b("theirs"), 0); err != nil {
		t.Fatal(err)
	}
	if ok, err := im.Begin(b("big"), metadata.TypeHash, 0); !ok || err != nil {
		t.Fatal(ok, err)
	}
	for chunk := 0; chunk < 40; chunk++ {
		var elems [][]byte
		for i := 0; i < 1000; i++ {
			elems = append(elems, b("f"+strconv.Itoa(chunk*1000+i)), b("value-"+strconv.Itoa(i)+"-0123456789"))
		}
		if err := im.Add(elems, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := im.End(); err != nil {
		t.Fatal(err)
	}
	if ok, err := im.Begin(b("z"), metadata.TypeZSet, 0); !ok || err != nil {
		t.Fatal(ok, err)
	}
	im.Add([][]byte{b("a"), b("b")}, []float64{2, 1})
	im.End()
	if ok, err := im.Begin(b("l"), metadata.TypeList, 0); !ok || err != nil {
		t.Fatal(ok, err)
	}
	im.Add([][]byte{b("x"), b("y")}, nil)
	im.Add([][]byte{b("z")}, nil)
	im.End()
	if ok, _ := im.Begin(b("taken"), metadata.TypeSet, 0); ok {
		t.Fatal("NX began an existing key")
	}
	if err := im.Close(); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	if im.Loaded != 3003 || im.Existing != 2 {
		t.Fatalf("loaded %d, existing %d", im.Loaded, im.Existing)
	}
	if v, _, _ := db.Get(b("taken")); string(v) != "mine" {
		t.Fatalf("NX replaced taken: %q", v)
	}
	if n, err := db.Len(b("big"), metadata.TypeHash); n != 40000 || err != nil {
		t.Fatalf("HLEN big = %d %v", n, err)
	}
	fields := 0
	db.Walk(b("big"), metadata.TypeHash, func(sub, value []byte) { fields++ })
	if fields != 40000 {
		t.Fatalf("big has %d fields", fields)
	}
	var got []string
	db.LRange(b("l"), 0, -1, func(_ int64, e []byte) bool { got = append(got, string(e)); return true })
	if len(got) != 3 || got[0] != "x" || got[2] != "z" {
		t.Fatalf("LRANGE l = %q", got)
	}
	var members []string
	db.ZRangeWalk(b("z"), ZRange{Start: 0, Stop: -1}, func(_ int64, m []byte, _ float64) bool { members = append(members, string(m)); return true })
	if len(members) != 2 || members[0] != "b" {
		t.Fatalf("ZRANGE z = %q", members)
	}
	for i := 0; i < 3000; i += 499 {
		// s:i was imported, then possibly overwritten by the writer: it
		// holds one of the two values, whole.
		v, found, _ := db.Get(b("s:" + strconv.Itoa(i)))
		if !found || (string(v) != "v"+strconv.Itoa(i) && string(v) != "x") {
			t.Fatalf("s:%d = %q %v", i, v, found)
		}
	}
}
