package config

import (
	"errors"
	"testing"
)

// kvrocksKeys210 is KVROCKS-CONFIG.md §2 without the TLS keys: every key
// Kvrocks 2.10 registers, its code default and whether CONFIG SET refuses
// it.
var kvrocksKeys210 = []struct {
	name, def string
	readOnly  bool
}{
	{"daemonize", "no", true},
	{"bind", "", true},
	{"port", "6666", true},
	{"socket-fd", "-1", true},
	{"workers", "8", false},
	{"timeout", "0", false},
	{"tcp-backlog", "511", true},
	{"maxclients", "10240", false},
	{"max-backup-to-keep", "1", false},
	{"max-backup-keep-hours", "0", false},
	{"master-use-repl-port", "no", false},
	{"requirepass", "", false},
	{"masterauth", "", false},
	{"slaveof", "", true},
	{"compact-cron", "", false},
	{"bgsave-cron", "", false},
	{"dbsize-scan-cron", "", false},
	{"replica-announce-ip", "", false},
	{"replica-announce-port", "0", false},
	{"compaction-checker-range", "", false},
	{"compaction-checker-cron", "", false},
	{"force-compact-file-age", "172800", false},
	{"force-compact-file-min-deleted-percentage", "10", false},
	{"db-name", "change.me.db", true},
	{"dir", "/tmp/kvrocks", true},
	{"backup-dir", "/tmp/kvrocks/backup", false},
	{"log-dir", "", true},
	{"log-level", "info", false},
	{"pidfile", "/tmp/kvrocks/kvrocks.pid", true},
	{"max-io-mb", "0", false},
	{"max-bitmap-to-string-mb", "16", false},
	{"max-db-size", "0", false},
	{"max-replication-mb", "0", false},
	{"supervised", "no", true},
	{"slave-serve-stale-data", "yes", false},
	{"slave-empty-db-before-fullsync", "no", false},
	{"slave-priority", "100", false},
	{"slave-read-only", "yes", false},
	{"use-rsid-psync", "no", true},
	{"profiling-sample-ratio", "0", false},
	{"profiling-sample-record-max-len", "256", false},
	{"profiling-sample-record-threshold-ms", "100", false},
	{"slowlog-log-slower-than", "200000", false},
	{"profiling-sample-commands", "", false},
	{"slowlog-max-len", "128", false},
	{"purge-backup-on-fullsync", "no", false},
	{"rename-command", "", true},
	{"auto-resize-block-and-sst", "yes", false},
	{"fullsync-recv-file-delay", "0", false},
	{"cluster-enabled", "no", true},
	{"migrate-speed", "4096", false},
	{"migrate-pipeline-size", "16", false},
	{"migrate-sequence-gap", "10000", false},
	{"migrate-type", "redis-command", false},
	{"migrate-batch-size-kb", "16", false},
	{"migrate-batch-rate-limit-mb", "16", false},
	{"unixsocket", "", true},
	{"unixsocketperm", "777", true},
	{"log-retention-days", "-1", false},
	{"persist-cluster-nodes-enabled", "yes", false},
	{"redis-cursor-compatible", "yes", false},
	{"resp3-enabled", "yes", false}, // Kvrocks 2.11's default (2.10: no)
	{"repl-namespace-enabled", "no", false},
	{"proto-max-bulk-len", "536870912", false},
	{"json-max-nesting-depth", "1024", false},
	{"json-storage-format", "json", false},
	{"txn-context-enabled", "no", true},
	{"rocksdb.compression", "no", false},
	{"rocksdb.compression_level", "32767", true},
	{"rocksdb.compression_start_level", "2", false},
	{"rocksdb.block_size", "16384", true},
	{"rocksdb.max_open_files", "8096", false},
	{"rocksdb.write_buffer_size", "64", false},
	{"rocksdb.max_write_buffer_number", "4", false},
	{"rocksdb.target_file_size_base", "128", false},
	{"rocksdb.max_background_compactions", "2", false},
	{"rocksdb.max_background_flushes", "2", true},
	{"rocksdb.max_subcompactions", "2", false},
	{"rocksdb.delayed_write_rate", "0", false},
	{"rocksdb.wal_compression", "no", true},
	{"rocksdb.wal_ttl_seconds", "10800", true},
	{"rocksdb.wal_size_limit_mb", "16384", true},
	{"rocksdb.max_total_wal_size", "512", false},
	{"rocksdb.disable_auto_compactions", "no", false},
	{"rocksdb.enable_pipelined_write", "no", true},
	{"rocksdb.stats_dump_period_sec", "0", false},
	{"rocksdb.cache_index_and_filter_blocks", "yes", true},
	{"rocksdb.block_cache_size", "0", true},
	{"rocksdb.block_cache_type", "lru", true},
	{"rocksdb.subkey_block_cache_size", "2048", true},
	{"rocksdb.metadata_block_cache_size", "2048", true},
	{"rocksdb.share_metadata_and_subkey_block_cache", "yes", true},
	{"rocksdb.row_cache_size", "0", true},
	{"rocksdb.compaction_readahead_size", "2097152", false},
	{"rocksdb.level0_slowdown_writes_trigger", "20", false},
	{"rocksdb.level0_stop_writes_trigger", "40", false},
	{"rocksdb.level0_file_num_compaction_trigger", "4", false},
	{"rocksdb.enable_blob_files", "no", false},
	{"rocksdb.min_blob_size", "4096", false},
	{"rocksdb.blob_file_size", "268435456", false},
	{"rocksdb.enable_blob_garbage_collection", "yes", false},
	{"rocksdb.blob_garbage_collection_age_cutoff", "25", false},
	{"rocksdb.max_bytes_for_level_base", "268435456", false},
	{"rocksdb.max_bytes_for_level_multiplier", "10", false},
	{"rocksdb.level_compaction_dynamic_level_bytes", "no", false},
	{"rocksdb.max_background_jobs", "4", false},
	{"rocksdb.rate_limiter_auto_tuned", "yes", true},
	{"rocksdb.avoid_unnecessary_blocking_io", "yes", true},
	{"rocksdb.write_options.sync", "no", true},
	{"rocksdb.write_options.disable_wal", "no", true},
	{"rocksdb.write_options.no_slowdown", "no", true},
	{"rocksdb.write_options.low_pri", "no", true},
	{"rocksdb.write_options.memtable_insert_hint_per_batch", "no", true},
	{"rocksdb.write_options.write_batch_max_bytes", "0", false},
	{"rocksdb.read_options.async_io", "yes", false},
}

