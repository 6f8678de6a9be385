package rdb

import (
	"errors"
	"fmt"
	"io"
)

// source is what a reader reads values from: a payload in memory (DUMP's)
// or a file read as it goes (an RDB file's).
type source interface {
	// next returns the next n bytes. They stay valid until the next call
	// for a file, whose buffer is reused, and for ever for a payload.
	next(n uint64) ([]byte, error)
	// left returns how many bytes remain.
	left() uint64
}

// memSource reads a payload; reading past its end is a format error, as
// Redis takes a value that runs into the footer.
type memSource struct {
	b []byte
	p int
}

func (m *memSource) next(n uint64) ([]byte, error) {
	if n > m.left() {
		return nil, errFormat
	}
	s := m.b[m.p : m.p+int(n)]
	m.p += int(n)
	return s, nil
}

func (m *memSource) left() uint64 { return uint64(len(m.b) - m.p) }

// ErrTruncated is an RDB file that ends before its EOF marker and checksum.
var ErrTruncated = errors.New("rdb: the file ends too early")

// streamBuffer is how much of a file a streamSource holds at a time; a
// string longer than that is read into memory of its own.
const streamBuffer = 1 << 20

// streamSource reads a file of known size through a buffer of its own.
type streamSource struct {
	r        io.Reader
	buf      []byte // buf[p:] is read and not yet consumed
	p        int
	unread   uint64 // bytes of the file not yet in buf
	consumed uint64 // bytes of the file consumed so far
}

func newStreamSource(r io.Reader, size uint64) *streamSource {
	return &streamSource{r: r, buf: make([]byte, 0, min(size, streamBuffer)), unread: size}
}

func (s *streamSource) left() uint64 { return uint64(len(s.buf)-s.p) + s.unread }

func (s *streamSource) next(n uint64) ([]byte, error) {
	if n > s.left() {
		return nil, fmt.Errorf("%w (%d bytes wanted at byte %d, %d left)", ErrTruncated, n, s.consumed, s.left())
	}
	s.consumed += n
	have := uint64(len(s.buf) - s.p)
	if n <= have {
		out := s.buf[s.p : s.p+int(n)]
		s.p += int(n)
		return out, nil
	}
	if n > uint64(cap(s.buf)) {
		// A long string: memory of its own, bounded by the file's size.
		out := make([]byte, n)
		copy(out, s.buf[s.p:])
		if err := s.read(out[have:]); err != nil {
			return nil, err
		}
		s.buf, s.p = s.buf[:0], 0
		return out, nil
	}
	// Move what is left to the front and fill the rest.
	kept := copy(s.buf[:cap(s.buf)], s.buf[s.p:])
	fill := min(uint64(cap(s.buf)-kept), s.unread)
	s.buf, s.p = s.buf[:kept+int(fill)], 0
	if err := s.read(s.buf[kept:]); err != nil {
		return nil, err
	}
	out := s.buf[:n]
	s.p = int(n)
	return out, nil
}

// read fills b from the file, which is to hold that many more bytes.
func (s *streamSource) read(b []byte) error {
	if _, err := io.ReadFull(s.r, b); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return fmt.Errorf("%w (it shrank while being read)", ErrTruncated)
		}
		return fmt.Errorf("rdb: read: %w", err)
	}
	s.unread -= uint64(len(b))
	return nil
}
