package storage

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/basaltdb/basalt/metadata"
	"github.com/linxGnu/grocksdb"
)

// Importing whole keys from a file (RDB LOAD), fast: records are encoded
// in Go into RocksDB's batch format and written a megabyte at a time with
// one call, instead of a command's batch per key.
//
// Each key is written as a command writes it: its metadata and elements in
// one batch, under its lock stripe, so that the compaction filters never
// find elements their metadata does not name yet, and no command on the
// key interleaves with it (NX decides under the lock). The Importer takes
// the stripes of the keys of a batch as they come and holds them until
// the batch is written; a stripe it cannot take at once makes it write
// what it has and release everything first, so that it never waits while
// holding a stripe out of the ascending order multi-key commands take
// them in. A collection longer than a batch is written in parts, each
// with a metadata record that counts the elements written so far: it is
// visible, growing, while it loads, and holds its stripe until it ends.

// Bounds of one batch: its bytes, and the lock stripes it holds.
const (
	importBatchBytes   = 1 << 20
	importBatchStripes = 512
)

// Importer writes keys into a namespace. It is used by one goroutine;
// Close writes what is left and must be called.
type Importer struct {
	db   DB
	nx   bool
	b    *RawBatch
	held []uint32
	// holds has a bit per lock stripe in held.
	holds [lockStripes / 64]uint64
	cur   *collection // the collection between Begin and End
	// prefix is cur's subkey prefix, which its element records start with.
	prefix []byte
	// spare is the batch a write in flight does not use; inflight gets
	// that write's outcome (nil: none in flight).
	spare    *RawBatch
	inflight chan error
	// sm is cur's stream extension, when cur is a stream; scratch holds
	// an entry's value.
	sm      metadata.StreamMeta
	scratch []byte
	// metas are the metadata keys the batch writes, which the metadata
	// cache forgets around the write (metacache.go).
	metas [][]byte
	// Loaded counts the keys written; Existing those NX left alone.
	Loaded, Existing int64
}

// NewImporter returns an Importer into db's namespace; with nx, keys that
// exist are left alone.
func (db DB) NewImporter(nx bool) *Importer {
	return &Importer{db: db, nx: nx, b: db.s.NewRawBatch(), spare: db.s.NewRawBatch()}
}

// PutString imports a string; expire is absolute ms, 0 for none. The
// arguments may be modified once it returns.
func (im *Importer) PutString(key, value []byte, expire int64) error {
	nsKey, ok, err := im.claim(key)
	if err != nil || !ok {
		return err
	}
	im.b.logData(TypeLog(metadata.TypeString))
	im.putMeta(nsKey, EncodeString(value, expire))
	im.Loaded++
	return im.writeIfFull()
}

// PutValue imports a whole value of a type whose package writes it
// (TypeHooks.WriteValue: a HyperLogLog from its registers); expire is
// absolute ms, 0 for none. v may be modified once it returns.
func (im *Importer) PutValue(key []byte, v *Value, expire int64) error {
	write, err := typeWriter(v.Type)
	if err != nil {
		return err
	}
	ok, err := im.Begin(key, v.Type, expire)
	if err != nil || !ok {
		return err
	}
	c := im.cur
	ext, err := write(v, &c.meta, func(sub, value []byte) { im.b.Put(CFDefault, c.subkey(sub), value) })
	if err != nil {
		return err
	}
	im.putMeta(c.nsKey, append(c.meta.AppendTo(nil), ext...))
	im.cur = nil
	im.Loaded++
	return im.writeIfFull()
}

// Begin starts a collection of type t: Add the elements of a list, hash,
// set or sorted set, then End it; AddStreamEntry a stream's entries, then
// EndStream it. It returns false when NX leaves the key
// alone: then neither Add nor End may follow.
func (im *Importer) Begin(key []byte, t metadata.Type, expire int64) (bool, error) {
	nsKey, ok, err := im.claim(key)
	if err != nil || !ok {
		return false, err
	}
	c := &collection{db: im.db, nsKey: nsKey, key: append([]byte(nil), key...), writer: true}
	c.meta = metadata.New(t, im.db.s.versions.Next(nowTime()))
	c.meta.Expire = expire
	im.cur = c
	im.prefix = im.db.s.layout.AppendSubkeyPrefix(im.prefix[:0], im.db.ns, key, c.meta.Version)
	im.sm = metadata.StreamMeta{}
	im.b.logData(TypeLog(t))
	return true, nil
}

