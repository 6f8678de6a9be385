package config

import "strings"

// kvrocksKeys are settings Kvrocks reads that are not in the option table:
// the TLS keys of OpenSSL builds and keys of other Kvrocks versions. A file
// may set them; Basalt warns that they have no effect.
var kvrocksKeys = map[string]bool{
	"rocksdb.dump_malloc_stats": true, "rocksdb.partition_filters": true,
	"rocksdb.periodic_compaction_seconds": true,
}

func isKnownKvrocksKey(key string) bool {
	return kvrocksKeys[key] || strings.HasPrefix(key, "tls-")
}
