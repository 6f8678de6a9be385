package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/basaltdb/basalt/compactfilter"
	"github.com/basaltdb/basalt/metadata"
	"github.com/linxGnu/grocksdb"
)

// filters are the compaction filters of FORMAT.md §6, one per column
// family that has one. RocksDB keeps calling them until the database is
// closed.
type filters struct {
	subkey *compactfilter.Subkey
	byCF   [numCF]grocksdb.CompactionFilter
}

func (s *Storage) newFilters() filters {
	f := filters{subkey: &compactfilter.Subkey{Layout: s.layout, Lookup: s.lookupMetadata, Now: nowTime}}
	f.byCF[CFMetadata] = &compactfilter.Metadata{Now: nowTime}
	f.byCF[CFDefault] = f.subkey
	f.byCF[CFZSetScore] = f.subkey
	f.byCF[CFStream] = f.subkey
	f.byCF[CFPubSub] = compactfilter.DropAll{}
	f.byCF[CFPropagate] = compactfilter.Propagate{}
	f.subkey.Drops = map[metadata.Type]compactfilter.TypeDrop{}
	index := &compactfilter.Index{}
	for t, h := range typeHooks {
		if h.Drop != nil {
			f.subkey.Drops[t] = h.Drop
		}
		if stale := h.IndexStale; stale != nil {
			index.Stale = func(key []byte) bool { return stale(s.layout, key, s.getForFilter) }
		}
	}
	f.byCF[CFIndex] = index
	return f
}

// getForFilter is a compaction filter's read of any record: as
// lookupMetadata, it fails before Open has finished and once Close has
// begun.
func (s *Storage) getForFilter(cf CF, key []byte) ([]byte, bool, error) {
	if !s.ready.Load() {
		return nil, false, errNotReady
	}
	if s.closing.Load() {
		return nil, false, errClosing
	}
	return s.getWith(s.readOpts, cf, key, nil)
}

var (
	errClosing  = errors.New("storage: closing")
	errNotReady = errors.New("storage: still opening")
)

// lookupMetadata is the subkey filter's view of the metadata column family.
// Before Open has finished and once Close has begun it fails, and the
// filter then keeps the record. It reads RocksDB, not the metadata cache:
// the metadata filter drops expired records without a write, so the cache
// may still hold a record that expired within the subkey filter's grace,
// which would keep its subkeys one compaction longer.
func (s *Storage) lookupMetadata(nsKey []byte) ([]byte, bool, error) {
	if !s.ready.Load() {
		return nil, false, errNotReady
	}
	if s.closing.Load() {
		return nil, false, errClosing
	}
	return s.getWith(s.readOpts, CFMetadata, nsKey, nil)
}

// compactOrder is the order COMPACT compacts the column families in:
// metadata first, so that the subkeys of keys whose expired metadata it
// drops are found orphaned in the same run.
var compactOrder = []CF{CFMetadata, CFDefault, CFZSetScore, CFStream, CFPubSub, CFPropagate, CFSearch, CFIndex}

// Compact compacts every column family down to the last level, running the
// compaction filters over every record, and returns when done.
func (s *Storage) Compact() error {
	s.life.RLock()
	defer s.life.RUnlock()
	s.compacting.Add(1)
	defer s.compacting.Add(-1)
	s.filters.subkey.Reset()
	opts := grocksdb.NewCompactRangeOptions()
	defer opts.Destroy()
	opts.SetExclusiveManualCompaction(false)
	opts.SetBottommostLevelCompaction(grocksdb.KForce)
	for _, cf := range compactOrder {
		if h := s.cfs[cf].Load(); h != nil {
			s.db.CompactRangeCFOpt(h, grocksdb.Range{}, opts)
		}
	}
	if s.closing.Load() {
		return fmt.Errorf("storage: compact: %w", errClosing)
	}
	return nil
}

// checkSample is how many records the checker reads from each end of a
// file's key range to estimate how much of it compaction would drop.
const checkSample = 32

// CheckCompaction is the compaction checker: in each of the metadata,
// default, zset_score and stream column families it finds the SST file whose
// records the compaction filters would drop the most (RocksDB tombstones
// included), and compacts that file's key range when the share reaches
// minPct percent or the file is older than maxAge. The pubsub and
// propagate column families, which hold nothing lasting, are compacted
// whole when they have files. It returns how many ranges it compacted.
func (s *Storage) CheckCompaction(minPct int64, maxAge time.Duration) int {
	s.life.RLock()
	defer s.life.RUnlock()
	s.compacting.Add(1)
	defer s.compacting.Add(-1)
	type candidate struct {
		file  grocksdb.LiveFileMetadata
		share float64
	}
	best := map[CF]candidate{}
	transient := map[CF]bool{}
	for _, f := range s.db.GetLiveFilesMetaData() {
		cf, ok := cfID(f.ColumnFamilyName)
		switch {
		case !ok:
		case cf == CFPubSub || cf == CFPropagate:
			transient[cf] = true
		case cf == CFMetadata || cf == CFDefault || cf == CFZSetScore || cf == CFStream:
			share := s.reclaimableShare(cf, f)
			if st, err := os.Stat(filepath.Join(s.dir, f.Name)); err == nil && time.Since(st.ModTime()) > maxAge {
				share = 1
			}
			if share > best[cf].share {
				best[cf] = candidate{f, share}
			}
		}
	}
	n := 0
	for _, cf := range compactOrder {
		if s.closing.Load() {
			break
		}
		if c, ok := best[cf]; ok && c.share*100 >= float64(minPct) {
			s.db.CompactRangeCF(s.cfs[cf].Load(), grocksdb.Range{Start: c.file.SmallestKey, Limit: c.file.LargestKey})
			n++
		}
		if transient[cf] {
			s.db.CompactRangeCF(s.cfs[cf].Load(), grocksdb.Range{})
			n++
		}
	}
	return n
}

// reclaimableShare estimates the share of file f's records that compaction
// would drop: its tombstones, or the records the column family's filter
// drops among a sample from both ends of its key range, whichever is more.
func (s *Storage) reclaimableShare(cf CF, f grocksdb.LiveFileMetadata) float64 {
	var share float64
	if f.Entries > 0 {
		share = float64(f.Deletions) / float64(f.Entries)
	}
	filter := s.filters.byCF[cf]
	upper := append(append([]byte(nil), f.LargestKey...), 0) // just past the largest key
	it := s.newIterator(cf, f.SmallestKey, upper, nil)
	defer it.close()
	sampled, dropped := 0, 0
	visit := func(next func()) {
		for i := 0; i < checkSample && it.Valid(); i++ {
			if drop, _ := filter.Filter(0, it.keyData(), it.valueData()); drop {
				dropped++
			}
			sampled++
			next()
		}
	}
	it.SeekToFirst()
	visit(it.Next)
	it.SeekToLast()
	visit(it.Prev)
	if sampled > 0 {
		share = max(share, float64(dropped)/float64(sampled))
	}
	return share
}

// StopCompactions makes running and future manual compactions (COMPACT,
// the crons) return at once; call it when shutting down.
func (s *Storage) StopCompactions() {
	s.closing.Store(true)
	s.db.DisableManualCompaction()
}
