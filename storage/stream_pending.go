package storage

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/basaltdb/basalt/metadata"
)

// Reads of consumer groups' pending entries: XPENDING's summary and
// ranges, each as of one snapshot.

// groupAt reads the view's group name; ErrNoGroup when absent.
func (v *streamView) groupAt(name []byte) (metadata.StreamGroup, error) {
	prefix, _ := v.prefix()
	raw, found, err := v.db.s.getAt(v.snap, CFStream, metadata.AppendStreamGroupKey(bytes.Clone(prefix), name))
	switch {
	case err != nil:
		return metadata.StreamGroup{}, err
	case !found:
		return metadata.StreamGroup{}, ErrNoGroup
	}
	g, err := metadata.DecodeStreamGroup(raw)
	if err != nil {
		return g, fmt.Errorf("%w: group %q of stream %q: %v", ErrCorrupt, name, v.key, err)
	}
	return g, nil
}

// streamGroupRead opens a view of a stream that has group name; release
// it when done. ErrNoGroup when the stream or the group is absent.
func (db DB) streamGroupRead(key, group []byte) (*streamView, metadata.StreamGroup, error) {
	v, err := db.streamRead(key)
	switch {
	case err != nil:
		return nil, metadata.StreamGroup{}, err
	case v == nil:
		return nil, metadata.StreamGroup{}, ErrNoGroup
	}
	g, err := v.groupAt(group)
	if err != nil {
		v.release()
		return nil, g, err
	}
	return v, g, nil
}

// StreamPendingSummary is XPENDING's summary of a group's PEL: its size,
// its first and last IDs, and the consumers with pending entries, in name
// order.
type StreamPendingSummary struct {
	Count       uint64
	First, Last metadata.StreamID
	Consumers   []StreamConsumerInfo
}

// XPendingSummary summarizes a group's pending entries. ErrNoGroup when
// the stream or the group is absent.
func (db DB) XPendingSummary(key, group []byte) (StreamPendingSummary, error) {
	var sum StreamPendingSummary
	v, g, err := db.streamGroupRead(key, group)
	if err != nil {
		return sum, err
	}
	defer v.release()
	sum.Count = g.Pending
	if sum.Count == 0 {
		return sum, nil
	}
	prefix, _ := v.prefix()
	lower := metadata.AppendStreamPendingStart(bytes.Clone(prefix), group)
	it := v.db.newIterator(CFStream, lower, metadata.PrefixEnd(lower), v.snap)
	defer it.close()
	for i, end := range []*metadata.StreamID{&sum.First, &sum.Last} {
		if i == 0 {
			it.SeekToFirst()
		} else {
			it.SeekToLast()
		}
		if !it.Valid() {
			return sum, it.Err()
		}
		id, ok := metadata.ParseStreamEntryKey(it.keyData()[len(lower):])
		if !ok {
			return sum, fmt.Errorf("%w: pending entry key of stream %q", ErrCorrupt, key)
		}
		*end = id
	}
	info := StreamGroupInfo{Name: group}
	if err := v.consumers(&info); err != nil {
		return sum, err
	}
	for _, c := range info.ConsumerList {
		if c.Pending > 0 {
			sum.Consumers = append(sum.Consumers, c)
		}
	}
	return sum, nil
}

// XPendingArgs select XPENDING's pending entries: IDs from Start to End,
// at most Count, idle for at least MinIdle ms at Now, of Consumer (nil:
// any).
type XPendingArgs struct {
	Start, End metadata.StreamID
	Count      int64
	MinIdle    int64
	Consumer   []byte
	Now        int64
}

// XPendingRange lists a group's pending entries as a selects them.
// ErrNoGroup when the stream or the group is absent.
func (db DB) XPendingRange(key, group []byte, a XPendingArgs) ([]StreamPendingInfo, error) {
	v, _, err := db.streamGroupRead(key, group)
	if err != nil {
		return nil, err
	}
	defer v.release()
	prefix, _ := v.prefix()
	if a.Consumer != nil {
		_, found, err := v.db.s.getAt(v.snap, CFStream, metadata.AppendStreamConsumerKey(bytes.Clone(prefix), group, a.Consumer))
		if err != nil || !found {
			return nil, err
		}
	}
	if a.Count <= 0 || a.Start.Compare(a.End) > 0 {
		return nil, nil
	}
	base := metadata.AppendStreamPendingStart(bytes.Clone(prefix), group)
	lower := metadata.AppendStreamEntryKey(bytes.Clone(base), a.Start)
	upper := metadata.PrefixEnd(base)
	if next, ok := a.End.Next(); ok {
		upper = metadata.AppendStreamEntryKey(bytes.Clone(base), next)
	}
	var out []StreamPendingInfo
	var bad error
	err = v.scanAt(lower, upper, func(key, value []byte) bool {
		id, ok := metadata.ParseStreamEntryKey(key[len(base):])
		p, err := metadata.DecodeStreamPending(value)
		if !ok || err != nil {
			bad = fmt.Errorf("%w: pending entry record of stream %q", ErrCorrupt, v.key)
			return false
		}
		if (a.Consumer != nil && !bytes.Equal(p.Consumer, a.Consumer)) || (a.MinIdle != 0 && a.Now-p.DeliveryTime < a.MinIdle) {
			return true
		}
		p.Consumer = bytes.Clone(p.Consumer)
		out = append(out, StreamPendingInfo{ID: id, StreamPending: p})
		return int64(len(out)) < a.Count
	})
	return out, errors.Join(err, bad)
}
