package timeseries

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/basaltdb/basalt/reply"
)

// Replies as RedisTimeSeries shapes them (REDIS-NEW.md §9.5–9.7): a
// sample is [timestamp, value], its value a simple string of the
// shortest digits in RESP2 and a double in RESP3.

// AppendValueText appends a sample value as RedisTimeSeries prints it in
// RESP2 (dragonbox's shortest digits): plain for ordinary magnitudes,
// capital-E scientific for extreme ones (the switch points are
// [unverified]: Basalt switches below 1e-5 and from 1e21, as %g would
// around its precision), NaN as "NaN".
func AppendValueText(dst []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(dst, "NaN"...)
	case math.IsInf(v, 1):
		return append(dst, "inf"...)
	case math.IsInf(v, -1):
		return append(dst, "-inf"...)
	}
	if a := math.Abs(v); a == 0 || (a >= 1e-5 && a < 1e21) {
		return strconv.AppendFloat(dst, v, 'f', -1, 64)
	}
	s := strconv.FormatFloat(v, 'E', -1, 64)
	mant, exp, _ := strings.Cut(s, "E")
	neg := exp[0] == '-'
	exp = strings.TrimLeft(exp[1:], "0")
	dst = append(dst, mant...)
	dst = append(dst, 'E')
	if neg {
		dst = append(dst, '-')
	}
	return append(dst, exp...)
}

// WriteValue writes a sample's value: in RESP3 a double in the shortest
// form, as RedisModule_ReplyWithDouble prints it on Redis 8.
func WriteValue(w reply.Sink, v float64) {
	if w.Protocol() == 3 {
		w.ShortDouble(v)
		return
	}
	var tmp [32]byte
	w.Simple(string(AppendValueText(tmp[:0], v)))
}

// WriteSample writes [timestamp, value].
func WriteSample(w reply.Sink, s Sample) {
	w.Array(2)
	w.Int(s.TS)
	WriteValue(w, s.V)
}

// WriteGet writes TS.GET's reply: the sample, or an empty array.
func WriteGet(w reply.Sink, s Sample, ok bool) {
	if !ok {
		w.Array(0)
		return
	}
	WriteSample(w, s)
}

// WriteRange streams TS.RANGE's (TS.REVRANGE's) reply: the query's
// samples as an array. On an error nothing is written and the caller
// replies the error.
func WriteRange(w reply.Sink, q *Query, src Source) error {
	d := w.DeferArray()
	n := 0
	err := q.Run(src, func(s Sample) bool {
		WriteSample(w, s)
		n++
		return !w.Failed()
	})
	if err != nil {
		w.Abandon(d)
		return err
	}
	w.Finish(d, n)
	return nil
}

// WriteLabels writes a series's labels as a multi-series reply shows
// them: nothing to show is [] (RESP3: an empty map); WITHLABELS all of
// them; SELECTED_LABELS the selected ones, nil for those it lacks.
func WriteLabels(w reply.Sink, m *Multi, labels []Label) {
	switch m.Labels {
	case WithLabels:
		writePairs(w, len(labels), func(i int) ([]byte, []byte, bool) {
			return labels[i].Name, labels[i].Value, true
		})
	case SelectedLabels:
		writePairs(w, len(m.Selected), func(i int) ([]byte, []byte, bool) {
			v, ok := label(labels, m.Selected[i])
			return m.Selected[i], v, ok
		})
	default:
		writePairs(w, 0, nil)
	}
}

// writePairs writes n name-value pairs: an array of [name, value] arrays
// in RESP2, a map in RESP3; a value not there is nil.
func writePairs(w reply.Sink, n int, pair func(i int) (name, value []byte, ok bool)) {
	resp3 := w.Protocol() == 3
	if resp3 {
		w.Map(n)
	} else {
		w.Array(n)
	}
	for i := 0; i < n; i++ {
		name, value, ok := pair(i)
		if !resp3 {
			w.Array(2)
		}
		w.Bulk(name)
		if ok {
			w.Bulk(value)
		} else {
			w.Null()
		}
	}
}

// MultiRows starts a multi-series reply of n rows: an array in RESP2, a
// map by key in RESP3.
func MultiRows(w reply.Sink, n int) {
	if w.Protocol() == 3 {
		w.Map(n)
		return
	}
	w.Array(n)
}

