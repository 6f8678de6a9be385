package config

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/basaltdb/basalt/glob"
)

// Errors of CONFIG SET; compare with errors.Is.
var (
	ErrUnknownOption = errors.New("config: unknown option")
	ErrReadOnly      = errors.New("config: option cannot be changed while running")
	ErrNoFile        = errors.New("config: the server is running without a config file")
)

// Config holds every setting. The exported fields are safe to read at any
// time; only Set, Load and the namespace methods change them.
type Config struct {
	Bind                      Text
	Port                      Int
	Dir                       Text
	Pidfile                   Text
	Workers                   Int
	Timeout                   Int
	MaxClients                Int
	RequirePass               Text
	MetricsPort               Int
	PubsubOutputBufferLimitMB Int
	MigrateType               Enum
	MigrateSpeed              Int
	MigratePipelineSize       Int
	MigrateSequenceGap        Int
	MigrateBatchSizeKB        Int
	MigrateBatchRateLimitMB   Int
	ClusterEnabled            Bool
	PersistClusterNodes       Bool
	LogDir                    Text
	LogLevel                  Enum
	DBName                    Text
	ProtoMaxBulkLen           Int
	SlowlogLogSlowerThan      Int
	SlowlogMaxLen             Int
	RESP3Enabled              Bool
	ReplNamespaceEnabled      Bool

	CompactCron                   Cron
	CompactionCheckerCron         Cron
	compactionCheckerRange        hourRange
	ForceCompactFileAge           Int
	ForceCompactFileMinDeletedPct Int

	RocksDB RocksDB

	options []*option
	byName  map[string]*option

	mu struct {
		sync.Mutex
		path       string
		lines      []string          // the file as read, for REWRITE
		namespaces map[string]string // namespace name -> token
		watchers   map[string][]func()
	}
	// Warnings lists known Kvrocks keys that were read but have no effect.
	Warnings []string
}

// RocksDB holds the rocksdb.* settings.
type RocksDB struct {
	BlockCacheSize          Int
	WriteBufferSize         Int
	MaxWriteBufferNumber    Int
	TargetFileSizeBase      Int
	MaxOpenFiles            Int
	MaxBackgroundJobs       Int
	MaxSubcompactions       Int
	Compression             Enum
	BlockSize               Int
	CacheIndexAndFilter     Bool
	Level0CompactionTrigger Int
	Level0SlowdownTrigger   Int
	Level0StopTrigger       Int
	MaxTotalWALSize         Int
	WALTTLSeconds           Int
	WALSizeLimitMB          Int
	DisableAutoCompactions  Bool
	EnablePipelinedWrite    Bool
	StatsDumpPeriodSec      Int
	WriteSync               Bool
	DisableWAL              Bool
}

// option is one row of the table that drives parsing, CONFIG, --help and
// the documentation check.
type option struct {
	name     string
	value    value
	def      string
	readOnly bool
	help     string
}