// Add adds elements to the collection Begin started: a list's in order, a
// set's members, a hash's fields and values alternating, or a sorted
// set's members with their scores. Members must not repeat. The slices
// may be modified once it returns.
//
// The records go in key order: RocksDB's memtable inserts a key next to
// the one inserted before it in a fraction of the time of one anywhere,
// which makes a collection's writes several times cheaper.
func (im *Importer) Add(elems [][]byte, scores []float64) error {
	c, b := im.cur, im.b
	switch c.meta.Type {
	case metadata.TypeList:
		var index [8]byte
		for _, e := range elems {
			binary.BigEndian.PutUint64(index[:], c.meta.Tail)
			b.putPrefixed(CFDefault, im.prefix, index[:], nil, e)
			c.meta.Tail++
		}
		c.meta.Size += uint64(len(elems))
	case metadata.TypeHash:
		n := len(elems) / 2
		for _, i := range sortedBy(n, func(i, j int) int { return bytes.Compare(elems[2*i], elems[2*j]) }) {
			b.putPrefixed(CFDefault, im.prefix, elems[2*i], nil, elems[2*i+1])
		}
		c.meta.Size += uint64(n)
	case metadata.TypeSet:
		for _, i := range sortedBy(len(elems), func(i, j int) int { return bytes.Compare(elems[i], elems[j]) }) {
			b.putPrefixed(CFDefault, im.prefix, elems[i], nil, nil)
		}
		c.meta.Size += uint64(len(elems))
	case metadata.TypeZSet:
		encoded := make([][8]byte, len(elems))
		for i := range elems {
			metadata.AppendScore(encoded[i][:0], plusZero(scores[i]))
		}
		for _, i := range sortedBy(len(elems), func(i, j int) int { return bytes.Compare(elems[i], elems[j]) }) {
			b.putPrefixed(CFDefault, im.prefix, elems[i], nil, encoded[i][:])
		}
		byScore := func(i, j int) int {
			if c := bytes.Compare(encoded[i][:], encoded[j][:]); c != 0 {
				return c
			}
			return bytes.Compare(elems[i], elems[j])
		}
		for _, i := range sortedBy(len(elems), byScore) {
			b.putPrefixed(CFZSetScore, im.prefix, encoded[i][:], elems[i], nil)
		}
		c.meta.Size += uint64(len(elems))
	}
	return im.writePart()
}

// AddFields adds fields of the hash Begin started, with their values
// alternating, and their TTLs (Unix ms, 0: none; nil: no TTL at all). The
// hash takes field-expiration mode when its first part has a TTL; a
// later part's TTLs on a hash that did not are dropped, and counted in
// dropped.
func (im *Importer) AddFields(elems [][]byte, expires []int64) (dropped int, err error) {
	c := im.cur
	if c.meta.Size == 0 && hasFieldTTL(expires) {
		c.meta.FieldTTL = true
		im.db.s.fieldReaps.seen.Store(true)
	}
	if !c.meta.FieldTTL {
		for _, e := range expires {
			if e != 0 {
				dropped++
			}
		}
		return dropped, im.Add(elems, nil)
	}
	w := &fieldWrite{c: c}
	n := len(elems) / 2
	for _, i := range sortedBy(n, func(i, j int) int { return bytes.Compare(elems[2*i], elems[2*j]) }) {
		v := binary.BigEndian.AppendUint64(make([]byte, 0, fieldTTLLen+len(elems[2*i+1])), uint64(expires[i]))
		im.b.putPrefixed(CFDefault, im.prefix, elems[2*i], nil, append(v, elems[2*i+1]...))
		w.count(expires[i])
	}
	return 0, im.writePart()
}

