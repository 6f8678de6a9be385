package json

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"unicode/utf8"

	"github.com/fxamacker/cbor/v2"
)

// Format is how a stored document is encoded: the byte after the
// metadata header (FORMAT.md §4.11), from json-storage-format when the
// document was written.
type Format uint8

// The storage formats.
const (
	FormatJSON Format = 0 // compact JSON text
	FormatCBOR Format = 1 // CBOR as jsoncons writes it
)

// String is the format's name in json-storage-format and JSON.INFO.
func (f Format) String() string {
	if f == FormatCBOR {
		return "cbor"
	}
	return "json"
}

// ParseFormat parses a json-storage-format value.
func ParseFormat(s string) (Format, bool) {
	switch s {
	case "json":
		return FormatJSON, true
	case "cbor":
		return FormatCBOR, true
	}
	return 0, false
}

// Encode returns the stored form of a document: the format byte and the
// payload. The caller puts the metadata header before it.
func Encode(root *Value, f Format) []byte { return appendEncoded(nil, root, f) }

// appendEncoded appends the stored form of a document to dst.
func appendEncoded(dst []byte, root *Value, f Format) []byte {
	if f == FormatCBOR {
		return appendCBOR(append(dst, byte(FormatCBOR)), root)
	}
	return appendCompact(append(dst, byte(FormatJSON)), root)
}

// Payload returns a value encoded in format f without the format byte:
// what JSON.DEBUG MEMORY measures.
func Payload(v *Value, f Format) []byte { return Encode(v, f)[1:] }

// Decode reads a stored document (the format byte and the payload), of
// either format whatever the configuration says, with jsoncons's nesting
// limit. Bytes that do not decode give an error wrapping ErrBadStored,
// never a panic.
func Decode(stored []byte) (*Value, Format, error) {
	if len(stored) == 0 {
		return nil, 0, fmt.Errorf("%w: no format byte", ErrBadStored)
	}
	switch Format(stored[0]) {
	case FormatJSON:
		v, err := Parse(stored[1:], DefaultMaxDepth)
		if err != nil {
			return nil, 0, fmt.Errorf("%w: %v", ErrBadStored, err)
		}
		return v, FormatJSON, nil
	case FormatCBOR:
		v, err := decodeCBOR(stored[1:])
		if err != nil {
			return nil, 0, fmt.Errorf("%w: %v", ErrBadStored, err)
		}
		return v, FormatCBOR, nil
	}
	return nil, 0, fmt.Errorf("%w: unknown format %d", ErrBadStored, stored[0])
}

// appendHead writes a CBOR head: major type and argument, shortest.
func appendHead(dst []byte, major byte, n uint64) []byte {
	m := major << 5
	switch {
	case n < 24:
		return append(dst, m|byte(n))
	case n <= math.MaxUint8:
		return append(dst, m|24, byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(dst, m|25), uint16(n))
	case n <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(dst, m|26), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(dst, m|27), n)
}

// appendCBOR writes v as jsoncons's CBOR encoder does: definite lengths,
// members in key order, shortest integers, a double as a single when
// that loses nothing, bignums as tags 2 and 3.
func appendCBOR(dst []byte, v *Value) []byte {
	switch v.Kind {
	case KindNull:
		return append(dst, 0xf6)
	case KindBool:
		if v.Bool {
			return append(dst, 0xf5)
		}
		return append(dst, 0xf4)
	case KindInt:
		if v.Int < 0 {
			return appendHead(dst, 1, uint64(-(v.Int + 1)))
		}
		return appendHead(dst, 0, uint64(v.Int))
	case KindUint:
		return appendHead(dst, 0, v.Uint)
	case KindFloat:
		if f32 := float32(v.Float); float64(f32) == v.Float || math.IsNaN(v.Float) {
			return binary.BigEndian.AppendUint32(append(dst, 0xfa), math.Float32bits(f32))
		}
		return binary.BigEndian.AppendUint64(append(dst, 0xfb), math.Float64bits(v.Float))
	case KindString:
		if v.BigInt {
			return appendBignum(dst, v.Str)
		}
		dst = appendHead(dst, 3, uint64(len(v.Str)))
		return append(dst, v.Str...)
	case KindArray:
		dst = appendHead(dst, 4, uint64(len(v.Elems)))
		for _, e := range v.Elems {
			dst = appendCBOR(dst, e)
		}
		return dst
	}
	dst = appendHead(dst, 5, uint64(len(v.Fields)))
	for _, m := range v.Fields {
		dst = appendHead(dst, 3, uint64(len(m.Key)))
		dst = append(dst, m.Key...)
		dst = appendCBOR(dst, m.Val)
	}
	return dst
}

