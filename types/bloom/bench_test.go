package bloom

import (
	"strconv"
	"testing"
)

// The per-command work of BF.ADD and BF.EXISTS on a default filter, without
// storage: what the package adds to a handler's reads and writes.
func BenchmarkAdd(b *testing.B) {
	c := New(Defaults)
	fs := &filters{f: [][]byte{make([]byte, c.FilterLen(0))}}
	items := make([][]byte, 1024)
	for i := range items {
		items[i] = []byte("item:" + strconv.Itoa(i))
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		fs.reads = fs.reads[:0]
		in, err := Insert(c, 0, []uint64{Hash(items[i%len(items)])}, fs)
		if err != nil {
			b.Fatal(err)
		}
		_ = in.Writes[0].NewValue(fs.f[0])
	}
}

func BenchmarkExists(b *testing.B) {
	c := New(Defaults)
	fs := &filters{f: [][]byte{make([]byte, c.FilterLen(0))}}
	items := make([][]byte, 1024)
	for i := range items {
		items[i] = []byte("item:" + strconv.Itoa(i))
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		fs.reads = fs.reads[:0]
		if _, err := Exists(c, []uint64{Hash(items[i%len(items)])}, fs); err != nil {
			b.Fatal(err)
		}
	}
}