// writePart writes the batch once it is full, with a metadata record of
// the current collection that names the elements written so far.
func (im *Importer) writePart() error {
	if im.b.Size() < importBatchBytes {
		return nil
	}
	c := im.cur
	im.putMeta(c.nsKey, im.metaRecord())
	if err := im.write(); err != nil {
		return err
	}
	im.b.logData(TypeLog(c.meta.Type))
	return nil
}

// metaRecord is the current collection's metadata record; a stream's
// ends with its extension, whose figures a part written before the end
// takes from the entries written so far.
func (im *Importer) metaRecord() []byte {
	v := im.cur.meta.AppendTo(nil)
	if im.cur.meta.Type != metadata.TypeStream {
		return v
	}
	sm := im.sm
	if sm.LastGenerated.Compare(sm.Last) < 0 {
		sm.LastGenerated = sm.Last
	}
	if sm.RecordedFirst.IsZero() {
		sm.RecordedFirst = sm.First
	}
	sm.EntriesAdded = max(sm.EntriesAdded, im.cur.meta.Size)
	return sm.AppendTo(v)
}

// AddStreamEntry adds an entry to the stream Begin started; entries come
// in ID order. The slices may be modified once it returns.
func (im *Importer) AddStreamEntry(id metadata.StreamID, fieldsValues [][]byte) error {
	c := im.cur
	var key [16]byte
	im.scratch = metadata.AppendStreamEntryValue(im.scratch[:0], fieldsValues)
	im.b.putPrefixed(CFStream, im.prefix, metadata.AppendStreamEntryKey(key[:0], id), nil, im.scratch)
	if c.meta.Size == 0 {
		im.sm.First = id
	}
	im.sm.Last = id
	c.meta.Size++
	return im.writePart()
}

// ImportedStream is what a stream holds beyond its entries: its
// extension's figures, and its groups', consumers' and pending entries'
// records (subkey, value).
type ImportedStream struct {
	LastGenerated, RecordedFirst, MaxDeleted metadata.StreamID
	EntriesAdded, Groups                     uint64
	Records                                  [][2][]byte
}

// EndStream finishes the stream Begin started, even without entries (an
// emptied stream stays, as in Redis).
func (im *Importer) EndStream(st ImportedStream) error {
	c := im.cur
	for _, r := range st.Records {
		im.b.putPrefixed(CFStream, im.prefix, r[0], nil, r[1])
	}
	im.sm.LastGenerated, im.sm.RecordedFirst, im.sm.MaxDeleted = st.LastGenerated, st.RecordedFirst, st.MaxDeleted
	im.sm.EntriesAdded, im.sm.Groups = st.EntriesAdded, st.Groups
	im.putMeta(c.nsKey, im.metaRecord())
	im.cur = nil
	im.Loaded++
	return im.writeIfFull()
}

// End finishes the collection Begin started; one without elements is
// not written.
func (im *Importer) End() error {
	c := im.cur
	if c.meta.Size > 0 {
		im.putMeta(c.nsKey, im.metaRecord())
		im.Loaded++
	}
	im.cur = nil
	return im.writeIfFull()
}

// Close writes what is queued and releases every lock stripe. A
// collection that did not End (the file turned out malformed in it) is
// written as far as it came.
func (im *Importer) Close() error {
	if c := im.cur; c != nil && c.meta.Size > 0 {
		im.putMeta(c.nsKey, im.metaRecord())
		im.Loaded++
	}
	im.cur = nil
	err := im.write()
	if werr := im.wait(); err == nil {
		err = werr
	}
	return err
}

// putMeta adds a metadata record to the batch.
func (im *Importer) putMeta(nsKey, record []byte) {
	im.b.Put(CFMetadata, nsKey, record)
	im.metas = append(im.metas, nsKey)
}

// claim takes key's lock stripe and returns its metadata key; ok is
// false when NX leaves the key alone.
func (im *Importer) claim(key []byte) (nsKey []byte, ok bool, err error) {
	s := im.db.s
	id := stripeOf(im.db.ns, key)
	if im.holds[id/64]&(1<<(id%64)) == 0 {
		st := &s.locks.stripes[id]
		if len(im.held) >= importBatchStripes || !st.tryAcquire() {
			if err := im.write(); err != nil {
				return nil, false, err
			}
			st.acquire(nil)
		}
		im.held = append(im.held, id)
		im.holds[id/64] |= 1 << (id % 64)
	}
	nsKey = im.db.nsKey(key)
	if !im.nx {
		return nsKey, true, nil
	}
	raw, found, err := s.get(CFMetadata, nsKey, nil)
	if err != nil {
		return nil, false, err
	}
	if found && alive(raw, nowMs()) {
		im.Existing++
		return nil, false, nil
	}
	return nsKey, true, nil
}

