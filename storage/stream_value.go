package storage

import (
	"fmt"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/rdb"
	"github.com/linxGnu/grocksdb"
)

// A stream as a whole value, in Redis's terms (rdb.StreamInfo), as DUMP
// reads it and RESTORE and RDB LOAD write it: its entries, its counters,
// and its consumer groups with their pending entries and consumers.

// readStream reads the whole stream c, whose metadata extension is rest,
// as of snap into v.
func (db DB) readStream(snap *grocksdb.Snapshot, c *collection, rest []byte, v *Value) error {
	s, err := decodeStream(c, rest)
	if err != nil {
		return err
	}
	view := &streamView{stream: s, snap: snap}
	v.Entries = make([]rdb.StreamEntry, 0, min(s.meta.Size, 1<<16))
	err = s.entries(snap, metadata.StreamID{}, metadata.MaxStreamID, false, 0, func(e StreamEntry) bool {
		fields := make([][]byte, len(e.FieldsValues))
		for i, f := range e.FieldsValues {
			fields[i] = append([]byte(nil), f...)
		}
		v.Entries = append(v.Entries, rdb.StreamEntry{ID: rdb.StreamID(e.ID), Fields: fields})
		return true
	})
	if err != nil {
		return err
	}
	groups, err := view.groups(true, 0)
	if err != nil {
		return err
	}
	v.Stream = &rdb.StreamInfo{
		Length: s.meta.Size, LastID: rdb.StreamID(s.sm.LastGenerated), FirstID: rdb.StreamID(s.sm.RecordedFirst),
		MaxDeletedID: rdb.StreamID(s.sm.MaxDeleted), EntriesAdded: s.sm.EntriesAdded,
	}
	for _, g := range groups {
		rg := rdb.StreamGroup{Name: g.Name, LastID: rdb.StreamID(g.LastDelivered), EntriesRead: g.EntriesRead}
		consumers := make(map[string]bool, len(g.ConsumerList))
		for _, c := range g.ConsumerList {
			rg.Consumers = append(rg.Consumers, rdb.StreamConsumer{Name: c.Name, SeenTime: c.SeenTime, ActiveTime: c.ActiveTime, Pending: c.Pending})
			consumers[string(c.Name)] = true
		}
		for _, p := range g.PendingList {
			if !consumers[string(p.Consumer)] {
				return fmt.Errorf("%w: pending entry %v of group %q of stream %q names no consumer of the group", ErrCorrupt, p.ID, g.Name, c.key)
			}
			rg.Pending = append(rg.Pending, rdb.StreamPending{
				ID: rdb.StreamID(p.ID), DeliveryTime: p.DeliveryTime, DeliveryCount: p.DeliveryCount, Consumer: p.Consumer,
			})
		}
		v.Stream.Groups = append(v.Stream.Groups, rg)
	}
	return nil
}

// putStream adds to b the stream c, whose metadata is new, with v's
// entries and groups.
func (db DB) putStream(b *batch, c *collection, v *Value) {
	s := &stream{collection: c}
	for _, e := range v.Entries {
		b.put(CFStream, s.entryKey(metadata.StreamID(e.ID)), metadata.AppendStreamEntryValue(nil, e.Fields))
	}
	var ends [2]metadata.StreamID
	if n := len(v.Entries); n > 0 {
		ends = [2]metadata.StreamID{metadata.StreamID(v.Entries[0].ID), metadata.StreamID(v.Entries[n-1].ID)}
	}
	c.meta.Size = uint64(len(v.Entries))
	s.sm = streamMetaOf(v.Stream, ends)
	prefix := s.subPrefix(0)
	for _, r := range streamGroupRecords(v.Stream, s.sm, c.meta.Size) {
		b.put(CFStream, append(prefix[:len(prefix):len(prefix)], r[0]...), r[1])
	}
	s.save(b)
}

// streamMetaOf is the metadata extension of the stream info describes,
// whose first and last entries are ends.
func streamMetaOf(info *rdb.StreamInfo, ends [2]metadata.StreamID) metadata.StreamMeta {
	return metadata.StreamMeta{
		LastGenerated: metadata.StreamID(info.LastID), RecordedFirst: metadata.StreamID(info.FirstID),
		MaxDeleted: metadata.StreamID(info.MaxDeletedID), EntriesAdded: info.EntriesAdded,
		First: ends[0], Last: ends[1], Groups: uint64(len(info.Groups)),
	}
}

// streamGroupRecords returns the records (subkey after the stream's
// prefix, value) of info's groups, consumers and pending entries, for a
// stream of length entries whose extension is sm: a group's record
// holds its lag.
func streamGroupRecords(info *rdb.StreamInfo, sm metadata.StreamMeta, length uint64) [][2][]byte {
	var out [][2][]byte
	for _, g := range info.Groups {
		rec := metadata.StreamGroup{Consumers: uint64(len(g.Consumers)), Pending: uint64(len(g.Pending)),
			LastDelivered: metadata.StreamID(g.LastID), EntriesRead: g.EntriesRead}
		if lag, ok := sm.Lag(length, rec); ok {
			rec.Lag = uint64(lag)
		}
		out = append(out, [2][]byte{metadata.AppendStreamGroupKey(nil, g.Name), rec.AppendTo(nil)})
		for _, c := range g.Consumers {
			cr := metadata.StreamConsumer{Pending: c.Pending, SeenTime: c.SeenTime, ActiveTime: c.ActiveTime}
			out = append(out, [2][]byte{metadata.AppendStreamConsumerKey(nil, g.Name, c.Name), cr.AppendTo(nil)})
		}
		for _, p := range g.Pending {
			pr := metadata.StreamPending{DeliveryTime: p.DeliveryTime, DeliveryCount: p.DeliveryCount, Consumer: p.Consumer}
			out = append(out, [2][]byte{metadata.AppendStreamPendingKey(nil, g.Name, metadata.StreamID(p.ID)), pr.AppendTo(nil)})
		}
	}
	return out
}
