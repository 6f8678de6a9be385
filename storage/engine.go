package storage

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/metadata"
	"github.com/linxGnu/grocksdb"
)

// CF identifies one of Kvrocks's column families.
type CF int

// The column families, numbered as Kvrocks opens them (FORMAT.md §1).
const (
	CFDefault CF = iota
	CFMetadata
	CFZSetScore
	CFPubSub
	CFPropagate
	CFStream
	CFSearch
	CFIndex // TimeSeries label index (Kvrocks 2.15+, KVROCKS-TYPES.md §0.2)
	numCF
)

var cfNames = [numCF]string{"default", "metadata", "zset_score", "pubsub", "propagate", "stream", "search", "index"}

// String returns the column family's RocksDB name.
func (cf CF) String() string { return cfNames[cf] }

// Storage is an open RocksDB database in the Kvrocks layout. It is safe for
// concurrent use; Close must be called once no operation is running.
type Storage struct {
	db *grocksdb.DB
	// cfs and cfIDs are set by open, and the index column family's
	// later by EnsureIndexCF, while commands run: hence atomics.
	cfs      [numCF]atomic.Pointer[grocksdb.ColumnFamilyHandle]
	cfIDs    [numCF]atomic.Uint32           // RocksDB's ids of cfs, as raw write batches name them
	cfMu     sync.Mutex                     // serialises EnsureIndexCF
	foreign  []*grocksdb.ColumnFamilyHandle // column families of other versions, kept open because RocksDB requires it
	cfOpts   []*grocksdb.Options
	dbOpts   *grocksdb.Options
	bbto     []*grocksdb.BlockBasedTableOptions
	cache    *grocksdb.Cache
	rowCache *grocksdb.Cache // nil without rocksdb.row_cache_size
	readOpts *grocksdb.ReadOptions
	// writeOpts is indexed by disableWAL, a live setting. None syncs: the
	// WAL is flushed and synced by Durable.
	writeOpts [2]*grocksdb.WriteOptions

	cfg      *config.Config
	layout   metadata.Layout
	versions *metadata.VersionGenerator
	dir      string

	// locks serialises the writes of each key (write.go, rule 1).
	locks keyLocks

	hints popHints
	// fieldReaps is the work of the sweep of hash field expiry
	// (hashttl.go).
	fieldReaps fieldReaps
	wal        walFlusher
	// commits combines the writes of concurrent commands (see commit.go).
	commits commitQueue
	// writeMu lets one goroutine at a time into RocksDB's write path (the
	// commit leader, APPLYBATCH, snapshots pinning a sequence number):
	// parking goroutines on a Go mutex costs less than RocksDB's own
	// write-group handoffs, which put OS threads to sleep on futexes.
	writeMu      sync.Mutex
	watcher      Watcher       // told of writes that changed something (write.go, rule 4)
	writes       atomic.Uint64 // batches committed: Update compares it to learn whether a write changed anything
	writeBatches writeBatches
	// meta caches metadata records for point reads (metacache.go).
	meta     *metaCache
	records  *metaCache // stream group and consumer records (metacache.go)
	elements *metaCache // hash fields, set and zset members, bitmap and HyperLogLog segments (DB.getElement)
	// shared holds what type packages keep with the database (Shared);
	// lockless counts the writes that take no key lock (LocklessWrites).
	shared   sync.Map
	lockless atomic.Uint64
	// replMarker is the LogData record "r <replication id>" that ends
	// every local write batch, nil while there is no replication id
	// (replid.go).
	replMarker atomic.Pointer[[]byte]
	filters    filters
	// ready is set once Open has built everything the compaction filters
	// read through (db, cfs, readOpts). RocksDB may start a compaction,
	// and so call the filters, before OpenDbColumnFamilies returns.
	ready   atomic.Bool
	closing atomic.Bool // set once Close has begun
	// writesStopped is set while RocksDB refuses every write (see
	// writeFailed), so that only the first failure is logged.
	writesStopped atomic.Bool
	compacting    atomic.Int32 // manual compactions (COMPACT, crons) running
	// pinned counts the RocksDB objects kept from one call to the next
	// (WAL tails' iterators, Snapshots): Reopen refuses while any lives.
	pinned  atomic.Int64
	dbSize  dbSizeLimit
	unhooks []func() // remove the config hooks of live options

	closeOnce sync.Once
	// life is held exclusively by Restore and Close while RocksDB is
	// closed or reopened, and shared by what uses the database outside
	// commands (see restore.go).
	life sync.RWMutex
	// closed is set by Close, under life: what holds life shared checks it
	// before it touches RocksDB's objects, freed by then.
	closed bool
}

