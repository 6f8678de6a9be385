package storage

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/rdb"
)

// RDB LOAD: the keys of one database of a Redis RDB file, into a
// namespace. The file is checked whole first (its checksum), then read
// once more as it is imported, a value's elements a chunk at a time, so
// that neither the file nor a big collection is ever held in memory.

// ErrNotRegularFile refuses to load what is not a regular file (a
// directory, a device, a pipe).
var ErrNotRegularFile = errors.New("storage: not a regular file")

// RDBLoadStats counts what LoadRDB did with the keys of the database it
// loaded, as Kvrocks logs them.
type RDBLoadStats struct {
	Loaded, Expired, Empty, Existing int64
	// Skipped are what Basalt has no place for (functions, modules).
	Skipped int
	Version int
}

// LoadRDB imports the keys of database dbIndex of the RDB file at path;
// with nx, keys that exist are left alone. Keys already expired and
// empty collections are skipped, as Redis skips them. It logs its
// progress every few seconds. A file that is not a regular file, whose
// signature, version or checksum is wrong, is refused before anything is
// written; one that turns out malformed further on stops the import with
// the keys before it loaded.
func (db DB) LoadRDB(path string, dbIndex uint64, nx bool) (RDBLoadStats, error) {
	var st RDBLoadStats
	f, err := os.Open(path)
	if err != nil {
		return st, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return st, err
	}
	if !fi.Mode().IsRegular() {
		return st, fmt.Errorf("%w: %s", ErrNotRegularFile, path)
	}
	size := fi.Size()
	if err := rdb.VerifyChecksum(f, size); err != nil {
		return st, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return st, err
	}
	in := &countingReader{r: f}
	l := &rdbLoader{im: db.NewImporter(nx), db: dbIndex, now: nowMs(), stats: &st}
	slog.Info("RDB LOAD: loading", "file", path, "bytes", size, "db", dbIndex, "nx", nx, "namespace", db.ns)
	stop := l.logProgress(path, in, size)
	info, err := rdb.ReadFile(in, size, l.entry)
	stop()
	if err == nil {
		err = l.im.Close()
	} else {
		// What was read before the fault stays, as in Kvrocks.
		l.im.Close()
	}
	st.Loaded, st.Existing = l.im.Loaded, l.im.Existing
	if info != nil {
		st.Skipped, st.Version = info.Skipped, info.Version
	}
	slog.Info("RDB LOAD: done", "file", path, "keys loaded", st.Loaded, "keys expired", st.Expired,
		"empty keys skipped", st.Empty, "exist keys skipped", st.Existing, "functions and module data skipped", st.Skipped, "err", err)
	return st, err
}

// rdbLoader turns the entries of a file into an Importer's keys.
type rdbLoader struct {
	im    *Importer
	db    uint64
	now   int64
	stats *RDBLoadStats
	// skip is set while the chunks of a key that is not imported come.
	skip bool
	// keys counts the keys read, for the progress log.
	keys atomic.Int64
}

// rdbTypes are the Redis types Basalt stores, by rdb kind.
var rdbTypes = [...]metadata.Type{
	rdb.List: metadata.TypeList, rdb.Set: metadata.TypeSet, rdb.Hash: metadata.TypeHash, rdb.ZSet: metadata.TypeZSet,
}

func (l *rdbLoader) entry(e *rdb.Entry) error {
	v := e.Value
	if e.First {
		l.keys.Add(1)
		l.skip = e.DB != l.db
		switch {
		case l.skip:
		case e.Expire != 0 && e.Expire < l.now:
			l.stats.Expired++
			l.skip = true
		case e.Last && v.Kind != rdb.String && len(v.Elems) == 0:
			l.stats.Empty++
			l.skip = true
		case v.Kind == rdb.String:
			// Redis's HyperLogLogs are strings; Basalt's have a type of
			// their own, which PFCOUNT and PFADD need.
			if regs, isHLL := rdb.ParseHLL(v.Str); isHLL {
				return l.im.PutHLL(e.Key, regs, e.Expire)
			}
			return l.im.PutString(e.Key, v.Str, e.Expire)
		default:
			began, err := l.im.Begin(e.Key, rdbTypes[v.Kind], e.Expire)
			if err != nil {
				return err
			}
			l.skip = !began
		}
	}
	if l.skip {
		return nil
	}
	if err := l.im.Add(v.Elems, v.Scores); err != nil {
		return err
	}
	if e.Last {
		return l.im.End()
	}
	return nil
}

// progressEvery is how often a running RDB LOAD logs how far it is.
const progressEvery = 5 * time.Second

// logProgress logs how much of the file has been read until stop is
// called.
func (l *rdbLoader) logProgress(path string, in *countingReader, size int64) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				read := in.n.Load()
				slog.Info("RDB LOAD: in progress", "file", path, "read", read, "of", size,
					"percent", fmt.Sprintf("%.1f", 100*float64(read)/float64(max(size, 1))), "keys read", l.keys.Load())
			}
		}
	}()
	return func() { close(done) }
}

// countingReader counts the bytes read through it, for the progress log.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}
