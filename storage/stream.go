package storage

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/basaltdb/basalt/metadata"
	"github.com/linxGnu/grocksdb"
)

// Streams keep one record per entry in the stream column family, subkey
// u64 ms | u64 seq, and their consumer groups, consumers and pending
// entries after them (FORMAT.md §4.8, metadata/stream.go). The metadata
// record holds the entry count and the StreamMeta extension: the last
// generated ID, the IDs of the first and last entries, the largest
// deleted ID and the count of entries ever added. Ranges are walked with
// iterators bounded to the IDs asked for, seeking from the first entry
// the metadata names, so trims from the front leave no tombstones in
// later walks' way. An emptied stream stays, as in Redis.

// Errors of stream writes.
var (
	ErrStreamIDTooSmall = errors.New("storage: stream ID equal or smaller than the stream's top item")
	ErrStreamExhausted  = errors.New("storage: stream has exhausted the last possible ID")
	// ErrStreamSeqExhausted refuses "ms-*" when ms's last sequence number
	// was taken; Redis 7.0 words it as if the entry were too large.
	ErrStreamSeqExhausted = errors.New("storage: stream sequence numbers of the millisecond exhausted")
	ErrStreamSetIDSmall   = errors.New("storage: XSETID ID smaller than the stream's top item")
	ErrStreamEntriesLow   = errors.New("storage: XSETID entries_added smaller than the stream's length")
	errStreamBadEntryKey  = errors.New("storage: stream entry key of the wrong length")
)

// streamNodeEntries is Redis's stream-node-max-entries default: the
// number of entries of the listpack nodes whose whole removal an
// approximate trim ("~") is limited to. See trim.
const streamNodeEntries = 100

// streamBatchDeletes is how many trimmed entries are deleted one by one;
// more become one range deletion, so that a trim of millions of entries
// writes one record.
const streamBatchDeletes = 64

// stream is a stream key being read or written.
type stream struct {
	*collection
	sm metadata.StreamMeta
}

// decodeStream reads the extension of a stream collection.
func decodeStream(c *collection, rest []byte) (*stream, error) {
	sm, err := metadata.DecodeStreamMeta(rest)
	if err != nil {
		return nil, fmt.Errorf("%w: stream %q: %v", ErrCorrupt, c.key, err)
	}
	return &stream{collection: c, sm: sm}, nil
}

// streamForWrite reads a stream for a read-modify-write; an absent key
// gets fresh metadata (exists false). The caller holds the key's lock.
func (db DB) streamForWrite(key []byte) (*stream, error) {
	c := &collection{db: db, nsKey: db.nsKey(key), key: key, writer: true}
	rec, found, err := db.lookupType(c.nsKey, metadata.TypeStream)
	if err != nil {
		return nil, err
	}
	if !found {
		c.meta = metadata.New(metadata.TypeStream, db.s.versions.Next(nowTime()))
		return &stream{collection: c}, nil
	}
	c.meta, c.stored, c.exists = rec.meta, rec.meta, true
	return decodeStream(c, rec.rest)
}

// streamView is a consistent read of one stream; release must be called
// when done.
type streamView struct {
	*stream
	snap *grocksdb.Snapshot
}

// streamRead opens a snapshot and reads a live stream in it; nil (and
// nothing to release) when the key is absent.
func (db DB) streamRead(key []byte) (*streamView, error) {
	c := &collection{db: db, nsKey: db.nsKey(key), key: key}
	snap, raw, found, err := db.snapshotMeta(c.nsKey)
	var rec record
	if err == nil && found {
		rec, found, err = decodeRecord(raw, db.now())
	}
	if err == nil && found && rec.meta.Type != metadata.TypeStream {
		err = ErrWrongType
	}
	if err != nil || !found {
		db.s.db.ReleaseSnapshot(snap)
		return nil, err
	}
	c.meta, c.exists = rec.meta, true
	s, err := decodeStream(c, rec.rest)
	if err != nil {
		db.s.db.ReleaseSnapshot(snap)
		return nil, err
	}
	return &streamView{stream: s, snap: snap}, nil
}

