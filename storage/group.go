package storage

import (
	"bytes"
	"sync"
	"unsafe"

	"github.com/linxGnu/grocksdb"
)

// A group collects the writes of the critical sections that one holder of
// a lock stripe runs back to back (see keyLocks), and applies them with one
// RocksDB write before any of their clients is answered. On a hot key this
// turns the metadata reads and writes of N commands into one each, and N
// RocksDB writes into one: a later write of the same record replaces the
// earlier one in the group instead of adding a memtable entry.
//
// Reads through a DB bound to the group (DB.In) see its pending writes:
// point reads look them up first; iterators and snapshots, which cannot
// merge them, have them written out first. Reads from outside the group
// never see them, so no client can observe a write before it is applied.
//
// A Group is used by one goroutine at a time: the stripe's holder.
type group struct {
	s   *Storage
	ops []op
	// index maps a key to the position in ops of its last op; it covers
	// ops[:indexed] and is built only once a second batch or a read needs
	// it, so a group of one command pays nothing for it.
	index   [numCF]map[string]int
	indexed int
	// metaSeen keeps the metadata records members read from RocksDB, so
	// that the next command on the same key does not read it again. The
	// stripe is held while the group runs, so a record can only change
	// through the group: a write to it is found in ops first, and a flush
	// forgets them all.
	metaSeen map[string]seenRecord
	arena    arena
	// member counts the critical sections run so far; pendingFrom is the
	// first of them with an op in ops.
	member      int
	pendingFrom int
	// failedFrom is the first member whose writes were lost with err; the
	// members from it on are answered with err. -1: none failed.
	failedFrom int
	err        error
	// joint is the Joint the group belongs to, nil for a stripe holder's
	// group. A joint's group outlives any one write's stripes, so it does
	// not keep metadata records (metaSeen) of keys it does not lock.
	joint *Joint
}

var groups = sync.Pool{New: func() any { return &group{failedFrom: -1} }}

func newGroup(s *Storage) *group {
	g := groups.Get().(*group)
	g.s = s
	return g
}

type seenRecord struct {
	value []byte // in the arena
	found bool
}

// seen returns a metadata record read earlier in the group.
func (g *group) seen(key []byte) (seenRecord, bool) {
	r, ok := g.metaSeen[string(key)]
	return r, ok
}

func (g *group) remember(key, value []byte, found bool) {
	if g.metaSeen == nil {
		g.metaSeen = make(map[string]seenRecord)
	}
	g.metaSeen[arenaString(g.arena.copy(key))] = seenRecord{g.arena.copy(value), found}
}

// free returns a flushed group to the pool.
func (g *group) free() {
	clear(g.metaSeen)
	g.arena.reset()
	g.s, g.member, g.failedFrom, g.err = nil, 0, -1, nil
	groups.Put(g)
}

// run runs fn as the group's next member.
func (g *group) run(fn func(*group)) {
	fn(g)
	g.member++
}

// result is the outcome of member m once the group is flushed.
func (g *group) result(m int) error {
	if g.failedFrom >= 0 && m >= g.failedFrom {
		return g.err
	}
	return nil
}

// add takes over the ops of one committed batch, copying their bytes,
// since a caller may reuse its slices once commit returns.
func (g *group) add(ops []op) error {
	if g.err != nil {
		return g.err
	}
	if len(g.ops) == 0 {
		g.pendingFrom = g.member
		for _, o := range ops {
			g.ops = append(g.ops, g.own(o))
		}
	} else {
		g.indexAll()
		for _, o := range ops {
			g.replaceOrAppend(g.own(o))
		}
	}
	if hasDeleteRange(ops) {
		// Point lookups cannot tell what a pending range deletion hides.
		g.flush()
	}
	return g.err
}

func hasDeleteRange(ops []op) bool {
	for _, o := range ops {
		if o.kind == opDeleteRange {
			return true
		}
	}
	return false
}

func (g *group) own(o op) op {
	o.key, o.value = g.arena.copy(o.key), g.arena.copy(o.value)
	return o
}

