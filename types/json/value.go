package json

import (
	"bytes"
	"math"
	"sort"
	"strconv"
)

// Kind is the type of a JSON value.
type Kind uint8

// The kinds of values. Integers that fit int64 are KindInt, larger
// non-negative ones KindUint; integers beyond 64 bits are strings with
// BigInt set, as jsoncons keeps them (printed quoted, stored in CBOR as a
// bignum).
const (
	KindNull Kind = iota
	KindBool
	KindInt
	KindUint
	KindFloat
	KindString
	KindArray
	KindObject
)

// Value is a node of a document. Nodes are referenced by pointer so that
// a command can change the one a path selected in place.
type Value struct {
	Kind   Kind
	Bool   bool
	Int    int64
	Uint   uint64
	Float  float64
	Str    string
	BigInt bool // Str holds the decimal digits of an integer beyond 64 bits
	Elems  []*Value
	Fields []Member // sorted by Key, keys unique
}

// Member is one member of an object.
type Member struct {
	Key string
	Val *Value
}

// Constructors of the scalar kinds.
func Null() *Value                { return &Value{Kind: KindNull} }
func NewBool(b bool) *Value       { return &Value{Kind: KindBool, Bool: b} }
func NewInt(n int64) *Value       { return &Value{Kind: KindInt, Int: n} }
func NewFloat(f float64) *Value   { return &Value{Kind: KindFloat, Float: f} }
func NewString(s string) *Value   { return &Value{Kind: KindString, Str: s} }
func NewArray(e ...*Value) *Value { return &Value{Kind: KindArray, Elems: e} }
func NewObject() *Value           { return &Value{Kind: KindObject} }

// newUint returns an unsigned integer, as KindInt when it fits int64.
func newUint(u uint64) *Value {
	if u <= math.MaxInt64 {
		return NewInt(int64(u))
	}
	return &Value{Kind: KindUint, Uint: u}
}

// IsNumber reports whether v is a number, a bignum string included (as
// jsoncons's is_number).
func (v *Value) IsNumber() bool {
	switch v.Kind {
	case KindInt, KindUint, KindFloat:
		return true
	case KindString:
		return v.BigInt
	}
	return false
}

// float returns a number as a double.
func (v *Value) float() float64 {
	switch v.Kind {
	case KindInt:
		return float64(v.Int)
	case KindUint:
		return float64(v.Uint)
	case KindFloat:
		return v.Float
	case KindString:
		f, _ := strconv.ParseFloat(v.Str, 64)
		return f
	}
	return 0
}

// find returns the index of key in o's members and whether it is there.
func (v *Value) find(key string) (int, bool) {
	i := sort.Search(len(v.Fields), func(i int) bool { return v.Fields[i].Key >= key })
	return i, i < len(v.Fields) && v.Fields[i].Key == key
}

// Get returns the member key of an object, or nil.
func (v *Value) Get(key string) *Value {
	if v.Kind != KindObject {
		return nil
	}
	if i, ok := v.find(key); ok {
		return v.Fields[i].Val
	}
	return nil
}

// Set sets the member key of an object, keeping the members sorted.
func (v *Value) Set(key string, val *Value) {
	i, ok := v.find(key)
	if ok {
		v.Fields[i].Val = val
		return
	}
	v.Fields = append(v.Fields, Member{})
	copy(v.Fields[i+1:], v.Fields[i:])
	v.Fields[i] = Member{Key: key, Val: val}
}

// insertFirst adds a member unless the key is there already: the first
// of duplicate members wins, as in jsoncons.
func (v *Value) insertFirst(key string, val *Value) {
	if _, ok := v.find(key); !ok {
		v.Set(key, val)
	}
}

// Delete removes the member key of an object and reports whether it was
// there.
func (v *Value) Delete(key string) bool {
	i, ok := v.find(key)
	if ok {
		v.Fields = append(v.Fields[:i], v.Fields[i+1:]...)
	}
	return ok
}

// Clone returns a deep copy of v, its nodes, array elements and object
// members each allocated together (a write copies a whole cached
// document).
func (v *Value) Clone() *Value {
	var n slabSizes
	v.count(&n)
	s := &slabs{
		values:  make([]Value, 0, n.values),
		elems:   make([]*Value, 0, n.elems),
		members: make([]Member, 0, n.members),
	}
	return v.cloneInto(s)
}

