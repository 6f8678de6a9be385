package storage

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/basaltdb/basalt/metadata"
)

// Consumer groups of streams (FORMAT.md §4.8). A group's record holds its
// last delivered ID, its entries-read counter and the counts of its
// consumers and pending entries; each consumer has a record with its
// pending count and times; each pending entry (PEL) a record keyed by
// group and entry ID that names its consumer. The consumers' own PELs of
// Redis are the group's PEL filtered by consumer. Every counter is kept
// by the command that changes what it counts, in the same batch.
//
// The group commands here and in stream_claim.go and stream_pending.go
// keep none of the byte slices they are given past their return (the
// caller may reuse them), and what they return is the caller's: copies,
// never RocksDB memory.

// Errors of consumer group commands.
var (
	ErrNoGroup   = errors.New("storage: no such consumer group")
	ErrBusyGroup = errors.New("storage: consumer group name already exists")
)

// subPrefix allocates the stream's subkey prefix with room for n bytes.
func (s *stream) subPrefix(n int) []byte {
	return s.db.s.layout.AppendSubkeyPrefix(s.newKey(n), s.db.ns, s.key, s.meta.Version)
}

func (s *stream) groupKey(name []byte) []byte {
	return metadata.AppendStreamGroupKey(s.subPrefix(17+len(name)), name)
}

func (s *stream) consumerKey(group, consumer []byte) []byte {
	return metadata.AppendStreamConsumerKey(s.subPrefix(25+len(group)+len(consumer)), group, consumer)
}

func (s *stream) pendingKey(group []byte, id metadata.StreamID) []byte {
	return metadata.AppendStreamPendingKey(s.subPrefix(33+len(group)), group, id)
}

// groupState is a consumer group read for a write: its record and the
// consumers the command touched, which save writes back.
type groupState struct {
	s         *stream
	name      []byte
	rec       metadata.StreamGroup
	consumers map[string]*consumerState
}

// consumerState is a consumer a command read or created.
type consumerState struct {
	name  []byte
	rec   metadata.StreamConsumer
	dirty bool
}

// group reads the stream's group name for a write; ErrNoGroup when the
// stream or the group is absent.
func (s *stream) group(name []byte) (*groupState, error) {
	if !s.exists {
		return nil, ErrNoGroup
	}
	v, found, err := s.db.getRecord(s.groupKey(name), nil)
	switch {
	case err != nil:
		return nil, err
	case !found:
		return nil, ErrNoGroup
	}
	rec, err := metadata.DecodeStreamGroup(v)
	if err != nil {
		return nil, fmt.Errorf("%w: group %q of stream %q: %v", ErrCorrupt, name, s.key, err)
	}
	return &groupState{s: s, name: name, rec: rec, consumers: map[string]*consumerState{}}, nil
}

// streamGroupForWrite reads a live stream and one of its groups for a
// write; ErrNoGroup when either is absent.
func (db DB) streamGroupForWrite(key, group []byte) (*groupState, error) {
	s, err := db.streamForWrite(key)
	if err != nil {
		return nil, err
	}
	return s.group(group)
}

// consumer returns the group's consumer name, read once per command. An
// absent one is created, seen at now, when create is set; else it is nil.
func (g *groupState) consumer(name []byte, create bool, now int64) (*consumerState, error) {
	if c, ok := g.consumers[string(name)]; ok {
		return c, nil
	}
	v, found, err := g.s.db.getRecord(g.s.consumerKey(g.name, name), nil)
	if err != nil {
		return nil, err
	}
	c := &consumerState{name: name}
	switch {
	case found:
		if c.rec, err = metadata.DecodeStreamConsumer(v); err != nil {
			return nil, fmt.Errorf("%w: consumer %q of stream %q: %v", ErrCorrupt, name, g.s.key, err)
		}
	case !create:
		return nil, nil
	default:
		c.rec = metadata.StreamConsumer{SeenTime: now, ActiveTime: now}
		c.dirty = true
		g.rec.Consumers++
	}
	g.consumers[string(name)] = c
	return c, nil
}

