package rdb

import (
	"encoding/binary"
	"fmt"
	"strconv"
)

// A stream (types 15, 19 and 21: Redis 5, 7.0 and 7.2): listpack nodes
// of entries, each node keyed by its master ID; the length and last ID
// (types 19 and 21: the first ID, the largest deleted ID and the count of
// entries ever added); then the consumer groups, each with its last
// delivered ID (19 and 21: its entries read), its pending entries and its
// consumers, each with the IDs of its own pending entries.
//
// A node's listpack starts with its master entry: the count of live and
// of deleted entries, the master fields and a 0; then each entry: flags,
// its ID as a difference from the master ID, its fields and values (only
// the values when the flags say it has the master fields), and the
// number of listpack elements it took.

// StreamID is a stream entry's ID.
type StreamID struct{ Ms, Seq uint64 }

// Compare orders IDs.
func (a StreamID) Compare(b StreamID) int {
	switch {
	case a.Ms != b.Ms:
		return cmpUint(a.Ms, b.Ms)
	default:
		return cmpUint(a.Seq, b.Seq)
	}
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// StreamEntry is a stream's entry: its ID and its fields and values in
// turn.
type StreamEntry struct {
	ID     StreamID
	Fields [][]byte
}

// StreamInfo is what a stream holds besides its entries; the last chunk
// of a stream carries it.
type StreamInfo struct {
	Length                        uint64
	LastID, FirstID, MaxDeletedID StreamID
	EntriesAdded                  uint64
	Groups                        []StreamGroup
}

// StreamGroup is a consumer group. EntriesRead is -1 when unknown.
type StreamGroup struct {
	Name        []byte
	LastID      StreamID
	EntriesRead int64
	Pending     []StreamPending // by ID
	Consumers   []StreamConsumer
}

// StreamPending is a pending entry of a group and the consumer it was
// delivered to.
type StreamPending struct {
	ID            StreamID
	DeliveryTime  int64 // Unix ms
	DeliveryCount uint64
	Consumer      []byte
}

// StreamConsumer is a consumer of a group; Pending counts its pending
// entries.
type StreamConsumer struct {
	Name                 []byte
	SeenTime, ActiveTime int64 // Unix ms
	Pending              uint64
}

// Stream entry flags (t_stream.c).
const (
	streamItemDeleted    = 1
	streamItemSameFields = 2
)

// stream reads a stream of RDB type t: its entries node by node into
// r.v.Entries (a chunk at a time), then r.v.Stream.
func (r *reader) stream(t byte) error {
	r.v.Kind = Stream
	r.streamLast, r.streamEntries = StreamID{}, 0
	nodes, err := r.plainLength()
	if err != nil {
		return err
	}
	var first StreamID
	haveFirst := false
	for ; nodes > 0; nodes-- {
		key, err := r.string()
		if err != nil {
			return err
		}
		if len(key) != 16 {
			return fmt.Errorf("%w: a stream node key of %d bytes", errFormat, len(key))
		}
		master := rawStreamID(key)
		lp, err := r.string()
		if err != nil {
			return err
		}
		if err := r.streamNode(master, lp); err != nil {
			return err
		}
		if !haveFirst && len(r.v.Entries) > 0 {
			first, haveFirst = r.v.Entries[0].ID, true
		}
		if err := r.chunkDone(); err != nil {
			return err
		}
	}
	info := &StreamInfo{}
	if info.Length, err = r.plainLength(); err != nil {
		return err
	}
	if info.LastID, err = r.streamID(); err != nil {
		return err
	}
	if r.streamEntries > 0 && info.LastID.Compare(r.streamLast) < 0 {
		// Redis would hand out IDs that exist: XADD must not.
		return fmt.Errorf("%w: a stream's last ID below its last entry's", errFormat)
	}
	if t == typeStreamListpacks {
		// Redis 5 and 6 keep none of these: Redis 7.0 derives them so.
		info.FirstID, info.EntriesAdded = first, info.Length
	} else {
		if info.FirstID, err = r.streamID(); err != nil {
			return err
		}
		if info.MaxDeletedID, err = r.streamID(); err != nil {
			return err
		}
		if info.EntriesAdded, err = r.plainLength(); err != nil {
			return err
		}
	}
	groups, err := r.count(3)
	if err != nil {
		return err
	}
	names := make(map[string]bool, groups)
	for range groups {
		g, err := r.streamGroup(t, info)
		if err != nil {
			return err
		}
		if names[string(g.Name)] {
			return fmt.Errorf("%w: a consumer group name repeats", errFormat)
		}
		names[string(g.Name)] = true
		info.Groups = append(info.Groups, g)
	}
	r.v.Stream = info
	return nil
}

// streamNode reads the entries of one node, skipping deleted ones.
func (r *reader) streamNode(master StreamID, lp []byte) error {
	var elems [][]byte
	if err := parseListpack(lp, func(e []byte) error { elems = append(elems, e); return nil }); err != nil {
		return err
	}
	next := func() ([]byte, error) {
		if len(elems) == 0 {
			return nil, fmt.Errorf("%w: a stream node ends in an entry", errFormat)
		}
		e := elems[0]
		elems = elems[1:]
		return e, nil
	}
	number := func() (int64, error) {
		e, err := next()
		if err != nil {
			return 0, err
		}
		n, err := strconv.ParseInt(string(e), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%w: a stream node holds %q where a number belongs", errFormat, e)
		}
		return n, nil
	}
	live, err := number()
	if err != nil {
		return err
	}
	deleted, err := number()
	if err != nil {
		return err
	}
	nFields, err := number()
	if err != nil {
		return err
	}
	if live < 0 || deleted < 0 || nFields < 0 || nFields > int64(len(elems)) {
		return fmt.Errorf("%w: a stream node's master entry", errFormat)
	}
	masterFields := elems[:nFields]
	elems = elems[nFields:]
	if zero, err := number(); err != nil || zero != 0 {
		return fmt.Errorf("%w: a stream node's master entry", errFormat)
	}
	for range live + deleted {
		flags, err := number()
		if err != nil {
			return err
		}
		msDiff, err := number()
		if err != nil {
			return err
		}
		seqDiff, err := number()
		if err != nil {
			return err
		}
		id := StreamID{master.Ms + uint64(msDiff), master.Seq + uint64(seqDiff)}
		var fields [][]byte
		if flags&streamItemSameFields != 0 {
			for _, f := range masterFields {
				v, err := next()
				if err != nil {
					return err
				}
				fields = append(fields, f, v)
			}
		} else {
			n, err := number()
			if err != nil {
				return err
			}
			if n < 0 || 2*n > int64(len(elems)) {
				return fmt.Errorf("%w: a stream entry's field count", errFormat)
			}
			fields, elems = elems[:2*n], elems[2*n:]
		}
		if _, err := number(); err != nil { // the entry's element count
			return err
		}
		if flags&streamItemDeleted != 0 {
			continue
		}
		if r.streamEntries > 0 && id.Compare(r.streamLast) <= 0 {
			return fmt.Errorf("%w: stream IDs out of order", errFormat)
		}
		r.streamLast = id
		r.streamEntries++
		entry := StreamEntry{ID: id, Fields: make([][]byte, len(fields))}
		for i, f := range fields {
			entry.Fields[i] = r.arena.copy(f)
			r.size += len(f) + 16
		}
		r.v.Entries = append(r.v.Entries, entry)
	}
	if len(elems) != 0 {
		return fmt.Errorf("%w: a stream node has elements past its entries", errFormat)
	}
	return nil
}

// streamGroup reads a consumer group and its pending entries and
// consumers.
func (r *reader) streamGroup(t byte, info *StreamInfo) (StreamGroup, error) {
	var g StreamGroup
	name, err := r.string()
	if err != nil {
		return g, err
	}
	g.Name = append([]byte(nil), name...)
	if g.LastID, err = r.streamID(); err != nil {
		return g, err
	}
	if t == typeStreamListpacks {
		g.EntriesRead = info.entriesReadAt(g.LastID)
	} else {
		n, err := r.plainLength()
		if err != nil {
			return g, err
		}
		g.EntriesRead = int64(n)
	}
	pending, err := r.count(16 + 8 + 1)
	if err != nil {
		return g, err
	}
	byID := make(map[StreamID]int, pending)
	for range pending {
		raw, err := r.bytes(16 + 8)
		if err != nil {
			return g, err
		}
		p := StreamPending{ID: rawStreamID(raw), DeliveryTime: int64(binary.LittleEndian.Uint64(raw[16:]))}
		if p.DeliveryCount, err = r.plainLength(); err != nil {
			return g, err
		}
		if _, dup := byID[p.ID]; dup {
			return g, fmt.Errorf("%w: a pending entry repeats", errFormat)
		}
		byID[p.ID] = len(g.Pending)
		g.Pending = append(g.Pending, p)
	}
	consumers, err := r.count(1 + 8 + 1)
	if err != nil {
		return g, err
	}
	names := make(map[string]bool, consumers)
	for range consumers {
		name, err := r.string()
		if err != nil {
			return g, err
		}
		if names[string(name)] {
			return g, fmt.Errorf("%w: a consumer name repeats", errFormat)
		}
		names[string(name)] = true
		c := StreamConsumer{Name: append([]byte(nil), name...)}
		times := 8
		if t == typeStreamListpacks3 {
			times = 16
		}
		b, err := r.bytes(uint64(times))
		if err != nil {
			return g, err
		}
		c.SeenTime = int64(binary.LittleEndian.Uint64(b))
		c.ActiveTime = c.SeenTime // Redis 7.0's estimate without one
		if t == typeStreamListpacks3 {
			c.ActiveTime = int64(binary.LittleEndian.Uint64(b[8:]))
		}
		owned, err := r.count(16)
		if err != nil {
			return g, err
		}
		for range owned {
			raw, err := r.bytes(16)
			if err != nil {
				return g, err
			}
			i, ok := byID[rawStreamID(raw)]
			if !ok || g.Pending[i].Consumer != nil {
				return g, fmt.Errorf("%w: a consumer's pending entry is not the group's", errFormat)
			}
			g.Pending[i].Consumer = c.Name
			c.Pending++
		}
		g.Consumers = append(g.Consumers, c)
	}
	for _, p := range g.Pending {
		if p.Consumer == nil {
			return g, fmt.Errorf("%w: a pending entry without a consumer", errFormat)
		}
	}
	return g, nil
}

// streamID reads an ID as two lengths.
func (r *reader) streamID() (StreamID, error) {
	ms, err := r.plainLength()
	if err != nil {
		return StreamID{}, err
	}
	seq, err := r.plainLength()
	return StreamID{ms, seq}, err
}

// rawStreamID reads a 16-byte big-endian ID.
func rawStreamID(b []byte) StreamID {
	return StreamID{binary.BigEndian.Uint64(b), binary.BigEndian.Uint64(b[8:])}
}

// entriesReadAt is Redis 7.0's estimate of a group's entries read from
// its last delivered ID, for files of Redis 5 and 6, which did not keep
// it (streamEstimateDistanceFromFirstEverEntry); -1 when it cannot tell.
func (s *StreamInfo) entriesReadAt(id StreamID) int64 {
	if s.EntriesAdded == 0 {
		return 0
	}
	if s.Length == 0 && id.Compare(s.LastID) < 1 {
		return int64(s.EntriesAdded)
	}
	switch c := id.Compare(s.LastID); {
	case c == 0:
		return int64(s.EntriesAdded)
	case c > 0:
		return -1
	}
	if s.MaxDeletedID == (StreamID{}) || s.MaxDeletedID.Compare(s.FirstID) < 0 {
		switch c := id.Compare(s.FirstID); {
		case c < 0:
			return int64(s.EntriesAdded - s.Length)
		case c == 0:
			return int64(s.EntriesAdded - s.Length + 1)
		}
	}
	return -1
}
