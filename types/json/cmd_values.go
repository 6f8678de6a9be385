package json

import (
	"math"

	"github.com/basaltdb/basalt/reply"
)

// Clear is JSON.CLEAR key [path]: empties the arrays and objects and
// zeroes the numbers that match, and answers how many changed.
func Clear(doc *Value, args [][]byte, cfg Config) (Result, error) {
	pa, err := optionalPath(args, 0)
	if err != nil {
		return Result{}, err
	}
	if doc == nil {
		return Result{Reply: rNull()}, nil
	}
	n := 0
	for _, m := range pa.path.Targets(doc, true) {
		v := m.Val
		switch {
		case v.Kind == KindArray && len(v.Elems) > 0:
			v.Elems = []*Value{}
		case v.Kind == KindObject && len(v.Fields) > 0:
			v.Fields = nil
		case (v.Kind == KindInt && v.Int != 0) || v.Kind == KindUint || (v.Kind == KindFloat && v.Float != 0):
			v.replaceWith(NewInt(0))
		default:
			continue
		}
		n++
	}
	if n == 0 {
		return Result{Reply: rInt(0)}, nil
	}
	return cfg.written(doc, rInt(int64(n)))
}

// Toggle is JSON.TOGGLE key [path]: flips the booleans that match and
// answers each one's new value (1 or 0), nil for other values; legacy
// paths answer RedisJSON's "true" or "false".
func Toggle(doc *Value, args [][]byte, cfg Config) (Result, error) {
	pa, err := optionalPath(args, 0)
	if err != nil {
		return Result{}, err
	}
	if doc == nil {
		return Result{Reply: rNull()}, nil
	}
	var per []reply.Value
	for _, m := range pa.path.Targets(doc, false) {
		if m.Val.Kind != KindBool {
			per = append(per, rNull())
			continue
		}
		m.Val.Bool = !m.Val.Bool
		if pa.legacy {
			per = append(per, rBulk(strconvBool(m.Val.Bool)))
		} else if m.Val.Bool {
			per = append(per, rInt(1))
		} else {
			per = append(per, rInt(0))
		}
	}
	r, err := pa.shape(per, true, ErrNotBool)
	if err != nil {
		return Result{}, err
	}
	return cfg.written(doc, r)
}

// NumIncrBy is JSON.NUMINCRBY key path number.
func NumIncrBy(doc *Value, args [][]byte, cfg Config) (Result, error) {
	return numOp(doc, args, cfg, false)
}

// NumMultBy is JSON.NUMMULTBY key path number.
func NumMultBy(doc *Value, args [][]byte, cfg Config) (Result, error) {
	return numOp(doc, args, cfg, true)
}

// numOp adds to or multiplies the numbers that match and answers the new
// values as the JSON text of an array (null for what is not a number);
// a legacy path answers the last new value's text.
func numOp(doc *Value, args [][]byte, cfg Config, mult bool) (Result, error) {
	if len(args) != 2 {
		return Result{}, ErrArity
	}
	pa, err := compilePath(args[0])
	if err != nil {
		return Result{}, err
	}
	by, err := Parse(args[1], cfg.MaxDepth)
	if err != nil || !(by.Kind == KindInt || by.Kind == KindUint || by.Kind == KindFloat) {
		return Result{}, ErrNotNumber
	}
	if doc == nil {
		return Result{}, ErrNotFound
	}
	results := NewArray()
	var last *Value
	for _, m := range pa.path.Targets(doc, true) {
		v := m.Val
		if !(v.Kind == KindInt || v.Kind == KindUint || v.Kind == KindFloat) {
			results.Elems = append(results.Elems, Null())
			continue
		}
		r := arithmeticResult(v, by, mult)
		if r == nil {
			return Result{}, ErrInfinite
		}
		v.replaceWith(r)
		results.Elems = append(results.Elems, r)
		last = r
	}
	text := string(Text(results))
	if pa.legacy {
		if last == nil {
			return Result{}, ErrNoNumber
		}
		text = string(Text(last))
	}
	return cfg.written(doc, rBulk(text))
}