// replaceOrAppend adds an indexed op; a point op on a key the group
// already writes replaces the earlier op, which the batch would overwrite
// anyway.
func (g *group) replaceOrAppend(o op) {
	if keyed(o) {
		if i, ok := g.cfIndex(o.cf)[arenaString(o.key)]; ok {
			g.ops[i] = o
			return
		}
	}
	g.ops = append(g.ops, o)
	g.indexAll()
}

// indexAll indexes the ops not indexed yet.
func (g *group) indexAll() {
	for ; g.indexed < len(g.ops); g.indexed++ {
		o := g.ops[g.indexed]
		if keyed(o) {
			g.cfIndex(o.cf)[arenaString(o.key)] = g.indexed
		}
	}
}

// keyed reports whether an op writes one key, which a later op on the
// same key replaces.
func keyed(o op) bool { return o.kind == opPut || o.kind == opDelete }

func (g *group) cfIndex(cf CF) map[string]int {
	if g.index[cf] == nil {
		g.index[cf] = make(map[string]int)
	}
	return g.index[cf]
}

// pending tells what the group's pending writes say about key: put with
// its value (owned by the group: copy it), deleted, or nothing.
type pending uint8

const (
	notPending pending = iota
	pendingPut
	pendingDelete
)

func (g *group) lookup(cf CF, key []byte) ([]byte, pending) {
	if len(g.ops) == 0 {
		return nil, notPending
	}
	g.indexAll()
	i, ok := g.index[cf][string(key)]
	if !ok {
		return nil, notPending
	}
	if g.ops[i].kind == opDelete {
		return nil, pendingDelete
	}
	return g.ops[i].value, pendingPut
}

// flush applies the pending writes with one RocksDB write. A failure is
// kept: it fails every member from the first one whose write was lost,
// and the group takes no more writes.
func (g *group) flush() {
	if len(g.ops) == 0 {
		return
	}
	if err := g.s.write(g.ops); err != nil {
		g.err, g.failedFrom = err, g.pendingFrom
	}
	clear(g.ops)
	g.ops, g.indexed = g.ops[:0], 0
	for _, m := range g.index {
		clear(m)
	}
	clear(g.metaSeen)
	g.arena.reset()
}

// arena holds the bytes of a group's ops. Slices it hands out stay valid
// until reset: a full chunk is left to the slices pointing into it and a
// new one started.
type arena []byte

const arenaChunk = 64 << 10

func (a *arena) copy(b []byte) []byte {
	if b == nil {
		return nil
	}
	if cap(*a)-len(*a) < len(b) {
		*a = make([]byte, 0, max(arenaChunk, len(b)))
	}
	n := len(*a)
	*a = append(*a, b...)
	return (*a)[n:len(*a):len(*a)]
}

func (a *arena) reset() {
	if cap(*a) > arenaChunk {
		*a = nil
		return
	}
	*a = (*a)[:0]
}

// arenaString views bytes of the arena as a string without copying them;
// they are never modified until the index entry is cleared.
func arenaString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// The reads and writes of a DB go through its group when it has one.

// in returns the view bound to group g (nil: none): its writes join g and
// its reads see g's pending writes. The key locks hand out groups.
func (db DB) in(g *group) DB {
	db.g = g
	return db
}

func (db DB) newBatch(log LogData) *batch {
	b := db.s.newBatch(log)
	b.g = db.g
	return b
}

// get appends the value of key in cf to dst; found is false when absent.
func (db DB) get(cf CF, key, dst []byte) (value []byte, found bool, err error) {
	if db.g == nil {
		return db.s.get(cf, key, dst)
	}
	switch v, p := db.g.lookup(cf, key); p {
	case pendingPut:
		return append(dst, v...), true, nil
	case pendingDelete:
		return dst, false, nil
	}
	if cf != CFMetadata {
		return db.s.get(cf, key, dst)
	}
	if db.g.joint != nil {
		return db.s.get(cf, key, dst)
	}
	if r, ok := db.g.seen(key); ok {
		return append(dst, r.value...), r.found, nil
	}
	value, found, err = db.s.get(cf, key, dst)
	if err == nil {
		db.g.remember(key, value[len(dst):], found)
	}
	return value, found, err
}

// getRecord is get of a stream group or consumer record, through the
// records cache (metacache.go).
func (db DB) getRecord(key, dst []byte) (value []byte, found bool, err error) {
	return db.getThrough(db.s.records, key, dst)
}

