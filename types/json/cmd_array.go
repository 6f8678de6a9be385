package json

import (
	"github.com/basaltdb/basalt/reply"
)

// parseValues parses the JSON values of a command, all before any is
// used.
func (cfg Config) parseValues(args [][]byte) ([]*Value, error) {
	vals := make([]*Value, len(args))
	for i, a := range args {
		v, err := cfg.parseValue(a)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}

// clones copies values for one more array.
func clones(vals []*Value) []*Value {
	out := make([]*Value, len(vals))
	for i, v := range vals {
		out[i] = v.Clone()
	}
	return out
}

// arrayOp runs f on each array a path selects, in Kvrocks's order for
// writes, and shapes the per-match replies (nil for what is not an
// array).
func arrayOp(doc *Value, pa *pathArg, cfg Config, f func(arr *Value) reply.Value) (Result, error) {
	var per []reply.Value
	for _, m := range pa.path.Targets(doc, true) {
		if m.Val.Kind != KindArray {
			per = append(per, rNull())
			continue
		}
		per = append(per, f(m.Val))
	}
	r, err := pa.shape(per, true, ErrNotArray)
	if err != nil {
		return Result{}, err
	}
	return cfg.written(doc, r)
}

// ArrAppend is JSON.ARRAPPEND key path value [value ...]: the new length
// of each array that matches.
func ArrAppend(doc *Value, args [][]byte, cfg Config) (Result, error) {
	if len(args) < 2 {
		return Result{}, ErrArity
	}
	pa, err := compilePath(args[0])
	if err != nil {
		return Result{}, err
	}
	vals, err := cfg.parseValues(args[1:])
	if err != nil {
		return Result{}, err
	}
	if doc == nil {
		return Result{}, ErrNotFound
	}
	return arrayOp(doc, pa, cfg, func(arr *Value) reply.Value {
		arr.Elems = append(arr.Elems, clones(vals)...)
		return rInt(int64(len(arr.Elems)))
	})
}

// ArrInsert is JSON.ARRINSERT key path index value [value ...]: inserts
// before index (negative from the end) in each array where -len <= index
// < len, and answers the new lengths, nil where the index is out of
// range.
func ArrInsert(doc *Value, args [][]byte, cfg Config) (Result, error) {
	if len(args) < 3 {
		return Result{}, ErrArity
	}
	pa, err := compilePath(args[0])
	if err != nil {
		return Result{}, err
	}
	index, err := parseInt(args[1])
	if err != nil {
		return Result{}, ErrNotInteger
	}
	vals, err := cfg.parseValues(args[2:])
	if err != nil {
		return Result{}, err
	}
	if doc == nil {
		return Result{Reply: rNull()}, nil
	}
	return arrayOp(doc, pa, cfg, func(arr *Value) reply.Value {
		n := int64(len(arr.Elems))
		i := index
		if i < 0 {
			i += n
		}
		if index < -n || index >= n {
			return rNull()
		}
		tail := append(clones(vals), arr.Elems[i:]...)
		arr.Elems = append(arr.Elems[:i], tail...)
		return rInt(int64(len(arr.Elems)))
	})
}

// ArrPop is JSON.ARRPOP key [path [index]]: removes the element at index
// (default -1; clamped to the array) of each array that matches and
// answers it as JSON text, nil for empty arrays and other values.
func ArrPop(doc *Value, args [][]byte, cfg Config) (Result, error) {
	if len(args) > 2 {
		return Result{}, ErrArity
	}
	pa, err := optionalPath(args, 0)
	if err != nil {
		return Result{}, err
	}
	index := int64(-1)
	if len(args) == 2 {
		if index, err = parseInt(args[1]); err != nil {
			return Result{}, err
		}
	}
	if doc == nil {
		return Result{}, ErrNotFound
	}
	return arrayOp(doc, pa, cfg, func(arr *Value) reply.Value {
		n := int64(len(arr.Elems))
		if n == 0 {
			return rNull()
		}
		i := index
		if i < 0 {
			i = max(i+n, 0)
		}
		i = min(i, n-1)
		popped := arr.Elems[i]
		arr.Elems = append(arr.Elems[:i], arr.Elems[i+1:]...)
		return rBulk(string(Text(popped)))
	})
}

// ArrTrim is JSON.ARRTRIM key path start stop: keeps [start, stop] (both
// inclusive, negative from the end) of each array that matches and
// answers the new lengths.
func ArrTrim(doc *Value, args [][]byte, cfg Config) (Result, error) {
	if len(args) != 3 {
		return Result{}, ErrArity
	}
	pa, err := compilePath(args[0])
	if err != nil {
		return Result{}, err
	}
	start, err := parseInt(args[1])
	if err != nil {
		return Result{}, err
	}
	stop, err := parseInt(args[2])
	if err != nil {
		return Result{}, err
	}
	if doc == nil {
		return Result{}, ErrNoKey
	}
	return arrayOp(doc, pa, cfg, func(arr *Value) reply.Value {
		n := int64(len(arr.Elems))
		b, e := start, stop
		if b < 0 {
			b = max(b+n, 0)
		}
		if e < 0 {
			e = max(e+n, 0)
		}
		e = min(e, n-1)
		if b >= n || b > e {
			arr.Elems = []*Value{}
		} else {
			arr.Elems = append([]*Value{}, arr.Elems[b:e+1]...)
		}
		return rInt(int64(len(arr.Elems)))
	})
}

// ArrLen is JSON.ARRLEN key [path]: the length of each array that
// matches, nil for other values.
func ArrLen(doc *Value, args [][]byte) (reply.Value, error) {
	if len(args) > 1 {
		return reply.Value{}, ErrTooManyArgs
	}
	pa, err := optionalPath(args, 0)
	if err != nil {
		return reply.Value{}, err
	}
	if doc == nil {
		return rNull(), nil
	}
	var per []reply.Value
	for _, m := range pa.path.Eval(doc) {
		if m.Val.Kind == KindArray {
			per = append(per, rInt(int64(len(m.Val.Elems))))
		} else {
			per = append(per, rNull())
		}
	}
	return pa.shape(per, false, ErrNotArray)
}

// ArrIndex is JSON.ARRINDEX key path value [start [stop]]: the first
// index in [start, stop) of an element equal to value in each array that
// matches, -1 when there is none, nil for other values.
func ArrIndex(doc *Value, args [][]byte, cfg Config) (reply.Value, error) {
	if len(args) < 2 || len(args) > 4 {
		return reply.Value{}, ErrArity
	}
	pa, err := compilePath(args[0])
	if err != nil {
		return reply.Value{}, err
	}
	want, err := cfg.parseValue(args[1])
	if err != nil {
		return reply.Value{}, err
	}
	var bounds [2]int64
	for i := 2; i < len(args); i++ {
		if bounds[i-2], err = parseInt(args[i]); err != nil {
			return reply.Value{}, err
		}
	}
	if doc == nil {
		return rNull(), nil
	}
	var per []reply.Value
	for _, m := range pa.path.Eval(doc) {
		if m.Val.Kind != KindArray {
			per = append(per, rNull())
			continue
		}
		per = append(per, rInt(indexIn(m.Val.Elems, want, bounds[0], bounds[1])))
	}
	return pa.shape(per, false, ErrNotArray)
}

// indexIn searches elems[start:stop) with Kvrocks's normalisation of the
// bounds.
func indexIn(elems []*Value, want *Value, start, stop int64) int64 {
	n := int64(len(elems))
	if start < 0 {
		start = max(start+n, 0)
	}
	if start >= n {
		start = n - 1
	}
	if stop == 0 {
		stop = n
	} else if stop < 0 {
		stop = max(stop+n, 0)
	}
	stop = min(stop, n)
	for i := max(start, 0); i < stop; i++ {
		if Equal(elems[i], want) {
			return i
		}
	}
	return -1
}
