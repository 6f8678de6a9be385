package storage

import (
	"fmt"

	"github.com/linxGnu/grocksdb"
)

// FlushMemtables writes the memtables of every column family to SST files
// and returns once they are written (FLUSHMEMTABLE).
func (s *Storage) FlushMemtables() error {
	s.life.RLock()
	defer s.life.RUnlock()
	if s.closing.Load() {
		return fmt.Errorf("storage: flush memtables: %w", errClosing)
	}
	opts := grocksdb.NewDefaultFlushOptions()
	defer opts.Destroy()
	opts.SetWait(true)
	handles := append([]*grocksdb.ColumnFamilyHandle(nil), s.foreign...)
	for i := range s.cfs {
		if h := s.cfs[i].Load(); h != nil {
			handles = append(handles, h)
		}
	}
	for _, h := range handles {
		if err := s.db.FlushCF(h, opts); err != nil {
			return fmt.Errorf("storage: flush memtables: %w", err)
		}
	}
	return nil
}

// DropBlockCache erases the block cache's entries that no reader holds
// (FLUSHBLOCKCACHE): the next reads of their blocks go to the files.
func (s *Storage) DropBlockCache() {
	s.life.RLock()
	defer s.life.RUnlock()
	eraseUnreferenced(s.cache)
}
