// Package resp writes Redis protocol replies in RESP2 or RESP3. Writer is
// the only code in Basalt that produces protocol bytes for its clients:
// command handlers say what a reply is (a map, a double, a null) and the
// writer renders it in the protocol the client chose with HELLO. Client is
// Basalt as a client of another server (MIGRATE, a slot migration's
// destination, a replica's master), the one parser of what such a server
// answers.
package resp

import (
	"strconv"

	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/reply"
)

// Writer accumulates replies in memory; the server sends Bytes and calls
// Reset once per pipelined batch. A Writer is used by one goroutine at a
// time.
type Writer struct {
	buf   []byte
	proto int
	reset int64 // the bytes written before the last Reset, in all

	// Spilling: see SetSpill.
	spillAt int
	spill   func(send bool) error
	open    int  // deferred aggregates not finished yet
	failed  bool // a spill failed: what is written is dropped

	// errors counts the error replies written; onError, when set, is
	// told each one (INFO errorstats).
	errors  int64
	onError func(msg string)

	// nullAt and nullEnd delimit the last null reply written (see
	// NullSince); nullAt is -1 when none is in the buffer.
	nullAt, nullEnd int
}

// NewWriter returns a RESP2 writer.
func NewWriter() *Writer { return &Writer{proto: 2, buf: make([]byte, 0, 512), nullAt: -1} }

// Render returns the bytes, in protocol proto, of the replies write
// writes: how what is pushed to a client (session.Render) is rendered.
func Render(proto int, write func(reply.Sink)) []byte {
	w := NewWriter()
	w.SetProtocol(proto)
	write(w)
	return w.Bytes()
}

// SetProtocol selects RESP2 (2) or RESP3 (3).
func (w *Writer) SetProtocol(p int) { w.proto = p }

// Protocol returns the selected protocol version, 2 or 3.
func (w *Writer) Protocol() int { return w.proto }

// Bytes returns the replies written since the last Reset. The slice is
// valid until the next write or Reset.
func (w *Writer) Bytes() []byte { return w.buf }

// Len returns the number of buffered bytes.
func (w *Writer) Len() int { return len(w.buf) }

// Written returns the number of bytes written since the writer was made.
func (w *Writer) Written() int64 { return w.reset + int64(len(w.buf)) }

// Reset discards the buffered replies, keeping the capacity unless it grew
// beyond what an ordinary batch needs, and clears a failure.
func (w *Writer) Reset() {
	w.reset += int64(len(w.buf))
	w.open, w.failed, w.nullAt = 0, false, -1
	if cap(w.buf) > 1<<20 {
		w.buf = make([]byte, 0, 512)
		return
	}
	w.buf = w.buf[:0]
}

// SetSpill makes the writer call spill whenever, at the start of a reply
// element, it holds at least limit bytes, so that a reply of any size can
// be produced in bounded memory. send tells whether the bytes may be sent
// now (no deferred aggregate is open); spill then sends Bytes and calls
// Reset, or keeps them. It fails when the client cannot take more: the
// writer then drops what it holds and everything written later, and
// Failed reports true, until the next Reset. A limit of 0 turns spilling
// off.
func (w *Writer) SetSpill(limit int, spill func(send bool) error) {
	w.spillAt, w.spill = limit, spill
	if limit <= 0 {
		w.spill = nil
	}
}

// SetOnError makes the writer call f with the message of every error
// reply it writes.
func (w *Writer) SetOnError(f func(msg string)) { w.onError = f }

// Errors returns the number of error replies written so far.
func (w *Writer) Errors() int64 { return w.errors }

// Failed reports whether a spill failed since the last Reset: the
// client is going away, and a handler producing a long reply may stop.
func (w *Writer) Failed() bool { return w.failed }

// element is called at the start of every reply element.
func (w *Writer) element() {
	if w.spill == nil || len(w.buf) < w.spillAt {
		return
	}
	if w.failed || w.spill(w.open == 0) != nil {
		w.failed = true
		w.buf = w.buf[:0]
	}
}

func (w *Writer) header(prefix byte, n int64) {
	w.element()
	w.buf = append(w.buf, prefix)
	w.buf = strconv.AppendInt(w.buf, n, 10)
	w.buf = append(w.buf, '\r', '\n')
}

// Simple writes a simple string (+OK). s must not contain CR or LF.
func (w *Writer) Simple(s string) {
	w.buf = append(w.buf, '+')
	w.buf = append(w.buf, s...)
	w.buf = append(w.buf, '\r', '\n')
}

