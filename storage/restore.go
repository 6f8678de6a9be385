package storage

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
)

// A replica's full sync replaces its whole database with a checkpoint of
// its master's (REPLICATION.md §3.3). Restore does it in place, so that
// every holder of the *Storage keeps using it: it closes RocksDB, moves
// <dir>/db aside, moves the checkpoint to <dir>/db and opens it; should
// that fail, the old database is put back and reopened.
//
// Nothing may use the database meanwhile. Commands are kept out by the
// caller (the server's gate); what runs outside commands (Durable before
// replies are sent, statistics, the compaction crons, WAL readers) takes
// the engine lock s.life, which Restore holds exclusively.

// CompleteMarker is the file a replica writes into a fetched checkpoint
// once every file of it is there: only such a directory is swapped in
// (see RecoverRestore).
const CompleteMarker = "BASALT-FULLSYNC-COMPLETE"

// Restore swaps in the checkpoint in dir (which must hold
// CompleteMarker), then reopens. On failure the old database is open
// again, unless reopening it failed too (the error then wraps
// ErrWritesStopped: the server must stop).
func (s *Storage) Restore(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, CompleteMarker)); err != nil {
		return fmt.Errorf("storage: restore: %s is not a complete checkpoint: %w", dir, err)
	}
	s.StopCompactions()
	s.life.Lock()
	defer s.life.Unlock()
	s.closeEngine()
	old := s.dir + ".tmp"
	os.RemoveAll(old)
	swapErr := swapDirs(s.dir, old, dir)
	if swapErr == nil {
		if swapErr = s.open(); swapErr == nil {
			os.RemoveAll(old)
			os.Remove(filepath.Join(s.dir, CompleteMarker))
			slog.Info("storage: the database is now the master's checkpoint", "sequence", s.db.GetLatestSequenceNumber())
			return nil
		}
		// Put the old database back.
		os.RemoveAll(s.dir)
		if err := os.Rename(old, s.dir); err != nil {
			return fmt.Errorf("%w: restore failed (%v) and the old database could not be put back: %v", ErrWritesStopped, swapErr, err)
		}
	}
	if err := s.open(); err != nil {
		return fmt.Errorf("%w: restore failed (%v) and the old database does not open: %v", ErrWritesStopped, swapErr, err)
	}
	return fmt.Errorf("storage: restore: %w", swapErr)
}

// swapDirs renames db to old and checkpoint to db, undoing the first when
// the second fails.
func swapDirs(db, old, checkpoint string) error {
	if err := os.Rename(db, old); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.Rename(checkpoint, db); err != nil {
		os.Rename(old, db)
		return err
	}
	return nil
}

// RecoverRestore finishes or undoes a swap a crash interrupted, before
// the database is opened: a complete checkpoint already renamed to
// <dir>/db is kept; a <dir>/db.tmp without a <dir>/db goes back. A
// checkpoint still being fetched is never opened.
func RecoverRestore(dataDir string) {
	db := filepath.Join(dataDir, "db")
	old := db + ".tmp"
	if _, err := os.Stat(old); err != nil {
		return
	}
	if _, err := os.Stat(db); errors.Is(err, os.ErrNotExist) {
		os.Rename(old, db)
		return
	}
	if _, err := os.Stat(filepath.Join(db, CompleteMarker)); err == nil {
		os.Remove(filepath.Join(db, CompleteMarker))
	}
	os.RemoveAll(old)
}
