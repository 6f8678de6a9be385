package storage

import (
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// ErrInUse refuses to reopen the database while replication or a slot
// migration reads it.
var ErrInUse = errors.New("storage: the database is in use by replication or a slot migration")

// Reopen closes RocksDB and opens it again on the same files, as DEBUG
// RELOAD asks: the WAL is flushed and synced first, so every write
// acknowledged before is there after. Every holder of the *Storage keeps
// using it. As for Restore, nothing may use the database meanwhile:
// commands are kept out by the caller; what runs outside commands waits
// on s.life. If RocksDB does not open again the error wraps
// ErrWritesStopped: the server must stop. While a WAL reader (a replica's
// link) or a Snapshot (a slot migration) holds on to the database it
// fails with ErrInUse and changes nothing.
func (s *Storage) Reopen() error {
	start := time.Now()
	// A running COMPACT holds s.life shared: stopping it first gets the
	// lock at once.
	s.StopCompactions()
	s.life.Lock()
	defer s.life.Unlock()
	if n := s.pinned.Load(); n > 0 {
		s.closing.Store(false)
		s.db.EnableManualCompaction()
		return fmt.Errorf("%w (%d WAL readers or snapshots)", ErrInUse, n)
	}
	seq := s.db.GetLatestSequenceNumber()
	s.closeEngine()
	if err := s.open(); err != nil {
		return fmt.Errorf("%w: the database did not open again: %v", ErrWritesStopped, err)
	}
	if now := s.db.GetLatestSequenceNumber(); now < seq {
		return fmt.Errorf("%w: the database reopened at sequence %d, before %d", ErrWritesStopped, now, seq)
	}
	slog.Info("storage: database reopened", "took", time.Since(start).Round(time.Millisecond), "sequence", seq)
	return nil
}
