// Package reply is how a command answers: as a sequence of values (a
// simple string, an integer, an array of n elements, ...) written to a
// Sink. What becomes of the values is the sink's business: the
// connection's resp.Writer renders them as RESP2 or RESP3 bytes at the
// edge, a Capture keeps them as values for code that consumes a reply
// (a script's redis.call, tests).
//
// A handler never sees protocol bytes. It may ask which protocol its
// client speaks (Protocol), since Redis shapes some replies by it, and it
// may take back what it wrote since a mark (Len, Truncate, NullSince),
// which both kinds of sink count in their own units.
package reply

// Sink receives replies. Aggregates (Array, Map, Set, Push, Attribute)
// announce how many elements follow; the caller writes them next. A
// deferred aggregate gets its length when Finish is called.
type Sink interface {
	// Simple writes a status reply (+OK); s has no line break.
	Simple(s string)
	// OK writes the status reply OK.
	OK()
	// Error writes an error reply; msg starts with its code (ERR, ...).
	Error(msg string)
	// Int writes an integer.
	Int(n int64)
	// Bulk writes a binary-safe string; b is copied.
	Bulk(b []byte)
	// BulkString writes a binary-safe string.
	BulkString(s string)
	// BulkInt writes an integer as a string.
	BulkInt(n int64)
	// BulkStrings writes an array of strings.
	BulkStrings(items []string)
	// Null writes the null string reply; NullArray the null array reply
	// (they differ in RESP2 only).
	Null()
	NullArray()
	// Array, Map (n pairs), Set, Push (an out-of-band message) and
	// Attribute (n pairs describing the reply that follows; RESP3 only)
	// start an aggregate.
	Array(n int)
	Map(n int)
	Set(n int)
	Push(n int)
	Attribute(n int)
	// Bool writes a boolean; Double a floating point number formatted as
	// Redis formats scores, HumanDouble one formatted as Redis's
	// human-mode long double (GEOPOS), ShortDouble one in the shortest
	// form of Redis 7.2+ (num.AppendShortDouble: a module's double, a
	// t-digest's); BigNum a big number in decimal.
	Bool(b bool)
	Double(f float64)
	HumanDouble(f float64)
	ShortDouble(f float64)
	BigNum(digits string)
	// Verbatim writes free text (INFO's).
	Verbatim(s string)
	// RawLine writes a line with no type: how Kvrocks's replication
	// commands answer. Sinks other than the connection's keep it as a
	// status reply.
	RawLine(s string)

	// DeferArray, DeferMap and DeferSet start an aggregate whose length
	// is given later to Finish (items: elements, or pairs of a map);
	// Abandon drops it and everything written since, so that an error can
	// be replied instead.
	DeferArray() Deferred
	DeferMap() Deferred
	DeferSet() Deferred
	Finish(d Deferred, items int)
	Abandon(d Deferred)

	// Protocol is the protocol version the replies are for, 2 or 3.
	Protocol() int
	// Len is a mark of how much was written; Truncate drops what was
	// written after a mark; NullSince reports whether what was written
	// after a mark is exactly one null reply.
	Len() int
	Truncate(mark int)
	NullSince(mark int) bool
	// Errors counts the error replies written so far.
	Errors() int64
	// Failed reports that what is written is dropped (the client is
	// going away): a handler producing a long reply may stop.
	Failed() bool
}

// Deferred marks where an aggregate whose length is not known yet
// begins. Its fields belong to the sink that made it.
type Deferred struct {
	At     int  // the sink's mark where the aggregate begins
	Kind   Kind // Array, Map or Set
	Prefix byte // the RESP type byte a renderer writes
	Factor int  // elements per item: 2 for a map rendered as an array
}