// writeIfFull writes the batch once it is big enough.
func (im *Importer) writeIfFull() error {
	if im.b.Size() < importBatchBytes {
		return nil
	}
	return im.write()
}

// write starts writing the batch, if it has records, once the write
// before it is done, and hands over the lock stripes of the keys in it
// (all but the current collection's) to be released once it is written.
// RocksDB writes one batch while the next is being built. It returns the
// outcome of the write before.
func (im *Importer) write() error {
	err := im.wait()
	b, s := im.b, im.db.s
	keep := uint32(lockStripes)
	if im.cur != nil {
		keep = stripeOf(im.db.ns, im.cur.key)
	}
	release := make([]uint32, 0, len(im.held))
	for _, id := range im.held {
		if id != keep {
			release = append(release, id)
			im.holds[id/64] &^= 1 << (id % 64)
		}
	}
	im.held = im.held[:0]
	if keep != lockStripes {
		im.held = append(im.held, keep)
	}
	metas := im.metas
	im.metas = nil
	if b.Len() == 0 {
		b.Reset()
		s.releaseStripes(release)
		return err
	}
	if marker := s.replMarker.Load(); marker != nil {
		b.logData(*marker)
	}
	im.b, im.spare = im.spare, b
	im.inflight = make(chan error, 1)
	go func(done chan<- error) {
		done <- s.writeImported(b, metas)
		s.releaseStripes(release)
	}(im.inflight)
	return err
}

// wait waits for the write in flight, if any, and returns its outcome.
func (im *Importer) wait() error {
	if im.inflight == nil {
		return nil
	}
	err := <-im.inflight
	im.inflight = nil
	return err
}

// writeImported writes a batch of the importer's and empties it, through
// the same RocksDB write as apply's; the metadata cache forgets the
// metadata records it names.
func (s *Storage) writeImported(b *RawBatch, metas [][]byte) error {
	defer b.Reset()
	wb := grocksdb.WriteBatchFrom(b.Bytes())
	defer wb.Destroy()
	s.writes.Add(1)
	return s.writeRocksDB(wb, "import batch", func(phase writePhase) {
		for _, k := range metas {
			s.meta.invalidate(k, phase == writeBegins)
		}
		// The batch's other records are not named: forget them all.
		s.records.invalidateAll(phase == writeBegins)
		s.elements.invalidateAll(phase == writeBegins)
	})
}

// releaseStripes hands lock stripes over.
func (s *Storage) releaseStripes(ids []uint32) {
	for _, id := range ids {
		s.locks.stripes[id].handOver()
	}
}

// sortedBy returns 0..n-1 ordered by cmp, equal ones in index order.
func sortedBy(n int, cmp func(i, j int) int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, cmp)
	return order
}

// putPrefixed adds a put of the key prefix+a+b, built in place.
func (b *RawBatch) putPrefixed(cf CF, prefix, a, c, value []byte) {
	b.buf = append(b.buf, recCFPut)
	b.buf = binary.AppendUvarint(b.buf, uint64(b.s.cfIDs[cf].Load()))
	b.buf = binary.AppendUvarint(b.buf, uint64(len(prefix)+len(a)+len(c)))
	b.buf = append(append(append(b.buf, prefix...), a...), c...)
	b.buf = binary.AppendUvarint(b.buf, uint64(len(value)))
	b.buf = append(b.buf, value...)
	b.count++
}

// logData adds a LogData record, which RocksDB does not count.
func (b *RawBatch) logData(blob []byte) {
	b.buf = append(b.buf, recLogData)
	b.buf = binary.AppendUvarint(b.buf, uint64(len(blob)))
	b.buf = append(b.buf, blob...)
}