// TestKeysAsKvrocks: every Kvrocks key is in the table with Kvrocks's
// default and mutability, and every other key is marked as Basalt's or
// Redis's own.
func TestKeysAsKvrocks(t *testing.T) {
	c := New()
	known := map[string]bool{}
	for _, k := range kvrocksKeys210 {
		known[k.name] = true
		o, ok := c.byName[k.name]
		switch {
		case !ok:
			t.Errorf("%s: missing", k.name)
		case o.def != k.def:
			t.Errorf("%s: default %q, Kvrocks's is %q", k.name, o.def, k.def)
		case (o.flags&ro != 0) != k.readOnly:
			t.Errorf("%s: read-only %v, Kvrocks's %v", k.name, o.flags&ro != 0, k.readOnly)
		}
		if err := c.Set(k.name, o.value.String()); k.readOnly != errors.Is(err, ErrReadOnly) && !(k.name == "rocksdb.level_compaction_dynamic_level_bytes" || k.name == "log-retention-days") {
			t.Errorf("CONFIG SET %s to its value: %v", k.name, err)
		}
	}
	for _, o := range c.options {
		if !known[o.name] && o.flags&(basalt|redis) == 0 {
			t.Errorf("%s is neither Kvrocks's nor marked as Basalt's or Redis's", o.name)
		}
	}
	// What CONFIG GET shows for the defaults that depend on dir.
	for name, want := range map[string]string{"dir": "/tmp/kvrocks", "log-dir": "/tmp/kvrocks", "pidfile": "/tmp/kvrocks/kvrocks.pid", "backup-dir": "/tmp/kvrocks/backup", "bind": ""} {
		if got := c.Get(name); len(got) != 1 || got[0][1] != want {
			t.Errorf("CONFIG GET %s = %v, want %q", name, got, want)
		}
	}
	if got := c.BindAddrs(); len(got) != 1 || got[0] != "127.0.0.1" {
		t.Errorf("BindAddrs with bind empty = %v", got)
	}
	if got := c.Get("rename-command"); len(got) != 0 {
		t.Errorf("CONFIG GET rename-command without renames = %v", got)
	}
}