// slabSizes counts what a value is made of: its nodes (itself
// included), array elements and object members.
type slabSizes struct{ values, elems, members int }

func (v *Value) count(n *slabSizes) {
	n.values++
	n.elems += len(v.Elems)
	n.members += len(v.Fields)
	for _, e := range v.Elems {
		e.count(n)
	}
	for _, m := range v.Fields {
		m.Val.count(n)
	}
}

// slabs are the memory of a clone, whose capacities hold all of it.
type slabs struct {
	values  []Value
	elems   []*Value
	members []Member
}

// cloneInto copies v into s. A container's elements or members are a
// full slice of the slab (capacity its length): appending to one copies
// it out instead of overwriting the next container's.
func (v *Value) cloneInto(s *slabs) *Value {
	s.values = append(s.values, *v)
	c := &s.values[len(s.values)-1]
	if v.Elems != nil {
		at := len(s.elems)
		s.elems = s.elems[:at+len(v.Elems)]
		c.Elems = s.elems[at : at+len(v.Elems) : at+len(v.Elems)]
		for i, e := range v.Elems {
			c.Elems[i] = e.cloneInto(s)
		}
	}
	if v.Fields != nil {
		at := len(s.members)
		s.members = s.members[:at+len(v.Fields)]
		c.Fields = s.members[at : at+len(v.Fields) : at+len(v.Fields)]
		for i, m := range v.Fields {
			c.Fields[i] = Member{Key: m.Key, Val: m.Val.cloneInto(s)}
		}
	}
	return c
}

// replaceWith makes v a copy of w in place, so that whatever holds v
// sees the new value.
func (v *Value) replaceWith(w *Value) { *v = *w }

// TypeName is the name JSON.TYPE answers for v.
func (v *Value) TypeName() string {
	switch v.Kind {
	case KindNull:
		return "null"
	case KindBool:
		return "boolean"
	case KindInt, KindUint:
		return "integer"
	case KindFloat:
		return "number"
	case KindString:
		return "string"
	case KindArray:
		return "array"
	}
	return "object"
}

// Equal is jsoncons's ==: numbers equal by value whatever their kind,
// strings by bytes, containers member by member.
func Equal(a, b *Value) bool {
	if a.IsNumber() && b.IsNumber() && !(a.Kind == KindString && b.Kind == KindString) {
		return numCompare(a, b) == 0
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case KindNull:
		return true
	case KindBool:
		return a.Bool == b.Bool
	case KindString:
		return a.Str == b.Str
	case KindArray:
		if len(a.Elems) != len(b.Elems) {
			return false
		}
		for i := range a.Elems {
			if !Equal(a.Elems[i], b.Elems[i]) {
				return false
			}
		}
		return true
	case KindObject:
		if len(a.Fields) != len(b.Fields) {
			return false
		}
		for i := range a.Fields {
			if a.Fields[i].Key != b.Fields[i].Key || !Equal(a.Fields[i].Val, b.Fields[i].Val) {
				return false
			}
		}
		return true
	}
	return false
}

// numCompare compares two numbers: exactly when both are 64-bit
// integers, as doubles otherwise.
func numCompare(a, b *Value) int {
	ai, aInt := a.int128()
	bi, bInt := b.int128()
	if aInt && bInt {
		return ai.cmp(bi)
	}
	x, y := a.float(), b.float()
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// wide is a 64-bit integer of either sign.
type wide struct {
	neg bool
	mag uint64
}

func (v *Value) int128() (wide, bool) {
	switch v.Kind {
	case KindInt:
		if v.Int < 0 {
			return wide{true, uint64(-(v.Int + 1)) + 1}, true
		}
		return wide{false, uint64(v.Int)}, true
	case KindUint:
		return wide{false, v.Uint}, true
	}
	return wide{}, false
}

func (a wide) cmp(b wide) int {
	switch {
	case a.neg && !b.neg:
		return -1
	case !a.neg && b.neg:
		return 1
	}
	c := 0
	if a.mag < b.mag {
		c = -1
	} else if a.mag > b.mag {
		c = 1
	}
	if a.neg {
		c = -c
	}
	return c
}

// compareStrings orders strings bytewise, as std::string does.
func compareStrings(a, b string) int { return bytes.Compare([]byte(a), []byte(b)) }

// Number returns a number as a double, and whether v is one.
func (v *Value) Number() (float64, bool) {
	return v.float(), v.IsNumber()
}
