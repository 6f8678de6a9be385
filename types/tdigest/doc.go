// Package tdigest is Kvrocks's t-digest (type 12, TYPE TDIS-TYPE,
// KVROCKS-TYPES.md §5) with the TDIGEST.* commands of RedisBloom
// (REDIS-NEW.md §8), without the storage engine.
//
// On disk a t-digest is a metadata record whose extension (Meta, 72
// bytes) holds the compression, the buffer's capacity and the counters,
// and records in the default column family: one buffer record (subkey 00)
// holding the values added since the last merge, and one record per
// centroid (subkey 01 | mean | position, value the weight), in ascending
// mean order. ADD appends to the buffer while it has room; past it, and
// before any query, the buffer is merged into the centroids as Kvrocks
// merges it (Arrow's merging digest, merge.go), every old record replaced.
//
// The package holds those encodings, the arguments of every command with
// RedisBloom's error texts (ReplyText), and the commands as functions
// over a Store, one key's records as the engine reads them: Add, Reset,
// Merge and Load return the Change to write; a loaded Sketch answers MIN,
// MAX, QUANTILE, CDF, RANK, REVRANK, BYRANK, BYREVRANK and TRIMMED_MEAN;
// Info is INFO from the metadata alone; CREATE is NewMeta. The Write
// functions write the replies to a reply.Sink.
//
// store.go runs the commands over storage's engine API (Create,
// AddValues, Clear, MergeInto, InfoOf, Query): an engine-backed Store,
// each write one batch; a query's merge is written only by a node that
// takes writes (Query's persist). The handlers (commands/tdigest.go)
// parse, call once and reply.
package tdigest
