package metadata

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
)

// Streams (type 8, FORMAT.md §4.8) keep their records in the stream column
// family under the key's subkey prefix:
//
//	entry           u64 ms | u64 seq                                  -> varint-sized fields and values
//	consumer group  FF×8 | 01 | u64 len(group) | group                -> StreamGroup
//	consumer        FF×8 | 02 | u64 len(group) | group | u64 len(c) | c -> StreamConsumer
//	pending entry   FF×8 | 03 | u64 len(group) | group | u64 ms | u64 seq -> StreamPending
//
// Entry IDs never have ms 2^64-1 in the records Kvrocks writes, so the
// group records sort after every entry. The metadata record carries the
// StreamMeta extension after the common header; size is the number of
// entries, and an empty stream stays alive.

// ErrBadStream reports a stream record that does not decode.
var ErrBadStream = errors.New("metadata: malformed stream record")

// StreamID is an entry ID, ms-seq, ordered by ms then seq.
type StreamID struct {
	Ms, Seq uint64
}

// MaxStreamID is the largest ID, the "+" of a range.
var MaxStreamID = StreamID{math.MaxUint64, math.MaxUint64}

// Compare returns -1, 0 or 1 as id is below, equal to or above o.
func (id StreamID) Compare(o StreamID) int {
	switch {
	case id.Ms < o.Ms:
		return -1
	case id.Ms > o.Ms:
		return 1
	case id.Seq < o.Seq:
		return -1
	case id.Seq > o.Seq:
		return 1
	}
	return 0
}

// IsZero reports whether id is 0-0.
func (id StreamID) IsZero() bool { return id.Ms == 0 && id.Seq == 0 }

// Next returns the smallest ID above id; ok is false for the largest ID.
func (id StreamID) Next() (StreamID, bool) {
	switch {
	case id.Seq < math.MaxUint64:
		return StreamID{id.Ms, id.Seq + 1}, true
	case id.Ms < math.MaxUint64:
		return StreamID{id.Ms + 1, 0}, true
	}
	return id, false
}

// Prev returns the largest ID below id; ok is false for 0-0.
func (id StreamID) Prev() (StreamID, bool) {
	switch {
	case id.Seq > 0:
		return StreamID{id.Ms, id.Seq - 1}, true
	case id.Ms > 0:
		return StreamID{id.Ms - 1, math.MaxUint64}, true
	}
	return id, false
}

// AppendText appends the ID as Redis prints it: ms-seq.
func (id StreamID) AppendText(dst []byte) []byte {
	dst = strconv.AppendUint(dst, id.Ms, 10)
	dst = append(dst, '-')
	return strconv.AppendUint(dst, id.Seq, 10)
}

// String returns the ID as Redis prints it.
func (id StreamID) String() string { return string(id.AppendText(nil)) }

// AppendStreamEntryKey appends the subkey of the entry id: u64 ms | u64 seq.
func AppendStreamEntryKey(dst []byte, id StreamID) []byte {
	dst = binary.BigEndian.AppendUint64(dst, id.Ms)
	return binary.BigEndian.AppendUint64(dst, id.Seq)
}

// ParseStreamEntryKey reads the ID of an entry subkey; ok is false for a
// subkey of another length (a group, consumer or pending record).
func ParseStreamEntryKey(sub []byte) (StreamID, bool) {
	if len(sub) != 16 {
		return StreamID{}, false
	}
	return StreamID{binary.BigEndian.Uint64(sub), binary.BigEndian.Uint64(sub[8:])}, true
}

// StreamMeta is the extension of a stream's metadata record, every field
// a u64 in this order. RecordedFirst is Redis's first_id: the first entry
// as last recorded by an append, trim or deletion; First and Last are the
// IDs of the entries at the ends (0-0 when empty).
type StreamMeta struct {
	LastGenerated StreamID
	RecordedFirst StreamID
	MaxDeleted    StreamID
	First         StreamID
	Last          StreamID
	EntriesAdded  uint64
	Groups        uint64
}

// streamMetaLen is the extension's length; older data lacks the final
// group count.
const streamMetaLen = 12 * 8

