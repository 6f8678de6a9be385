package session

import "bytes"

// Tx is a session's open MULTI: the commands queued, as their arguments
// (owned: the server reuses its buffers), and whether one was refused,
// which makes EXEC fail.
type Tx struct {
	Queued [][][]byte
	size   int64 // bytes of the queued arguments, with ArgOverhead each
	Dirty  bool
}

// BeginTx opens a MULTI.
func (s *Session) BeginTx() {
	s.Tx = &Tx{}
	s.multiLen.Store(0)
}

// Queue copies args into the open MULTI and returns the bytes it holds.
func (s *Session) Queue(args [][]byte) int64 {
	owned := make([][]byte, len(args))
	for i, a := range args {
		owned[i] = bytes.Clone(a)
		s.Tx.size += int64(len(a)) + ArgOverhead
	}
	s.Tx.Queued = append(s.Tx.Queued, owned)
	s.multiMem.Store(s.Tx.size)
	s.multiLen.Store(int64(len(s.Tx.Queued)))
	return s.Tx.size
}

// EndTx leaves the open MULTI, if any.
func (s *Session) EndTx() {
	s.Tx = nil
	s.multiMem.Store(0)
	s.multiLen.Store(-1)
}