func (v *streamView) release() { v.db.s.db.ReleaseSnapshot(v.snap) }

// entryKey returns the internal key of entry id in a new slice.
func (s *stream) entryKey(id metadata.StreamID) []byte {
	return metadata.AppendStreamEntryKey(s.db.s.layout.AppendSubkeyPrefix(s.newKey(16), s.db.ns, s.key, s.meta.Version), id)
}

// save adds the metadata record to b; a stream's record stays when empty.
func (s *stream) save(b *batch) {
	v := s.meta.AppendTo(make([]byte, 0, 128))
	b.put(CFMetadata, s.nsKey, s.sm.AppendTo(v))
}

// walkEntries calls fn with the entries whose IDs are in [from, to], in
// ID order (descending when reverse), as of snap (nil: the latest), until
// fn returns false; want, when not 0, is how many fn is expected to take.
// value is valid only during the call.
//
// Entries with ms 2^64-1 sort among the group records (FF×8 | kind ...),
// so the walk has two parts: the entries below that ms, bounded to the
// range, and, only when the range and the stream reach that ms, the
// records from FF×8 on, of which it takes the 16-byte entry keys.
func (s *stream) walkEntries(snap *grocksdb.Snapshot, from, to metadata.StreamID, reverse bool, want int, fn func(id metadata.StreamID, value []byte) bool) error {
	if from.Compare(to) > 0 {
		return nil
	}
	prefix, end := s.prefix()
	goOn := true
	part := func(lower, upper []byte, lo, hi metadata.StreamID) error {
		it := s.db.newIterator(CFStream, lower, upper, snap)
		defer it.close()
		if reverse {
			it.SeekToLast()
		} else {
			it.SeekToFirst()
		}
		var bad error
		err := it.walk(reverse, want, func(key, value []byte) bool {
			id, ok := metadata.ParseStreamEntryKey(key[len(prefix):])
			if !ok {
				if len(key) == len(prefix) || key[len(prefix)] != 0xff {
					bad = fmt.Errorf("%w: %w in stream %q", ErrCorrupt, errStreamBadEntryKey, s.key)
					goOn = false
				}
				return bad == nil // a group record
			}
			if id.Compare(lo) < 0 || id.Compare(hi) > 0 {
				return true
			}
			goOn = fn(id, value)
			return goOn
		})
		if bad != nil {
			return bad
		}
		return err
	}
	low := func() error {
		if from.Ms == math.MaxUint64 {
			return nil
		}
		hi := to
		if hi.Ms == math.MaxUint64 {
			hi = metadata.StreamID{Ms: math.MaxUint64 - 1, Seq: math.MaxUint64}
		}
		upper := append(s.entryKey(hi), 0)
		return part(s.entryKey(from), upper, from, hi)
	}
	high := func() error {
		if to.Ms != math.MaxUint64 || s.sm.Last.Ms != math.MaxUint64 {
			return nil
		}
		lo := from
		if lo.Ms != math.MaxUint64 {
			lo = metadata.StreamID{Ms: math.MaxUint64}
		}
		return part(s.entryKey(metadata.StreamID{Ms: math.MaxUint64}), end, lo, to)
	}
	first, second := low, high
	if reverse {
		first, second = high, low
	}
	if err := first(); err != nil || !goOn {
		return err
	}
	return second()
}

// StreamEntry is an entry handed to a walk's callback: its ID and its
// fields and values in turn, which are valid only during the call.
type StreamEntry struct {
	ID           metadata.StreamID
	FieldsValues [][]byte
}

// StreamTrimStrategy is how XADD and XTRIM trim.
type StreamTrimStrategy uint8

// Trim strategies.
const (
	TrimNone StreamTrimStrategy = iota
	TrimMaxLen
	TrimMinID
)

// StreamTrim is the trimming of XADD and XTRIM. With Approx, only whole
// nodes of NodeEntries entries (0: streamNodeEntries) are removed, as
// Redis removes whole listpack nodes, at most Limit entries (0: no
// limit). Policy is what becomes of the groups' references to the
// entries removed, as for XDELEX.
type StreamTrim struct {
	Strategy    StreamTrimStrategy
	MaxLen      uint64
	MinID       metadata.StreamID
	Approx      bool
	Limit       int64
	NodeEntries uint64
	Policy      StreamRefPolicy
}

