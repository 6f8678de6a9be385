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
	// FieldsExpired counts the hash fields dropped because their TTL
	// (Redis 7.4's) had passed; FieldTTLsDropped the fields kept without
	// theirs: those of a hash saved in parts whose first part had no
	// field TTL (storage.Importer.AddFields).
	FieldsExpired, FieldTTLsDropped int64
	// Skipped are what Basalt has no place for (modules' data).
	Skipped int
	Version int
	// Functions are the codes of the function libraries the file holds,
	// which the caller loads.
	Functions []string
}

// LoadRDB imports the keys of database dbIndex of the RDB file at path;
// with nx, keys that exist are left alone. Keys already expired and
// empty collections are skipped, as Redis skips them. Hash fields whose
// TTL has passed are dropped, the others kept for good (a hash of one
// chunk left without fields is an expired key; one of several is not
// written). It logs its
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
		"empty keys skipped", st.Empty, "exist keys skipped", st.Existing, "function libraries", len(st.Functions), "module data skipped", st.Skipped,
		"hash fields expired", st.FieldsExpired, "hash field TTLs dropped", st.FieldTTLsDropped, "err", err)
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
	// streamEnds are the IDs of the first and last entries of the stream
	// being read, and streamLength their number so far.
	streamEnds   [2]metadata.StreamID
	streamLength uint64
}

// rdbTypes are the Redis types Basalt stores, by rdb kind.
var rdbTypes = [...]metadata.Type{
	rdb.List: metadata.TypeList, rdb.Set: metadata.TypeSet, rdb.Hash: metadata.TypeHash, rdb.ZSet: metadata.TypeZSet,
	rdb.Stream: metadata.TypeStream,
}

func (l *rdbLoader) entry(e *rdb.Entry) error {
	if e.Function != nil {
		l.stats.Functions = append(l.stats.Functions, string(e.Function))
		return nil
	}
	v := e.Value
	fieldsExpired := l.dropFieldTTLs(e)
	if e.First {
		l.keys.Add(1)
		l.skip = e.DB != l.db
		switch {
		case l.skip:
		case e.Expire != 0 && e.Expire < l.now:
			l.stats.Expired++
			l.skip = true
		case e.Last && v.Kind != rdb.String && v.Kind != rdb.Stream && len(v.Elems) == 0:
			if fieldsExpired {
				l.stats.Expired++
			} else {
				l.stats.Empty++
			}
			l.skip = true
		case v.Kind == rdb.String:
			// Redis's HyperLogLogs are strings; Basalt's have a type of
			// their own, which PFCOUNT and PFADD need.
			if regs, isHLL := rdb.ParseHLL(v.Str); isHLL {
				return l.im.PutValue(e.Key, &Value{Type: metadata.TypeHyperLogLog, Str: regs}, e.Expire)
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
	if v.Kind == rdb.Stream {
		return l.stream(e)
	}
	if v.Kind == rdb.Hash {
		dropped, err := l.im.AddFields(v.Elems, v.FieldExpires)
		l.stats.FieldTTLsDropped += int64(dropped)
		if err != nil {
			return err
		}
	} else if err := l.im.Add(v.Elems, v.Scores); err != nil {
		return err
	}
	if e.Last {
		return l.im.End()
	}
	return nil
}

// dropFieldTTLs drops the fields of a chunk of a hash to import whose
// TTL has passed, and counts them; it reports whether it dropped any.
func (l *rdbLoader) dropFieldTTLs(e *rdb.Entry) bool {
	v := e.Value
	if v.Kind != rdb.Hash || e.DB != l.db || (e.Expire != 0 && e.Expire < l.now) {
		return false
	}
	dropped := v.DropExpiredFields(l.now)
	l.stats.FieldsExpired += int64(dropped)
	return dropped > 0
}

// stream imports a chunk of a stream's entries and, with the last, the
// rest of it: its figures and its consumer groups.
func (l *rdbLoader) stream(e *rdb.Entry) error {
	v := e.Value
	if e.First {
		l.streamEnds, l.streamLength = [2]metadata.StreamID{}, 0
	}
	for _, en := range v.Entries {
		id := metadata.StreamID{Ms: en.ID.Ms, Seq: en.ID.Seq}
		if err := l.im.AddStreamEntry(id, en.Fields); err != nil {
			return err
		}
		if l.streamLength == 0 {
			l.streamEnds[0] = id
		}
		l.streamEnds[1] = id
		l.streamLength++
	}
	if !e.Last {
		return nil
	}
	info := v.Stream
	sm := streamMetaOf(info, l.streamEnds)
	st := ImportedStream{LastGenerated: sm.LastGenerated, RecordedFirst: sm.RecordedFirst, MaxDeleted: sm.MaxDeleted,
		EntriesAdded: sm.EntriesAdded, Groups: sm.Groups, Records: streamGroupRecords(info, sm, l.streamLength)}
	return l.im.EndStream(st)
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