// AppendTo appends the extension (all twelve fields).
func (s *StreamMeta) AppendTo(dst []byte) []byte {
	for _, id := range [...]StreamID{s.LastGenerated, s.RecordedFirst, s.MaxDeleted, s.First, s.Last} {
		dst = AppendStreamEntryKey(dst, id)
	}
	dst = binary.BigEndian.AppendUint64(dst, s.EntriesAdded)
	return binary.BigEndian.AppendUint64(dst, s.Groups)
}

// DecodeStreamMeta reads the extension that Decode returns as rest for a
// stream; a missing group count reads as 0.
func DecodeStreamMeta(rest []byte) (StreamMeta, error) {
	var s StreamMeta
	if len(rest) < streamMetaLen-8 {
		return s, ErrTooShort
	}
	u := func(i int) uint64 { return binary.BigEndian.Uint64(rest[8*i:]) }
	ids := [...]*StreamID{&s.LastGenerated, &s.RecordedFirst, &s.MaxDeleted, &s.First, &s.Last}
	for i, id := range ids {
		*id = StreamID{u(2 * i), u(2*i + 1)}
	}
	s.EntriesAdded = u(10)
	if len(rest) >= streamMetaLen {
		s.Groups = u(11)
	}
	return s, nil
}

// AppendStreamEntryValue appends the value of an entry: each field and
// value in turn as varint32 length | bytes. Every element must be shorter
// than 4 GiB, which the protocol's bulk limit ensures.
func AppendStreamEntryValue(dst []byte, fieldsValues [][]byte) []byte {
	for _, b := range fieldsValues {
		dst = binary.AppendUvarint(dst, uint64(len(b)))
		dst = append(dst, b...)
	}
	return dst
}

// ParseStreamEntryValue splits an entry value into its fields and values,
// which alias v.
func ParseStreamEntryValue(v []byte) ([][]byte, error) {
	var out [][]byte
	for len(v) > 0 {
		n, w := binary.Uvarint(v)
		if w <= 0 || w > 5 || n > math.MaxUint32 || uint64(len(v)-w) < n {
			return nil, ErrBadStream
		}
		out = append(out, v[w:w+int(n)])
		v = v[w+int(n):]
	}
	if len(out)%2 != 0 {
		return nil, ErrBadStream
	}
	return out, nil
}

// Kinds of the records that follow the entries.
const (
	streamGroupKind    = 1
	streamConsumerKind = 2
	streamPendingKind  = 3
)

// appendStreamGroupPrefix appends FF×8 | kind | u64 len(group) | group.
func appendStreamGroupPrefix(dst []byte, kind byte, group []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, math.MaxUint64)
	dst = append(dst, kind)
	dst = binary.BigEndian.AppendUint64(dst, uint64(len(group)))
	return append(dst, group...)
}

// AppendStreamGroupKey appends the subkey of a consumer group.
func AppendStreamGroupKey(dst, group []byte) []byte {
	return appendStreamGroupPrefix(dst, streamGroupKind, group)
}

// AppendStreamGroupsStart appends the subkey every group record follows:
// the bound of an iteration over the groups.
func AppendStreamGroupsStart(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, math.MaxUint64)
	return append(dst, streamGroupKind)
}

// ParseStreamGroupKey returns the group a group subkey names; ok is false
// for any other subkey.
func ParseStreamGroupKey(sub []byte) (group []byte, ok bool) {
	if len(sub) < 17 || binary.BigEndian.Uint64(sub) != math.MaxUint64 || sub[8] != streamGroupKind {
		return nil, false
	}
	if binary.BigEndian.Uint64(sub[9:]) != uint64(len(sub)-17) {
		return nil, false
	}
	return sub[17:], true
}

// AppendStreamConsumerKey appends the subkey of a consumer of a group.
func AppendStreamConsumerKey(dst, group, consumer []byte) []byte {
	dst = appendStreamGroupPrefix(dst, streamConsumerKind, group)
	dst = binary.BigEndian.AppendUint64(dst, uint64(len(consumer)))
	return append(dst, consumer...)
}

// AppendStreamConsumersStart appends the prefix of every consumer record
// of a group.
func AppendStreamConsumersStart(dst, group []byte) []byte {
	return appendStreamGroupPrefix(dst, streamConsumerKind, group)
}

