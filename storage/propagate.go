package storage

import "github.com/basaltdb/basalt/metadata"

// The propagate column family holds server state that replicates through
// the WAL (FORMAT.md §8.1): scripts, the replication id, the namespace
// tokens.

// GetPropagated reads a record of the propagate column family.
func (s *Storage) GetPropagated(key string) (value []byte, found bool, err error) {
	return s.get(CFPropagate, []byte(key), nil)
}

// PutPropagated writes a record of the propagate column family; it is
// durable when PutPropagated returns.
func (s *Storage) PutPropagated(key string, value []byte) error {
	if err := s.put(CFPropagate, []byte(key), value); err != nil {
		return err
	}
	return s.Durable(s.LatestSequence())
}

// PropagatedWrite is one change of the propagate column family: Key set
// to Value, or deleted when Delete is set; with RangeEnd set, every key
// from Key up to RangeEnd (excluded) deleted.
type PropagatedWrite struct {
	Key, Value, RangeEnd []byte
	Delete               bool
}

// WritePropagated applies writes to the propagate column family as one
// batch, which is durable when WritePropagated returns. The caller must
// not modify the writes' bytes before it returns.
func (s *Storage) WritePropagated(writes []PropagatedWrite) error {
	b := s.newBatch(nil)
	for _, w := range writes {
		switch {
		case w.RangeEnd != nil:
			b.delRange(CFPropagate, w.Key, w.RangeEnd)
		case w.Delete:
			b.del(CFPropagate, w.Key)
		default:
			b.put(CFPropagate, w.Key, w.Value)
		}
	}
	if err := b.commit(); err != nil {
		return err
	}
	return s.Durable(s.LatestSequence())
}

// ScanPropagated calls fn with every record of the propagate column
// family whose key starts with prefix, in key order, until fn fails. key
// and value are valid only during the call.
func (s *Storage) ScanPropagated(prefix string, fn func(key, value []byte) error) error {
	return s.scan(CFPropagate, []byte(prefix), metadata.PrefixEnd([]byte(prefix)), nil, fn)
}