// Open opens (creating when missing) the database in <dir>/db with every
// column family it has plus Kvrocks's seven.
func Open(cfg *config.Config) (*Storage, error) {
	dir := cfg.Dir.Get()
	if err := checkWritable(dir); err != nil {
		return nil, err
	}
	RecoverRestore(dir)
	s := &Storage{
		cfg:      cfg,
		layout:   metadata.Layout{Cluster: cfg.ClusterEnabled.Get()},
		versions: metadata.NewVersionGenerator(),
		dir:      filepath.Join(dir, "db"),
	}
	s.meta = newMetaCache(0, CFMetadata, true, true)
	s.records = newMetaCache(0, CFStream, false, true)
	s.elements = newMetaCache(0, CFDefault, false, false)
	s.setCacheBudgets()
	cfg.Watch("metadata-cache-size", s.setCacheBudgets)
	if err := s.open(); err != nil {
		return nil, err
	}
	return s, nil
}

// open opens RocksDB in s.dir and builds everything that goes with it:
// what Open does after the fields that outlive a Restore are set.
func (s *Storage) open() error {
	s.dbOpts = s.newDBOptions()
	names := existingColumnFamilies(s.dbOpts, s.dir)
	s.filters = s.newFilters()
	opts := make([]*grocksdb.Options, len(names))
	for i, name := range names {
		opts[i] = s.newCFOptions(name)
	}
	db, handles, err := grocksdb.OpenDbColumnFamilies(s.dbOpts, s.dir, names, opts)
	if err != nil {
		s.destroyOptions()
		return fmt.Errorf("storage: open %s: %w", s.dir, err)
	}
	s.db = db
	s.fieldReaps.seen.Store(true) // its hashes may have field TTLs
	// A reopened database may hold other records (a restored checkpoint).
	for _, c := range s.caches() {
		c.clear()
	}
	s.lockless.Add(1)
	for i, name := range names {
		if id, ok := cfID(name); ok {
			s.cfIDs[id].Store(handles[i].ID())
			s.cfs[id].Store(handles[i])
		} else {
			s.foreign = append(s.foreign, handles[i])
		}
	}
	s.wal.flushed.Store(db.GetLatestSequenceNumber())
	s.writeBatches = make(writeBatches, 64)
	s.locks.s = s
	s.readOpts = grocksdb.NewDefaultReadOptions()
	for noWAL := range s.writeOpts {
		wo := grocksdb.NewDefaultWriteOptions()
		wo.DisableWAL(noWAL == 1)
		s.writeOpts[noWAL] = wo
	}
	// delayed_write_rate has no setter in RocksDB's C API before it
	// opens: set it as CONFIG SET does.
	if rate := s.cfg.RocksDB.DelayedWriteRate.Get(); rate != 0 {
		if err := s.setDBOptions("delayed_write_rate", fmt.Sprint(rate)); err != nil {
			slog.Warn("rocksdb.delayed_write_rate not applied", "err", err)
		}
	}
	s.hookLiveOptions()
	s.dbSize.init(s)
	s.hints.reset()
	s.closing.Store(false)
	s.ready.Store(true)
	return nil
}