// ParseStreamConsumerKey returns the consumer a consumer subkey names,
// given its group's prefix length (AppendStreamConsumersStart).
func ParseStreamConsumerKey(sub []byte, prefixLen int) (consumer []byte, ok bool) {
	if len(sub) < prefixLen+8 || binary.BigEndian.Uint64(sub[prefixLen:]) != uint64(len(sub)-prefixLen-8) {
		return nil, false
	}
	return sub[prefixLen+8:], true
}

// AppendStreamPendingKey appends the subkey of a group's pending entry.
func AppendStreamPendingKey(dst, group []byte, id StreamID) []byte {
	return AppendStreamEntryKey(appendStreamGroupPrefix(dst, streamPendingKind, group), id)
}

// AppendStreamPendingStart appends the prefix of every pending record of a
// group.
func AppendStreamPendingStart(dst, group []byte) []byte {
	return appendStreamGroupPrefix(dst, streamPendingKind, group)
}

// StreamGroup is the value of a consumer group record. EntriesRead is -1
// when unknown; Lag is what Kvrocks stores beside it.
type StreamGroup struct {
	Consumers     uint64
	Pending       uint64
	LastDelivered StreamID
	EntriesRead   int64
	Lag           uint64
}

// The sizes of the records of consumer groups: a group's, a consumer's,
// and a pending entry's before its consumer's name.
const (
	StreamGroupSize    = 48
	StreamConsumerSize = 24
	StreamPendingSize  = 24
)

// AppendTo appends the record's value: six u64.
func (g *StreamGroup) AppendTo(dst []byte) []byte {
	for _, u := range [...]uint64{g.Consumers, g.Pending, g.LastDelivered.Ms, g.LastDelivered.Seq, uint64(g.EntriesRead), g.Lag} {
		dst = binary.BigEndian.AppendUint64(dst, u)
	}
	return dst
}

// DecodeStreamGroup reads a consumer group record.
func DecodeStreamGroup(v []byte) (StreamGroup, error) {
	if len(v) != StreamGroupSize {
		return StreamGroup{}, ErrBadStream
	}
	u := func(i int) uint64 { return binary.BigEndian.Uint64(v[8*i:]) }
	return StreamGroup{u(0), u(1), StreamID{u(2), u(3)}, int64(u(4)), u(5)}, nil
}

// StreamConsumer is the value of a consumer record; times are Unix ms.
type StreamConsumer struct {
	Pending    uint64
	SeenTime   int64 // last attempted interaction
	ActiveTime int64 // last successful interaction
}

// AppendTo appends the record's value: three u64.
func (c *StreamConsumer) AppendTo(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, c.Pending)
	dst = binary.BigEndian.AppendUint64(dst, uint64(c.SeenTime))
	return binary.BigEndian.AppendUint64(dst, uint64(c.ActiveTime))
}

// DecodeStreamConsumer reads a consumer record.
func DecodeStreamConsumer(v []byte) (StreamConsumer, error) {
	if len(v) != StreamConsumerSize {
		return StreamConsumer{}, ErrBadStream
	}
	u := func(i int) uint64 { return binary.BigEndian.Uint64(v[8*i:]) }
	return StreamConsumer{u(0), int64(u(1)), int64(u(2))}, nil
}

// StreamPending is the value of a pending entry record: when it was last
// delivered (Unix ms), how often, and to which consumer.
type StreamPending struct {
	DeliveryTime  int64
	DeliveryCount uint64
	Consumer      []byte
}

// AppendTo appends the record's value: u64 time | u64 count | u64
// len(consumer) | consumer.
func (p *StreamPending) AppendTo(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(p.DeliveryTime))
	dst = binary.BigEndian.AppendUint64(dst, p.DeliveryCount)
	dst = binary.BigEndian.AppendUint64(dst, uint64(len(p.Consumer)))
	return append(dst, p.Consumer...)
}