// seen records an interaction of consumer c at now (Redis's seen-time);
// active says it got entries (Kvrocks's last successful interaction).
func (c *consumerState) seen(now int64, active bool) {
	c.rec.SeenTime = now
	if active {
		c.rec.ActiveTime = now
	}
	c.dirty = true
}

// save adds the group's record and its changed consumers to b. The lag
// Kvrocks stores beside the counters is the one of this moment.
func (g *groupState) save(b *batch) {
	for _, c := range g.consumers {
		if c.dirty {
			b.put(CFStream, g.s.consumerKey(g.name, c.name), c.rec.AppendTo(g.s.newBuf(metadata.StreamConsumerSize)))
		}
	}
	g.rec.Lag = 0
	if lag, ok := g.s.sm.Lag(g.s.meta.Size, g.rec); ok {
		g.rec.Lag = uint64(lag)
	}
	b.put(CFStream, g.s.groupKey(g.name), g.rec.AppendTo(g.s.newBuf(metadata.StreamGroupSize)))
}

// pendingRecord is a PEL record as a command changes it; owner is nil for
// one FORCE creates, until it is given to a consumer.
type pendingRecord struct {
	id      metadata.StreamID
	rec     metadata.StreamPending
	owner   *consumerState
	present bool // in the PEL (as read, or since added)
	changed bool
}

