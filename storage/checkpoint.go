package storage

import (
	"fmt"
	"os"
)

// Checkpoint creates a RocksDB checkpoint of the database in dir, which
// must not exist: hard links to the SST files, copies of the rest (the WAL
// files too, unless they are larger than rocksdb.write_buffer_size, when
// RocksDB flushes the memtables instead), as Kvrocks makes them for a full
// sync. It returns a sequence number the checkpoint holds (the latest one
// when it began): every later one is in the WAL or in the checkpoint.
func (s *Storage) Checkpoint(dir string) (uint64, error) {
	seq := s.LatestSequence()
	// The WAL buffer must reach the file the checkpoint copies.
	if err := s.Durable(seq); err != nil {
		return 0, err
	}
	s.life.RLock()
	defer s.life.RUnlock()
	cp, err := s.db.NewCheckpoint()
	if err != nil {
		return 0, fmt.Errorf("storage: checkpoint: %w", err)
	}
	defer cp.Destroy()
	if err := cp.CreateCheckpoint(dir, uint64(s.cfg.RocksDB.WriteBufferSize.Get())<<20); err != nil {
		os.RemoveAll(dir)
		return 0, fmt.Errorf("storage: checkpoint in %s: %w", dir, err)
	}
	return seq, nil
}

// DataDir returns the directory RocksDB's files are in (<dir>/db).
func (s *Storage) DataDir() string { return s.dir }