// WriteMGetRow writes one series of TS.MGET: [key, labels, sample]
// (RESP3: key → [labels, sample]); the sample is [] when there is none.
func WriteMGetRow(w reply.Sink, m *Multi, key []byte, labels []Label, s Sample, ok bool) {
	if w.Protocol() == 3 {
		w.Bulk(key)
		w.Array(2)
	} else {
		w.Array(3)
		w.Bulk(key)
	}
	WriteLabels(w, m, labels)
	WriteGet(w, s, ok)
}

// WriteMRangeRow writes one series of TS.MRANGE: [key, labels, samples]
// (RESP3: key → [labels, {"aggregators": [agg]}, samples]), streaming
// the samples of the query over src.
func WriteMRangeRow(w reply.Sink, m *Multi, key []byte, labels []Label, src Source) error {
	mark := w.Len()
	if w.Protocol() == 3 {
		w.Bulk(key)
		w.Array(3)
		WriteLabels(w, m, labels)
		w.Map(1)
		w.BulkString("aggregators")
		if m.Query.Agg == AggNone {
			w.Array(0)
		} else {
			w.Array(1)
			w.BulkString(m.Query.Agg.String())
		}
	} else {
		w.Array(3)
		w.Bulk(key)
		WriteLabels(w, m, labels)
	}
	if err := WriteRange(w, &m.Query, src); err != nil {
		w.Truncate(mark)
		return err
	}
	return nil
}

// Group is one row of a GROUPBY: the series whose label GroupBy has
// Value, reduced together.
type Group struct {
	Value   []byte
	Keys    [][]byte
	Sources []Source
}

// Name is the group's row name, label=value.
func (g *Group) Name(label []byte) []byte {
	return append(append(append([]byte(nil), label...), '='), g.Value...)
}

// WriteGroupRow writes one GROUPBY row: [label=value, labels, samples]
// (RESP3: name → [labels, {"reducers": [r]}, {"sources": [keys]},
// samples]), its labels being the group's label, __reducer__ and
// __source__.
func WriteGroupRow(w reply.Sink, m *Multi, g *Group) error {
	mark := w.Len()
	labels := []Label{
		{Name: m.GroupBy, Value: g.Value},
		{Name: []byte("__reducer__"), Value: []byte(m.Reducer.String())},
		{Name: []byte("__source__"), Value: bytes.Join(g.Keys, []byte(","))},
	}
	shown := &Multi{Labels: m.Labels, Selected: m.Selected}
	if m.Labels == SelectedLabels {
		labels = labels[:1] // the other two are not labels to select [inferred]
	}
	resp3 := w.Protocol() == 3
	if resp3 {
		w.Bulk(g.Name(m.GroupBy))
		w.Array(4)
		writeLabelsUnsorted(w, shown, labels)
		w.Map(1)
		w.BulkString("reducers")
		w.Array(1)
		w.BulkString(m.Reducer.String())
		w.Map(1)
		w.BulkString("sources")
		w.Array(len(g.Keys))
		for _, k := range g.Keys {
			w.Bulk(k)
		}
	} else {
		w.Array(3)
		w.Bulk(g.Name(m.GroupBy))
		writeLabelsUnsorted(w, shown, labels)
	}
	d := w.DeferArray()
	n := 0
	err := Reduce(&m.Query, m.Reducer, g.Sources, func(s Sample) bool {
		WriteSample(w, s)
		n++
		return !w.Failed()
	})
	if err != nil {
		w.Abandon(d)
		w.Truncate(mark)
		return err
	}
	w.Finish(d, n)
	return nil
}

// writeLabelsUnsorted is WriteLabels for labels in a set order.
func writeLabelsUnsorted(w reply.Sink, m *Multi, labels []Label) {
	if m.Labels != SelectedLabels {
		if m.Labels == NoLabels {
			labels = nil
		}
		writePairs(w, len(labels), func(i int) ([]byte, []byte, bool) {
			return labels[i].Name, labels[i].Value, true
		})
		return
	}
	writePairs(w, len(m.Selected), func(i int) ([]byte, []byte, bool) {
		for _, l := range labels {
			if bytes.Equal(l.Name, m.Selected[i]) {
				return l.Name, l.Value, true
			}
		}
		return m.Selected[i], nil, false
	})
}

// WriteKeys writes TS.QUERYINDEX's reply: the keys, an array (RESP3: a
// set).
func WriteKeys(w reply.Sink, keys [][]byte) {
	if w.Protocol() == 3 {
		w.Set(len(keys))
	} else {
		w.Array(len(keys))
	}
	for _, k := range keys {
		w.Bulk(k)
	}
}