// DecodeStreamPending reads a pending entry record; Consumer aliases v.
func DecodeStreamPending(v []byte) (StreamPending, error) {
	if len(v) < StreamPendingSize || binary.BigEndian.Uint64(v[16:]) != uint64(len(v)-StreamPendingSize) {
		return StreamPending{}, ErrBadStream
	}
	return StreamPending{int64(binary.BigEndian.Uint64(v)), binary.BigEndian.Uint64(v[8:]), v[24:]}, nil
}

// HasTombstonesFrom reports whether a deleted entry may lie at or after
// start among the stream's entries (Redis's streamRangeHasTombstones to
// the end of the stream).
func (s *StreamMeta) HasTombstonesFrom(length uint64, start StreamID) bool {
	if length == 0 || s.MaxDeleted.IsZero() || s.RecordedFirst.Compare(s.MaxDeleted) > 0 {
		return false
	}
	return start.Compare(s.MaxDeleted) <= 0
}

// EntriesBefore returns how many entries were added up to and including
// id, when that can be known (Redis's
// streamEstimateDistanceFromFirstEverEntry).
func (s *StreamMeta) EntriesBefore(length uint64, id StreamID) (uint64, bool) {
	if s.EntriesAdded == 0 {
		return 0, true
	}
	cmpLast := id.Compare(s.LastGenerated)
	if length == 0 && cmpLast < 1 {
		return s.EntriesAdded, true
	}
	switch {
	case cmpLast == 0:
		return s.EntriesAdded, true
	case cmpLast > 0:
		return 0, false
	}
	if s.MaxDeleted.IsZero() || s.MaxDeleted.Compare(s.RecordedFirst) < 0 {
		switch id.Compare(s.RecordedFirst) {
		case -1:
			return s.EntriesAdded - length, true
		case 0:
			return s.EntriesAdded - length + 1, true
		}
	}
	return 0, false
}

// Lag returns how many entries of a stream of length entries a group has
// yet to read, as Redis 7.0 reports it; ok is false when that is unknown.
func (s *StreamMeta) Lag(length uint64, g StreamGroup) (lag int64, ok bool) {
	switch {
	case s.EntriesAdded == 0:
		return 0, true
	case g.EntriesRead != -1 && !s.HasTombstonesFrom(length, g.LastDelivered):
		return int64(s.EntriesAdded) - g.EntriesRead, true
	}
	read, ok := s.EntriesBefore(length, g.LastDelivered)
	if !ok {
		return 0, false
	}
	return int64(s.EntriesAdded - read), true
}

// StreamRecord is what a stream subkey names: an entry (ID), a group
// (Group), a consumer (Group, Consumer) or a pending entry (Group, ID).
// Group and Consumer alias the subkey.
type StreamRecord struct {
	Kind            StreamRecordKind
	ID              StreamID
	Group, Consumer []byte
}

// StreamRecordKind tells the records of a stream apart.
type StreamRecordKind uint8

// The kinds of stream records.
const (
	StreamEntryRecord StreamRecordKind = iota
	StreamGroupRecord
	StreamConsumerRecord
	StreamPendingRecord
)

// ParseStreamSubkey reads a subkey of a stream's records.
func ParseStreamSubkey(sub []byte) (StreamRecord, bool) {
	if id, ok := ParseStreamEntryKey(sub); ok {
		return StreamRecord{Kind: StreamEntryRecord, ID: id}, true
	}
	if len(sub) < 17 || binary.BigEndian.Uint64(sub) != math.MaxUint64 {
		return StreamRecord{}, false
	}
	n := binary.BigEndian.Uint64(sub[9:])
	if n > uint64(len(sub)-17) {
		return StreamRecord{}, false
	}
	r := StreamRecord{Group: sub[17 : 17+n]}
	rest := sub[17+n:]
	switch sub[8] {
	case streamGroupKind:
		r.Kind = StreamGroupRecord
		return r, len(rest) == 0
	case streamConsumerKind:
		c, ok := ParseStreamConsumerKey(sub, int(17+n))
		r.Kind, r.Consumer = StreamConsumerRecord, c
		return r, ok
	case streamPendingKind:
		id, ok := ParseStreamEntryKey(rest)
		r.Kind, r.ID = StreamPendingRecord, id
		return r, ok
	}
	return StreamRecord{}, false
}