// New returns a Config holding the built-in defaults.
func New() *Config {
	c := &Config{byName: map[string]*option{}}
	c.mu.namespaces = map[string]string{}
	c.mu.watchers = map[string][]func(){}
	r := &c.RocksDB
	ro, rw := true, false
	c.add("bind", &c.Bind, "127.0.0.1", ro, "space-separated addresses to listen on")
	c.add("port", c.Port.bounds(1, 65535), "6666", ro, "TCP port")
	c.add("dir", &c.Dir, "./data", ro, "data directory; RocksDB lives in <dir>/db")
	c.add("pidfile", &c.Pidfile, "", ro, "file to write the process id to (empty: none)")
	c.add("workers", c.Workers.bounds(1, 256), "8", ro, "worker threads: the Go scheduler runs at most min(workers, CPUs) at once")
	c.add("timeout", c.Timeout.bounds(0, math.MaxInt32), "0", rw, "close a client idle for this many seconds (0: never)")
	c.add("maxclients", c.MaxClients.bounds(1, 1<<20), "10240", rw, "maximum simultaneous client connections")
	c.add("requirepass", &c.RequirePass, "", rw, "admin password; clients must AUTH with it (empty: no password)")
	c.add("cluster-enabled", &c.ClusterEnabled, "no", ro, "cluster mode: keys carry their hash slot (changes the on-disk key format)")
	c.add("persist-cluster-nodes-enabled", &c.PersistClusterNodes, "yes", rw, "keep the cluster topology in <dir>/nodes.conf across restarts")
	c.add("log-dir", &c.LogDir, "stderr", ro, "directory for basalt.log, or stdout/stderr")
	c.LogLevel.allowed = []string{"debug", "info", "warning", "error", "fatal"}
	c.add("log-level", &c.LogLevel, "info", rw, "debug, info, warning, error or fatal")
	c.add("db-name", &c.DBName, "change.me.db", ro, "database name; replicas must have the master's")
	c.ProtoMaxBulkLen.memory = true
	c.add("proto-max-bulk-len", c.ProtoMaxBulkLen.bounds(1<<20, math.MaxInt64), "536870912", rw, "largest bulk string a client may send, in bytes (units kb, mb, gb allowed)")
	c.add("slowlog-log-slower-than", c.SlowlogLogSlowerThan.bounds(-1, math.MaxInt64), "200000", rw, "log commands slower than this many µs (-1: off, 0: all)")
	c.add("slowlog-max-len", c.SlowlogMaxLen.bounds(0, math.MaxInt32), "128", rw, "slow log entries kept")
	c.add("resp3-enabled", &c.RESP3Enabled, "yes", rw, "allow HELLO 3")
	c.add("repl-namespace-enabled", &c.ReplNamespaceEnabled, "no", ro, "keep namespace tokens in the database (replicated) instead of the config file")
	c.add("compact-cron", &c.CompactCron, "", rw, "compact the whole database at these times (crontab: minute hour day month weekday; empty: never)")
	c.add("compaction-checker-cron", &c.CompactionCheckerCron, "", rw, "during these minutes (crontab), compact the SST files with the most reclaimable data")
	c.compactionCheckerRange.cron = &c.CompactionCheckerCron
	c.add("compaction-checker-range", &c.compactionCheckerRange, "", rw, "deprecated: hours a-b, the same as compaction-checker-cron \"* a-b * * *\"")
	c.add("force-compact-file-age", c.ForceCompactFileAge.bounds(0, math.MaxInt64), "172800", rw, "the checker compacts SST files older than this many seconds")
	c.add("force-compact-file-min-deleted-percentage", c.ForceCompactFileMinDeletedPct.bounds(1, 100), "10", rw, "the checker compacts SST files with at least this share of reclaimable records")

	c.add("pubsub-output-buffer-limit-mb", c.PubsubOutputBufferLimitMB.bounds(0, 1<<20), "32", rw, "disconnect a subscriber (or MONITOR) whose unsent messages pass this many MB (0: only the 8192-message backlog limits it)")
	c.add("metrics-port", c.MetricsPort.bounds(0, 65535), "0", ro, "serve Prometheus metrics at http://<first bind address>:<port>/metrics (0: off)")
	c.MigrateType.allowed = []string{"redis-command", "raw-key-value"}
	c.add("migrate-type", &c.MigrateType, "redis-command", rw, "slot migration sends restore commands (redis-command) or raw write batches (raw-key-value, APPLYBATCH)")
	c.add("migrate-speed", c.MigrateSpeed.bounds(0, math.MaxInt32), "4096", rw, "keys per second a slot migration sends (0: no limit)")
	c.add("migrate-pipeline-size", c.MigratePipelineSize.bounds(1, math.MaxInt32), "16", rw, "commands a slot migration sends before reading their replies")
	c.add("migrate-sequence-gap", c.MigrateSequenceGap.bounds(1, math.MaxInt32), "10000", rw, "WAL writes left to send below which a migration stops writes to its slots and finishes")
	c.add("migrate-batch-size-kb", c.MigrateBatchSizeKB.bounds(1, math.MaxInt32), "16", rw, "size of one raw-key-value batch, KB")
	c.add("migrate-batch-rate-limit-mb", c.MigrateBatchRateLimitMB.bounds(0, math.MaxInt32), "16", rw, "raw-key-value bytes per second, MB (0: no limit)")

	c.add("rocksdb.block_cache_size", r.BlockCacheSize.bounds(0, 1<<30), "4096", ro, "block cache shared by all column families, MB")
	c.add("rocksdb.write_buffer_size", r.WriteBufferSize.bounds(1, 4096), "64", ro, "memtable size, MB")
	c.add("rocksdb.max_write_buffer_number", r.MaxWriteBufferNumber.bounds(1, 256), "4", ro, "memtables per column family")
	c.add("rocksdb.target_file_size_base", r.TargetFileSizeBase.bounds(1, 1<<20), "128", ro, "SST target size at level 1, MB")
	c.add("rocksdb.max_open_files", r.MaxOpenFiles.bounds(-1, math.MaxInt32), "8096", ro, "open SST files kept (-1: unlimited)")
	c.add("rocksdb.max_background_jobs", r.MaxBackgroundJobs.bounds(1, 64), "4", ro, "background flush and compaction threads")
	c.add("rocksdb.max_subcompactions", r.MaxSubcompactions.bounds(1, 64), "2", ro, "threads one compaction job may use")
	r.Compression.allowed = []string{"no", "snappy", "lz4", "zstd", "zlib"}
	c.add("rocksdb.compression", &r.Compression, "snappy", ro, "SST compression from level 2 on: no, snappy, lz4, zstd or zlib")
	c.add("rocksdb.block_size", r.BlockSize.bounds(1024, 1<<24), "16384", ro, "SST block size, bytes")
	c.add("rocksdb.cache_index_and_filter_blocks", &r.CacheIndexAndFilter, "yes", ro, "keep index and filter blocks in the block cache")
	c.add("rocksdb.level0_file_num_compaction_trigger", r.Level0CompactionTrigger.bounds(1, 1024), "4", ro, "level-0 files that start a compaction")
	c.add("rocksdb.level0_slowdown_writes_trigger", r.Level0SlowdownTrigger.bounds(1, 1024), "20", ro, "level-0 files that slow writes down")
	c.add("rocksdb.level0_stop_writes_trigger", r.Level0StopTrigger.bounds(1, 1024), "40", ro, "level-0 files that stop writes")
	c.add("rocksdb.max_total_wal_size", r.MaxTotalWALSize.bounds(0, 1<<30), "512", ro, "WAL size that forces memtable flushes, MB")
	c.add("rocksdb.wal_ttl_seconds", r.WALTTLSeconds.bounds(0, math.MaxInt32), "10800", ro, "keep archived WAL files this long (replication window)")
	c.add("rocksdb.wal_size_limit_mb", r.WALSizeLimitMB.bounds(0, math.MaxInt32), "16384", ro, "keep archived WAL files up to this size")
	c.add("rocksdb.disable_auto_compactions", &r.DisableAutoCompactions, "no", ro, "turn RocksDB's background compactions off")
	c.add("rocksdb.enable_pipelined_write", &r.EnablePipelinedWrite, "no", ro, "pipeline WAL and memtable writes")
	c.add("rocksdb.stats_dump_period_sec", r.StatsDumpPeriodSec.bounds(0, math.MaxInt32), "0", ro, "dump RocksDB statistics to its LOG this often (0: never)")
	c.add("rocksdb.write_options.sync", &r.WriteSync, "no", rw, "fsync the WAL on every write (survives power loss, not only kill -9)")
	c.add("rocksdb.write_options.disable_wal", &r.DisableWAL, "no", rw, "write without the WAL: acknowledged writes can be lost on a crash")
	for _, o := range c.options {
		if err := o.value.set(o.def); err != nil {
			panic(fmt.Sprintf("config: bad default for %s: %v", o.name, err))
		}
	}
	return c
}