// RawLine writes s and CRLF with no RESP type prefix: how Kvrocks's
// replication commands (_db_name, _fetch_meta) answer. Line breaks in s
// become spaces.
func (w *Writer) RawLine(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		w.buf = append(w.buf, c)
	}
	w.buf = append(w.buf, '\r', '\n')
}

// OK writes +OK.
func (w *Writer) OK() { w.buf = append(w.buf, "+OK\r\n"...) }

// Error writes an error reply. msg starts with the error code (ERR,
// WRONGTYPE, ...); line breaks in it are replaced by spaces so that the
// reply stays one line.
func (w *Writer) Error(msg string) {
	w.errors++
	if w.onError != nil {
		w.onError(msg)
	}
	w.buf = append(w.buf, '-')
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		w.buf = append(w.buf, c)
	}
	w.buf = append(w.buf, '\r', '\n')
}

// Int writes an integer reply.
func (w *Writer) Int(n int64) { w.header(':', n) }

// Bulk writes a bulk string; b is copied.
func (w *Writer) Bulk(b []byte) {
	w.header('$', int64(len(b)))
	w.buf = append(w.buf, b...)
	w.buf = append(w.buf, '\r', '\n')
}

// BulkString writes a bulk string.
func (w *Writer) BulkString(s string) {
	w.header('$', int64(len(s)))
	w.buf = append(w.buf, s...)
	w.buf = append(w.buf, '\r', '\n')
}

// BulkInt writes an integer as a bulk string.
func (w *Writer) BulkInt(n int64) {
	var tmp [20]byte
	w.Bulk(strconv.AppendInt(tmp[:0], n, 10))
}

// Null writes the null reply ($-1 in RESP2, _ in RESP3).
func (w *Writer) Null() { w.null("$-1\r\n") }

// NullArray writes a null array (*-1 in RESP2, _ in RESP3).
func (w *Writer) NullArray() { w.null("*-1\r\n") }

func (w *Writer) null(resp2 string) {
	if w.proto == 3 {
		resp2 = "_\r\n"
	}
	w.nullAt = len(w.buf)
	w.buf = append(w.buf, resp2...)
	w.nullEnd = len(w.buf)
}

// NullSince reports whether what was written since mark (a Len) is one
// null reply and nothing else: how a command says it found nothing.
func (w *Writer) NullSince(mark int) bool {
	return w.nullAt == mark && w.nullEnd > mark && w.nullEnd == len(w.buf)
}

// Array starts an array of n elements; the caller writes them next.
func (w *Writer) Array(n int) { w.header('*', int64(n)) }

// Push starts an out-of-band message of n elements (RESP3 push type, an
// array in RESP2): pub/sub messages and subscription replies.
func (w *Writer) Push(n int) {
	if w.proto == 3 {
		w.header('>', int64(n))
		return
	}
	w.header('*', int64(n))
}

// Map starts a map of n key/value pairs (a flat array of 2n in RESP2).
func (w *Writer) Map(n int) {
	if w.proto == 3 {
		w.header('%', int64(n))
		return
	}
	w.header('*', int64(2*n))
}

// Attribute starts a RESP3 attribute of n key/value pairs, which describes
// the reply that follows it. RESP2 has none: callers write it only to RESP3
// clients.
func (w *Writer) Attribute(n int) { w.header('|', int64(n)) }

// BigNum writes a big number given in decimal: a RESP3 big number, a bulk
// string in RESP2.
func (w *Writer) BigNum(digits string) {
	if w.proto == 3 {
		w.element()
		w.buf = append(w.buf, '(')
		w.buf = append(w.buf, digits...)
		w.buf = append(w.buf, '\r', '\n')
		return
	}
	w.BulkString(digits)
}

// Set starts a set of n elements (an array in RESP2).
func (w *Writer) Set(n int) {
	if w.proto == 3 {
		w.header('~', int64(n))
		return
	}
	w.header('*', int64(n))
}

// Bool writes a boolean (#t/#f in RESP3, :1/:0 in RESP2).
func (w *Writer) Bool(b bool) {
	switch {
	case w.proto == 3 && b:
		w.buf = append(w.buf, "#t\r\n"...)
	case w.proto == 3:
		w.buf = append(w.buf, "#f\r\n"...)
	case b:
		w.buf = append(w.buf, ":1\r\n"...)
	default:
		w.buf = append(w.buf, ":0\r\n"...)
	}
}

