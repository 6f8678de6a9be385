package bloom

import (
	"syscall"
	"testing"
)

// TestBlockReadsOnly gives Exists and Insert a 128 MiB sub-filter of
// which only the page holding the item's block may be touched: any other
// read faults. So a lookup or an insert in a big filter costs one block,
// whatever the filter's size, given a Reader that hands out a view.
func TestBlockReadsOnly(t *testing.T) {
	view, err := syscall.Mmap(-1, 0, MaxFilterLen, syscall.PROT_NONE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	defer syscall.Munmap(view)
	h := Hash([]byte("item"))
	off := BlockOffset(h, len(view))
	page := off &^ (syscall.Getpagesize() - 1)
	if err := syscall.Mprotect(view[page:page+syscall.Getpagesize()], syscall.PROT_READ); err != nil {
		t.Skip("mprotect:", err)
	}
	c := Chain{Filters: 1, Expansion: 2, BaseCapacity: 100, ErrorRate: 1e-300, Bytes: MaxFilterLen}
	fs := &filters{f: [][]byte{view}}
	found, err := Exists(c, []uint64{h}, fs)
	if err != nil || found[0] {
		t.Fatalf("Exists = %v %v", found, err)
	}
	in, err := Insert(c, 0, []uint64{h, h}, fs)
	if err != nil || in.Results[0] != Added || in.Results[1] != Present {
		t.Fatalf("Insert = %+v %v", in.Results, err)
	}
	if w := in.Writes; len(w) != 1 || len(w[0].Blocks) != 1 || w[0].Blocks[0].Offset != off {
		t.Fatalf("writes %+v", w)
	}
}