// getElement reads a hash field, a set or zset member, a bitmap or
// HyperLogLog segment through the elements cache. These are what
// commands read by name (HGET, ZSCORE, SISMEMBER, SETBIT, and the writes
// that read what they replace), where the search of a memtable's
// skiplist is most of their CPU. A list's elements are read around it, so
// that trimming a list need not make it forget everything
// (batch.delUncachedRange).
func (db DB) getElement(key []byte) (value []byte, found bool, err error) {
	return db.getThrough(db.s.elements, key, nil)
}

// getElements is getElement of many; absent ones are nil.
func (db DB) getElements(keys [][]byte) ([][]byte, error) {
	return db.readMany(CFDefault, keys, db.s.elements)
}

// getThrough is get of a record of c's column family through c, over the
// group's writes.
func (db DB) getThrough(c *metaCache, key, dst []byte) (value []byte, found bool, err error) {
	if db.g != nil {
		switch v, p := db.g.lookup(c.cf, key); p {
		case pendingPut:
			return append(dst, v...), true, nil
		case pendingDelete:
			return dst, false, nil
		}
	}
	return db.s.getCached(c, key, dst)
}

// multiGet reads many keys; absent ones are nil.
func (db DB) multiGet(cf CF, keys [][]byte) ([][]byte, error) {
	return db.readMany(cf, keys, nil)
}

// readMany reads keys of cf, through c unless it is nil, over the
// group's writes.
func (db DB) readMany(cf CF, keys [][]byte, c *metaCache) ([][]byte, error) {
	read := func(keys [][]byte) ([][]byte, error) {
		if c == nil {
			return db.s.multiGet(cf, keys)
		}
		return db.s.multiGetThrough(c, keys)
	}
	if db.g == nil || len(db.g.ops) == 0 {
		return read(keys)
	}
	out := make([][]byte, len(keys))
	var rest [][]byte
	var restAt []int
	for i, k := range keys {
		switch v, p := db.g.lookup(cf, k); p {
		case pendingPut:
			out[i] = append([]byte{}, v...)
		case notPending:
			rest, restAt = append(rest, k), append(restAt, i)
		}
	}
	if len(rest) == 0 {
		return out, nil
	}
	values, err := read(rest)
	if err != nil {
		return nil, err
	}
	for j, i := range restAt {
		out[i] = values[j]
	}
	return out, nil
}

func (db DB) put(log LogData, cf CF, key, value []byte) error {
	b := db.newBatch(log)
	b.put(cf, key, value)
	return b.commit()
}

func (db DB) delete(log LogData, cf CF, key []byte) error {
	b := db.newBatch(log)
	b.del(cf, key)
	return b.commit()
}

// newIterator is Storage.newIterator over the group's writes too.
func (db DB) newIterator(cf CF, lower, upper []byte, snap *grocksdb.Snapshot) iterator {
	db.flushWithin(cf, lower, upper)
	return db.s.newIterator(cf, lower, upper, snap)
}

// scan is Storage.scan over the group's writes too.
func (db DB) scan(cf CF, lower, upper []byte, fn func(key, value []byte) error) error {
	db.flushWithin(cf, lower, upper)
	return db.s.scan(cf, lower, upper, nil, fn)
}

// flushWithin applies the group's pending writes when one of them falls
// in [lower, upper) of cf (upper nil: no bound), which an iterator there
// must see. Writes elsewhere wait for the group's end: consumers reading a
// stream's entries while the group holds their PEL records, say, still
// share one RocksDB write.
func (db DB) flushWithin(cf CF, lower, upper []byte) {
	if db.g == nil {
		return
	}
	for _, o := range db.g.ops {
		if o.cf == cf && o.kind != opLogData && bytes.Compare(o.key, lower) >= 0 && (upper == nil || bytes.Compare(o.key, upper) < 0) {
			db.g.flush()
			return
		}
	}
}

// snapshot takes a snapshot that includes the group's writes; release it
// with db.s.db.ReleaseSnapshot.
func (db DB) snapshot() *grocksdb.Snapshot {
	if db.g != nil {
		db.g.flush()
	}
	return db.s.db.NewSnapshot()
}