// checkWritable makes sure the data directory exists and can be written,
// so that a bad dir fails with a message naming it.
func checkWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("storage: cannot create data directory %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".basalt-write-test-*")
	if err != nil {
		return fmt.Errorf("storage: data directory %s is not writable: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// existingColumnFamilies returns the column families to open: those the
// database already has (RocksDB refuses to open a database otherwise) and
// any of Kvrocks's that are missing, which are then created, but for
// the index column family, made at the first time series's write
// (EnsureIndexCF): Kvrocks before 2.15 refuses to open a directory that
// has it.
func existingColumnFamilies(opts *grocksdb.Options, path string) []string {
	names, err := grocksdb.ListColumnFamilies(opts, path)
	if err != nil {
		names = nil // a new database
	}
	have := map[string]bool{}
	for _, n := range names {
		have[n] = true
	}
	for _, n := range cfNames {
		if !have[n] && n != CFIndex.String() {
			names = append(names, n)
		}
	}
	return names
}

// EnsureIndexCF creates the index column family when the database does
// not have it yet; a time series's write calls it before writing there.
func (s *Storage) EnsureIndexCF() error {
	if s.cfs[CFIndex].Load() != nil {
		return nil
	}
	s.cfMu.Lock()
	defer s.cfMu.Unlock()
	if s.cfs[CFIndex].Load() != nil {
		return nil
	}
	h, err := s.db.CreateColumnFamily(s.newCFOptions(CFIndex.String()), CFIndex.String())
	if err != nil {
		return fmt.Errorf("storage: create column family %s: %w", CFIndex, err)
	}
	s.cfIDs[CFIndex].Store(h.ID())
	s.cfs[CFIndex].Store(h)
	return nil
}

// openCF is a column family the database has open.
type openCF struct {
	cf CF
	h  *grocksdb.ColumnFamilyHandle
}

// openCFs returns the column families open, in order: all of Kvrocks's,
// the index one once it exists.
func (s *Storage) openCFs() []openCF {
	out := make([]openCF, 0, numCF)
	for cf := range s.cfs {
		if h := s.cfs[cf].Load(); h != nil {
			out = append(out, openCF{CF(cf), h})
		}
	}
	return out
}

func cfID(name string) (CF, bool) {
	for i, n := range cfNames {
		if n == name {
			return CF(i), true
		}
	}
	return 0, false
}

func (s *Storage) newDBOptions() *grocksdb.Options {
	r := &s.cfg.RocksDB
	o := grocksdb.NewDefaultOptions()
	o.SetCreateIfMissing(true)
	o.SetCreateIfMissingColumnFamilies(true)
	o.SetMaxOpenFiles(int(r.MaxOpenFiles.Get()))
	o.SetMaxBackgroundJobs(int(r.MaxBackgroundJobs.Get()))
	o.SetMaxBackgroundCompactions(int(r.MaxBackgroundCompactions.Get()))
	o.SetMaxBackgroundFlushes(int(r.MaxBackgroundFlushes.Get()))
	o.SetMaxSubcompactions(uint32(r.MaxSubcompactions.Get()))
	o.CompactionReadaheadSize(uint64(r.CompactionReadaheadSize.Get()))
	o.AvoidUnnecessaryBlockingIO(r.AvoidUnnecessaryBlockingIO.Get())
	if r.WALCompression.Get() == "zstd" {
		o.SetWALCompression(grocksdb.ZSTDCompression)
	}
	o.SetMaxTotalWalSize(uint64(r.MaxTotalWALSize.Get()) << 20)
	if mb := r.DBWriteBufferSize.Get(); mb > 0 {
		o.SetDbWriteBufferSize(uint64(mb) << 20)
	}
	o.SetWALTtlSeconds(uint64(r.WALTTLSeconds.Get()))
	o.SetWalSizeLimitMb(uint64(r.WALSizeLimitMB.Get()))
	o.SetEnablePipelinedWrite(r.EnablePipelinedWrite.Get())
	o.SetStatsDumpPeriodSec(uint(r.StatsDumpPeriodSec.Get()))
	o.SetKeepLogFileNum(8)
	o.SetEnableWriteThreadAdaptiveYield(false)
	o.SetManualWALFlush(true) // see write.go, rule 5
	o.EnableStatistics()      // see stats.go
	// Some RocksDB builds default to debug logging, which writes a LOG line
	// per WAL flush.
	o.SetInfoLogLevel(grocksdb.InfoInfoLogLevel)
	// As Kvrocks: block_cache_size 0 means the two per-kind sizes, which
	// Kvrocks gives two caches and Basalt one shared cache of their sum.
	cacheMB := r.BlockCacheSize.Get()
	if cacheMB == 0 {
		cacheMB = r.MetadataBlockCacheSize.Get() + r.SubkeyBlockCacheSize.Get()
	}
	s.cache = grocksdb.NewLRUCache(uint64(cacheMB) << 20)
	if mb := r.RowCacheSize.Get(); mb > 0 {
		s.rowCache = grocksdb.NewLRUCache(uint64(mb) << 20)
		o.SetRowCache(s.rowCache)
	}
	return o
}

var compressions = map[string]grocksdb.CompressionType{
	"no": grocksdb.NoCompression, "snappy": grocksdb.SnappyCompression, "lz4": grocksdb.LZ4Compression,
	"zstd": grocksdb.ZSTDCompression, "zlib": grocksdb.ZLibCompression,
}

// pointReadCF are the column families read by key, where records that do
// not exist are looked for; the others are iterated.
var pointReadCF = [numCF]bool{CFDefault: true, CFMetadata: true, CFStream: true}

// newCFOptions returns the options of column family name (a foreign one
// gets no compaction filter).
func (s *Storage) newCFOptions(name string) *grocksdb.Options {
	r := &s.cfg.RocksDB
	t := grocksdb.NewDefaultBlockBasedTableOptions()
	t.SetBlockCache(s.cache)
	t.SetBlockSize(int(r.BlockSize.Get()))
	t.SetCacheIndexAndFilterBlocks(r.CacheIndexAndFilter.Get())
	t.SetPinL0FilterAndIndexBlocksInCache(true)
	t.SetFilterPolicy(grocksdb.NewBloomFilter(10))
	t.SetFormatVersion(5)
	s.bbto = append(s.bbto, t)

	o := grocksdb.NewDefaultOptions()
	o.SetBlockBasedTableFactory(t)
	if id, ok := cfID(name); ok && pointReadCF[id] {
		// A whole-key Bloom filter over the memtable: a read of an absent
		// record (a new key's metadata, a new member or field, a pending
		// entry not there yet) skips the skiplist search, 7 µs in a
		// memtable of 300k records, for 1.5 µs. It takes 1% of the
		// memtable's size: about 8 bits per record of 70 bytes (some 100
		// bytes of arena each), a 2% false positive rate.
		o.SetMemTablePrefixBloomSizeRatio(0.01)
		o.SetMemtableWholeKeyFiltering(true)
	}
	o.SetWriteBufferSize(uint64(r.WriteBufferSize.Get()) << 20)
	o.SetMaxWriteBufferNumber(int(r.MaxWriteBufferNumber.Get()))
	o.SetTargetFileSizeBase(uint64(r.TargetFileSizeBase.Get()) << 20)
	o.SetLevel0FileNumCompactionTrigger(int(r.Level0CompactionTrigger.Get()))
	o.SetLevel0SlowdownWritesTrigger(int(r.Level0SlowdownTrigger.Get()))
	o.SetLevel0StopWritesTrigger(int(r.Level0StopTrigger.Get()))
	o.SetDisableAutoCompactions(r.DisableAutoCompactions.Get())
	o.SetLevelCompactionDynamicLevelBytes(r.LevelCompactionDynamicLevelBytes.Get())
	o.SetMaxBytesForLevelBase(uint64(r.MaxBytesForLevelBase.Get()))
	o.SetMaxBytesForLevelMultiplier(float64(r.MaxBytesForLevelMultiplier.Get()))
	o.EnableBlobFiles(r.EnableBlobFiles.Get())
	o.SetMinBlobSize(uint64(r.MinBlobSize.Get()))
	o.SetBlobFileSize(uint64(r.BlobFileSize.Get()))
	o.EnableBlobGC(r.EnableBlobGC.Get())
	o.SetBlobGCAgeCutoff(float64(r.BlobGCAgeCutoff.Get()) / 100)
	// The levels below compression_start_level (Kvrocks's default 2) stay
	// uncompressed: they are rewritten soon anyway.
	levels := make([]grocksdb.CompressionType, numLevels)
	for i := range levels {
		levels[i] = grocksdb.NoCompression
		if int64(i) >= r.CompressionStartLevel.Get() {
			levels[i] = compressions[r.Compression.Get()]
		}
	}
	o.SetCompressionPerLevel(levels)
	o.SetCompressionOptions(grocksdb.NewCompressionOptions(-14, int(r.CompressionLevel.Get()), 0, 0))
	if id, ok := cfID(name); ok && s.filters.byCF[id] != nil {
		o.SetCompactionFilter(s.filters.byCF[id])
	}
	s.cfOpts = append(s.cfOpts, o)
	return o
}

// Close releases everything in the order RocksDB needs: column family
// handles before the database, the database before its options and cache.
// It is safe to call more than once.
func (s *Storage) Close() {
	s.closeOnce.Do(func() {
		s.life.Lock()
		defer s.life.Unlock()
		s.closeEngine()
		s.closed = true
		for _, c := range s.caches() {
			c.release()
		}
	})
}

// closeEngine closes RocksDB and frees everything open built.
func (s *Storage) closeEngine() {
	for _, unhook := range s.unhooks {
		unhook()
	}
	s.unhooks = nil
	s.dbSize.unhook()
	if err := s.db.FlushWAL(true); err != nil {
		slog.Error("flush WAL at close", "err", err)
	}
	// Compaction filters read metadata through the column family
	// handles: no compaction may run once those are freed.
	s.StopCompactions()
	s.ready.Store(false)
	s.db.CancelAllBackgroundWork(true)
	for i := range s.cfs {
		if h := s.cfs[i].Swap(nil); h != nil {
			h.Destroy()
		}
		s.cfIDs[i].Store(0)
	}
	for _, h := range s.foreign {
		h.Destroy()
	}
	s.foreign = nil
	s.db.Close()
	s.writeBatches.close()
	s.readOpts.Destroy()
	for _, wo := range s.writeOpts {
		wo.Destroy()
	}
	s.destroyOptions()
}

func (s *Storage) destroyOptions() {
	for _, o := range s.cfOpts {
		o.Destroy()
	}
	for _, t := range s.bbto {
		t.Destroy()
	}
	s.cfOpts, s.bbto = nil, nil
	s.dbOpts.Destroy()
	s.cache.Destroy()
	if s.rowCache != nil {
		s.rowCache.Destroy()
		s.rowCache = nil
	}
}

func (s *Storage) writeOptions() *grocksdb.WriteOptions {
	r := &s.cfg.RocksDB
	if r.DisableWAL.Get() {
		return s.writeOpts[1]
	}
	return s.writeOpts[0]
}

// The shares of metadata-cache-size the stream group records and the
// elements get (Storage.records, Storage.elements); the metadata the rest.
const (
	recordsShare  = 8
	elementsShare = 4
)

// setCacheBudgets splits metadata-cache-size between the caches.
func (s *Storage) setCacheBudgets() {
	total := s.cfg.MetadataCacheSize.Get() << 20
	s.records.setBudget(total / recordsShare)
	s.elements.setBudget(total / elementsShare)
	s.meta.setBudget(total - total/recordsShare - total/elementsShare)
}

// caches are the record caches every write tells of the records it
// changes (metacache.go).
func (s *Storage) caches() [3]*metaCache {
	return [...]*metaCache{s.meta, s.records, s.elements}
}

// multiGetThrough is multiGet of records of c's column family through c.
func (s *Storage) multiGetThrough(c *metaCache, keys [][]byte) ([][]byte, error) {
	if len(keys) == 1 {
		v, found, err := s.getCached(c, keys[0], []byte{})
		if err != nil || !found {
			return [][]byte{nil}, err
		}
		return [][]byte{v}, nil
	}
	out := make([][]byte, len(keys))
	var missed [][]byte
	var missedAt []int
	var gens []uint64
	for i, k := range keys {
		v, found, hit, gen := c.get(k, []byte{})
		switch {
		case !hit:
			missed, missedAt, gens = append(missed, k), append(missedAt, i), append(gens, gen)
		case found:
			out[i] = v
		}
	}
	if len(missed) == 0 {
		return out, nil
	}
	values, err := s.multiGet(c.cf, missed)
	if err != nil {
		return nil, err
	}
	for j, i := range missedAt {
		out[i] = values[j]
		c.fill(missed[j], values[j], values[j] != nil, gens[j])
	}
	return out, nil
}

// get appends the value of key in cf to dst. found is false when the key
// does not exist.
func (s *Storage) get(cf CF, key, dst []byte) (value []byte, found bool, err error) {
	if cf != CFMetadata {
		return s.getWith(s.readOpts, cf, key, dst)
	}
	return s.getCached(s.meta, key, dst)
}

// getCached is get of a record of c's column family, through c.
func (s *Storage) getCached(c *metaCache, key, dst []byte) (value []byte, found bool, err error) {
	value, found, hit, gen := c.get(key, dst)
	if hit {
		return value, found, nil
	}
	value, found, err = s.getWith(s.readOpts, c.cf, key, dst)
	if err == nil {
		c.fill(key, value[len(dst):], found, gen)
	}
	return value, found, err
}

// getAt is get as of a snapshot.
func (s *Storage) getAt(snap *grocksdb.Snapshot, cf CF, key []byte) ([]byte, bool, error) {
	ro := grocksdb.NewDefaultReadOptions()
	ro.SetSnapshot(snap)
	defer ro.Destroy()
	return s.getWith(ro, cf, key, nil)
}

// getWith reads with pinned slices, which skip RocksDB's own copy of the
// value, and appends the value to dst.
func (s *Storage) getWith(ro *grocksdb.ReadOptions, cf CF, key, dst []byte) ([]byte, bool, error) {
	h, err := s.db.GetPinnedCF(ro, s.cfs[cf].Load(), key)
	if err != nil {
		return dst, false, fmt.Errorf("storage: get: %w", err)
	}
	defer h.Destroy()
	if !h.Exists() {
		return dst, false, nil
	}
	return append(dst, h.Data()...), true, nil
}

// put writes one record.
func (s *Storage) put(cf CF, key, value []byte) error {
	b := s.newBatch(nil)
	b.put(cf, key, value)
	return b.commit()
}

// iterator is a RocksDB iterator bounded to [lower, upper), with the read
// options it needs; close frees both.
type iterator struct {
	*grocksdb.Iterator
	ro *grocksdb.ReadOptions
}

// newIterator returns an iterator over [lower, upper) of cf (upper nil: no
// bound), reading from snap when it is not nil. The bounds are retained by
// RocksDB until close, so the caller must not modify them before.
func (s *Storage) newIterator(cf CF, lower, upper []byte, snap *grocksdb.Snapshot) iterator {
	ro := grocksdb.NewDefaultReadOptions()
	ro.SetFillCache(true)
	if lower != nil {
		ro.SetIterateLowerBound(lower)
	}
	if upper != nil {
		ro.SetIterateUpperBound(upper)
	}
	if snap != nil {
		ro.SetSnapshot(snap)
	}
	return iterator{Iterator: s.db.NewIteratorCF(ro, s.cfs[cf].Load()), ro: ro}
}

// scan calls fn with every record of cf in [lower, upper) as of snap (nil:
// the latest), in key order, until fn fails. key and value are valid only
// during the call.
func (s *Storage) scan(cf CF, lower, upper []byte, snap *grocksdb.Snapshot, fn func(key, value []byte) error) error {
	it := s.newIterator(cf, lower, upper, snap)
	defer it.close()
	it.SeekToFirst()
	var fnErr error
	err := it.walk(false, 0, func(key, value []byte) bool {
		fnErr = fn(key, value)
		return fnErr == nil
	})
	if fnErr != nil {
		return fnErr
	}
	return err
}

func (it iterator) close() {
	it.Iterator.Close()
	it.ro.Destroy()
}

// keyData and valueData return the iterator's current key and value; they
// point into RocksDB memory and are valid only until the iterator moves.
func (it iterator) keyData() []byte   { return it.Key().Data() }
func (it iterator) valueData() []byte { return it.Value().Data() }

// nowMs is the clock every expiry decision uses.
func nowMs() int64 { return time.Now().UnixMilli() }

// nowTime is the clock versions are made from.
func nowTime() time.Time { return time.Now() }

// multiGet reads many keys of one column family in one call. A missing key
// has a nil value; values are Go copies.
func (s *Storage) multiGet(cf CF, keys [][]byte) ([][]byte, error) {
	return s.multiGetWith(s.readOpts, cf, keys)
}

// multiGetAt is multiGet as of a snapshot.
func (s *Storage) multiGetAt(snap *grocksdb.Snapshot, cf CF, keys [][]byte) ([][]byte, error) {
	ro := grocksdb.NewDefaultReadOptions()
	ro.SetSnapshot(snap)
	defer ro.Destroy()
	return s.multiGetWith(ro, cf, keys)
}