// XAddArgs are XADD's options. Auto is the ID "*"; AutoSeq is "ms-*",
// with the ms in ID.
type XAddArgs struct {
	ID         metadata.StreamID
	Auto       bool
	AutoSeq    bool
	NoMkStream bool
	Trim       StreamTrim
}

// XAdd appends an entry of fieldsValues and trims the stream; added is
// false when NoMkStream found no stream.
func (db DB) XAdd(key []byte, a *XAddArgs, fieldsValues [][]byte) (id metadata.StreamID, added bool, err error) {
	s, err := db.streamForWrite(key)
	if err != nil || (!s.exists && a.NoMkStream) {
		return id, false, err
	}
	last := s.sm.LastGenerated
	if last == metadata.MaxStreamID {
		return id, false, ErrStreamExhausted
	}
	switch {
	case a.Auto:
		if now := uint64(max(nowMs(), 0)); now > last.Ms {
			id = metadata.StreamID{Ms: now}
		} else {
			id, _ = last.Next()
		}
	case a.AutoSeq && a.ID.Ms == last.Ms:
		if last.Seq == math.MaxUint64 {
			return id, false, ErrStreamSeqExhausted
		}
		id = metadata.StreamID{Ms: last.Ms, Seq: last.Seq + 1}
	default:
		id = a.ID
	}
	if id.Compare(last) <= 0 {
		return id, false, ErrStreamIDTooSmall
	}
	b := db.newBatch(TypeLog(metadata.TypeStream))
	b.put(CFStream, s.entryKey(id), metadata.AppendStreamEntryValue(nil, fieldsValues))
	s.meta.Size++
	s.sm.EntriesAdded++
	s.sm.LastGenerated, s.sm.Last = id, id
	if s.meta.Size == 1 {
		s.sm.First, s.sm.RecordedFirst = id, id
	}
	if _, err := s.trim(b, a.Trim, &id); err != nil {
		return id, false, err
	}
	s.save(b)
	return id, true, b.commit()
}

// XTrim trims a stream and returns how many entries it removed.
func (db DB) XTrim(key []byte, t StreamTrim) (int64, error) {
	s, err := db.streamForWrite(key)
	if err != nil || !s.exists {
		return 0, err
	}
	b := db.newBatch(TypeLog(metadata.TypeStream))
	before := s.sm
	n, err := s.trim(b, t, nil)
	if err != nil {
		return 0, err
	}
	// Redis records the first entry again even when nothing went.
	if n > 0 || s.sm != before {
		s.save(b)
	}
	return n, b.commit()
}

