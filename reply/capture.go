package reply

import "strconv"

// Kind is the type of a reply value.
type Kind uint8

// The kinds of reply values. An aggregate's Value holds its elements; a
// map's and an attribute's alternate keys and values.
const (
	KindSimple Kind = iota + 1
	KindError
	KindInt
	KindBulk
	KindNull
	KindNullArray
	KindArray
	KindMap
	KindSet
	KindPush
	KindAttribute
	KindBool
	KindDouble
	KindHumanDouble
	KindShortDouble
	KindBigNum
	KindVerbatim
)

// Value is one reply as a value.
type Value struct {
	Kind  Kind
	Str   string  // Simple, Error, Bulk, BigNum (its digits), Verbatim
	Int   int64   // Int; Bool as 0 or 1
	Float float64 // Double, HumanDouble, ShortDouble
	Elems []Value // Array, Set, Push; Map and Attribute as key, value, ...
}

// aggregate reports whether a value of kind k has elements.
func (k Kind) aggregate() bool {
	switch k {
	case KindArray, KindMap, KindSet, KindPush, KindAttribute:
		return true
	}
	return false
}

// itemWidth is the number of elements per counted item of an aggregate.
func (k Kind) itemWidth() int {
	if k == KindMap || k == KindAttribute {
		return 2
	}
	return 1
}

// token is one written value, aggregates as a header (n items; -1 until a
// deferred one is finished) followed by their elements' tokens.
type token struct {
	kind Kind
	n    int64
	f    float64
	s    string
}

// Capture is a Sink that keeps the replies as values, for code that
// consumes a reply rather than sending it. Its marks count values
// written. The zero Capture is not usable: make one with NewCapture.
type Capture struct {
	proto  int
	tokens []token
	errors int64
}

// NewCapture returns a Capture of replies shaped for protocol proto (2 or
// 3), as a client speaking that protocol would receive them.
func NewCapture(proto int) *Capture { return &Capture{proto: proto} }

// Reset drops the captured replies, keeping the protocol.
func (c *Capture) Reset() { c.tokens, c.errors = c.tokens[:0], 0 }

// Values returns the replies written since NewCapture or Reset. An
// aggregate left unfinished holds the elements written into it.
func (c *Capture) Values() []Value {
	var out []Value
	for i := 0; i < len(c.tokens); {
		var v Value
		v, i = c.value(i)
		out = append(out, v)
	}
	return out
}

// value builds the value whose first token is at i and returns the index
// after its last.
func (c *Capture) value(i int) (Value, int) {
	t := c.tokens[i]
	v := Value{Kind: t.kind, Str: t.s, Int: t.n, Float: t.f}
	i++
	if !t.kind.aggregate() {
		return v, i
	}
	v.Int = 0
	want := int(t.n) * t.kind.itemWidth()
	if t.n < 0 {
		want = 0
	}
	v.Elems = make([]Value, 0, min(want, len(c.tokens)-i))
	for len(v.Elems) < want && i < len(c.tokens) {
		var e Value
		e, i = c.value(i)
		v.Elems = append(v.Elems, e)
	}
	return v, i
}

// Replay writes the captured replies to s.
func (c *Capture) Replay(s Sink) {
	for _, v := range c.Values() {
		Write(s, v)
	}
}

// Write writes v to s.
func Write(s Sink, v Value) {
	switch v.Kind {
	case KindSimple:
		s.Simple(v.Str)
	case KindError:
		s.Error(v.Str)
	case KindInt:
		s.Int(v.Int)
	case KindBulk:
		s.BulkString(v.Str)
	case KindNull:
		s.Null()
	case KindNullArray:
		s.NullArray()
	case KindBool:
		s.Bool(v.Int != 0)
	case KindDouble:
		s.Double(v.Float)
	case KindHumanDouble:
		s.HumanDouble(v.Float)
	case KindShortDouble:
		s.ShortDouble(v.Float)
	case KindBigNum:
		s.BigNum(v.Str)
	case KindVerbatim:
		s.Verbatim(v.Str)
	case KindArray, KindMap, KindSet, KindPush, KindAttribute:
		n := len(v.Elems) / v.Kind.itemWidth()
		switch v.Kind {
		case KindArray:
			s.Array(n)
		case KindMap:
			s.Map(n)
		case KindSet:
			s.Set(n)
		case KindPush:
			s.Push(n)
		case KindAttribute:
			s.Attribute(n)
		}
		for _, e := range v.Elems {
			Write(s, e)
		}
	}
}