// appendBignum writes decimal digits as a CBOR bignum: tag 2 and the
// magnitude, or tag 3 and the magnitude less one for a negative number.
func appendBignum(dst []byte, digits string) []byte {
	n, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		dst = appendHead(dst, 3, uint64(len(digits)))
		return append(dst, digits...)
	}
	tag := uint64(2)
	if n.Sign() < 0 {
		tag = 3
		n.Neg(n).Sub(n, big.NewInt(1))
	}
	dst = appendHead(dst, 6, tag)
	mag := n.Bytes()
	dst = appendHead(dst, 2, uint64(len(mag)))
	return append(dst, mag...)
}

// cborDecoder reads stored CBOR with limits as wide as a document may be
// and jsoncons's nesting limit.
var cborDecoder = func() cbor.DecMode {
	dm, err := cbor.DecOptions{
		MaxNestedLevels:  DefaultMaxDepth + 1,
		MaxArrayElements: math.MaxInt32,
		MaxMapPairs:      math.MaxInt32,
		IndefLength:      cbor.IndefLengthAllowed,
		DupMapKey:        cbor.DupMapKeyQuiet,
		IntDec:           cbor.IntDecConvertNone,
		BigIntDec:        cbor.BigIntDecodeValue,
		DefaultMapType:   reflect.TypeOf(map[any]any(nil)),
		// Text that is no UTF-8 (a lone surrogate a \u escape made) is
		// read back as written: a stored value must always decode.
		UTF8: cbor.UTF8DecodeInvalid,
	}.DecMode()
	if err != nil {
		panic(err) // the options above are constants
	}
	return dm
}()

var errCBORKey = errors.New("a map key that is not a text string")

func decodeCBOR(b []byte) (*Value, error) {
	var x any
	if err := cborDecoder.Unmarshal(b, &x); err != nil {
		return nil, err
	}
	return fromCBOR(x)
}

// fromCBOR converts what the CBOR decoder produced into a document.
func fromCBOR(x any) (*Value, error) {
	switch t := x.(type) {
	case nil:
		return Null(), nil
	case bool:
		return NewBool(t), nil
	case uint64:
		return newUint(t), nil
	case int64:
		return NewInt(t), nil
	case float64:
		return NewFloat(t), nil
	case float32:
		return NewFloat(float64(t)), nil
	case string:
		return NewString(t), nil
	case []byte:
		return NewString(base64.RawURLEncoding.EncodeToString(t)), nil
	case big.Int:
		return bigValue(&t), nil
	case *big.Int:
		return bigValue(t), nil
	case cbor.Tag:
		return fromCBOR(t.Content)
	case cbor.SimpleValue:
		return Null(), nil
	case []any:
		arr := NewArray()
		arr.Elems = make([]*Value, 0, len(t))
		for _, e := range t {
			v, err := fromCBOR(e)
			if err != nil {
				return nil, err
			}
			arr.Elems = append(arr.Elems, v)
		}
		return arr, nil
	case map[any]any:
		obj := NewObject()
		for k, e := range t {
			key, ok := k.(string)
			if !ok || !utf8.ValidString(key) {
				return nil, errCBORKey
			}
			v, err := fromCBOR(e)
			if err != nil {
				return nil, err
			}
			obj.Set(key, v)
		}
		return obj, nil
	}
	return nil, fmt.Errorf("unexpected CBOR item %T", x)
}

// bigValue is an integer from a CBOR bignum: a 64-bit integer when it
// fits, else a bignum string as jsoncons keeps it.
func bigValue(n *big.Int) *Value {
	if n.IsInt64() {
		return NewInt(n.Int64())
	}
	if n.IsUint64() {
		return newUint(n.Uint64())
	}
	return &Value{Kind: KindString, Str: n.String(), BigInt: true}
}
