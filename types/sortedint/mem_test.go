package sortedint

import (
	"bytes"
	"errors"
	"slices"
)

// memStore is a Store over subkeys in memory, kept sorted as RocksDB
// keeps them; they need not be valid ids.
type memStore struct {
	subs [][]byte
	// reads counts the subkeys handed to Ascend's and Descend's fn;
	// want is the hint the last of them was given.
	reads int
	want  uint64
	// fail, when set, is what every method returns.
	fail error
}

func newMemStore(ids ...uint64) *memStore {
	s := &memStore{}
	for _, id := range ids {
		s.put(AppendSubkey(nil, id))
	}
	return s
}

func (s *memStore) find(sub []byte) (int, bool) {
	return slices.BinarySearchFunc(s.subs, sub, bytes.Compare)
}

func (s *memStore) put(sub []byte) {
	if i, found := s.find(sub); !found {
		s.subs = slices.Insert(s.subs, i, bytes.Clone(sub))
	}
}

func (s *memStore) del(sub []byte) {
	if i, found := s.find(sub); found {
		s.subs = slices.Delete(s.subs, i, i+1)
	}
}

func (s *memStore) Contains(subs [][]byte) ([]bool, error) {
	if s.fail != nil {
		return nil, s.fail
	}
	out := make([]bool, len(subs))
	for i, sub := range subs {
		_, out[i] = s.find(sub)
	}
	return out, nil
}

func (s *memStore) Ascend(from []byte, want uint64, fn func(sub []byte) bool) error {
	if s.fail != nil {
		return s.fail
	}
	s.want = want
	i, _ := s.find(from)
	for ; i < len(s.subs); i++ {
		s.reads++
		if !fn(bytes.Clone(s.subs[i])) {
			break
		}
	}
	return nil
}

func (s *memStore) Descend(from []byte, want uint64, fn func(sub []byte) bool) error {
	if s.fail != nil {
		return s.fail
	}
	s.want = want
	i, found := s.find(from)
	if !found {
		i--
	}
	for ; i >= 0; i-- {
		s.reads++
		if !fn(bytes.Clone(s.subs[i])) {
			break
		}
	}
	return nil
}

// apply writes a change of SIADD (add) or SIREM to s.
func (s *memStore) apply(ch Change, add bool) {
	for _, id := range ch.IDs {
		if add {
			s.put(AppendSubkey(nil, id))
		} else {
			s.del(AppendSubkey(nil, id))
		}
	}
}

var errStore = errors.New("store failed")