// arithmeticResult is v+by or v*by as Kvrocks stores it: computed in
// doubles, and an integral result strictly inside the int64 range
// stored as an integer. nil when the result is not finite.
func arithmeticResult(v, by *Value, mult bool) *Value {
	f := v.float() + by.float()
	if mult {
		f = v.float() * by.float()
	}
	if !finite(f) {
		return nil
	}
	if f == math.Trunc(f) && f > math.MinInt64 && f < math.MaxInt64 {
		return NewInt(int64(f))
	}
	return NewFloat(f)
}

// StrAppend is JSON.STRAPPEND key [path] value: appends a JSON string to
// the strings that match and answers their new byte lengths. Without a
// path it appends to the root as RedisJSON does, at its legacy root: one
// length, or an error when the root is no string (Kvrocks 5fccd57 aborts
// on that form).
func StrAppend(doc *Value, args [][]byte, cfg Config) (Result, error) {
	if len(args) < 1 || len(args) > 2 {
		return Result{}, ErrArity
	}
	pa := legacyRoot
	if len(args) == 2 {
		var err error
		if pa, err = compilePath(args[0]); err != nil {
			return Result{}, err
		}
	}
	s, err := Parse(args[len(args)-1], cfg.MaxDepth)
	if err != nil {
		return Result{}, err
	}
	if s.Kind != KindString {
		return Result{}, ErrNotString
	}
	if doc == nil {
		return Result{}, ErrNotFound
	}
	var per []reply.Value
	for _, m := range pa.path.Targets(doc, false) {
		if m.Val.Kind != KindString {
			per = append(per, rNull())
			continue
		}
		m.Val.replaceWith(NewString(m.Val.Str + s.Str))
		per = append(per, rInt(int64(len(m.Val.Str))))
	}
	r, err := pa.shape(per, true, ErrNotStringPath)
	if err != nil {
		return Result{}, err
	}
	return cfg.written(doc, r)
}

// StrLen is JSON.STRLEN key [path]: the byte length of each string that
// matches, nil for other values.
func StrLen(doc *Value, args [][]byte) (reply.Value, error) {
	if len(args) > 1 {
		return reply.Value{}, ErrTooManyArgs
	}
	pa, err := optionalPath(args, 0)
	if err != nil {
		return reply.Value{}, err
	}
	if doc == nil {
		if len(args) == 0 || pa.legacy {
			return rNull(), nil
		}
		return reply.Value{}, ErrNoKey
	}
	var per []reply.Value
	for _, m := range pa.path.Eval(doc) {
		if m.Val.Kind == KindString {
			per = append(per, rInt(int64(len(m.Val.Str))))
		} else {
			per = append(per, rNull())
		}
	}
	return pa.shape(per, false, ErrNotStringPath)
}

// ObjKeys is JSON.OBJKEYS key [path]: the keys of each object that
// matches, nil for other values.
func ObjKeys(doc *Value, args [][]byte) (reply.Value, error) {
	pa, err := optionalPath(args, 0)
	if err != nil {
		return reply.Value{}, err
	}
	if doc == nil {
		return rNull(), nil
	}
	var per []reply.Value
	for _, m := range pa.path.Eval(doc) {
		if m.Val.Kind != KindObject {
			per = append(per, rNull())
			continue
		}
		keys := make([]reply.Value, len(m.Val.Fields))
		for i, f := range m.Val.Fields {
			keys[i] = rBulk(f.Key)
		}
		per = append(per, rArray(keys))
	}
	return pa.shape(per, false, ErrNotObject)
}

// ObjLen is JSON.OBJLEN key [path]: the member count of each object that
// matches, nil for other values.
func ObjLen(doc *Value, args [][]byte) (reply.Value, error) {
	if len(args) > 1 {
		return reply.Value{}, ErrTooManyArgs
	}
	pa, err := optionalPath(args, 0)
	if err != nil {
		return reply.Value{}, err
	}
	if doc == nil {
		if len(args) == 0 || pa.legacy {
			return rNull(), nil
		}
		return reply.Value{}, ErrObjLenNoKey
	}
	var per []reply.Value
	for _, m := range pa.path.Eval(doc) {
		if m.Val.Kind == KindObject {
			per = append(per, rInt(int64(len(m.Val.Fields))))
		} else {
			per = append(per, rNull())
		}
	}
	return pa.shape(per, false, ErrNotObject)
}
