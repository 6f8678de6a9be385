package bloom

import (
	"math"
	"slices"
)

// Reader reads the sub-filters of one chain for Exists and Insert.
type Reader interface {
	// Filter returns the stored value of sub-filter i (i < Chain.Filters);
	// an absent one is an error. The caller reads one block of it per
	// item, never writes to it and keeps it only until Exists returns, or
	// for Insert until the handler has built the values of its Writes:
	// it may be a view of the store's memory valid until then.
	Filter(i uint16) ([]byte, error)
}

// Exists answers BF.EXISTS and BF.MEXISTS: for each hash, whether some
// sub-filter has all its bits. Sub-filters are read from the newest, each
// at most once, and no further once every hash was found.
func Exists(c Chain, hashes []uint64, r Reader) ([]bool, error) {
	found := make([]bool, len(hashes))
	left := len(hashes)
	for i := int(c.Filters) - 1; i >= 0 && left > 0; i-- {
		f, err := readFilter(r, uint16(i))
		if err != nil {
			return nil, err
		}
		for j, h := range hashes {
			if !found[j] && Contains(f, h) {
				found[j] = true
				left--
			}
		}
	}
	return found, nil
}

// Result is what inserting one item did.
type Result uint8

// The results of an insertion; Full and Exhausted are error replies.
const (
	Present   Result = iota // the item may already be there: nothing changed (0)
	Added                   // the item's bits were set (1)
	Full                    // a non-scaling chain at its capacity
	Exhausted               // a scaling chain with the most sub-filters a u16 counts
)

// MaxOpenBytes bounds the bytes of the sub-filters one Insert may open.
// Kvrocks has no bound: an insert of many items into a chain of
// expansion 1 and 128 MiB sub-filters builds a batch of as many of them
// and runs out of memory; Insert refuses with ErrTooLarge instead.
const MaxOpenBytes = 4 * MaxFilterLen

// Insertion is the outcome of Insert: the key's new chain and item count
// and what to write in one batch with the metadata (Encode).
type Insertion struct {
	Chain   Chain
	Size    uint64
	Results []Result
	// Writes are the sub-filters that changed, in index order: the last
	// stored one when an item went into it, then those the call opened.
	// Empty when nothing was added: the key need not be written.
	Writes []Write
}

// Write is one sub-filter value to write.
type Write struct {
	Index uint16
	// Value is the whole value of a sub-filter this call opened; nil for
	// a stored one, whose changes are Blocks.
	Value []byte
	// Blocks are the changed blocks of a stored sub-filter, by offset.
	Blocks []Block
}

// Block is a changed block of a stored sub-filter: its new bytes at a
// byte offset.
type Block struct {
	Offset int
	Bytes  [BlockLen]byte
}

// NewValue returns the sub-filter's value after the write: Value, or a
// copy of old (the stored value the Reader gave) with Blocks in place.
func (w *Write) NewValue(old []byte) []byte {
	if w.Value != nil {
		return w.Value
	}
	v := slices.Clone(old)
	for i := range w.Blocks {
		b := &w.Blocks[i]
		copy(v[b.Offset:], b.Bytes[:])
	}
	return v
}

// Insert runs the insertions of BF.ADD, BF.MADD and BF.INSERT on a chain
// holding size items, in order, as Kvrocks does: an item any sub-filter
// has is Present; otherwise, when the chain is at its capacity, a
// non-scaling one answers Full and a scaling one opens a sub-filter
// sized for base*expansion^n items; then the item's bits are set in the
// last sub-filter. Later items see earlier ones.
func Insert(c Chain, size uint64, hashes []uint64, r Reader) (Insertion, error) {
	if c.Filters == 0 {
		return Insertion{}, ErrCorrupt // nowhere to insert
	}
	in := inserter{chain: c, size: size, r: r, stored: make([][]byte, c.Filters), capacity: c.Capacity()}
	results := make([]Result, len(hashes))
	for i, h := range hashes {
		res, err := in.insert(h)
		if err != nil {
			return Insertion{}, err
		}
		results[i] = res
	}
	return Insertion{Chain: in.chain, Size: in.size, Results: results, Writes: in.writes()}, nil
}

