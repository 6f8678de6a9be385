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
	groups, ack, err := s.refGroups(ackGroup, policy)
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
	pels := make([]map[metadata.StreamID]*pendingRecord, len(groups))
	for i, g := range groups {
		if pels[i], err = g.readPending(ids, 0); err != nil {
			return nil, err
		}
	}
	gone := map[metadata.StreamID]bool{}
	dropped := make([]bool, len(groups)) // by group: a pending entry left
	drop := func(j int, id metadata.StreamID) {
		if p := pels[j][id]; p.present {
			groups[j].drop(p)
			dropped[j] = true
		}
	}
	for i, id := range ids {
		if ack >= 0 {
			drop(ack, id)
		}
		for j := range groups {
			if policy == DelRef {
				drop(j, id)
			}
		}
		switch {
		case values[i] == nil || gone[id]:
		case policy == Acked && referenced(groups, pels, id):
			res[i] = DelExKept
		default:
			gone[id] = true
			res[i] = DelExDeleted
		}
	}
	if len(gone) == 0 && !slices.Contains(dropped, true) {
		return res, nil
	}
	b := db.newBatch(TypeLog(metadata.TypeStream))
	for i, g := range groups {
		if dropped[i] {
			g.writePending(b, pels[i])
			g.save(b)
		}
	}
	if len(gone) > 0 {
		if err := s.forget(b, gone); err != nil {
			return nil, err
		}
	}
	return res, b.commit()
}

// refGroups reads the groups a deletion under policy must look at: every
// group for DELREF and ACKED, and the group acknowledging (index ack, -1
// when none) for XACKDEL; ErrNoGroup when that one is missing.
func (s *stream) refGroups(ackGroup []byte, policy StreamRefPolicy) (groups []*groupState, ack int, err error) {
	ack = -1
	var names [][]byte
	if policy != KeepRef && s.sm.Groups > 0 {
		if names, err = s.groupNames(); err != nil {
			return nil, -1, err
		}
	}
	for i, name := range names {
		if ackGroup != nil && bytes.Equal(name, ackGroup) {
			ack = i
		}
	}
	if ackGroup != nil && ack < 0 {
		names, ack = append(names, ackGroup), len(names)
	}
	groups = make([]*groupState, len(names))
	for i, name := range names {
		if groups[i], err = s.group(name); err != nil {
			return nil, -1, err
		}
	}
	return groups, ack, nil
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

// referenced reports whether a group has not yet delivered id or still
// has it pending: ACKED keeps such an entry.
func referenced(groups []*groupState, pels []map[metadata.StreamID]*pendingRecord, id metadata.StreamID) bool {
	for i, g := range groups {
		if id.Compare(g.rec.LastDelivered) > 0 || pels[i][id].present {
			return true
		}
	}
	return false
}
