package timeseries

import (
	"math"
	"strconv"
	"strings"

	"github.com/basaltdb/basalt/reply"
)

// ChunkInfo is one chunk as TS.INFO DEBUG lists it.
type ChunkInfo struct {
	Start, End int64
	Samples    int
	Bytes      int
}

// Info is what TS.INFO reports of a series.
type Info struct {
	Key    []byte
	Meta   Meta
	Labels []Label
	Rules  []Rule
	// Filled by Survey: samples, bytes and chunks as stored, the first
	// and last retained timestamps (0 when there is none).
	Samples, Bytes uint64
	ChunkCount     uint64
	First, Last    int64
	Chunks         []ChunkInfo // with DEBUG
}

// Survey walks the series's chunks once to count what TS.INFO reports.
// Kvrocks estimates totalSamples as chunks × chunk size and reports
// memoryUsage 0; Basalt counts them, as RedisTimeSeries does.
func (in *Info) Survey(c Chunks, debug bool) error {
	newest, ok, err := Newest(c)
	if err != nil || !ok {
		return err
	}
	floor := retained(in.Meta.Retention, newest.TS)
	in.Last, in.First = newest.TS, -1
	var corrupt error
	err = c.Forward(floor, func(_ int64, value []byte) bool {
		ch, err := ParseChunk(value)
		if err != nil {
			corrupt = err
			return false
		}
		k := ch.Search(floor)
		if k == ch.Len() {
			return true
		}
		if in.First < 0 {
			in.First = ch.TS(k)
		}
		in.Samples += uint64(ch.Len() - k)
		in.Bytes += uint64(len(value))
		in.ChunkCount++
		if debug {
			in.Chunks = append(in.Chunks, ChunkInfo{Start: ch.TS(k), End: ch.TS(ch.Len() - 1), Samples: ch.Len() - k, Bytes: len(value)})
		}
		return true
	})
	if in.First < 0 {
		in.First = 0
	}
	if err != nil {
		return err
	}
	return corrupt
}

// WriteInfo writes TS.INFO's reply: a map (RESP2: a flat array) of 14
// fields with simple-string names, in RedisTimeSeries's order; DEBUG
// adds keySelfName and Chunks.
func WriteInfo(w reply.Sink, in *Info, debug bool) {
	n := 14
	if debug {
		n += 2
	}
	w.Map(n)
	w.Simple("totalSamples")
	w.Int(int64(in.Samples))
	w.Simple("memoryUsage")
	w.Int(int64(in.Bytes))
	w.Simple("firstTimestamp")
	w.Int(in.First)
	w.Simple("lastTimestamp")
	w.Int(in.Last)
	w.Simple("retentionTime")
	w.Int(in.Meta.Retention)
	w.Simple("chunkCount")
	w.Int(int64(in.ChunkCount))
	w.Simple("chunkSize")
	w.Int(int64(min(in.Meta.ChunkSize, math.MaxInt64)))
	w.Simple("chunkType")
	if in.Meta.Encoding == Compressed {
		w.Simple("compressed")
	} else {
		w.Simple("uncompressed")
	}
	w.Simple("duplicatePolicy")
	w.Simple(in.Meta.Duplicate.String())
	w.Simple("labels")
	writePairs(w, len(in.Labels), func(i int) ([]byte, []byte, bool) {
		return in.Labels[i].Name, in.Labels[i].Value, true
	})
	w.Simple("sourceKey")
	if len(in.Meta.SourceKey) == 0 {
		w.Null()
	} else {
		w.Bulk(in.Meta.SourceKey)
	}
	w.Simple("rules")
	writeRules(w, in.Rules)
	w.Simple("ignoreMaxTimeDiff")
	w.Int(in.Meta.IgnoreTime)
	w.Simple("ignoreMaxValDiff")
	w.ShortDouble(in.Meta.IgnoreValue)
	if debug {
		w.Simple("keySelfName")
		w.Bulk(in.Key)
		w.Simple("Chunks")
		writeChunks(w, in.Chunks)
	}
}

// writeRules writes TS.INFO's rules: [[dest, bucket, AGG, align] ...]
// (RESP3: dest → [bucket, AGG, align]).
func writeRules(w reply.Sink, rules []Rule) {
	resp3 := w.Protocol() == 3
	if resp3 {
		w.Map(len(rules))
	} else {
		w.Array(len(rules))
	}
	for _, r := range rules {
		if resp3 {
			w.Bulk(r.Dest)
			w.Array(3)
		} else {
			w.Array(4)
			w.Bulk(r.Dest)
		}
		w.Int(r.Bucket)
		w.Simple(strings.ToUpper(r.Agg.String()))
		w.Int(r.Align)
	}
}

func writeChunks(w reply.Sink, chunks []ChunkInfo) {
	w.Array(len(chunks))
	for _, c := range chunks {
		w.Map(5)
		w.Simple("startTimestamp")
		w.Int(c.Start)
		w.Simple("endTimestamp")
		w.Int(c.End)
		w.Simple("samples")
		w.Int(int64(c.Samples))
		w.Simple("size")
		w.Int(int64(c.Bytes))
		w.Simple("bytesPerSample")
		per := 0.0
		if c.Samples > 0 {
			per = float64(c.Bytes) / float64(c.Samples)
		}
		w.Simple(strconv.FormatFloat(per, 'f', -1, 64))
	}
}
