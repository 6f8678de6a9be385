package storage

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/basaltdb/basalt/metadata"
)

// XCLAIM and XAUTOCLAIM: pending entries change hands (stream_group.go
// keeps the groups).

// XClaimArgs are XCLAIM's arguments. DeliveryTime is the delivery time the
// claimed entries get (the command resolves IDLE and TIME against Now);
// RetryCount is -1 when not given.
type XClaimArgs struct {
	Group, Consumer []byte
	MinIdle         int64
	IDs             []metadata.StreamID
	Now             int64
	DeliveryTime    int64
	RetryCount      int64
	Force, JustID   bool
	LastID          metadata.StreamID
}

// XClaim gives the pending entries ids that have been idle for at least
// MinIdle to a consumer, as Redis's XCLAIM, and returns them in the order
// asked (with JustID, without their fields). Pending entries whose stream
// entry was deleted leave the PEL. ErrNoGroup when the stream or the
// group is absent.
func (db DB) XClaim(key []byte, a *XClaimArgs) ([]StreamEntry, error) {
	g, err := db.streamGroupForWrite(key, a.Group)
	if err != nil {
		return nil, err
	}
	if a.LastID.Compare(g.rec.LastDelivered) > 0 {
		g.rec.LastDelivered = a.LastID
	}
	pel, err := g.readPending(a.IDs, a.Now)
	if err != nil {
		return nil, err
	}
	values, err := g.s.entryValues(a.IDs)
	if err != nil {
		return nil, err
	}
	var c *consumerState
	var out []StreamEntry
	for i, id := range a.IDs {
		p := pel[id]
		if values[i] == nil {
			g.drop(p)
			continue
		}
		if !p.present {
			if !a.Force {
				continue
			}
			g.rec.Pending++
			p.present, p.rec = true, metadata.StreamPending{DeliveryTime: a.Now, DeliveryCount: 1}
		}
		if p.owner != nil && a.MinIdle > 0 && a.Now-p.rec.DeliveryTime < a.MinIdle {
			continue
		}
		if c == nil {
			if c, err = g.consumer(a.Consumer, true, a.Now); err != nil {
				return nil, err
			}
			c.seen(a.Now, true)
		}
		count := p.rec.DeliveryCount
		switch {
		case a.RetryCount >= 0:
			count = uint64(a.RetryCount)
		case !a.JustID:
			count++
		}
		g.assign(p, c, a.DeliveryTime, count)
		e := StreamEntry{ID: id}
		if !a.JustID {
			if e, err = g.s.parseEntry(id, values[i]); err != nil {
				return nil, err
			}
		}
		out = append(out, e)
	}
	b := db.newBatch(TypeLog(metadata.TypeStream))
	g.writePending(b, pel)
	g.save(b)
	return out, b.commit()
}

// XAutoClaimArgs are XAUTOCLAIM's arguments.
type XAutoClaimArgs struct {
	Group, Consumer []byte
	MinIdle         int64
	Start           metadata.StreamID
	Count           int64
	JustID          bool
	Now             int64
}

// XAutoClaimResult is what XAUTOCLAIM replies: the ID to go on from (0-0
// at the end of the PEL), the claimed entries, and the IDs of the pending
// entries whose stream entry was gone, which left the PEL.
type XAutoClaimResult struct {
	Next    metadata.StreamID
	Claimed []StreamEntry
	Deleted []metadata.StreamID
}

// autoClaimAttempts is how many PEL records XAUTOCLAIM looks at per entry
// of its COUNT, as Redis.
const autoClaimAttempts = 10

