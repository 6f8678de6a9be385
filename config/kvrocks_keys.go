package config

import "strings"

// kvrocksKeys are the Kvrocks 2.10 settings Basalt reads without acting on
// yet, so that an existing kvrocks.conf starts unchanged. Each moves into
// the option table when the feature behind it lands.
var kvrocksKeys = map[string]bool{
	"unixsocket": true, "unixsocketperm": true, "daemonize": true, "supervised": true, "tcp-backlog": true,
	"socket-fd": true, "masterauth": true, "slaveof": true, "slave-read-only": true, "slave-priority": true,
	"slave-serve-stale-data": true, "slave-empty-db-before-fullsync": true, "purge-backup-on-fullsync": true,
	"master-use-repl-port": true, "use-rsid-psync": true, "replica-announce-ip": true, "replica-announce-port": true,
	"max-replication-mb": true, "fullsync-recv-file-delay": true,
	"log-retention-days": true, "max-io-mb": true, "max-db-size": true, "max-backup-to-keep": true,
	"max-backup-keep-hours": true, "backup-dir": true, "bgsave-cron": true,
	"dbsize-scan-cron":       true,
	"profiling-sample-ratio": true, "profiling-sample-record-max-len": true,
	"profiling-sample-record-threshold-ms": true, "profiling-sample-commands": true, "rename-command": true,
	"auto-resize-block-and-sst": true, "redis-cursor-compatible": true,
	"json-max-nesting-depth": true, "json-storage-format": true, "txn-context-enabled": true,
	"max-bitmap-to-string-mb":  true,
	"rocksdb.block_cache_type": true, "rocksdb.row_cache_size": true, "rocksdb.metadata_block_cache_size": true,
	"rocksdb.subkey_block_cache_size": true, "rocksdb.share_metadata_and_subkey_block_cache": true,
	"rocksdb.max_background_compactions": true, "rocksdb.max_background_flushes": true,
	"rocksdb.compression_level": true, "rocksdb.compression_start_level": true, "rocksdb.wal_compression": true,
	"rocksdb.rate_limiter_auto_tuned": true, "rocksdb.delayed_write_rate": true, "rocksdb.dump_malloc_stats": true,
	"rocksdb.enable_blob_files": true, "rocksdb.min_blob_size": true, "rocksdb.blob_file_size": true,
	"rocksdb.enable_blob_garbage_collection": true, "rocksdb.blob_garbage_collection_age_cutoff": true,
	"rocksdb.max_bytes_for_level_base": true, "rocksdb.max_bytes_for_level_multiplier": true,
	"rocksdb.level_compaction_dynamic_level_bytes": true, "rocksdb.partition_filters": true,
	"rocksdb.periodic_compaction_seconds": true, "rocksdb.write_options.no_slowdown": true,
	"rocksdb.write_options.low_pri": true, "rocksdb.write_options.memtable_insert_hint_per_batch": true,
	"rocksdb.write_options.write_batch_max_bytes": true, "rocksdb.read_options.async_io": true,
}

func isKnownKvrocksKey(key string) bool {
	return kvrocksKeys[key] || strings.HasPrefix(key, "tls-")
}