// inserter is the state of one Insert. Stored sub-filters are read once,
// lazily and never written; the changed blocks of the last one are kept
// aside, the sub-filters the call opens are built whole.
type inserter struct {
	chain    Chain
	size     uint64
	capacity uint32
	r        Reader
	stored   [][]byte // views from r, by index; nil until read
	patches  []Block  // changed blocks of the last stored sub-filter
	opened   [][]byte // sub-filters opened by this call, after the stored ones
	openLen  uint64
}

func (in *inserter) insert(h uint64) (Result, error) {
	has, err := in.contains(h)
	if err != nil || has {
		return Present, err
	}
	if in.size >= uint64(in.capacity) {
		switch {
		case !in.chain.Scaling():
			return Full, nil
		case in.chain.Filters == math.MaxUint16:
			return Exhausted, nil
		}
		if err := in.open(); err != nil {
			return Present, err
		}
	}
	if n := len(in.opened); n > 0 {
		Set(in.opened[n-1], h)
	} else {
		last := len(in.stored) - 1
		b, err := in.patch(last, h)
		if err != nil {
			return Present, err
		}
		blockSet(b.Bytes[:], h)
	}
	in.size++
	return Added, nil
}

// contains looks for h from the newest sub-filter to the oldest.
func (in *inserter) contains(h uint64) (bool, error) {
	for k := len(in.opened) - 1; k >= 0; k-- {
		if Contains(in.opened[k], h) {
			return true, nil
		}
	}
	last := len(in.stored) - 1
	for i := last; i >= 0; i-- {
		f, err := in.filter(i)
		if err != nil {
			return false, err
		}
		off := BlockOffset(h, len(f))
		block := f[off : off+BlockLen]
		if i == last {
			if p := in.findPatch(off); p != nil {
				block = p.Bytes[:]
			}
		}
		if blockHas(block, h) {
			return true, nil
		}
	}
	return false, nil
}

// open appends a new, empty sub-filter to the chain.
func (in *inserter) open() error {
	n := in.chain.FilterLen(in.chain.Filters)
	if in.openLen += uint64(n); in.openLen > MaxOpenBytes {
		return ErrTooLarge
	}
	in.opened = append(in.opened, make([]byte, n))
	in.chain.Filters++
	in.chain.Bytes += n
	in.capacity = in.chain.Capacity()
	return nil
}

func (in *inserter) filter(i int) ([]byte, error) {
	if in.stored[i] == nil {
		f, err := readFilter(in.r, uint16(i))
		if err != nil {
			return nil, err
		}
		in.stored[i] = f
	}
	return in.stored[i], nil
}

// patch returns the changed copy of the block of h in stored sub-filter
// i, making it from the stored bytes the first time.
func (in *inserter) patch(i int, h uint64) (*Block, error) {
	f, err := in.filter(i)
	if err != nil {
		return nil, err
	}
	off := BlockOffset(h, len(f))
	if p := in.findPatch(off); p != nil {
		return p, nil
	}
	at, _ := slices.BinarySearchFunc(in.patches, off, func(b Block, off int) int { return b.Offset - off })
	in.patches = slices.Insert(in.patches, at, Block{Offset: off})
	p := &in.patches[at]
	copy(p.Bytes[:], f[off:])
	return p, nil
}

func (in *inserter) findPatch(off int) *Block {
	at, ok := slices.BinarySearchFunc(in.patches, off, func(b Block, off int) int { return b.Offset - off })
	if !ok {
		return nil
	}
	return &in.patches[at]
}

func (in *inserter) writes() []Write {
	var ws []Write
	if len(in.patches) > 0 {
		ws = append(ws, Write{Index: uint16(len(in.stored) - 1), Blocks: in.patches})
	}
	for k, v := range in.opened {
		ws = append(ws, Write{Index: uint16(len(in.stored) + k), Value: v})
	}
	return ws
}

func readFilter(r Reader, i uint16) ([]byte, error) {
	f, err := r.Filter(i)
	if err != nil {
		return nil, err
	}
	if err := CheckFilter(f); err != nil {
		return nil, err
	}
	return f, nil
}