// trim removes entries from the front into b as t says and returns how
// many. pending is an entry added in b, the last one, not yet in the
// database. Redis trims node by node: a node that is wholly beyond the
// threshold goes; at the first that is not, an exact trim removes its
// entries up to the threshold and an approximate one stops. Basalt has no
// nodes: it takes entry number k of the stream's history (counted by
// entries_added) to live in node k/NodeEntries, which is where Redis puts
// it when entries are small, none was deleted and stream-node-max-entries
// did not change. Under ACKED an entry a group still references is kept
// and the trim goes on past it, so it removes no more than the threshold
// asks and the stream may stay longer.
func (s *stream) trim(b *batch, t StreamTrim, pending *metadata.StreamID) (int64, error) {
	// Nothing to remove: no walk.
	switch {
	case t.Strategy == TrimNone,
		t.Strategy == TrimMaxLen && s.meta.Size <= t.MaxLen,
		t.Strategy == TrimMinID && (s.meta.Size == 0 || s.sm.First.Compare(t.MinID) >= 0):
		return 0, nil
	}
	var refs *streamRefs
	if t.Policy != KeepRef && s.sm.Groups > 0 {
		var err error
		if refs, err = s.refsFor(nil, t.Policy); err != nil {
			return 0, err
		}
	}
	// An exact trim has no limit.
	limit := int64(0)
	if t.Approx {
		limit = t.Limit
	}
	nodeEntries := t.NodeEntries
	if nodeEntries == 0 {
		nodeEntries = streamNodeEntries
	}
	length := s.meta.Size
	// The history number of the first entry, modulo the node size.
	base := (s.sm.EntriesAdded - length) % nodeEntries
	var (
		node       []metadata.StreamID
		deleted    int64
		done       bool
		firstKept  *metadata.StreamID
		lastKept   metadata.StreamID
		lastGone   bool                // the last entry went, with some kept before it (ACKED)
		low        []metadata.StreamID // a run of deleted entries below ms 2^64-1, while few
		lowN       int64
		lowFirst   metadata.StreamID
		lowLast    metadata.StreamID
		pendingDel bool
		loadErr    error
	)
	// flushLow deletes the run of entries in low, by range when long.
	flushLow := func() {
		switch {
		case lowN > streamBatchDeletes:
			b.delRange(CFStream, s.entryKey(lowFirst), append(s.entryKey(lowLast), 0))
		default:
			for _, id := range low {
				b.del(CFStream, s.entryKey(id))
			}
		}
		low, lowN = low[:0], 0
	}
	remove := func(id metadata.StreamID) {
		deleted++
		length--
		if firstKept != nil && id.Compare(s.sm.MaxDeleted) > 0 {
			s.sm.MaxDeleted = id // a hole behind a kept entry, as XDEL leaves
		}
		lastGone = lastGone || id == s.sm.Last
		switch {
		case pending != nil && id == *pending:
			pendingDel = true
		case id.Ms == math.MaxUint64:
			b.del(CFStream, s.entryKey(id))
		default:
			if lowN == 0 {
				lowFirst = id
			}
			lowN++
			lowLast = id
			if lowN <= streamBatchDeletes {
				low = append(low, id)
			}
		}
	}
	// keep leaves id in the stream; the run of deletions ends there.
	keep := func(id metadata.StreamID) {
		if firstKept == nil {
			firstKept = &id
		}
		lastKept = id
		flushLow()
	}
	// evaluate decides about one node; it reports whether trimming goes on.
	evaluate := func() bool {
		defer func() { node = node[:0] }()
		if t.Strategy == TrimMaxLen && length <= t.MaxLen {
			keep(node[0])
			return false
		}
		entries := int64(len(node))
		if limit != 0 && deleted+entries > limit {
			keep(node[0])
			return false
		}
		whole := false
		if t.Strategy == TrimMaxLen {
			whole = length-uint64(entries) >= t.MaxLen
		} else {
			whole = node[len(node)-1].Compare(t.MinID) < 0
		}
		if !whole && t.Approx {
			keep(node[0])
			return false
		}
		if refs != nil {
			if loadErr = refs.load(node); loadErr != nil {
				return false
			}
		}
		for _, id := range node {
			if (t.Strategy == TrimMaxLen && length <= t.MaxLen) || (t.Strategy == TrimMinID && id.Compare(t.MinID) >= 0) {
				keep(id)
				return false
			}
			if refs == nil || refs.release(id) {
				remove(id)
			} else {
				keep(id)
			}
		}
		return true // the threshold is not reached: entries kept (ACKED) leave it further on
	}
	// The first node is the rest of the one the first entry is in.
	nodeCap := nodeEntries - base
	seen := uint64(0)
	walkLen := s.meta.Size
	if pending != nil {
		walkLen-- // the pending entry is not in the database yet
	}
	err := s.walkEntries(nil, s.sm.First, metadata.MaxStreamID, false, 0, func(id metadata.StreamID, _ []byte) bool {
		if seen == walkLen {
			return false // past the entries the metadata counts
		}
		seen++
		node = append(node, id)
		if uint64(len(node)) == nodeCap {
			nodeCap = nodeEntries
			if !evaluate() {
				done = true
				return false
			}
		}
		return true
	})
	if err = errors.Join(err, loadErr); err != nil {
		return 0, err
	}
	if !done {
		if pending != nil {
			node = append(node, *pending)
		}
		if len(node) > 0 {
			evaluate()
		}
		if loadErr != nil {
			return 0, loadErr
		}
	}
	flushLow()
	if pendingDel {
		b.del(CFStream, s.entryKey(*pending))
	}
	s.meta.Size -= uint64(deleted)
	if s.meta.Size == 0 {
		s.sm.First, s.sm.Last = metadata.StreamID{}, metadata.StreamID{}
	} else if firstKept != nil {
		s.sm.First = *firstKept
	}
	if lastGone && s.meta.Size > 0 {
		s.sm.Last = lastKept
	}
	s.sm.RecordedFirst = s.sm.First
	if refs != nil {
		refs.save(b)
	}
	return deleted, nil
}

