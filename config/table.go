package config

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// The option table: every key Kvrocks 2.10 registers (KVROCKS-CONFIG.md §2,
// without the TLS keys of OpenSSL builds), with Kvrocks's type, default,
// range and CONFIG SET mutability, plus Basalt's own keys. Keys marked
// noEffect are read, reported and set as Kvrocks does, but nothing in
// Basalt acts on them yet; setting one in a file or on the command line
// logs a warning at start.

const (
	intMax = math.MaxInt32
	intMin = math.MinInt32
)

// bounds sets an Int's range and C type.
func (i *Int) bounds(min, max int64, kind ...intKind) *Int {
	i.min, i.max = min, max
	if len(kind) > 0 {
		i.kind = kind[0]
	}
	return i
}

// optionFlag qualifies a row of the table.
type optionFlag uint8

const (
	ro       optionFlag = 1 << iota // refused by CONFIG SET
	noEffect                        // accepted and reported, no effect yet
	basalt                          // Basalt's own key, unknown to Kvrocks
	redis                           // Redis 7's key, unknown to Kvrocks
)

func (c *Config) addOptions() {
	r := &c.RocksDB
	boolean := func() *Bool { return &Bool{} }
	integer := func(min, max int64, kind ...intKind) *Int { return (&Int{}).bounds(min, max, kind...) }
	enum := func(values ...string) *Enum { return &Enum{allowed: values} }
	cronCheck := func(s string) error {
		_, err := parseCron(strings.Fields(s))
		return err
	}

	// Network and process.
	c.add("daemonize", boolean(), "no", ro|noEffect, "fork into the background (Basalt stays in the foreground)")
	c.add("bind", &c.Bind, "", ro, "space-separated addresses to listen on (empty: 127.0.0.1, unless unixsocket is set)")
	c.add("port", c.Port.bounds(1, 65535, kindUint32), "6666", ro, "TCP port")
	c.add("socket-fd", integer(-1, 65536), "-1", ro|noEffect, "listen on this inherited socket instead of binding")
	c.add("workers", c.Workers.bounds(1, 256), "8", 0, "worker threads: the Go scheduler runs at most min(workers, CPUs) at once")
	c.add("timeout", c.Timeout.bounds(0, intMax), "0", 0, "close a client idle for this many seconds (0: never)")
	c.add("tcp-backlog", integer(0, intMax), "511", ro|noEffect, "listen() backlog")
	c.add("maxclients", c.MaxClients.bounds(0, intMax), "10240", 0, "maximum simultaneous client connections")
	c.add("unixsocket", &c.UnixSocket, "", ro, "also listen on this unix socket (a stale socket file there is replaced)")
	c.add("unixsocketperm", c.UnixSocketPerm.bounds(1, intMax, kindOctal), "777", ro, "permissions of the unix socket, octal")
	c.add("supervised", enum("no", "auto", "upstart", "systemd"), "no", ro|noEffect, "tell upstart or systemd about readiness")
	c.add("proto-max-bulk-len", &c.ProtoMaxBulkLen, "536870912", 0, "largest bulk string a client may send, in bytes (a K, M, G, T or P suffix multiplies by 1024^n)")
	c.ProtoMaxBulkLen.min, c.ProtoMaxBulkLen.max = 1<<20, math.MaxUint64
	c.add("resp3-enabled", &c.RESP3Enabled, "yes", 0, "allow HELLO 3 (yes by default, as in Kvrocks 2.11; no answers HELLO 3 in RESP2)")
	c.add("redis-cursor-compatible", boolean(), "yes", noEffect, "numeric SCAN cursors (Basalt's always are)")
	c.addClientLimits()
	c.add("metrics-port", c.MetricsPort.bounds(0, 65535), "9666", ro|basalt, "serve Prometheus metrics at http://<first bind address>:<port>/metrics (0: off)")
	c.add("metrics-pprof-enabled", &c.MetricsPprofEnabled, "no", basalt, "also serve Go's profiles (CPU, heap, goroutines, execution trace) at /debug/pprof/ on metrics-port")

	// Security and namespaces.
	c.add("requirepass", &c.RequirePass, "", 0, "admin password; clients must AUTH with it (empty: no password)")
	c.byName["requirepass"].validate = c.checkRequirePass
	c.add("masterauth", &c.MasterAuth, "", 0, "password a replica sends to its master")
	c.byName["masterauth"].validate = func(v string) error {
		if c.isNamespaceToken(v) {
			return errors.New("masterauth is duplicated with namespace tokens")
		}
		return nil
	}
	c.add("repl-namespace-enabled", &c.ReplNamespaceEnabled, "no", 0, "keep namespace tokens in the database (replicated) instead of the config file")

	// Files.
	c.add("db-name", &c.DBName, "change.me.db", ro, "database name; replicas must have the master's")
	c.add("dir", &c.Dir, "/tmp/kvrocks", ro, "data directory; RocksDB lives in <dir>/db")
	c.add("backup-dir", &c.BackupDir, "/tmp/kvrocks/backup", 0, "where BGSAVE writes backups (default <dir>/backup)")
	c.add("log-dir", &c.LogDir, "", ro, "directory of the log files (empty: dir), or stdout or stderr")
	c.LogLevel.allowed = []string{"info", "warning", "error", "fatal"}
	c.add("log-level", &c.LogLevel, "info", 0, "info, warning, error or fatal")
	c.add("log-retention-days", c.LogRetentionDays.bounds(-1, intMax), "-1", 0, "delete log files older than this many days (-1: never)")
	c.byName["log-retention-days"].onSet = func() error {
		if c.LogDir.Get() == "stdout" {
			return errors.New("can't set the 'log-retention-days' when the log dir is stdout")
		}
		return nil
	}
	c.add("pidfile", &c.Pidfile, "/tmp/kvrocks/kvrocks.pid", ro, "file to write the process id to (default <dir>/kvrocks.pid)")

	// Replication.
	c.add("slaveof", &c.SlaveOf, "", ro, "replicate from <host> <port> (SLAVEOF changes it while running)")
	c.byName["slaveof"].validate = checkSlaveOf
	c.add("master-use-repl-port", &c.MasterUseReplPort, "no", 0, "connect to the master's port+1 (Kvrocks's legacy replication port)")
	c.add("slave-serve-stale-data", &c.SlaveServeStaleData, "yes", 0, "a replica answers while its link is down (no: MASTERDOWN)")
	c.add("slave-empty-db-before-fullsync", &c.SlaveEmptyDBBeforeFullsync, "no", 0, "a replica empties its database before a full sync fetches its master's (answering LOADING until it is in), so the disk never holds both")
	c.add("slave-priority", c.SlavePriority.bounds(0, intMax), "100", 0, "replica priority for failover (shown by INFO)")
	c.add("slave-read-only", &c.SlaveReadOnly, "yes", 0, "a replica refuses writes")
	c.add("use-rsid-psync", &c.UseRSIDPSync, "no", ro, "mark writes with a replication id and PSYNC with it, so that a replica whose history diverged syncs in full")
	c.add("replica-announce-ip", &c.ReplicaAnnounceIP, "", 0, "address a replica announces to its master")
	c.add("replica-announce-port", c.ReplicaAnnouncePort.bounds(0, 65535, kindUint32), "0", 0, "port a replica announces to its master (0: port)")
	c.add("max-replication-mb", c.MaxReplicationMB.bounds(0, intMax), "0", 0, "MB/s for full-sync files (0: no limit)")
	c.add("fullsync-recv-file-delay", c.FullsyncRecvFileDelay.bounds(0, intMax), "0", 0, "seconds a replica waits per received file (a test aid)")
	c.add("purge-backup-on-fullsync", &c.PurgeBackupOnFullsync, "no", 0, "drop backups during a full sync")
	c.add("max-backup-to-keep", c.MaxBackupToKeep.bounds(0, 1), "1", 0, "backups kept")
	c.add("max-backup-keep-hours", c.MaxBackupKeepHours.bounds(0, intMax), "0", 0, "delete backups older than this many hours (0: never)")
	c.add("bgsave-cron", &c.BgsaveCron, "", 0, "run BGSAVE at these times (crontab)")
	c.byName["bgsave-cron"].validate = cronCheck

	// Limits and profiling.
	c.add("max-io-mb", integer(0, intMax), "0", noEffect, "MB/s for flushes and compactions (0: no limit)")
	c.add("max-bitmap-to-string-mb", c.MaxBitmapToStringMB.bounds(0, intMax), "16", 0, "largest bitmap GET renders as a string, MB")
	c.add("max-db-size", c.MaxDBSize.bounds(0, intMax), "0", 0, "GB of SST files (INFO used_db_size) from which writes that add data are refused (0: no limit)")
	c.add("metadata-cache-size", c.MetadataCacheSize.bounds(0, 1<<20), "32", basalt, "MB of recently read metadata records (a string's value, a collection's header), stream group records and elements read by name (hash fields, set and zset members, bitmap and HyperLogLog segments) kept in memory in front of RocksDB, exact at every write (0: no cache)")
	c.add("profiling-sample-ratio", c.ProfilingSampleRatio.bounds(0, 100), "0", 0, "percent of commands PERFLOG profiles")
	c.add("profiling-sample-record-max-len", c.ProfilingSampleMaxLen.bounds(0, intMax), "256", 0, "PERFLOG entries kept")
	c.add("profiling-sample-record-threshold-ms", c.ProfilingSampleThreshold.bounds(0, intMax), "100", 0, "PERFLOG keeps samples slower than this")
	c.add("profiling-sample-commands", &c.ProfilingSampleCommands, "", 0, "commands PERFLOG samples: a comma-separated list or *")
	c.byName["profiling-sample-commands"].onSet = func() error {
		v := c.byName["profiling-sample-commands"].value.String()
		for _, name := range strings.Split(v, ",") {
			if name != "" && name != "*" && CommandExists != nil && !CommandExists(name) {
				return errors.New(name + " is not Kvrocks supported command")
			}
		}
		return nil
	}
	c.add("slowlog-log-slower-than", c.SlowlogLogSlowerThan.bounds(-1, intMax), "200000", 0, "log commands slower than this many µs (-1: off, 0: all)")
	c.add("slowlog-max-len", c.SlowlogMaxLen.bounds(0, intMax), "128", 0, "slow log entries kept")
	c.add("rename-command", &c.RenameCommand, "", ro, "rename-command OLD NEW: command OLD answers to NEW only; NEW \"\" disables OLD (once per command, file or command line)")
	c.add("auto-resize-block-and-sst", boolean(), "yes", noEffect, "no effect in Kvrocks 2.10 either")
	c.add("dbsize-scan-cron", &c.DBSizeScanCron, "", 0, "run DBSIZE SCAN at these times (crontab)")
	c.byName["dbsize-scan-cron"].validate = cronCheck
	c.JSONStorageFormat.allowed = []string{"json", "cbor"}
	c.add("json-max-nesting-depth", c.JSONMaxNestingDepth.bounds(0, intMax), "1024", 0, "deepest JSON document the JSON.* commands take and write")
	c.add("json-storage-format", &c.JSONStorageFormat, "json", 0, "how JSON documents are written: json (text) or cbor; both are read")
	c.add("txn-context-enabled", boolean(), "no", ro|noEffect, "run MULTI on a snapshot")

	// Cluster.
	c.add("cluster-enabled", &c.ClusterEnabled, "no", ro, "cluster mode: keys carry their hash slot (changes the on-disk key format)")
	c.add("persist-cluster-nodes-enabled", &c.PersistClusterNodes, "yes", 0, "keep the cluster topology in <dir>/nodes.conf across restarts")
	c.add("migrate-speed", c.MigrateSpeed.bounds(0, intMax), "4096", 0, "keys per second a slot migration sends (0: no limit)")
	c.add("migrate-pipeline-size", c.MigratePipelineSize.bounds(1, intMax), "16", 0, "commands a slot migration sends before reading their replies")
	c.add("migrate-sequence-gap", c.MigrateSequenceGap.bounds(1, intMax), "10000", 0, "WAL writes left to send below which a migration stops writes to its slots and finishes")
	c.MigrateType.allowed = []string{"redis-command", "raw-key-value"}
	c.add("migrate-type", &c.MigrateType, "redis-command", 0, "slot migration sends restore commands (redis-command) or raw write batches (raw-key-value, APPLYBATCH)")
	c.add("migrate-batch-size-kb", c.MigrateBatchSizeKB.bounds(1, intMax), "16", 0, "size of one raw-key-value batch, KB (applies to a running migration)")
	c.add("redis-databases", c.RedisDatabases.bounds(0, intMax), "0", ro|basalt,
		"N > 0: SELECT 0..N-1 as Redis, database n >= 1 kept as namespace db<n> (Kvrocks 2.15); not with namespaces or cluster mode")
	c.add("migrate-batch-rate-limit-mb", c.MigrateBatchRateLimitMB.bounds(0, intMax), "16", 0, "raw-key-value bytes per second, MB (0: no limit; applies to a running migration)")

	// Compaction.
	c.add("compact-cron", &c.CompactCron, "", 0, "compact the whole database at these times (crontab: minute hour day month weekday; empty: never)")
	c.byName["compact-cron"].validate = cronCheck
	c.add("compaction-checker-cron", &c.CompactionCheckerCron, "", 0, "during these minutes (crontab), compact the SST files with the most reclaimable data")
	c.byName["compaction-checker-cron"].validate = cronCheck
	c.compactionCheckerRange.cron = &c.CompactionCheckerCron
	c.add("compaction-checker-range", &c.compactionCheckerRange, "", 0, "deprecated: hours a-b, the same as compaction-checker-cron \"* a-b * * *\"")
	c.byName["compaction-checker-range"].validate = c.compactionCheckerRange.validate
	c.add("force-compact-file-age", c.ForceCompactFileAge.bounds(60, math.MaxInt64, kindInt64), "172800", 0, "the checker compacts SST files older than this many seconds")
	c.add("force-compact-file-min-deleted-percentage", c.ForceCompactFileMinDeletedPct.bounds(1, 100), "10", 0, "the checker compacts SST files with at least this share of reclaimable records")

	// RocksDB. The keys Kvrocks changes live are changed live here too:
	// storage/ hooks them (Config.Hook) to RocksDB's SetOptions and
	// SetDBOptions.
	c.add("rocksdb.compression", &r.Compression, "no", 0, "SST compression from level compression_start_level on: no, snappy, zlib, lz4 or zstd")
	r.Compression.allowed = []string{"no", "snappy", "zlib", "lz4", "zstd"}
	c.add("rocksdb.compression_level", r.CompressionLevel.bounds(intMin, intMax), "32767", ro, "compression level (32767: the library's default)")
	c.add("rocksdb.compression_start_level", r.CompressionStartLevel.bounds(0, 6), "2", 0, "first compressed level; the levels above stay uncompressed")
	c.add("rocksdb.block_size", r.BlockSize.bounds(0, intMax), "16384", ro, "SST block size, bytes")
	c.add("rocksdb.max_open_files", r.MaxOpenFiles.bounds(-1, intMax), "8096", 0, "open SST files kept (-1: unlimited)")
	c.add("rocksdb.write_buffer_size", r.WriteBufferSize.bounds(0, 4096), "64", 0, "memtable size, MB")
	c.add("rocksdb.max_write_buffer_number", r.MaxWriteBufferNumber.bounds(0, 256), "4", 0, "memtables per column family")
	c.add("rocksdb.db_write_buffer_size", r.DBWriteBufferSize.bounds(0, 1<<20), "128", ro|basalt, "MB the memtables of all column families may hold together: nearing it, the oldest is flushed (0: no limit, as Kvrocks)")
	c.add("rocksdb.target_file_size_base", r.TargetFileSizeBase.bounds(1, 1024), "128", 0, "SST target size at level 1, MB")
	c.add("rocksdb.max_background_compactions", r.MaxBackgroundCompactions.bounds(-1, 32), "2", 0, "background compaction threads (-1: from max_background_jobs)")
	c.add("rocksdb.max_background_flushes", r.MaxBackgroundFlushes.bounds(-1, 32), "2", ro, "background flush threads (-1: from max_background_jobs)")
	c.add("rocksdb.max_subcompactions", r.MaxSubcompactions.bounds(0, 16), "2", 0, "threads one compaction job may use")
	c.add("rocksdb.delayed_write_rate", r.DelayedWriteRate.bounds(0, math.MaxInt64, kindInt64), "0", 0, "write rate once writes are delayed, bytes/s (0: RocksDB's choice)")
	c.add("rocksdb.wal_compression", &r.WALCompression, "no", ro, "WAL compression: no or zstd")
	r.WALCompression.allowed = []string{"no", "zstd"}
	c.add("rocksdb.wal_ttl_seconds", r.WALTTLSeconds.bounds(0, intMax), "10800", ro, "keep archived WAL files this long (replication window)")
	c.add("rocksdb.wal_size_limit_mb", r.WALSizeLimitMB.bounds(0, intMax), "16384", ro, "keep archived WAL files up to this size")
	c.add("rocksdb.max_total_wal_size", r.MaxTotalWALSize.bounds(0, intMax), "512", 0, "WAL size that forces memtable flushes, MB")
	c.add("rocksdb.disable_auto_compactions", &r.DisableAutoCompactions, "no", 0, "turn RocksDB's background compactions off")
	c.add("rocksdb.enable_pipelined_write", &r.EnablePipelinedWrite, "no", ro, "pipeline WAL and memtable writes")
	c.add("rocksdb.stats_dump_period_sec", r.StatsDumpPeriodSec.bounds(0, intMax), "0", 0, "dump RocksDB statistics to its LOG this often (0: never)")
	c.add("rocksdb.cache_index_and_filter_blocks", &r.CacheIndexAndFilter, "yes", ro, "keep index and filter blocks in the block cache")
	c.add("rocksdb.block_cache_size", r.BlockCacheSize.bounds(0, intMax), "0", ro, "block cache shared by all column families, MB (0: metadata_block_cache_size + subkey_block_cache_size)")
	c.add("rocksdb.block_cache_type", enum("lru", "hcc"), "lru", ro|noEffect, "block cache kind (Basalt: LRU)")
	c.add("rocksdb.subkey_block_cache_size", r.SubkeyBlockCacheSize.bounds(0, intMax), "2048", ro, "with block_cache_size 0: MB of block cache counted for subkeys")
	c.add("rocksdb.metadata_block_cache_size", r.MetadataBlockCacheSize.bounds(0, intMax), "2048", ro, "with block_cache_size 0: MB of block cache counted for metadata")
	c.add("rocksdb.share_metadata_and_subkey_block_cache", boolean(), "yes", ro|noEffect, "unused in Kvrocks 2.10 too")
	c.add("rocksdb.row_cache_size", r.RowCacheSize.bounds(0, intMax), "0", ro, "row cache, MB (0: none)")
	c.add("rocksdb.compaction_readahead_size", r.CompactionReadaheadSize.bounds(0, 64<<20), "2097152", 0, "compaction read-ahead, bytes")
	c.add("rocksdb.level0_slowdown_writes_trigger", r.Level0SlowdownTrigger.bounds(1, 1024), "20", 0, "level-0 files that slow writes down")
	c.add("rocksdb.level0_stop_writes_trigger", r.Level0StopTrigger.bounds(1, 1024), "40", 0, "level-0 files that stop writes")
	c.add("rocksdb.level0_file_num_compaction_trigger", r.Level0CompactionTrigger.bounds(1, 1024), "4", 0, "level-0 files that start a compaction")
	c.add("rocksdb.enable_blob_files", &r.EnableBlobFiles, "no", 0, "keep large values in blob files")
	needBlobs := func() error {
		if !r.EnableBlobFiles.Get() {
			return errors.New("Must set rocksdb.enable_blob_files to yes first.")
		}
		return nil
	}
	c.add("rocksdb.min_blob_size", r.MinBlobSize.bounds(0, intMax), "4096", 0, "values from this size go to blob files, bytes")
	c.byName["rocksdb.min_blob_size"].onSet = needBlobs
	c.add("rocksdb.blob_file_size", r.BlobFileSize.bounds(0, intMax), "268435456", 0, "blob file size, bytes")
	c.byName["rocksdb.blob_file_size"].onSet = needBlobs
	c.add("rocksdb.enable_blob_garbage_collection", &r.EnableBlobGC, "yes", 0, "collect garbage in blob files")
	c.byName["rocksdb.enable_blob_garbage_collection"].onSet = needBlobs
	c.add("rocksdb.blob_garbage_collection_age_cutoff", r.BlobGCAgeCutoff.bounds(0, 100), "25", 0, "percent of the oldest blob files collected")
	c.byName["rocksdb.blob_garbage_collection_age_cutoff"].onSet = needBlobs
	c.add("rocksdb.level_compaction_dynamic_level_bytes", &r.LevelCompactionDynamicLevelBytes, "no", 0, "size levels dynamically (RocksDB takes it only at start: CONFIG SET fails as in Kvrocks)")
	needDynamic := func() error {
		if !r.LevelCompactionDynamicLevelBytes.Get() {
			return errors.New("Must set rocksdb.level_compaction_dynamic_level_bytes yes first.")
		}
		return nil
	}
	c.add("rocksdb.max_bytes_for_level_base", r.MaxBytesForLevelBase.bounds(0, intMax), "268435456", 0, "size of level 1, bytes")
	c.byName["rocksdb.max_bytes_for_level_base"].onSet = needDynamic
	c.add("rocksdb.max_bytes_for_level_multiplier", r.MaxBytesForLevelMultiplier.bounds(1, 100), "10", 0, "size ratio of adjacent levels")
	c.byName["rocksdb.max_bytes_for_level_multiplier"].onSet = needDynamic
	c.add("rocksdb.max_background_jobs", r.MaxBackgroundJobs.bounds(0, 32), "4", 0, "background flush and compaction threads")
	c.add("rocksdb.rate_limiter_auto_tuned", boolean(), "yes", ro|noEffect, "tune the I/O rate limiter")
	c.add("rocksdb.avoid_unnecessary_blocking_io", &r.AvoidUnnecessaryBlockingIO, "yes", ro, "defer file deletions to the background")
	c.add("rocksdb.write_options.sync", &r.WriteSync, "no", ro, "fsync the WAL on every write (survives power loss, not only kill -9)")
	c.add("rocksdb.write_options.disable_wal", &r.DisableWAL, "no", ro, "write without the WAL: acknowledged writes can be lost on a crash")
	c.add("rocksdb.write_options.no_slowdown", boolean(), "no", ro|noEffect, "fail writes instead of delaying them")
	c.add("rocksdb.write_options.low_pri", boolean(), "no", ro|noEffect, "writes yield to compactions")
	c.add("rocksdb.write_options.memtable_insert_hint_per_batch", boolean(), "no", ro|noEffect, "memtable insert hints per batch")
	c.add("rocksdb.write_options.write_batch_max_bytes", r.WriteBatchMaxBytes.bounds(0, intMax), "0", 0, "largest write batch of a command, bytes as RocksDB counts them: a larger one fails and writes nothing (0: no limit)")
	c.add("rocksdb.read_options.async_io", boolean(), "yes", noEffect, "asynchronous reads for scans")

	c.addRedisKeys()
}

