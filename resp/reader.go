package resp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/basaltdb/basalt/num"
)

// Redis's protocol limits that do not depend on configuration.
const (
	// MaxInlineSize bounds an inline request, and a "*<n>" or "$<n>" line
	// still waiting for its CRLF (PROTO_INLINE_MAX_SIZE).
	MaxInlineSize = 64 * 1024
	// Before AUTH a client may only send short requests (Redis 7).
	unauthMultibulkLen = 10
	unauthBulkLen      = 16384

	initialBufSize = 16 * 1024 // PROTO_IOBUF_LEN: one read
	// A bulk at least this long that is not in the buffer yet gets an
	// allocation of its own, read into directly (PROTO_MBULK_BIG_ARG).
	bigArg = 32 * 1024
	// A big bulk's allocation starts at most this large and doubles as its
	// bytes arrive, so that a header alone cannot make the server commit
	// proto-max-bulk-len bytes.
	bigArgFirstChunk = 1 << 20
	// The buffer holds every small argument of a request at once; offsets
	// into it are 32-bit.
	maxBufSize = math.MaxInt32
	// Bytes of bookkeeping per argument: its span while parsing and its
	// slice header once returned.
	perArgSize = 8 + 24
)

// ProtocolError is a request that breaks the protocol or one of its
// limits. The server replies "ERR Protocol error: <msg>" and closes the
// connection, as Redis does.
type ProtocolError string

func (e ProtocolError) Error() string { return "Protocol error: " + string(e) }

// ErrBudget is returned, wrapping the budget's own error, when the memory
// a request needs was refused (client-query-buffer-limit,
// maxmemory-clients).
var ErrBudget = errors.New("resp: query buffer budget exceeded")

// Reader parses requests, in the multibulk or the inline form, from a
// connection. It holds one request at a time plus what the client sent
// after it, and checks every length against its limit before it
// allocates for it, so a request is refused by its header rather than
// after it was buffered.
//
// A Reader is used by one goroutine.
type Reader struct {
	rd io.Reader

	// MaxBulk is the longest bulk accepted (proto-max-bulk-len). Authed
	// tells whether the client has authenticated; before it has, Redis
	// 7's small limits apply. Both are read as each header is parsed, so
	// an AUTH takes effect from the request after it.
	MaxBulk int64
	Authed  bool
	// Budget, when set, is told every change of the memory the Reader
	// holds; an error refuses a growth and fails the read with ErrBudget.
	Budget func(delta int64) error
	// BeforeRead, when set, is called before each read from the
	// connection, which may block: the moment to send the replies of the
	// requests returned so far. Its error fails the read.
	BeforeRead func() error

	buf  []byte
	r, w int // buf[r:w] is unparsed input; the current request starts at r

	req   request
	args  [][]byte
	held  int64 // bytes reported to Budget
	rdErr error // a read error kept until the bytes read with it are parsed
}

// request is the parse state of the request starting at Reader.r.
type request struct {
	phase phase
	pos   int   // bytes of it parsed so far, from Reader.r
	left  int64 // bulks still to come
	n     int64 // length of the bulk being read
	spans []span
	bigs  [][]byte // big bulks, each in its own allocation
}

type phase uint8

const (
	phStart      phase = iota // nothing of the request parsed
	phBulkHeader              // expecting "$<len>\r\n"
	phBulkData                // expecting a small bulk's payload and CRLF
	phBig                     // reading a big bulk into bigs[len(bigs)-1]
	phBigCRLF                 // expecting the CRLF after a big bulk
)

// span locates an argument: n bytes at off from the request's start, or,
// when off is negative, bigs[-off-1].
type span struct{ off, n int32 }

// NewReader returns a Reader of rd with Redis's default limits for a
// client that has authenticated.
func NewReader(rd io.Reader) *Reader {
	return &Reader{rd: rd, MaxBulk: 512 << 20, Authed: true}
}

// Held returns the bytes the Reader holds now: its buffer and the
// current request's arguments.
func (r *Reader) Held() int64 { return r.held }