func (c *Capture) add(t token) { c.tokens = append(c.tokens, t) }

// Simple, OK, ... implement Sink.
func (c *Capture) Simple(s string)     { c.add(token{kind: KindSimple, s: s}) }
func (c *Capture) OK()                 { c.Simple("OK") }
func (c *Capture) Int(n int64)         { c.add(token{kind: KindInt, n: n}) }
func (c *Capture) Bulk(b []byte)       { c.add(token{kind: KindBulk, s: string(b)}) }
func (c *Capture) BulkString(s string) { c.add(token{kind: KindBulk, s: s}) }
func (c *Capture) BulkInt(n int64)     { c.BulkString(strconv.FormatInt(n, 10)) }
func (c *Capture) Null()               { c.add(token{kind: KindNull}) }
func (c *Capture) NullArray()          { c.add(token{kind: KindNullArray}) }
func (c *Capture) Array(n int)         { c.add(token{kind: KindArray, n: int64(n)}) }
func (c *Capture) Map(n int)           { c.add(token{kind: KindMap, n: int64(n)}) }
func (c *Capture) Set(n int)           { c.add(token{kind: KindSet, n: int64(n)}) }
func (c *Capture) Push(n int)          { c.add(token{kind: KindPush, n: int64(n)}) }
func (c *Capture) Attribute(n int)     { c.add(token{kind: KindAttribute, n: int64(n)}) }
func (c *Capture) Double(f float64)    { c.add(token{kind: KindDouble, f: f}) }
func (c *Capture) HumanDouble(f float64) {
	c.add(token{kind: KindHumanDouble, f: f})
}
func (c *Capture) ShortDouble(f float64) { c.add(token{kind: KindShortDouble, f: f}) }
func (c *Capture) BigNum(digits string)  { c.add(token{kind: KindBigNum, s: digits}) }
func (c *Capture) Verbatim(s string)     { c.add(token{kind: KindVerbatim, s: s}) }
func (c *Capture) RawLine(s string)      { c.Simple(s) }

// Error implements Sink.
func (c *Capture) Error(msg string) {
	c.errors++
	c.add(token{kind: KindError, s: msg})
}

// Bool implements Sink.
func (c *Capture) Bool(b bool) {
	var n int64
	if b {
		n = 1
	}
	c.add(token{kind: KindBool, n: n})
}

// BulkStrings implements Sink.
func (c *Capture) BulkStrings(items []string) {
	c.Array(len(items))
	for _, s := range items {
		c.BulkString(s)
	}
}

// DeferArray, DeferMap and DeferSet implement Sink.
func (c *Capture) DeferArray() Deferred { return c.deferred(KindArray) }
func (c *Capture) DeferMap() Deferred   { return c.deferred(KindMap) }
func (c *Capture) DeferSet() Deferred   { return c.deferred(KindSet) }

func (c *Capture) deferred(k Kind) Deferred {
	d := Deferred{At: len(c.tokens), Kind: k}
	c.add(token{kind: k, n: -1})
	return d
}

// Finish implements Sink.
func (c *Capture) Finish(d Deferred, items int) { c.tokens[d.At].n = int64(items) }

// Abandon implements Sink.
func (c *Capture) Abandon(d Deferred) { c.tokens = c.tokens[:d.At] }

// Protocol implements Sink.
func (c *Capture) Protocol() int { return c.proto }

// Len implements Sink: the number of values written.
func (c *Capture) Len() int { return len(c.tokens) }

// Truncate implements Sink.
func (c *Capture) Truncate(mark int) { c.tokens = c.tokens[:mark] }

// NullSince implements Sink.
func (c *Capture) NullSince(mark int) bool {
	if len(c.tokens) != mark+1 {
		return false
	}
	k := c.tokens[mark].kind
	return k == KindNull || k == KindNullArray
}

// Errors implements Sink.
func (c *Capture) Errors() int64 { return c.errors }

// Failed implements Sink: a Capture never drops what it is given.
func (c *Capture) Failed() bool { return false }
