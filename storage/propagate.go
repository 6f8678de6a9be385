package storage

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
