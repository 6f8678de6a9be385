package storage

import (
	"errors"
	"fmt"

	"github.com/basaltdb/basalt/compactfilter"
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
	return f
}

var errClosing = errors.New("storage: closing")

// lookupMetadata is the subkey filter's view of the metadata column family.
func (s *Storage) lookupMetadata(nsKey []byte) ([]byte, bool, error) {
	if s.closing.Load() {
		return nil, false, errClosing
	}
	return s.get(CFMetadata, nsKey, nil)
}

// compactOrder is the order COMPACT compacts the column families in:
// metadata first, so that the subkeys of keys whose expired metadata it
// drops are found orphaned in the same run.
var compactOrder = []CF{CFMetadata, CFDefault, CFZSetScore, CFStream, CFPubSub, CFPropagate, CFSearch}

// Compact compacts every column family down to the last level, running the
// compaction filters over every record, and returns when done.
func (s *Storage) Compact() error {
	s.filters.subkey.Reset()
	opts := grocksdb.NewCompactRangeOptions()
	defer opts.Destroy()
	opts.SetExclusiveManualCompaction(false)
	opts.SetBottommostLevelCompaction(grocksdb.KForce)
	for _, cf := range compactOrder {
		s.db.CompactRangeCFOpt(s.cfs[cf], grocksdb.Range{}, opts)
	}
	if s.closing.Load() {
		return fmt.Errorf("storage: compact: %w", errClosing)
	}
	return nil
}