// XDel deletes the entries of ids and returns how many existed.
func (db DB) XDel(key []byte, ids []metadata.StreamID) (int64, error) {
	s, err := db.streamForWrite(key)
	if err != nil || !s.exists {
		return 0, err
	}
	keys := make([][]byte, 0, len(ids))
	uniq := make([]metadata.StreamID, 0, len(ids))
	seen := make(map[metadata.StreamID]bool, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			uniq = append(uniq, id)
			keys = append(keys, s.entryKey(id))
		}
	}
	vals, err := db.multiGet(CFStream, keys)
	if err != nil {
		return 0, err
	}
	gone := map[metadata.StreamID]bool{}
	for i, v := range vals {
		if v != nil {
			gone[uniq[i]] = true
		}
	}
	n := int64(len(gone))
	if n == 0 {
		return 0, nil
	}
	b := db.newBatch(TypeLog(metadata.TypeStream))
	if err := s.forget(b, gone); err != nil {
		return 0, err
	}
	return n, b.commit()
}

// forget adds to b the deletion of the entries gone, which exist, and the
// stream's metadata after it: its length, its ends moved past them, its
// max deleted ID.
func (s *stream) forget(b *batch, gone map[metadata.StreamID]bool) error {
	for id := range gone {
		b.del(CFStream, s.entryKey(id))
		if id.Compare(s.sm.MaxDeleted) > 0 {
			s.sm.MaxDeleted = id
		}
	}
	s.meta.Size -= uint64(len(gone))
	var err error
	if s.meta.Size == 0 {
		s.sm.First, s.sm.Last, s.sm.RecordedFirst = metadata.StreamID{}, metadata.StreamID{}, metadata.StreamID{}
	} else {
		// The ends move past the deleted entries, still in the database.
		if gone[s.sm.First] {
			if s.sm.First, err = s.nearestLive(s.sm.First, false, gone); err != nil {
				return err
			}
			s.sm.RecordedFirst = s.sm.First
		}
		if gone[s.sm.Last] {
			if s.sm.Last, err = s.nearestLive(s.sm.Last, true, gone); err != nil {
				return err
			}
		}
	}
	s.save(b)
	return nil
}

// nearestLive returns the first entry from id on (before it, when back)
// that is not among gone.
func (s *stream) nearestLive(id metadata.StreamID, back bool, gone map[metadata.StreamID]bool) (metadata.StreamID, error) {
	from, to := id, metadata.MaxStreamID
	if back {
		from, to = metadata.StreamID{}, id
	}
	var found metadata.StreamID
	err := s.walkEntries(nil, from, to, back, 0, func(e metadata.StreamID, _ []byte) bool {
		if gone[e] {
			return true
		}
		found = e
		return false
	})
	return found, err
}

// XSetIDArgs are XSETID's arguments; EntriesAdded is -1 when not given,
// MaxDeleted 0-0.
type XSetIDArgs struct {
	ID           metadata.StreamID
	EntriesAdded int64
	MaxDeleted   metadata.StreamID
}

