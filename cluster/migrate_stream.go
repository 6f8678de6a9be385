package cluster

import (
	"fmt"
	"strconv"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
)

// sendStream sends the commands that rebuild stream k on the destination,
// as Redis propagates a stream: an XADD per entry, XGROUP CREATE per
// group with its last delivered ID and entries-read, XGROUP
// CREATECONSUMER per consumer, an XCLAIM ... FORCE per pending entry with
// its owner, delivery time and count, and last XSETID with the stream's
// last ID and counters. The records come in that order (entries, groups,
// consumers, pending entries: FORMAT.md §4.8). A pending entry whose
// entry was deleted is not carried: XCLAIM drops those, as Redis 7 does.
// Consumers' seen times become the time of the migration.
func (m *migrator) sendStream(k *storage.SlotKey) error {
	_, rest, err := metadata.Decode(k.Raw)
	if err != nil {
		return fmt.Errorf("stream %q: %w", k.Key, err)
	}
	sm, err := metadata.DecodeStreamMeta(rest)
	if err != nil {
		return fmt.Errorf("stream %q: %w", k.Key, err)
	}
	id := func(id metadata.StreamID) []byte { return id.AppendText(nil) }
	if k.Meta.Size == 0 {
		// An empty stream: made, then emptied, so that XSETID finds it.
		if err := m.link.send([]byte("XADD"), k.Key, []byte("MAXLEN"), []byte("0"), []byte("0-1"), []byte("x"), []byte("y")); err != nil {
			return err
		}
	}
	err = k.EachElement(func(_ storage.CF, _, sub, value []byte) error {
		r, ok := metadata.ParseStreamSubkey(sub)
		if !ok {
			return fmt.Errorf("stream %q: record %x of no known kind", k.Key, sub)
		}
		m.bytes += int64(len(sub) + len(value))
		switch r.Kind {
		case metadata.StreamEntryRecord:
			fv, err := metadata.ParseStreamEntryValue(value)
			if err != nil {
				return fmt.Errorf("stream %q entry %s: %w", k.Key, r.ID, err)
			}
			return m.link.send(append([][]byte{[]byte("XADD"), k.Key, id(r.ID)}, fv...)...)
		case metadata.StreamGroupRecord:
			g, err := metadata.DecodeStreamGroup(value)
			if err != nil {
				return fmt.Errorf("stream %q group %q: %w", k.Key, r.Group, err)
			}
			return m.link.send([]byte("XGROUP"), []byte("CREATE"), k.Key, r.Group, id(g.LastDelivered),
				[]byte("ENTRIESREAD"), strconv.AppendInt(nil, g.EntriesRead, 10))
		case metadata.StreamConsumerRecord:
			return m.link.send([]byte("XGROUP"), []byte("CREATECONSUMER"), k.Key, r.Group, r.Consumer)
		default:
			p, err := metadata.DecodeStreamPending(value)
			if err != nil {
				return fmt.Errorf("stream %q pending entry %s: %w", k.Key, r.ID, err)
			}
			return m.link.send([]byte("XCLAIM"), k.Key, r.Group, p.Consumer, []byte("0"), id(r.ID),
				[]byte("TIME"), strconv.AppendInt(nil, p.DeliveryTime, 10),
				[]byte("RETRYCOUNT"), strconv.AppendUint(nil, p.DeliveryCount, 10), []byte("FORCE"), []byte("JUSTID"))
		}
	})
	if err != nil {
		return err
	}
	return m.link.send([]byte("XSETID"), k.Key, id(sm.LastGenerated),
		[]byte("ENTRIESADDED"), strconv.AppendUint(nil, sm.EntriesAdded, 10), []byte("MAXDELETEDID"), id(sm.MaxDeleted))
}