// Buffered returns the bytes received and not returned as a request yet.
func (r *Reader) Buffered() int { return r.w - r.r }

// ReadRequest returns the next request's arguments, never none. They are
// valid until the next call. Requests that Redis ignores (an empty inline
// line, "*0", "*-1") are skipped. The error is a ProtocolError for a
// request that breaks the protocol, wraps ErrBudget when memory was
// refused, and is the connection's error otherwise (io.EOF when it
// closed).
func (r *Reader) ReadRequest() ([][]byte, error) {
	r.release()
	for {
		args, err := r.parse()
		if err != nil {
			return nil, err
		}
		if args != nil {
			return args, nil
		}
		if err := r.fill(); err != nil {
			return nil, err
		}
	}
}

// parse advances over the buffered input. It returns the request's
// arguments once it is complete, and nil when more input is needed.
func (r *Reader) parse() ([][]byte, error) {
	rq := &r.req
	for {
		switch rq.phase {
		case phStart:
			if r.r == r.w {
				return nil, nil
			}
			if r.buf[r.r] != '*' {
				args, parsed, err := r.inline()
				if err != nil || !parsed {
					return nil, err
				}
				if args == nil {
					continue // an empty line
				}
				return args, nil
			}
			n, ok, err := r.number("too big mbulk count string")
			switch {
			case err != nil || !ok:
				return nil, err
			case n > math.MaxInt32:
				return nil, ProtocolError("invalid multibulk length")
			case n > unauthMultibulkLen && !r.Authed:
				return nil, ProtocolError("unauthenticated multibulk length")
			case n <= 0:
				r.endRequest()
				continue
			}
			rq.left, rq.phase = n, phBulkHeader
		case phBulkHeader:
			if rq.left == 0 {
				return r.finish()
			}
			if r.r+rq.pos == r.w {
				return nil, nil
			}
			if c := r.buf[r.r+rq.pos]; c != '$' {
				return nil, ProtocolError("expected '$', got '" + string([]byte{c}) + "'")
			}
			n, ok, err := r.number("too big bulk count string")
			switch {
			case err != nil || !ok:
				return nil, err
			case n < 0 || n > r.MaxBulk:
				return nil, ProtocolError("invalid bulk length")
			case n > unauthBulkLen && !r.Authed:
				return nil, ProtocolError("unauthenticated bulk length")
			}
			rq.n, rq.phase = n, phBulkData
			if n >= bigArg && int64(r.w-r.r-rq.pos) < n+2 {
				if err := r.startBig(); err != nil {
					return nil, err
				}
			}
		case phBulkData:
			if int64(r.w-r.r-rq.pos) < rq.n+2 {
				return nil, r.room(int(rq.n) + 2)
			}
			if err := r.addSpan(span{off: int32(rq.pos), n: int32(rq.n)}); err != nil {
				return nil, err
			}
			// Like Redis, the two bytes after a payload are skipped
			// unchecked.
			rq.pos += int(rq.n) + 2
			rq.left--
			rq.phase = phBulkHeader
		case phBig:
			big := rq.bigs[len(rq.bigs)-1]
			// Take what the buffer holds of the payload.
			take := min(int(rq.n)-len(big), r.w-r.r-rq.pos)
			if take > 0 {
				if err := r.growBig(take); err != nil {
					return nil, err
				}
				big = rq.bigs[len(rq.bigs)-1]
				start := r.r + rq.pos
				rq.bigs[len(rq.bigs)-1] = append(big, r.buf[start:start+take]...)
				rq.pos += take
				big = rq.bigs[len(rq.bigs)-1]
			}
			if int64(len(big)) < rq.n {
				return nil, nil
			}
			rq.phase = phBigCRLF
		case phBigCRLF:
			if r.w-r.r-rq.pos < 2 {
				return nil, nil
			}
			rq.pos += 2
			rq.left--
			rq.phase = phBulkHeader
		}
	}
}