// XAutoClaim claims, as Redis's XAUTOCLAIM, up to Count pending entries
// from Start on that have been idle for at least MinIdle, looking at no
// more than 10 × Count of them. ErrNoGroup when the stream or the group
// is absent.
func (db DB) XAutoClaim(key []byte, a *XAutoClaimArgs) (XAutoClaimResult, error) {
	var res XAutoClaimResult
	g, err := db.streamGroupForWrite(key, a.Group)
	if err != nil {
		return res, err
	}
	attempts, count := a.Count*autoClaimAttempts, a.Count
	var records []*pendingRecord
	var c *consumerState
	var bad error
	// claim decides about one PEL record; it reports whether to go on.
	claim := func(p *pendingRecord, value []byte) error {
		if err := g.loadPending(p, value, a.Now); err != nil {
			return err
		}
		entry, found, err := g.s.db.get(CFStream, g.s.entryKey(p.id), nil)
		switch {
		case err != nil:
			return err
		case !found:
			g.drop(p)
			res.Deleted = append(res.Deleted, p.id)
			count--
			return nil
		case a.MinIdle > 0 && a.Now-p.rec.DeliveryTime < a.MinIdle:
			return nil
		}
		if c == nil {
			if c, err = g.consumer(a.Consumer, true, a.Now); err != nil {
				return err
			}
			c.seen(a.Now, true)
		}
		n := p.rec.DeliveryCount
		if !a.JustID {
			n++
		}
		g.assign(p, c, a.Now, n)
		e := StreamEntry{ID: p.id}
		if !a.JustID {
			if e, err = g.s.parseEntry(p.id, entry); err != nil {
				return err
			}
		}
		res.Claimed = append(res.Claimed, e)
		count--
		return nil
	}
	err = g.eachPending(a.Start, func(id metadata.StreamID, value []byte) bool {
		if attempts == 0 || count == 0 {
			res.Next = id
			return false
		}
		attempts--
		p := &pendingRecord{id: id}
		records = append(records, p)
		bad = claim(p, value)
		return bad == nil
	})
	if err = errors.Join(err, bad); err != nil {
		return res, err
	}
	b := db.newBatch(TypeLog(metadata.TypeStream))
	for _, p := range records {
		g.writeOne(b, p)
	}
	g.save(b)
	return res, b.commit()
}

// idlePending returns the group's pending entries idle for at least
// minIdle ms at now, the longest idle first (in ID order among equals).
func (g *groupState) idlePending(minIdle, now int64) ([]*pendingRecord, error) {
	var out []*pendingRecord
	var bad error
	err := g.eachPending(metadata.StreamID{}, func(id metadata.StreamID, value []byte) bool {
		rec, err := metadata.DecodeStreamPending(value)
		if err != nil {
			bad = fmt.Errorf("%w: pending entry %s of stream %q: %v", ErrCorrupt, id, g.s.key, err)
			return false
		}
		if now-rec.DeliveryTime >= minIdle {
			rec.Consumer = bytes.Clone(rec.Consumer)
			out = append(out, &pendingRecord{id: id, rec: rec, present: true})
		}
		return true
	})
	if err = errors.Join(err, bad); err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b *pendingRecord) int { return cmp.Compare(a.rec.DeliveryTime, b.rec.DeliveryTime) })
	return out, nil
}

// claim gives consumer c up to count (0: all) of the idle pending entries,
// in their order, adding the writes to b, and returns the entries and how
// each had been delivered. A pending entry whose stream entry is gone
// leaves the PEL and counts for nothing, as with XAUTOCLAIM.
func (g *groupState) claim(b *batch, idle []*pendingRecord, c *consumerState, count, now int64) ([]StreamEntry, []StreamClaim, error) {
	var entries []StreamEntry
	var claims []StreamClaim
	for len(idle) > 0 && (count == 0 || int64(len(entries)) < count) {
		chunk := idle
		if count > 0 {
			chunk = idle[:min(int64(len(idle)), count-int64(len(entries)))]
		}
		idle = idle[len(chunk):]
		ids := make([]metadata.StreamID, len(chunk))
		for i, p := range chunk {
			ids[i] = p.id
		}
		values, err := g.s.entryValues(ids)
		if err != nil {
			return nil, nil, err
		}
		for i, p := range chunk {
			if p.owner, err = g.consumer(p.rec.Consumer, false, now); err != nil {
				return nil, nil, err
			}
			if values[i] == nil {
				g.drop(p)
				g.writeOne(b, p)
				continue
			}
			e, err := g.s.parseEntry(p.id, values[i])
			if err != nil {
				return nil, nil, err
			}
			entries = append(entries, e)
			claims = append(claims, StreamClaim{Idle: max(now-p.rec.DeliveryTime, 0), Count: p.rec.DeliveryCount})
			g.assign(p, c, now, p.rec.DeliveryCount+1)
			g.writeOne(b, p)
		}
	}
	return entries, claims, nil
}