// readPending reads the PEL records of ids (each once), by ID; absent
// ones have present false.
func (g *groupState) readPending(ids []metadata.StreamID, now int64) (map[metadata.StreamID]*pendingRecord, error) {
	out := make(map[metadata.StreamID]*pendingRecord, len(ids))
	keys := make([][]byte, 0, len(ids))
	uniq := make([]metadata.StreamID, 0, len(ids))
	for _, id := range ids {
		if _, dup := out[id]; !dup {
			out[id] = &pendingRecord{id: id}
			uniq = append(uniq, id)
			keys = append(keys, g.s.pendingKey(g.name, id))
		}
	}
	vals, err := g.s.db.multiGet(CFStream, keys)
	if err != nil {
		return nil, err
	}
	for i, v := range vals {
		if v == nil {
			continue
		}
		p := out[uniq[i]]
		if err := g.loadPending(p, v, now); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// loadPending decodes the PEL record value v into p and finds its owner.
func (g *groupState) loadPending(p *pendingRecord, v []byte, now int64) error {
	rec, err := metadata.DecodeStreamPending(v)
	if err != nil {
		return fmt.Errorf("%w: pending entry %s of stream %q: %v", ErrCorrupt, p.id, g.s.key, err)
	}
	rec.Consumer = bytes.Clone(rec.Consumer)
	p.rec, p.present = rec, true
	p.owner, err = g.consumer(rec.Consumer, false, now)
	return err
}

// assign gives p to consumer c, delivered at time with count deliveries,
// keeping the pending counts of the group and of both consumers.
func (g *groupState) assign(p *pendingRecord, c *consumerState, time int64, count uint64) {
	if !p.present {
		g.rec.Pending++
		p.present = true
	}
	if p.owner != c {
		if p.owner != nil {
			decr(&p.owner.rec.Pending)
			p.owner.dirty = true
		}
		c.rec.Pending++
		c.dirty = true
		p.owner = c
	}
	p.rec = metadata.StreamPending{DeliveryTime: time, DeliveryCount: count, Consumer: c.name}
	p.changed = true
}

// drop removes p from the PEL, keeping the counts.
func (g *groupState) drop(p *pendingRecord) {
	if !p.present {
		return
	}
	decr(&g.rec.Pending)
	if p.owner != nil {
		decr(&p.owner.rec.Pending)
		p.owner.dirty = true
	}
	p.present, p.owner, p.changed = false, nil, true
}

// decr lowers a counter that data from elsewhere may have left at 0.
func decr(n *uint64) {
	if *n > 0 {
		*n--
	}
}

// writePending adds the changed PEL records to b.
func (g *groupState) writePending(b *batch, records map[metadata.StreamID]*pendingRecord) {
	for _, p := range records {
		g.writeOne(b, p)
	}
}

func (g *groupState) writeOne(b *batch, p *pendingRecord) {
	switch {
	case !p.changed:
	case p.present:
		b.put(CFStream, g.s.pendingKey(g.name, p.id), p.rec.AppendTo(g.s.newBuf(metadata.StreamPendingSize+len(p.rec.Consumer))))
	default:
		b.del(CFStream, g.s.pendingKey(g.name, p.id))
	}
}

// eachPending calls fn with the group's PEL records from ID from on, in
// ID order, until fn returns false; value is valid only during the call.
func (g *groupState) eachPending(from metadata.StreamID, fn func(id metadata.StreamID, value []byte) bool) error {
	lower := metadata.AppendStreamPendingStart(g.s.subPrefix(len(g.name)+33), g.name)
	upper := metadata.PrefixEnd(lower)
	it := g.s.db.newIterator(CFStream, lower, upper, nil)
	defer it.close()
	it.Seek(metadata.AppendStreamEntryKey(lower[:len(lower):len(lower)], from))
	var bad error
	err := it.walk(false, 0, func(key, value []byte) bool {
		id, ok := metadata.ParseStreamEntryKey(key[len(lower):])
		if !ok {
			bad = fmt.Errorf("%w: pending entry key of stream %q", ErrCorrupt, g.s.key)
			return false
		}
		return fn(id, value)
	})
	return errors.Join(err, bad)
}

// entryValues reads the values of the entries ids (nil: deleted).
func (s *stream) entryValues(ids []metadata.StreamID) ([][]byte, error) {
	keys := make([][]byte, len(ids))
	for i, id := range ids {
		keys[i] = s.entryKey(id)
	}
	return s.db.multiGet(CFStream, keys)
}

// parseEntry decodes an entry value read by entryValues.
func (s *stream) parseEntry(id metadata.StreamID, v []byte) (StreamEntry, error) {
	fv, err := metadata.ParseStreamEntryValue(v)
	if err != nil {
		return StreamEntry{}, fmt.Errorf("%w: entry %s of stream %q: %v", ErrCorrupt, id, s.key, err)
	}
	return StreamEntry{ID: id, FieldsValues: fv}, nil
}

// XGroupExists reports whether key holds a stream and the stream a group
// of that name.
func (db DB) XGroupExists(key, group []byte) (keyFound, groupFound bool, err error) {
	s, err := db.streamForWrite(key)
	if err != nil || !s.exists {
		return false, false, err
	}
	_, err = s.group(group)
	if errors.Is(err, ErrNoGroup) {
		return true, false, nil
	}
	return true, err == nil, err
}

// XGroupCreateArgs are XGROUP CREATE's: the group's last delivered ID (the
// stream's last ID when LastID), its entries-read counter (-1: unknown),
// and whether an absent stream is created.
type XGroupCreateArgs struct {
	ID          metadata.StreamID
	LastID      bool
	EntriesRead int64
	MkStream    bool
}

// XGroupCreate creates a consumer group; ErrNoSuchKey when the stream is
// absent and not to be made, ErrBusyGroup when the group exists.
func (db DB) XGroupCreate(key, group []byte, a XGroupCreateArgs) error {
	s, err := db.streamForWrite(key)
	switch {
	case err != nil:
		return err
	case !s.exists && !a.MkStream:
		return ErrNoSuchKey
	}
	switch _, err := s.group(group); {
	case err == nil:
		return ErrBusyGroup
	case !errors.Is(err, ErrNoGroup):
		return err
	}
	if a.LastID {
		a.ID = s.sm.LastGenerated
	}
	g := &groupState{s: s, name: group, rec: metadata.StreamGroup{LastDelivered: a.ID, EntriesRead: a.EntriesRead}}
	b := db.newBatch(TypeLog(metadata.TypeStream))
	g.save(b)
	s.sm.Groups++
	s.save(b)
	return b.commit()
}

// XGroupSetID sets a group's last delivered ID (the stream's last ID when
// lastID) and its entries-read counter (-1: unknown).
func (db DB) XGroupSetID(key, group []byte, id metadata.StreamID, lastID bool, entriesRead int64) error {
	g, err := db.streamGroupForWrite(key, group)
	if err != nil {
		return err
	}
	if lastID {
		id = g.s.sm.LastGenerated
	}
	g.rec.LastDelivered, g.rec.EntriesRead = id, entriesRead
	b := db.newBatch(TypeLog(metadata.TypeStream))
	g.save(b)
	return b.commit()
}

// XGroupDestroy deletes a group with its consumers and pending entries;
// it reports whether the group existed.
func (db DB) XGroupDestroy(key, group []byte) (bool, error) {
	g, err := db.streamGroupForWrite(key, group)
	if errors.Is(err, ErrNoGroup) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	s := g.s
	b := db.newBatch(TypeLog(metadata.TypeStream))
	b.del(CFStream, s.groupKey(group))
	for _, lower := range [][]byte{
		metadata.AppendStreamConsumersStart(s.subPrefix(len(group)+17), group),
		metadata.AppendStreamPendingStart(s.subPrefix(len(group)+17), group),
	} {
		b.delRange(CFStream, lower, metadata.PrefixEnd(lower))
	}
	decr(&s.sm.Groups)
	s.save(b)
	return true, b.commit()
}

// XGroupCreateConsumer adds a consumer to a group; it reports whether the
// consumer is new.
func (db DB) XGroupCreateConsumer(key, group, consumer []byte) (bool, error) {
	g, err := db.streamGroupForWrite(key, group)
	if err != nil {
		return false, err
	}
	before := g.rec.Consumers
	if _, err := g.consumer(consumer, true, nowMs()); err != nil || g.rec.Consumers == before {
		return false, err
	}
	b := db.newBatch(TypeLog(metadata.TypeStream))
	g.save(b)
	return true, b.commit()
}

// XGroupDelConsumer deletes a consumer and its pending entries from a
// group, and returns how many pending entries it had.
func (db DB) XGroupDelConsumer(key, group, consumer []byte) (int64, error) {
	g, err := db.streamGroupForWrite(key, group)
	if err != nil {
		return 0, err
	}
	c, err := g.consumer(consumer, false, 0)
	if err != nil || c == nil {
		return 0, err
	}
	b := db.newBatch(TypeLog(metadata.TypeStream))
	n := int64(0)
	err = g.eachPending(metadata.StreamID{}, func(id metadata.StreamID, value []byte) bool {
		p, derr := metadata.DecodeStreamPending(value)
		if derr == nil && bytes.Equal(p.Consumer, consumer) {
			b.del(CFStream, g.s.pendingKey(group, id))
			decr(&g.rec.Pending)
			n++
		}
		return true
	})
	if err != nil {
		return 0, err
	}
	delete(g.consumers, string(consumer))
	b.del(CFStream, g.s.consumerKey(group, consumer))
	decr(&g.rec.Consumers)
	g.save(b)
	return n, b.commit()
}

// XReadGroupArgs are XREADGROUP's options for one stream.
type XReadGroupArgs struct {
	Group, Consumer []byte
	Count           int64 // 0: no limit
	NoAck           bool
	// History, when set, reads the consumer's pending entries from this
	// ID on instead of new entries (">").
	History *metadata.StreamID
	// Claim (Redis 8.4's CLAIM min-idle-time) hands the consumer the
	// group's entries pending for at least MinIdle ms first, the longest
	// idle first, before new entries; with History it is ignored.
	Claim   bool
	MinIdle int64
}

// StreamClaim is how an entry XREADGROUP ... CLAIM took had been
// delivered before.
type StreamClaim struct {
	Idle  int64  // ms since its last delivery
	Count uint64 // its deliveries, this one not counted
}

// XReadGroup serves a consumer of a group of the stream key, as Redis's
// XREADGROUP serves one stream: new entries after the group's last
// delivered ID, which become pending for the consumer (unless NoAck), or
// with History the consumer's pending entries, delivered again (an entry
// deleted since comes back with nil FieldsValues). served is false when
// there is nothing new: the consumer is then not even looked up.
// ErrNoGroup when the stream or the group is absent. The entries are
// copies.
func (db DB) XReadGroup(key []byte, a *XReadGroupArgs) (entries []StreamEntry, served bool, err error) {
	entries, _, served, err = db.XReadGroupClaim(key, a)
	return entries, served, err
}

// XReadGroupClaim is XReadGroup that, with a.Claim, first claims idle
// pending entries: they come first among the entries, and claims says
// how each had been delivered (one per claimed entry).
func (db DB) XReadGroupClaim(key []byte, a *XReadGroupArgs) (entries []StreamEntry, claims []StreamClaim, served bool, err error) {
	g, err := db.streamGroupForWrite(key, a.Group)
	if err != nil {
		return nil, nil, false, err
	}
	now := nowMs()
	if a.History != nil {
		entries, err = g.readHistory(a, now)
		return entries, nil, err == nil, err
	}
	var idle []*pendingRecord
	if a.Claim {
		if idle, err = g.idlePending(a.MinIdle, now); err != nil {
			return nil, nil, false, err
		}
	}
	s := g.s
	fresh := s.meta.Size > 0 && s.sm.Last.Compare(g.rec.LastDelivered) > 0
	if len(idle) == 0 && !fresh {
		return nil, nil, false, nil
	}
	c, err := g.consumer(a.Consumer, true, now)
	if err != nil {
		return nil, nil, false, err
	}
	b := db.newBatch(TypeLog(metadata.TypeStream))
	if entries, claims, err = g.claim(b, idle, c, a.Count, now); err != nil {
		return nil, nil, false, err
	}
	if fresh && (a.Count == 0 || int64(len(entries)) < a.Count) {
		left := int64(0) // no limit
		if a.Count > 0 {
			left = a.Count - int64(len(entries))
		}
		more, err := g.deliverNew(b, a, c, left, now)
		if err != nil {
			return nil, nil, false, err
		}
		entries = append(entries, more...)
	}
	c.seen(now, len(entries) > 0)
	g.save(b)
	return entries, claims, true, b.commit()
}

// deliverNew delivers up to count (0: all) new entries to consumer c,
// pending for it unless a.NoAck, adding the writes to b.
func (g *groupState) deliverNew(b *batch, a *XReadGroupArgs, c *consumerState, count, now int64) ([]StreamEntry, error) {
	from, _ := g.rec.LastDelivered.Next()
	entries, err := g.s.nextEntries(from, count)
	if err != nil {
		return nil, err
	}
	ids := make([]metadata.StreamID, len(entries))
	for i, e := range entries {
		ids[i] = e.ID
		g.delivered(e.ID)
	}
	if !a.NoAck {
		pel, err := g.readPending(ids, now)
		if err != nil {
			return nil, err
		}
		for _, p := range pel {
			g.assign(p, c, now, 1)
		}
		g.writePending(b, pel)
	}
	return entries, nil
}

// nextEntries reads up to count (0: all) entries from ID from on, as
// copies. One entry whose ID is from itself, the ID right after the last
// one delivered, is read by key: entries added in one millisecond follow
// each other so, and a point read costs less than making and seeking an
// iterator (BenchmarkGroupLoop, dense against sparse).
func (s *stream) nextEntries(from metadata.StreamID, count int64) ([]StreamEntry, error) {
	if count == 1 {
		v, found, err := s.db.get(CFStream, s.entryKey(from), nil)
		if err != nil {
			return nil, err
		}
		if found {
			e, err := s.parseEntry(from, v)
			return []StreamEntry{e}, err
		}
	}
	var entries []StreamEntry
	err := s.entries(nil, from, metadata.MaxStreamID, false, count, copyEntries(&entries))
	return entries, err
}

// delivered moves the group's last delivered ID to id, when id is past it,
// and its entries-read counter with it, as Redis's streamReplyWithRange.
func (g *groupState) delivered(id metadata.StreamID) {
	if id.Compare(g.rec.LastDelivered) <= 0 {
		return
	}
	sm, length := &g.s.sm, g.s.meta.Size
	switch {
	case g.rec.EntriesRead != -1 && !sm.HasTombstonesFrom(length, id):
		g.rec.EntriesRead++
	case sm.EntriesAdded != 0:
		if n, ok := sm.EntriesBefore(length, id); ok {
			g.rec.EntriesRead = int64(n)
		} else {
			g.rec.EntriesRead = -1
		}
	}
	g.rec.LastDelivered = id
}

// readHistory delivers again up to a.Count (0: all) of the consumer's
// pending entries from a.History on.
func (g *groupState) readHistory(a *XReadGroupArgs, now int64) ([]StreamEntry, error) {
	c, err := g.consumer(a.Consumer, true, now)
	if err != nil {
		return nil, err
	}
	c.seen(now, false)
	var records []*pendingRecord
	var bad error
	err = g.eachPending(*a.History, func(id metadata.StreamID, value []byte) bool {
		p := &pendingRecord{id: id}
		rec, derr := metadata.DecodeStreamPending(value)
		if derr != nil {
			bad = fmt.Errorf("%w: pending entry %s of stream %q: %v", ErrCorrupt, id, g.s.key, derr)
			return false
		}
		if !bytes.Equal(rec.Consumer, a.Consumer) {
			return true
		}
		p.rec, p.present, p.owner = rec, true, c
		p.rec.Consumer = c.name
		records = append(records, p)
		return a.Count == 0 || int64(len(records)) < a.Count
	})
	if err = errors.Join(err, bad); err != nil {
		return nil, err
	}
	ids := make([]metadata.StreamID, len(records))
	for i, p := range records {
		ids[i] = p.id
	}
	values, err := g.s.entryValues(ids)
	if err != nil {
		return nil, err
	}
	b := g.s.db.newBatch(TypeLog(metadata.TypeStream))
	entries := make([]StreamEntry, len(records))
	for i, p := range records {
		entries[i].ID = p.id
		if values[i] == nil {
			continue
		}
		if entries[i], err = g.s.parseEntry(p.id, values[i]); err != nil {
			return nil, err
		}
		p.rec.DeliveryTime = now
		p.rec.DeliveryCount++
		p.changed = true
		g.writeOne(b, p)
	}
	g.save(b)
	return entries, b.commit()
}

// XAck acknowledges ids in a group and returns how many were pending; 0
// when the stream or the group is absent.
func (db DB) XAck(key, group []byte, ids []metadata.StreamID) (int64, error) {
	g, err := db.streamGroupForWrite(key, group)
	if errors.Is(err, ErrNoGroup) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	pel, err := g.readPending(ids, 0)
	if err != nil {
		return 0, err
	}
	n := int64(0)
	for _, p := range pel {
		if p.present {
			g.drop(p)
			n++
		}
	}
	if n == 0 {
		return 0, nil
	}
	b := db.newBatch(TypeLog(metadata.TypeStream))
	g.writePending(b, pel)
	g.save(b)
	return n, b.commit()
}