// number parses the "*<n>" or "$<n>" line at the parse position. ok is
// false when the line is not complete yet.
func (r *Reader) number(tooBig string) (n int64, ok bool, err error) {
	rq := &r.req
	line := r.buf[r.r+rq.pos : r.w]
	cr := bytes.IndexByte(line, '\r')
	if cr < 0 {
		if len(line) > MaxInlineSize {
			return 0, false, ProtocolError(tooBig)
		}
		return 0, false, r.room(len(line) + 1)
	}
	if cr+2 > len(line) {
		return 0, false, r.room(cr + 2)
	}
	n, valid := num.ParseInt(line[1:cr])
	if !valid {
		if line[0] == '*' {
			return 0, false, ProtocolError("invalid multibulk length")
		}
		return 0, false, ProtocolError("invalid bulk length")
	}
	rq.pos += cr + 2
	return n, true, nil
}

// inline parses an inline request: a line split into arguments as
// redis-cli would quote them. parsed is false while the line is not
// complete; args is nil for a line without arguments.
func (r *Reader) inline() (args [][]byte, parsed bool, err error) {
	line := r.buf[r.r:r.w]
	nl := bytes.IndexByte(line, '\n')
	if nl < 0 {
		if len(line) > MaxInlineSize {
			return nil, false, ProtocolError("too big inline request")
		}
		return nil, false, r.room(len(line) + 1)
	}
	r.req.pos = nl + 1
	line = line[:nl]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	args, ok := SplitArgs(line)
	if !ok {
		return nil, false, ProtocolError("unbalanced quotes in request")
	}
	r.endRequest()
	return args, true, nil
}

// finish returns the complete multibulk request's arguments.
func (r *Reader) finish() ([][]byte, error) {
	rq := &r.req
	if cap(r.args) < len(rq.spans) {
		if err := r.account(int64(len(rq.spans)-cap(r.args)) * 24); err != nil {
			return nil, err
		}
		r.args = make([][]byte, 0, len(rq.spans))
	}
	args := r.args[:0]
	for _, s := range rq.spans {
		if s.off < 0 {
			args = append(args, rq.bigs[-s.off-1])
			continue
		}
		start := r.r + int(s.off)
		end := start + int(s.n)
		args = append(args, r.buf[start:end:end])
	}
	r.args = args
	r.endRequest()
	return args, nil
}

// endRequest moves past the request just parsed.
func (r *Reader) endRequest() {
	r.r += r.req.pos
	r.req.pos, r.req.phase, r.req.left = 0, phStart, 0
}

// addSpan records an argument, accounting for the list's growth.
func (r *Reader) addSpan(s span) error {
	rq := &r.req
	if len(rq.spans) == cap(rq.spans) {
		grown := max(2*cap(rq.spans), 8)
		if err := r.account(int64(grown-cap(rq.spans)) * 8); err != nil {
			return err
		}
		spans := make([]span, len(rq.spans), grown)
		copy(spans, rq.spans)
		rq.spans = spans
	}
	rq.spans = append(rq.spans, s)
	return nil
}

// startBig begins a bulk of rq.n bytes in an allocation of its own.
func (r *Reader) startBig() error {
	rq := &r.req
	size := int(min(rq.n, bigArgFirstChunk))
	if err := r.account(int64(size)); err != nil {
		return err
	}
	rq.bigs = append(rq.bigs, make([]byte, 0, size))
	if err := r.addSpan(span{off: int32(-len(rq.bigs))}); err != nil {
		return err
	}
	rq.phase = phBig
	return nil
}

// growBig makes room for more bytes of the big bulk being read: its
// allocation doubles, up to the bulk's length.
func (r *Reader) growBig(more int) error {
	rq := &r.req
	big := rq.bigs[len(rq.bigs)-1]
	if len(big)+more <= cap(big) {
		return nil
	}
	size := int(min(rq.n, int64(max(2*cap(big), len(big)+more))))
	if err := r.account(int64(size - cap(big))); err != nil {
		return err
	}
	grown := make([]byte, len(big), size)
	copy(grown, big)
	rq.bigs[len(rq.bigs)-1] = grown
	return nil
}