func (i *Int) bounds(min, max int64) *Int {
	i.min, i.max = min, max
	return i
}

func (c *Config) add(name string, v value, def string, readOnly bool, help string) {
	o := &option{name: name, value: v, def: def, readOnly: readOnly, help: help}
	c.options = append(c.options, o)
	c.byName[name] = o
}

// Load reads the config file at path ("" for none, "-" for standard input)
// over the defaults, then applies overrides (from --key value flags) in
// order, then checks the combination.
func Load(path string, overrides [][2]string) (*Config, error) {
	c := New()
	if path != "" {
		var r io.Reader
		if path == "-" {
			r = os.Stdin
		} else {
			f, err := os.Open(path)
			if err != nil {
				return nil, fmt.Errorf("config: %w", err)
			}
			defer f.Close()
			r = f
		}
		if err := c.read(r, path); err != nil {
			return nil, err
		}
		if path != "-" {
			c.mu.path = path
		}
	}
	for _, kv := range overrides {
		if err := c.apply(kv[0], kv[1]); err != nil {
			return nil, fmt.Errorf("config: command line --%s: %w", kv[0], err)
		}
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Config) read(r io.Reader, path string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		c.mu.lines = append(c.mu.lines, line)
		key, val, err := parseLine(line)
		if err != nil {
			return fmt.Errorf("config: %s line %d: %w", path, n, err)
		}
		if key == "" || val == "" {
			continue
		}
		if err := c.apply(key, val); err != nil {
			return fmt.Errorf("config: %s line %d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("config: reading %s: %w", path, err)
	}
	return nil
}

// apply sets one directive from a file or the command line.
func (c *Config) apply(key, val string) error {
	if name, ok := namespaceName(key); ok {
		c.mu.namespaces[name] = val
		return nil
	}
	key = strings.ToLower(key)
	if o, ok := c.byName[key]; ok {
		if err := o.value.set(val); err != nil {
			return fmt.Errorf("key '%s': %w", key, err)
		}
		return nil
	}
	if isKnownKvrocksKey(key) {
		c.Warnings = append(c.Warnings, fmt.Sprintf("config key '%s' is accepted for Kvrocks compatibility but has no effect yet", key))
		return nil
	}
	return fmt.Errorf("key '%s': unknown config key", key)
}

// namespaceName recognises `namespace.<name>`: the prefix in any case, the
// name kept as written.
func namespaceName(key string) (string, bool) {
	const prefix = "namespace."
	if len(key) > len(prefix) && strings.EqualFold(key[:len(prefix)], prefix) {
		return key[len(prefix):], true
	}
	return "", false
}

// check validates the combination of settings, as Kvrocks does at start.
func (c *Config) check() error {
	if len(c.mu.namespaces) > 0 {
		if c.RequirePass.Get() == "" {
			return errors.New("config: namespace tokens need requirepass to be set")
		}
		if c.ClusterEnabled.Get() {
			return errors.New("config: namespaces are not allowed with cluster-enabled yes")
		}
		for name, token := range c.mu.namespaces {
			if token == c.RequirePass.Get() {
				return fmt.Errorf("config: the token of namespace '%s' equals requirepass", name)
			}
		}
	}
	if c.ClusterEnabled.Get() && strings.TrimSpace(c.Bind.Get()) == "" {
		return errors.New("config: cluster mode needs a TCP bind address")
	}
	return nil
}

// Path returns the config file the server was started with, or "".
func (c *Config) Path() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mu.path
}

// BindAddrs returns the listen addresses of bind.
func (c *Config) BindAddrs() []string { return strings.Fields(c.Bind.Get()) }

// SetNamespace sets the token of namespace name, in memory; Rewrite writes
// it to the file.
func (c *Config) SetNamespace(name, token string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mu.namespaces[name] = token
}

// DeleteNamespace forgets namespace name, in memory.
func (c *Config) DeleteNamespace(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.mu.namespaces, name)
}