// CommandExists, when set (by the command table), tells whether a command
// name is known; profiling-sample-commands is checked against it.
var CommandExists func(name string) bool

// checkRequirePass is Kvrocks's validator of requirepass: a server with
// namespaces needs a password, and it must not be one of their tokens.
// checkSlaveOf accepts "", "no one" and "<host> <port>".
func checkSlaveOf(v string) error {
	f := strings.Fields(v)
	switch {
	case len(f) == 0:
		return nil
	case len(f) == 2 && strings.EqualFold(f[0], "no") && strings.EqualFold(f[1], "one"):
		return nil
	case len(f) != 2:
		return errors.New("wrong number of arguments")
	}
	if port, err := strconv.Atoi(f[1]); err != nil || port < 1 || port > 65535 {
		return errors.New("port should be number")
	}
	return nil
}

func (c *Config) checkRequirePass(v string) error {
	c.mu.Lock()
	n := len(c.mu.namespaces)
	c.mu.Unlock()
	if v == "" && n > 0 {
		return errors.New("requirepass empty not allowed while the namespace exists")
	}
	if c.isNamespaceToken(v) {
		return errors.New("requirepass is duplicated with namespace tokens")
	}
	return nil
}

// isNamespaceToken reports whether v is the token of a namespace.
func (c *Config) isNamespaceToken(v string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, token := range c.mu.namespaces {
		if token == v {
			return true
		}
	}
	return false
}