// Double writes a floating point number: a RESP3 double, or in RESP2 a bulk
// string formatted as Redis 7.0 does (%.17g, "inf", "-inf").
func (w *Writer) Double(f float64) {
	var tmp [32]byte
	w.doubleDigits(num.AppendDouble(tmp[:0], f))
}

// doubleDigits writes a double's digits: a RESP3 double, or in RESP2 a
// bulk string.
func (w *Writer) doubleDigits(digits []byte) {
	if w.proto == 3 {
		w.element()
		w.buf = append(w.buf, ',')
		w.buf = append(w.buf, digits...)
		w.buf = append(w.buf, '\r', '\n')
		return
	}
	w.Bulk(digits)
}

// HumanDouble writes a floating point number as Redis's
// addReplyHumanLongDouble does (GEOPOS coordinates): a RESP3 double, or in
// RESP2 a bulk string, in both cases with AppendHumanDouble's digits.
func (w *Writer) HumanDouble(f float64) {
	var tmp [64]byte
	w.doubleDigits(num.AppendHumanDouble(tmp[:0], f))
}

// ShortDouble writes a floating point number in Redis 7.2+'s shortest
// form (num.AppendShortDouble), as Redis 8 writes a module's double: a
// RESP3 double, or in RESP2 a bulk string.
func (w *Writer) ShortDouble(f float64) {
	var tmp [32]byte
	w.doubleDigits(num.AppendShortDouble(tmp[:0], f))
}

// Verbatim writes free text such as INFO's: a RESP3 verbatim string of
// format "txt", or a bulk string in RESP2.
func (w *Writer) Verbatim(s string) {
	if w.proto == 3 {
		w.header('=', int64(len(s)+4))
		w.buf = append(w.buf, "txt:"...)
		w.buf = append(w.buf, s...)
		w.buf = append(w.buf, '\r', '\n')
		return
	}
	w.BulkString(s)
}

// BulkStrings writes an array of bulk strings.
func (w *Writer) BulkStrings(items []string) {
	w.Array(len(items))
	for _, s := range items {
		w.BulkString(s)
	}
}

// DeferArray starts an array whose length is given later to Finish, for
// replies streamed from an iterator.
func (w *Writer) DeferArray() reply.Deferred { return w.deferred(reply.KindArray, '*', 1) }

func (w *Writer) deferred(kind reply.Kind, prefix byte, factor int) reply.Deferred {
	w.element()
	w.open++
	return reply.Deferred{At: len(w.buf), Kind: kind, Prefix: prefix, Factor: factor}
}

// DeferMap starts a map whose number of pairs is given later to Finish.
func (w *Writer) DeferMap() reply.Deferred {
	if w.proto == 3 {
		return w.deferred(reply.KindMap, '%', 1)
	}
	return w.deferred(reply.KindMap, '*', 2)
}

// DeferSet starts a set whose length is given later to Finish.
func (w *Writer) DeferSet() reply.Deferred {
	if w.proto == 3 {
		return w.deferred(reply.KindSet, '~', 1)
	}
	return w.deferred(reply.KindSet, '*', 1)
}

// Truncate drops what was written after the first n bytes.
func (w *Writer) Truncate(n int) {
	w.buf = w.buf[:n]
	if n < w.nullEnd {
		w.nullAt = -1
	}
}

// Abandon drops everything written since d, so that an error can be
// replied instead of the aggregate.
func (w *Writer) Abandon(d reply.Deferred) {
	w.open--
	if !w.failed {
		w.buf = w.buf[:d.At]
	}
}

// Finish inserts the header of a deferred aggregate now that its n items
// (elements, or pairs of a map) have been written.
func (w *Writer) Finish(d reply.Deferred, n int) {
	w.open--
	if w.failed {
		return
	}
	var tmp [24]byte
	h := append(tmp[:0], d.Prefix)
	h = strconv.AppendInt(h, int64(n*d.Factor), 10)
	h = append(h, '\r', '\n')
	w.buf = append(w.buf, h...)
	copy(w.buf[d.At+len(h):], w.buf[d.At:len(w.buf)-len(h)])
	copy(w.buf[d.At:], h)
}

// The connection's writer is where handlers' replies go.
var _ reply.Sink = (*Writer)(nil)
