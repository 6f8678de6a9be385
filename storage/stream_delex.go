package storage

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/basaltdb/basalt/metadata"
)

// XDELEX and XACKDEL (Redis 8.2): entries deleted under a policy for the
// consumer groups' references to them.

// StreamRefPolicy is what a deletion does with the groups' references.
type StreamRefPolicy uint8

// The policies: KEEPREF leaves the pending entries (XDEL's way), DELREF
// removes them from every group, ACKED deletes only entries every group
// has delivered and acknowledged.
const (
	KeepRef StreamRefPolicy = iota
	DelRef
	Acked
)

// The per-ID results of XDelEx.
const (
	DelExNoEntry = -1 // no such entry (or no such stream or group)
	DelExDeleted = 1
	DelExKept    = 2 // ACKED: a group still references it
)

// XDelEx deletes the entries ids from the stream key under policy, and
// returns a result per ID (DelExNoEntry, DelExDeleted, DelExKept). With
// ackGroup (XACKDEL) each ID is first acknowledged in that group; a
// missing group answers DelExNoEntry for every ID, as a missing key does.
// DELREF also removes the references to IDs no longer in the stream.
func (db DB) XDelEx(key, ackGroup []byte, policy StreamRefPolicy, ids []metadata.StreamID) ([]int64, error) {
	res := make([]int64, len(ids))
	for i := range res {
		res[i] = DelExNoEntry
	}
	s, err := db.streamForWrite(key)
	if err != nil || !s.exists {
		return res, err
	}
	refs, err := s.refsFor(ackGroup, policy)
	if errors.Is(err, ErrNoGroup) {
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	values, err := s.entryValues(ids)
	if err != nil {
		return nil, err
	}
	if err := refs.load(ids); err != nil {
		return nil, err
	}
	gone := map[metadata.StreamID]bool{}
	for i, id := range ids {
		if refs.ack >= 0 {
			refs.drop(refs.ack, id)
		}
		deletable := refs.release(id)
		switch {
		case values[i] == nil || gone[id]:
		case !deletable:
			res[i] = DelExKept
		default:
			gone[id] = true
			res[i] = DelExDeleted
		}
	}
	if len(gone) == 0 && !refs.changed() {
		return res, nil
	}
	b := db.newBatch(TypeLog(metadata.TypeStream))
	refs.save(b)
	if len(gone) > 0 {
		if err := s.forget(b, gone); err != nil {
			return nil, err
		}
	}
	return res, b.commit()
}

// streamRefs applies a policy to the consumer groups' references to the
// entries a command deletes, XDELEX's, XACKDEL's, and XADD's and XTRIM's
// when they trim: the one place of the rule of §3.1 of Redis 8.2.
type streamRefs struct {
	policy  StreamRefPolicy
	groups  []*groupState
	ack     int // the index in groups of XACKDEL's group, -1 for none
	pels    []map[metadata.StreamID]*pendingRecord
	dropped []bool // by group: a pending entry left
}

// refsFor reads the groups a deletion under policy must look at: every
// group for DELREF and ACKED, and the group acknowledging for XACKDEL
// (ackGroup, nil for none); ErrNoGroup when that one is missing.
func (s *stream) refsFor(ackGroup []byte, policy StreamRefPolicy) (*streamRefs, error) {
	r := &streamRefs{policy: policy, ack: -1}
	var names [][]byte
	var err error
	if policy != KeepRef && s.sm.Groups > 0 {
		if names, err = s.groupNames(); err != nil {
			return nil, err
		}
	}
	for i, name := range names {
		if ackGroup != nil && bytes.Equal(name, ackGroup) {
			r.ack = i
		}
	}
	if ackGroup != nil && r.ack < 0 {
		names, r.ack = append(names, ackGroup), len(names)
	}
	r.groups = make([]*groupState, len(names))
	r.pels = make([]map[metadata.StreamID]*pendingRecord, len(names))
	r.dropped = make([]bool, len(names))
	for i, name := range names {
		if r.groups[i], err = s.group(name); err != nil {
			return nil, err
		}
		r.pels[i] = map[metadata.StreamID]*pendingRecord{}
	}
	return r, nil
}

// load reads the groups' PEL records of ids, which release and drop then
// look at; it keeps those present only (a trim loads every entry it
// walks).
func (r *streamRefs) load(ids []metadata.StreamID) error {
	for i, g := range r.groups {
		recs, err := g.readPending(ids, 0)
		if err != nil {
			return err
		}
		for id, p := range recs {
			if _, known := r.pels[i][id]; !known && p.present {
				r.pels[i][id] = p
			}
		}
	}
	return nil
}

// drop removes id from group j's PEL, if there.
func (r *streamRefs) drop(j int, id metadata.StreamID) {
	if p := r.pels[j][id]; p != nil && p.present {
		r.groups[j].drop(p)
		r.dropped[j] = true
	}
}

// release applies the policy to the deletion of entry id, loaded, and
// reports whether the entry may go: DELREF removes it from every PEL,
// ACKED keeps it while a group has not yet delivered it or still has it
// pending.
func (r *streamRefs) release(id metadata.StreamID) bool {
	switch r.policy {
	case DelRef:
		for j := range r.groups {
			r.drop(j, id)
		}
	case Acked:
		for i, g := range r.groups {
			if id.Compare(g.rec.LastDelivered) > 0 {
				return false
			}
			if p := r.pels[i][id]; p != nil && p.present {
				return false
			}
		}
	}
	return true
}

// changed reports whether a PEL changed.
func (r *streamRefs) changed() bool { return slices.Contains(r.dropped, true) }

// save adds to b the PELs and groups that changed.
func (r *streamRefs) save(b *batch) {
	for i, g := range r.groups {
		if r.dropped[i] {
			g.writePending(b, r.pels[i])
			g.save(b)
		}
	}
}

// groupNames reads the names of the stream's consumer groups.
func (s *stream) groupNames() ([][]byte, error) {
	prefix := s.subPrefix(9)
	lower := metadata.AppendStreamGroupsStart(prefix)
	it := s.db.newIterator(CFStream, lower, metadata.PrefixEnd(lower), nil)
	defer it.close()
	it.Seek(lower)
	var names [][]byte
	var bad error
	err := it.walk(false, 0, func(key, _ []byte) bool {
		name, ok := metadata.ParseStreamGroupKey(key[len(prefix):])
		if !ok {
			bad = fmt.Errorf("%w: consumer group key of stream %q", ErrCorrupt, s.key)
			return false
		}
		names = append(names, bytes.Clone(name))
		return true
	})
	return names, errors.Join(err, bad)
}