// XSetID sets a stream's last generated ID and counters.
func (db DB) XSetID(key []byte, a XSetIDArgs) error {
	s, err := db.streamForWrite(key)
	if err != nil {
		return err
	}
	if !s.exists {
		return ErrNoSuchKey
	}
	if s.meta.Size > 0 {
		if a.ID.Compare(s.sm.Last) < 0 {
			return ErrStreamSetIDSmall
		}
		if a.EntriesAdded != -1 && s.meta.Size > uint64(a.EntriesAdded) {
			return ErrStreamEntriesLow
		}
	}
	s.sm.LastGenerated = a.ID
	if a.EntriesAdded != -1 {
		s.sm.EntriesAdded = uint64(a.EntriesAdded)
	}
	if !a.MaxDeleted.IsZero() {
		s.sm.MaxDeleted = a.MaxDeleted
	}
	b := db.newBatch(TypeLog(metadata.TypeStream))
	s.save(b)
	return b.commit()
}

// XRange calls fn with the entries from start to end (both inclusive;
// from end to start when rev), at most count of them (0 or less: all), as
// of one snapshot. found is false when the key is absent.
func (db DB) XRange(key []byte, start, end metadata.StreamID, rev bool, count int64, fn func(e StreamEntry) bool) (found bool, err error) {
	v, err := db.streamRead(key)
	if err != nil || v == nil {
		return false, err
	}
	defer v.release()
	return true, v.entries(v.snap, start, end, rev, count, fn)
}

// XCount returns how many entries lie from start to end (both inclusive),
// reading their keys only; 0 when the key is absent.
func (db DB) XCount(key []byte, start, end metadata.StreamID) (int64, error) {
	v, err := db.streamRead(key)
	if err != nil || v == nil {
		return 0, err
	}
	defer v.release()
	var n int64
	if start.Compare(end) <= 0 {
		err = v.walkEntries(v.snap, start, end, false, 0, func(metadata.StreamID, []byte) bool {
			n++
			return true
		})
	}
	return n, err
}

// smallRange is the COUNT up to which XRangeSized does not count a range
// before walking it: such a reply is small enough to hold whole.
const smallRange = 1000

// XRangeSized is XRange that first tells size how many entries fn will be
// handed (-1: not counted), so that a reply of any length can be sent as
// it is read: a range over the whole stream has the stream's length, and
// a part of it that may hold more than smallRange entries is counted,
// keys only, before it is walked, as of the same snapshot.
func (db DB) XRangeSized(key []byte, start, end metadata.StreamID, rev bool, count int64, size func(n int64), fn func(e StreamEntry) bool) (found bool, err error) {
	v, err := db.streamRead(key)
	if err != nil || v == nil {
		return false, err
	}
	defer v.release()
	n := int64(-1)
	switch {
	case v.meta.Size == 0 || start.Compare(end) > 0:
		n = 0
	case start.Compare(v.sm.First) <= 0 && end.Compare(v.sm.Last) >= 0:
		n = int64(min(v.meta.Size, math.MaxInt64))
	case count <= 0 || count > smallRange:
		n = 0
		err = v.walkEntries(v.snap, start, end, rev, 0, func(metadata.StreamID, []byte) bool {
			n++
			return count <= 0 || n < count
		})
		if err != nil {
			return true, err
		}
	}
	if count > 0 && n > count {
		n = count
	}
	size(n)
	return true, v.entries(v.snap, start, end, rev, count, fn)
}

// entries walks the stream's entries as of snap (nil: the latest) for
// XRange.
func (s *stream) entries(snap *grocksdb.Snapshot, start, end metadata.StreamID, rev bool, count int64, fn func(e StreamEntry) bool) error {
	want := 0
	if count > 0 && count < math.MaxInt32 {
		want = int(count)
	}
	var bad error
	n := int64(0)
	err := s.walkEntries(snap, start, end, rev, want, func(id metadata.StreamID, value []byte) bool {
		fv, err := metadata.ParseStreamEntryValue(value)
		if err != nil {
			bad = fmt.Errorf("%w: entry %s of stream %q: %v", ErrCorrupt, id, s.key, err)
			return false
		}
		n++
		return fn(StreamEntry{ID: id, FieldsValues: fv}) && (count <= 0 || n < count)
	})
	if bad != nil {
		return bad
	}
	return err
}

