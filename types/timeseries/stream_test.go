package timeseries

import (
	"encoding/binary"
	"math"
	"testing"
)

// synthChunks is a series of n samples (ts i·10, value i mod 100) in
// chunks of 1024, made on the fly into one reused buffer, so that
// whatever a range allocates is the range's own.
type synthChunks struct {
	n   int64
	buf []byte
}

const synthChunkLen = 1024

func (c *synthChunks) chunk(first int64) []byte {
	count := min(synthChunkLen, c.n-first)
	b := c.buf[:0]
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(count))
	for i := first; i < first+count; i++ {
		b = binary.LittleEndian.AppendUint64(b, uint64(i*10))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(i%100)))
	}
	c.buf = b
	return b
}

func (c *synthChunks) Forward(ts int64, fn func(int64, []byte) bool) error {
	first := min(max(ts/10, 0), c.n-1) / synthChunkLen * synthChunkLen
	for ; first < c.n; first += synthChunkLen {
		if !fn(first*10, c.chunk(first)) {
			break
		}
	}
	return nil
}

func (c *synthChunks) Backward(ts int64, fn func(int64, []byte) bool) error {
	first := min(ts/10, c.n-1) / synthChunkLen * synthChunkLen
	for ; first >= 0; first -= synthChunkLen {
		if !fn(first*10, c.chunk(first)) {
			break
		}
	}
	return nil
}

// TestMillionSampleRangeStreams runs aggregated and raw ranges over a
// million samples and checks that they allocate next to nothing: the
// range holds one chunk and one bucket at a time, never the series.
func TestMillionSampleRangeStreams(t *testing.T) {
	const n = 1_000_000
	c := &synthChunks{n: n, buf: make([]byte, 0, 8+16*synthChunkLen)}
	meta := NewMeta()
	src := Source{Chunks: c, Meta: &meta}
	for _, q := range []Query{
		{From: 0, To: math.MaxInt64, Agg: AggAvg, Bucket: 1000},
		{From: 0, To: math.MaxInt64, Agg: AggTWA, Bucket: 1000, Reverse: true},
		{From: 0, To: math.MaxInt64},
	} {
		var count, sum int64
		allocs := testing.AllocsPerRun(1, func() {
			count, sum = 0, 0
			if err := q.Run(src, func(s Sample) bool {
				count++
				sum += s.TS
				return true
			}); err != nil {
				t.Fatal(err)
			}
		})
		want := int64(n)
		if q.Agg != AggNone {
			want = n * 10 / 1000
		}
		if count != want {
			t.Fatalf("%v: %d results, want %d", q.Agg, count, want)
		}
		if allocs > 100 {
			t.Errorf("%v over %d samples: %v allocations", q.Agg, n, allocs)
		}
	}
}
