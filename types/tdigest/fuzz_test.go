package tdigest

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/basaltdb/basalt/resp"
)

// fuzzRecords builds a store from stored: records of a length byte, the
// subkey, a length byte and the value, as long as bytes last.
func fuzzRecords(stored []byte) *memStore {
	s := newMemStore()
	take := func() []byte {
		if len(stored) == 0 {
			return nil
		}
		n := min(int(stored[0])%20, len(stored)-1)
		b := stored[1 : 1+n]
		stored = stored[1+n:]
		return b
	}
	for len(stored) > 0 {
		sub, value := take(), take()
		if len(sub) > 0 {
			s.recs[string(sub)] = bytes.Clone(value)
		}
	}
	return s
}

// checkChange holds a change to what the package writes: records that
// read back, and a metadata extension that does.
func checkChange(t *testing.T, ch Change) {
	t.Helper()
	for _, r := range ch.Put {
		if bytes.Equal(r.Sub, BufferSubkey) {
			if _, err := ParseBuffer(nil, r.Value); err != nil {
				t.Fatalf("buffer written unreadable: %v", err)
			}
		} else if _, err := ParseCentroid(r.Sub, r.Value); err != nil {
			t.Fatalf("centroid written unreadable: %v", err)
		}
	}
	if m, err := DecodeExt(ch.Meta.AppendExt(nil)); err != nil || !sameMeta(m, ch.Meta) {
		t.Fatalf("metadata %+v reads back as %+v, %v", ch.Meta, m, err)
	}
}

// sameMeta compares metadata bit for bit (NaN extremes included).
func sameMeta(a, b Meta) bool {
	return sameFloat(a.Min, b.Min) && sameFloat(a.Max, b.Max) && bytes.Equal(a.AppendExt(nil), b.AppendExt(nil))
}

// FuzzStored runs every command on any stored bytes: a metadata extension
// and records. Nothing panics, no count in the metadata sizes an
// allocation, and what a command writes reads back.
func FuzzStored(f *testing.F) {
	ext := NewMeta(100)
	ext.UnmergedNodes, ext.MergedNodes, ext.TotalWeight, ext.MergedWeight = 2, 2, 4, 2
	ext.Min, ext.Max = 1, 5
	rec := func(sub, value []byte) []byte {
		return append(append(append([]byte{byte(len(sub))}, sub...), byte(len(value))), value...)
	}
	stored := rec(BufferSubkey, AppendBufferValues(nil, []float64{3, 4}))
	stored = append(stored, rec(AppendCentroidSubkey(nil, 1, 0), AppendCentroidValue(nil, 1))...)
	stored = append(stored, rec(AppendCentroidSubkey(nil, 5, 1), AppendCentroidValue(nil, 1))...)
	f.Add(ext.AppendExt(nil), stored)
	huge := ext
	huge.Compression, huge.Capacity, huge.MergedNodes, huge.UnmergedNodes = math.MaxUint32, math.MaxUint32, math.MaxUint64, math.MaxUint64
	f.Add(huge.AppendExt(nil), stored)
	f.Add(NewMeta(1).AppendExt(nil), []byte{})
	f.Fuzz(func(t *testing.T, extBytes, stored []byte) {
		m, err := DecodeExt(extBytes)
		if err != nil {
			return
		}
		s := fuzzRecords(stored)
		if ch, err := Add(m, s, []float64{-1, 0, 2.5}); err == nil {
			checkChange(t, ch)
		}
		if ch, err := Add(m, s, make([]float64, 2000)); err == nil {
			checkChange(t, ch)
		}
		if ch, err := Reset(m, s); err == nil {
			checkChange(t, ch)
		}
		sk, ch, err := Load(m, s)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Load: %v", err)
			}
			return
		}
		if ch != nil {
			checkChange(t, *ch)
		}
		sk.Min()
		sk.Max()
		sk.Quantiles(probes)
		sk.CDF([]float64{math.Inf(-1), -1, 0, 1, 3, math.Inf(1)})
		sk.Ranks([]float64{math.Inf(-1), 0, 3, math.Inf(1)}, false)
		sk.Ranks([]float64{math.Inf(-1), 0, 3, math.Inf(1)}, true)
		sk.ByRanks([]int64{0, 1, 3, math.MaxInt64}, false)
		sk.ByRanks([]int64{0, 1, 3, math.MaxInt64}, true)
		sk.TrimmedMean(0.1, 0.9)
		for _, a := range []MergeArgs{{}, {Override: true}, {Compression: 5}} {
			if ch, err := Merge(sk, []*Sketch{sk, sk}, a); err == nil {
				checkChange(t, ch)
			}
		}
		WriteInfo(resp.NewWriter(), m)
	})
}

// fuzzCommands are the commands FuzzCommands picks from.
var fuzzCommands = []string{
	"TDIGEST.CREATE", "TDIGEST.ADD", "TDIGEST.RESET", "TDIGEST.MERGE", "TDIGEST.MIN", "TDIGEST.MAX",
	"TDIGEST.INFO", "TDIGEST.QUANTILE", "TDIGEST.CDF", "TDIGEST.RANK", "TDIGEST.REVRANK",
	"TDIGEST.BYRANK", "TDIGEST.BYREVRANK", "TDIGEST.TRIMMED_MEAN",
}

// FuzzCommands parses and runs any arguments (the first byte picks the
// command, 0x00 separates the arguments) on a database holding a
// t-digest, an empty one and a key of another type, in both protocols:
// nothing panics and every command writes one reply.
func FuzzCommands(f *testing.F) {
	for _, c := range readCases(f) {
		for i, name := range fuzzCommands {
			if string(bytes.ToUpper(c.args[0])) == name {
				f.Add(append([]byte{byte(i)}, bytes.Join(c.args[1:], []byte{0})...))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		args := append([][]byte{[]byte(fuzzCommands[int(data[0])%len(fuzzCommands)])}, bytes.Split(data[1:], []byte{0})...)
		for _, proto := range []int{2, 3} {
			db := memDB{}
			w := resp.NewWriter()
			for _, setup := range []string{"TDIGEST.CREATE t COMPRESSION 1", "TDIGEST.ADD t 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18", "TDIGEST.ADD t 1", "TDIGEST.CREATE e", "SET s x"} {
				setupArgs, _ := splitCommand(setup)
				db.do(setupArgs, w)
			}
			w.SetProtocol(proto)
			before := w.Len()
			db.do(args, w)
			if w.Len() == before {
				t.Fatalf("%q: no reply", args)
			}
		}
	})
}
