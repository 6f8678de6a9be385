// Package timeseries is Kvrocks's time series (type 13, Kvrocks 2.15+,
// KVROCKS-TYPES.md §6) with RedisTimeSeries's commands (REDIS-NEW.md §9):
// the stored bytes, the write rules, and the TS.* commands' semantics as
// functions over what the engine reads.
//
// On disk a series is a metadata record (flags 0x8d, size = its number of
// chunks, then Meta: retention, chunk size in samples, chunk type,
// duplicate policy, source key, last timestamp) and subkeys in the
// default column family: chunks (00|id → up to chunk-size samples, id
// being the first sample's timestamp), labels (01|name → value) and
// compaction rules (02|destination → aggregator, bucket, alignment and the
// open bucket's running aggregate). The index column family holds one
// empty record per label, ns|00|sized(label)|sized(value)|key, which
// multi-series commands seek by their filter.
//
// What phase 2's handlers call:
//   - arguments: ParseCreate, ParseAlter, ParseAdd, ParseMAdd, ParseIncr,
//     ParseDel, ParseGet, ParseRange, ParseMGet, ParseMRange,
//     ParseQueryIndex, ParseInfo, ParseCreateRule, ParseDeleteRule; their
//     errors become replies with ReplyText;
//   - writes: OpenSeries over a series's stored chunks (Chunks), then
//     Series.Add, Incr, Delete or Apply (a rule's DestWrite on its
//     destination), then Series.Changes, DestWrites and the new Meta and
//     Size to store; LabelChanges for labels and their index entries;
//     CheckCreateRule and NewRule for TS.CREATERULE;
//   - reads: Query.Run over a Source streams a range chunk by chunk
//     (never the whole series); Reduce merges a GROUPBY's series; Filter
//     matches labels and names the index entries to seek (Seeks);
//     Info.Survey counts for TS.INFO;
//   - replies: WriteRange, WriteGet, WriteMGetRow, WriteMRangeRow,
//     WriteGroupRow, WriteKeys, WriteInfo write reply values, RESP2 and
//     RESP3 shaped as RedisTimeSeries shapes them;
//   - compaction filter: ChunkPastRetention, RuleOrphaned,
//     IndexEntryStale.
//
// It does no I/O and imports only metadata, reply and num: the engine
// backs Chunks and applies the changes in one batch.
package timeseries
