package tdigest

import (
	"math"

	"github.com/basaltdb/basalt/reply"
)

// Replies as RedisBloom gives them (REDIS-NEW.md §0.4, §8): every double
// through RedisModule_ReplyWithDouble, which is a bulk string in RESP2
// and a double in RESP3, printed by Redis 7.2+'s d2string; ranks as
// integers; INFO as a map of simple-string labels to integers.

// WriteDouble writes a double reply: in RESP2 a bulk string, in RESP3 a
// double, both in the shortest form of Redis 7.2+ (num.AppendShortDouble).
func WriteDouble(w reply.Sink, f float64) { w.ShortDouble(f) }

// WriteDoubles writes an array of double replies (QUANTILE, CDF, BYRANK,
// BYREVRANK).
func WriteDoubles(w reply.Sink, fs []float64) {
	w.Array(len(fs))
	for _, f := range fs {
		WriteDouble(w, f)
	}
}

// WriteRanks writes RANK's and REVRANK's array of integers.
func WriteRanks(w reply.Sink, ranks []int64) {
	w.Array(len(ranks))
	for _, r := range ranks {
		w.Int(r)
	}
}

// InfoField is one pair of TDIGEST.INFO's reply.
type InfoField struct {
	Name  string
	Value int64
}

// Info returns TDIGEST.INFO's fields for metadata m, as Kvrocks gives
// them (KVROCKS-TYPES.md §5.4): RedisBloom's, less "Memory usage", with
// Kvrocks's capacity. INFO merges nothing: buffered values show as
// unmerged.
func Info(m Meta) []InfoField {
	unmerged := uint64(0)
	if m.TotalWeight > m.MergedWeight {
		unmerged = m.TotalWeight - m.MergedWeight
	}
	return []InfoField{
		{"Compression", int64(m.Compression)},
		{"Capacity", int64(m.Capacity)},
		{"Merged nodes", clampInt(m.MergedNodes)},
		{"Unmerged nodes", clampInt(m.UnmergedNodes)},
		{"Merged weight", clampInt(m.MergedWeight)},
		{"Unmerged weight", clampInt(unmerged)},
		{"Observations", clampInt(m.TotalObservations)},
		{"Total compressions", clampInt(m.MergeTimes)},
	}
}

// clampInt is n as an integer reply, at most math.MaxInt64.
func clampInt(n uint64) int64 { return int64(min(n, math.MaxInt64)) }

// WriteInfo writes TDIGEST.INFO's reply: a map in RESP3, a flat array in
// RESP2, labels as simple strings.
func WriteInfo(w reply.Sink, m Meta) {
	fields := Info(m)
	w.Map(len(fields))
	for _, f := range fields {
		w.Simple(f.Name)
		w.Int(f.Value)
	}
}
