package storage

import (
	"bytes"
	"crypto/rand"
	"errors"
)

// The replication id (REPLICATION.md §5, Kvrocks's use-rsid-psync): 16
// characters of [0-9A-Z] naming a history of writes. While a node has
// one, every local write batch ends with the LogData record "r <id>", so
// the WAL says which history each sequence number belongs to. A replica
// sends the id of its last batch with PSYNC; its master compares it with
// the id of its own batch holding that sequence number, and a mismatch (a
// promoted replica's new history against a demoted master's old one)
// makes the replica sync in full instead of resuming on diverged data.

// replIDPropagateKey is where the propagate column family keeps the id.
const replIDPropagateKey = "replication_id_"

// ReplIDLen is the length of a replication id.
const ReplIDLen = 16

// ShiftReplID starts a new history: a fresh id, marking every local write
// from now on, written to the propagate column family (itself the first
// write marked).
func (s *Storage) ShiftReplID() (string, error) {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	var raw [ReplIDLen]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	id := make([]byte, ReplIDLen)
	for i, b := range raw {
		// 256 = 7*36 + 4: the bias toward the first four characters is
		// irrelevant to an id that only has to differ.
		id[i] = alphabet[int(b)%len(alphabet)]
	}
	marker := append([]byte("r "), id...)
	s.replMarker.Store(&marker)
	return string(id), s.PutPropagated(replIDPropagateKey, id)
}

// ClearReplID stops marking writes: a replica writes its master's
// batches, which carry the master's id.
func (s *Storage) ClearReplID() { s.replMarker.Store(nil) }

// LastReplID returns the id a replica sends with PSYNC: the one of the
// batch holding its latest sequence number, else the one the propagate
// column family holds; "" when neither has one.
func (s *Storage) LastReplID() string {
	if id := s.ReplIDAt(s.LatestSequence()); id != "" {
		return id
	}
	v, found, err := s.GetPropagated(replIDPropagateKey)
	if err != nil || !found || len(v) != ReplIDLen {
		return ""
	}
	return string(v)
}

// ReplIDAt returns the id marking the batch that holds sequence number
// seq (its last marker), or "" when seq is past the latest, the WAL no
// longer holds it, or the batch has no marker.
func (s *Storage) ReplIDAt(seq uint64) string {
	if seq == 0 || seq > s.LatestSequence() {
		return ""
	}
	id := ""
	_, err := s.ReadWALBatches(seq-1, func(b WALBatch) error {
		if b.Seq <= seq && seq <= b.Last() {
			id = s.lastMarker(b.Data)
		}
		return ErrStopWAL
	})
	if err != nil && !errors.Is(err, ErrStopWAL) {
		return ""
	}
	return id
}

// lastMarker returns the id of the last "r <id>" LogData of a batch.
func (s *Storage) lastMarker(data []byte) string {
	records, err := s.WALRecords(data)
	if err != nil {
		return ""
	}
	id := ""
	for _, r := range records {
		if r.Kind == RecordLogData && len(r.Value) == 2+ReplIDLen && bytes.HasPrefix(r.Value, []byte("r ")) {
			id = string(r.Value[2:])
		}
	}
	return id
}