// copyEntries returns a walk callback that appends copies of the entries
// it is handed to *out.
func copyEntries(out *[]StreamEntry) func(e StreamEntry) bool {
	return func(e StreamEntry) bool {
		fv := make([][]byte, len(e.FieldsValues))
		for i, b := range e.FieldsValues {
			fv[i] = append([]byte(nil), b...)
		}
		*out = append(*out, StreamEntry{ID: e.ID, FieldsValues: fv})
		return true
	}
}

// StreamInfo is a stream as XINFO and XREAD see it: its length and
// metadata, and the entries and groups the call asked for (copies).
type StreamInfo struct {
	Length uint64
	metadata.StreamMeta
	FirstEntry, LastEntry *StreamEntry // the entries at the ends, when asked for and not empty
	Entries               []StreamEntry
	GroupList             []StreamGroupInfo
}

// StreamGroupInfo is a consumer group as XINFO reports it.
type StreamGroupInfo struct {
	Name []byte
	metadata.StreamGroup
	PendingList  []StreamPendingInfo // XINFO STREAM FULL: up to count of them
	ConsumerList []StreamConsumerInfo
}

// StreamConsumerInfo is a consumer as XINFO reports it.
type StreamConsumerInfo struct {
	Name []byte
	metadata.StreamConsumer
	PendingList []StreamPendingInfo // XINFO STREAM FULL: up to count of them
}

// StreamPendingInfo is a pending entry of a group.
type StreamPendingInfo struct {
	ID metadata.StreamID
	metadata.StreamPending
}

// StreamInfoWant says what XStreamInfo reads beyond the metadata.
type StreamInfoWant struct {
	Ends   bool  // the first and last entries
	Full   bool  // entries from the first, groups with their pending entries and consumers
	Count  int64 // with Full: how many entries and pending entries (0: all)
	Groups bool  // the groups' records
}

// XStreamInfo reads a stream's metadata and what want asks for, as of one
// snapshot; found is false when the key is absent.
func (db DB) XStreamInfo(key []byte, want StreamInfoWant) (info StreamInfo, found bool, err error) {
	v, err := db.streamRead(key)
	if err != nil || v == nil {
		return info, false, err
	}
	defer v.release()
	info = StreamInfo{Length: v.meta.Size, StreamMeta: v.sm}
	if want.Ends && v.meta.Size > 0 {
		var ends []StreamEntry
		for _, id := range []metadata.StreamID{v.sm.First, v.sm.Last} {
			if err := v.entries(v.snap, id, id, false, 1, copyEntries(&ends)); err != nil {
				return info, true, err
			}
		}
		if len(ends) == 2 {
			info.FirstEntry, info.LastEntry = &ends[0], &ends[1]
		}
	}
	if want.Full {
		if err := v.entries(v.snap, metadata.StreamID{}, metadata.MaxStreamID, false, want.Count, copyEntries(&info.Entries)); err != nil {
			return info, true, err
		}
	}
	if want.Groups || want.Full {
		info.GroupList, err = v.groups(want.Full, want.Count)
	}
	return info, true, err
}