// room makes sure the buffer can hold need bytes from the current
// request's parse position, so that the next fill can complete what is
// being parsed. Data is moved to the front first; the buffer grows only
// when that is not enough.
func (r *Reader) room(need int) error {
	end := r.r + r.req.pos + need
	if end <= cap(r.buf) && r.w < cap(r.buf) {
		return nil
	}
	if r.r > 0 {
		n := copy(r.buf, r.buf[r.r:r.w])
		r.r, r.w = 0, n
		end = r.req.pos + need
		if end <= cap(r.buf) && r.w < cap(r.buf) {
			return nil
		}
	}
	size := max(2*cap(r.buf), initialBufSize)
	for size < end {
		size *= 2
	}
	if size > maxBufSize {
		return fmt.Errorf("%w: request larger than %d bytes", ErrBudget, maxBufSize)
	}
	if err := r.account(int64(size - cap(r.buf))); err != nil {
		return err
	}
	grown := make([]byte, size)
	copy(grown, r.buf[:r.w])
	r.buf = grown[:cap(grown)]
	return nil
}

// fill reads from the connection: into the big bulk being read, or into
// the buffer.
func (r *Reader) fill() error {
	if r.rdErr != nil {
		return r.rdErr
	}
	if r.BeforeRead != nil {
		if err := r.BeforeRead(); err != nil {
			return err
		}
	}
	if r.req.phase == phBig {
		return r.fillBig()
	}
	if r.buf == nil {
		if err := r.room(initialBufSize); err != nil {
			return err
		}
	}
	if r.w == len(r.buf) {
		if err := r.room(r.w - r.r - r.req.pos + 1); err != nil {
			return err
		}
	}
	n, err := r.rd.Read(r.buf[r.w:])
	r.w += n
	return r.readResult(n, err)
}

// fillBig reads the rest of a big bulk straight into its allocation; the
// CRLF after it goes through the buffer.
func (r *Reader) fillBig() error {
	rq := &r.req
	big := rq.bigs[len(rq.bigs)-1]
	want := int(rq.n) - len(big)
	if err := r.growBig(min(want, max(cap(big)-len(big), 1))); err != nil {
		return err
	}
	big = rq.bigs[len(rq.bigs)-1]
	n, err := r.rd.Read(big[len(big):min(cap(big), int(rq.n))])
	rq.bigs[len(rq.bigs)-1] = big[:len(big)+n]
	return r.readResult(n, err)
}

// readResult keeps a read error that came with data for the next read.
func (r *Reader) readResult(n int, err error) error {
	if err == nil {
		return nil
	}
	if n > 0 {
		r.rdErr = err
		return nil
	}
	return err
}

// release forgets the previous request: its big bulks, and the buffer
// when it grew large and is now empty.
func (r *Reader) release() {
	rq := &r.req
	var freed int64
	for i := range rq.bigs {
		freed += int64(cap(rq.bigs[i]))
		rq.bigs[i] = nil
	}
	rq.bigs = rq.bigs[:0]
	rq.spans = rq.spans[:0]
	if r.r == r.w && cap(r.buf) > 4*initialBufSize {
		freed += int64(cap(r.buf))
		r.buf, r.r, r.w = nil, 0, 0
	}
	if cap(rq.spans) > 1024 {
		freed += int64(cap(rq.spans)) * 8
		rq.spans = nil
	}
	if cap(r.args) > 1024 {
		freed += int64(cap(r.args)) * 24
		r.args = nil
	}
	r.account(-freed)
}

// account reports a change of the held memory to the budget.
func (r *Reader) account(delta int64) error {
	if delta == 0 {
		return nil
	}
	if r.Budget != nil {
		if err := r.Budget(delta); err != nil && delta > 0 {
			return fmt.Errorf("%w: %w", ErrBudget, err)
		}
	}
	r.held += delta
	return nil
}

// Close releases what the Reader holds, reporting it to the budget.
func (r *Reader) Close() {
	r.account(-r.held)
	r.buf, r.args, r.req = nil, nil, request{}
}