// Namespaces returns a copy of the namespace name -> token map.
func (c *Config) Namespaces() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]string, len(c.mu.namespaces))
	for k, v := range c.mu.namespaces {
		out[k] = v
	}
	return out
}

// Get returns the name and value of every option matching the glob pattern
// (case-insensitive), sorted by name.
func (c *Config) Get(pattern string) [][2]string {
	var out [][2]string
	for _, o := range c.options {
		if glob.Match([]byte(pattern), []byte(o.name), true) {
			out = append(out, [2]string{o.name, o.value.String()})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// Set changes an option while the server runs and calls its watchers.
func (c *Config) Set(key, val string) error {
	o, ok := c.byName[strings.ToLower(key)]
	if !ok {
		return fmt.Errorf("%w: %s", ErrUnknownOption, key)
	}
	if o.readOnly {
		return fmt.Errorf("%w: %s", ErrReadOnly, o.name)
	}
	if err := o.value.set(val); err != nil {
		return err
	}
	c.mu.Lock()
	watchers := c.mu.watchers[o.name]
	c.mu.Unlock()
	for _, fn := range watchers {
		fn()
	}
	return nil
}

// Watch registers fn to run after every successful Set of the option.
func (c *Config) Watch(name string, fn func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mu.watchers[name] = append(c.mu.watchers[name], fn)
}

// Option describes a setting for --help and documentation.
type Option struct {
	Name, Default, Help string
	ReadOnly            bool
}

// Options lists every setting in table order.
func (c *Config) Options() []Option {
	out := make([]Option, len(c.options))
	for i, o := range c.options {
		out[i] = Option{Name: o.name, Default: o.def, Help: o.help, ReadOnly: o.readOnly}
	}
	return out
}