// groups reads the view's consumer groups; with full, their consumers and
// up to count pending entries of each group and consumer (0: all).
func (v *streamView) groups(full bool, count int64) ([]StreamGroupInfo, error) {
	prefix, _ := v.prefix()
	lower := metadata.AppendStreamGroupsStart(append([]byte(nil), prefix...))
	upper := metadata.PrefixEnd(lower)
	var out []StreamGroupInfo
	var bad error
	err := v.scanAt(lower, upper, func(key, value []byte) bool {
		name, ok := metadata.ParseStreamGroupKey(key[len(prefix):])
		g, err := metadata.DecodeStreamGroup(value)
		if !ok || err != nil {
			bad = fmt.Errorf("%w: consumer group record of stream %q", ErrCorrupt, v.key)
			return false
		}
		out = append(out, StreamGroupInfo{Name: append([]byte(nil), name...), StreamGroup: g})
		return true
	})
	if err != nil || bad != nil {
		return nil, errors.Join(err, bad)
	}
	// Redis lists groups in name order; the records sort by length first.
	slices.SortFunc(out, func(a, b StreamGroupInfo) int { return bytes.Compare(a.Name, b.Name) })
	if !full {
		return out, nil
	}
	for i := range out {
		if err := v.consumers(&out[i]); err != nil {
			return nil, err
		}
		if err := v.pending(&out[i], count); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// XConsumers returns the consumers of a group of a stream, as of one
// snapshot; found is false when the key is absent, groupFound when the
// group is.
func (db DB) XConsumers(key, group []byte) (consumers []StreamConsumerInfo, found, groupFound bool, err error) {
	v, err := db.streamRead(key)
	if err != nil || v == nil {
		return nil, false, false, err
	}
	defer v.release()
	prefix, _ := v.prefix()
	_, groupFound, err = v.db.s.getAt(v.snap, CFStream, metadata.AppendStreamGroupKey(append([]byte(nil), prefix...), group))
	if err != nil || !groupFound {
		return nil, true, false, err
	}
	g := StreamGroupInfo{Name: group}
	err = v.consumers(&g)
	return g.ConsumerList, true, true, err
}

// consumers reads the consumers of group g.
func (v *streamView) consumers(g *StreamGroupInfo) error {
	prefix, _ := v.prefix()
	lower := metadata.AppendStreamConsumersStart(append([]byte(nil), prefix...), g.Name)
	var bad error
	err := v.scanAt(lower, metadata.PrefixEnd(lower), func(key, value []byte) bool {
		name, ok := metadata.ParseStreamConsumerKey(key, len(lower))
		c, err := metadata.DecodeStreamConsumer(value)
		if !ok || err != nil {
			bad = fmt.Errorf("%w: consumer record of stream %q", ErrCorrupt, v.key)
			return false
		}
		g.ConsumerList = append(g.ConsumerList, StreamConsumerInfo{Name: append([]byte(nil), name...), StreamConsumer: c})
		return true
	})
	// In name order, as Redis lists them; the records sort by length first.
	slices.SortFunc(g.ConsumerList, func(a, b StreamConsumerInfo) int { return bytes.Compare(a.Name, b.Name) })
	return errors.Join(err, bad)
}

// pending reads up to count pending entries (0: all) of group g, and of
// each of its consumers.
func (v *streamView) pending(g *StreamGroupInfo, count int64) error {
	prefix, _ := v.prefix()
	lower := metadata.AppendStreamPendingStart(append([]byte(nil), prefix...), g.Name)
	owner := make(map[string]*StreamConsumerInfo, len(g.ConsumerList))
	for i := range g.ConsumerList {
		owner[string(g.ConsumerList[i].Name)] = &g.ConsumerList[i]
	}
	var bad error
	err := v.scanAt(lower, metadata.PrefixEnd(lower), func(key, value []byte) bool {
		id, ok := metadata.ParseStreamEntryKey(key[len(lower):])
		p, err := metadata.DecodeStreamPending(value)
		if !ok || err != nil {
			bad = fmt.Errorf("%w: pending entry record of stream %q", ErrCorrupt, v.key)
			return false
		}
		p.Consumer = append([]byte(nil), p.Consumer...)
		pi := StreamPendingInfo{ID: id, StreamPending: p}
		if count <= 0 || int64(len(g.PendingList)) < count {
			g.PendingList = append(g.PendingList, pi)
		}
		if c := owner[string(p.Consumer)]; c != nil && (count <= 0 || int64(len(c.PendingList)) < count) {
			c.PendingList = append(c.PendingList, pi)
		}
		return true
	})
	return errors.Join(err, bad)
}

// scanAt walks the stream column family in [lower, upper) as of the
// view's snapshot until fn returns false.
func (v *streamView) scanAt(lower, upper []byte, fn func(key, value []byte) bool) error {
	it := v.db.newIterator(CFStream, lower, upper, v.snap)
	defer it.close()
	it.SeekToFirst()
	return it.walk(false, 0, fn)
}
