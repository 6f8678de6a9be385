package timeseries

import (
	"slices"
	"testing"
)

// memChunks is a series's chunk records in memory, in id order, as the
// engine would read them from RocksDB.
type memChunks struct {
	vals map[int64][]byte
}

func newMemChunks() *memChunks { return &memChunks{vals: map[int64][]byte{}} }

func (m *memChunks) ids() []int64 {
	ids := make([]int64, 0, len(m.vals))
	for id := range m.vals {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

func (m *memChunks) Forward(ts int64, fn func(int64, []byte) bool) error {
	ids := m.ids()
	i, found := slices.BinarySearch(ids, ts)
	if !found && i > 0 {
		i--
	}
	for ; i < len(ids); i++ {
		if !fn(ids[i], m.vals[ids[i]]) {
			break
		}
	}
	return nil
}

func (m *memChunks) Backward(ts int64, fn func(int64, []byte) bool) error {
	ids := m.ids()
	i, found := slices.BinarySearch(ids, ts)
	if !found {
		i--
	}
	for ; i >= 0; i-- {
		if !fn(ids[i], m.vals[ids[i]]) {
			break
		}
	}
	return nil
}

// apply stores a series's chunk and rule changes; rules are kept as
// encoded values by destination.
func (m *memChunks) apply(t testing.TB, changes []Change, rules map[string][]byte) {
	t.Helper()
	for _, c := range changes {
		switch c.Subkey[0] {
		case kindChunk:
			id, err := ParseChunkSubkey(c.Subkey)
			if err != nil {
				t.Fatal(err)
			}
			if c.Delete {
				if _, ok := m.vals[id]; !ok {
					t.Fatalf("delete of chunk %d, which is not stored", id)
				}
				delete(m.vals, id)
			} else {
				m.vals[id] = c.Value
			}
		case kindDownstream:
			if rules != nil {
				rules[string(c.Subkey[1:])] = c.Value
			}
		}
	}
}

// all returns every stored sample in order, checking the chunk
// invariants: chunks parse, are keyed by their first sample and do not
// overlap.
func (m *memChunks) all(t testing.TB) []Sample {
	t.Helper()
	var out []Sample
	for _, id := range m.ids() {
		ch, err := ParseChunk(m.vals[id])
		if err != nil {
			t.Fatal(err)
		}
		if ch.Len() == 0 || ch.TS(0) != id {
			t.Fatalf("chunk %d starts at %v", id, ch.Samples())
		}
		if len(out) > 0 && out[len(out)-1].TS >= id {
			t.Fatalf("chunk %d overlaps the one before", id)
		}
		out = append(out, ch.Samples()...)
	}
	return out
}
