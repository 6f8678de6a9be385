package bloom

import (
	"fmt"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
)

// The commands over storage's engine API: each function is one command's
// reads and, for the writes, one batch. A filter is its metadata record
// (Encode) and one subkey per sub-filter in the default column family,
// read through the elements cache one whole value at a time (a default
// filter's is 128 bytes).

// The LogData Kvrocks writes before a filter's records: BF.RESERVE's
// "createBloomChain", every insertion's "insert" (FORMAT.md §8.3).
var (
	logCreate = append(storage.TypeLog(metadata.TypeBloom), " createBloomChain"...)
	logInsert = append(storage.TypeLog(metadata.TypeBloom), " insert"...)
)

// open reads the filter at key: nil when absent, storage.ErrWrongType
// for a key of another type.
func open(db storage.DB, key []byte) (*storage.Object, Chain, error) {
	o, err := db.Lookup(key)
	if err != nil || o == nil {
		return nil, Chain{}, err
	}
	c, err := chainOf(o)
	return o, c, err
}

// chainOf checks that the live key o is a filter and decodes its chain.
func chainOf(o *storage.Object) (Chain, error) {
	if o.Meta().Type != metadata.TypeBloom {
		return Chain{}, storage.ErrWrongType
	}
	c, err := DecodeChain(o.Ext())
	if err != nil {
		return c, fmt.Errorf("%w: Bloom filter %q: %w", storage.ErrCorrupt, o.Key(), err)
	}
	return c, nil
}

// subFilters is the Reader of a stored chain: each sub-filter read once,
// as a view of the store's memory (a pinned value), kept until release
// for the values of an insertion's writes. A chain the command creates
// has one zero sub-filter, which is not read.
type subFilters struct {
	o      *storage.Object
	read   []pinned // by index; grown as read
	unpins []func()
	new    []byte // sub-filter 0 of a chain being created
}

type pinned struct {
	f  []byte
	ok bool
}

func (r *subFilters) Filter(i uint16) ([]byte, error) {
	if r.new != nil && i == 0 {
		return r.new, nil
	}
	if int(i) < len(r.read) && r.read[i].ok {
		return r.read[i].f, nil
	}
	f, unpin, err := r.o.PinElement(r.subkey(i))
	if err != nil {
		return nil, err
	}
	r.unpins = append(r.unpins, unpin)
	if f == nil {
		return nil, fmt.Errorf("%w: Bloom filter %q lacks sub-filter %d", storage.ErrCorrupt, r.o.Key(), i)
	}
	if int(i) >= len(r.read) {
		r.read = append(r.read, make([]pinned, int(i)+1-len(r.read))...)
	}
	r.read[i] = pinned{f, true}
	return f, nil
}

// release lets go of the views Filter handed out.
func (r *subFilters) release() {
	for _, unpin := range r.unpins {
		unpin()
	}
	r.unpins = nil
}

func (r *subFilters) subkey(i uint16) []byte {
	var buf [2]byte
	return r.o.Subkey(AppendSubkey(buf[:0], i))
}

// Reserve creates an empty filter at key (BF.RESERVE); ErrExists when
// the key holds one.
func Reserve(db storage.DB, key []byte, opts Options) error {
	o, err := db.LookupOrNew(key, metadata.TypeBloom)
	if err != nil {
		return err
	}
	if o.Exists() {
		if _, err := chainOf(o); err != nil {
			return err
		}
		return ErrExists
	}
	c := New(opts)
	b := db.NewBatch(logCreate)
	b.Put(storage.CFDefault, (&subFilters{o: o}).subkey(0), make([]byte, c.FilterLen(0)))
	b.Put(storage.CFMetadata, o.NSKey(), Encode(nil, o.Meta(), &c))
	return b.Commit()
}

// Add inserts items into the filter at key, in order (BF.ADD, BF.MADD,
// BF.INSERT), and returns each one's Result. An absent key is created
// with opts, or is ErrNotFound when opts is nil (NOCREATE). Nothing is
// written when nothing was added to an existing filter.
func Add(db storage.DB, key []byte, items [][]byte, opts *Options) ([]Result, error) {
	o, err := db.LookupOrNew(key, metadata.TypeBloom)
	if err != nil {
		return nil, err
	}
	r := &subFilters{o: o}
	defer r.release()
	var c Chain
	switch {
	case o.Exists():
		if c, err = chainOf(o); err != nil {
			return nil, err
		}
	case opts == nil:
		return nil, ErrNotFound
	default:
		c = New(*opts)
		r.new = make([]byte, c.FilterLen(0))
	}
	hashes := make([]uint64, len(items))
	for i, item := range items {
		hashes[i] = Hash(item)
	}
	in, err := Insert(c, o.Meta().Size, hashes, r)
	if err != nil || len(in.Writes) == 0 && o.Exists() {
		return in.Results, err
	}
	b := db.NewBatch(logInsert)
	if !o.Exists() && (len(in.Writes) == 0 || in.Writes[0].Index != 0) {
		b.Put(storage.CFDefault, r.subkey(0), r.new) // created, nothing added to it
	}
	for i := range in.Writes {
		w := &in.Writes[i]
		var old []byte
		if w.Value == nil {
			if old, err = r.Filter(w.Index); err != nil {
				return nil, err
			}
		}
		b.Put(storage.CFDefault, r.subkey(w.Index), w.NewValue(old))
	}
	o.Meta().Size = in.Size
	b.Put(storage.CFMetadata, o.NSKey(), Encode(nil, o.Meta(), &in.Chain))
	return in.Results, b.Commit()
}

// MayContain reports for each item whether the filter at key may hold
// it (BF.EXISTS, BF.MEXISTS); none for an absent key.
func MayContain(db storage.DB, key []byte, items [][]byte) ([]bool, error) {
	o, c, err := open(db, key)
	if err != nil {
		return nil, err
	}
	if o == nil {
		return make([]bool, len(items)), nil
	}
	hashes := make([]uint64, len(items))
	for i, item := range items {
		hashes[i] = Hash(item)
	}
	r := &subFilters{o: o}
	defer r.release()
	return Exists(c, hashes, r)
}

// InfoOf returns BF.INFO's figures of the filter at key; ErrNotFound
// when absent.
func InfoOf(db storage.DB, key []byte) (Info, error) {
	o, c, err := open(db, key)
	if err != nil {
		return Info{}, err
	}
	if o == nil {
		return Info{}, ErrNotFound
	}
	return c.Info(o.Meta().Size), nil
}

// Card returns the number of items added to the filter at key, 0 when
// absent (BF.CARD).
func Card(db storage.DB, key []byte) (uint64, error) {
	o, _, err := open(db, key)
	if err != nil || o == nil {
		return 0, err
	}
	return o.Meta().Size, nil
}
