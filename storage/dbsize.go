package storage

import (
	"log/slog"
	"sync/atomic"
	"time"
)

// dbSizeLimit is Kvrocks's max-db-size: once the SST files (INFO's
// used_db_size) reach max-db-size GB, writes that add data are refused
// until compactions or deletions bring them below again. The size is
// looked at when max-db-size changes and, while a limit is set, at most
// once a second by the writes that ask.
type dbSizeLimit struct {
	s       *Storage
	reached atomic.Bool
	checked atomic.Int64 // time of the last look, Unix nanoseconds
	unhook  func()
}

// dbSizeCheckEvery is how stale the look at the size may be.
const dbSizeCheckEvery = time.Second

func (d *dbSizeLimit) init(s *Storage) {
	d.s = s
	d.unhook = s.cfg.Hook("max-db-size", func() error {
		d.check()
		return nil
	})
	d.check()
}

// check looks at the size now.
func (d *dbSizeLimit) check() {
	d.checked.Store(time.Now().UnixNano())
	limitGB := d.s.cfg.MaxDBSize.Get()
	reached := limitGB > 0 && !d.s.closing.Load() && d.s.SSTBytes() >= limitGB<<30
	if d.reached.Swap(reached) == reached {
		return
	}
	if reached {
		slog.Warn("max-db-size reached: writes that add data are refused", "max-db-size GB", limitGB, "used_db_size", d.s.SSTBytes())
	} else {
		slog.Warn("below max-db-size again: writes are accepted")
	}
}

// SetDBSizeLimitReached forces the max-db-size state until the next size
// check (Kvrocks's DEBUG DBSIZE-LIMIT, for tests of the refusal).
func (s *Storage) SetDBSizeLimitReached(reached bool) {
	s.dbSize.checked.Store(time.Now().UnixNano())
	s.dbSize.reached.Store(reached)
}

// DBSizeLimitReached reports whether the database has reached max-db-size,
// so that writes adding data must be refused (Kvrocks's "write command not
// allowed when reached max-db-size.").
func (s *Storage) DBSizeLimitReached() bool {
	d := &s.dbSize
	if s.cfg.MaxDBSize.Get() == 0 && !d.reached.Load() {
		return false
	}
	last := d.checked.Load()
	if time.Now().UnixNano()-last > int64(dbSizeCheckEvery) && d.checked.CompareAndSwap(last, time.Now().UnixNano()) {
		d.check()
	}
	return d.reached.Load()
}
