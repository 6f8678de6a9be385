package json

import (
	"math"
	"regexp"
	"strings"
	"unicode/utf8"
)

// callFunction evaluates one of jsoncons's JSONPath functions; a bad
// argument gives null.
func callFunction(e *expr, root, cur *Value) *Value {
	args := make([]*Value, len(e.args))
	for i, a := range e.args {
		args[i] = a.eval(root, cur)
	}
	x := args[0]
	switch e.op {
	case "length":
		switch x.Kind {
		case KindArray:
			return NewInt(int64(len(x.Elems)))
		case KindObject:
			return NewInt(int64(len(x.Fields)))
		case KindString:
			return NewInt(int64(utf8.RuneCountInString(x.Str)))
		}
	case "abs":
		if x.Kind == KindInt && x.Int != math.MinInt64 {
			return NewInt(max(x.Int, -x.Int))
		}
		if x.IsNumber() {
			return NewFloat(math.Abs(x.float()))
		}
	case "ceil", "floor":
		if x.Kind == KindInt || x.Kind == KindUint {
			return x
		}
		if x.IsNumber() {
			if e.op == "ceil" {
				return NewFloat(math.Ceil(x.float()))
			}
			return NewFloat(math.Floor(x.float()))
		}
	case "sum", "avg", "prod", "min", "max":
		return aggregate(e.op, x)
	case "keys":
		if x.Kind == KindObject {
			arr := NewArray()
			for _, m := range x.Fields {
				arr.Elems = append(arr.Elems, NewString(m.Key))
			}
			return arr
		}
	case "to_number":
		switch {
		case x.IsNumber() && x.Kind != KindString:
			return x
		case x.Kind == KindString:
			if v, err := Parse([]byte(x.Str), 1); err == nil && v.IsNumber() {
				return v
			}
		}
	case "contains":
		return contains(x, args[1])
	case "starts_with", "ends_with":
		if x.Kind == KindString && args[1].Kind == KindString {
			if e.op == "starts_with" {
				return NewBool(strings.HasPrefix(x.Str, args[1].Str))
			}
			return NewBool(strings.HasSuffix(x.Str, args[1].Str))
		}
	case "tokenize":
		if x.Kind == KindString && args[1].Kind == KindString {
			re, err := regexp.Compile(args[1].Str)
			if err == nil {
				arr := NewArray()
				for _, t := range re.Split(x.Str, -1) {
					arr.Elems = append(arr.Elems, NewString(t))
				}
				return arr
			}
		}
	}
	return Null()
}

func contains(x, y *Value) *Value {
	switch x.Kind {
	case KindArray:
		for _, e := range x.Elems {
			if Equal(e, y) {
				return NewBool(true)
			}
		}
		return NewBool(false)
	case KindString:
		if y.Kind == KindString {
			return NewBool(strings.Contains(x.Str, y.Str))
		}
	}
	return Null()
}

// aggregate folds an array of numbers.
func aggregate(op string, x *Value) *Value {
	if x.Kind != KindArray || (len(x.Elems) == 0 && op != "sum") {
		return Null()
	}
	acc := 0.0
	if op == "prod" {
		acc = 1
	}
	var best *Value
	for i, e := range x.Elems {
		if !e.IsNumber() {
			return Null()
		}
		f := e.float()
		switch op {
		case "sum", "avg":
			acc += f
		case "prod":
			acc *= f
		case "min":
			if i == 0 || numCompare(e, best) < 0 {
				best = e
			}
		case "max":
			if i == 0 || numCompare(e, best) > 0 {
				best = e
			}
		}
	}
	switch op {
	case "min", "max":
		return best
	case "avg":
		acc /= float64(len(x.Elems))
	}
	return NewFloat(acc)
}
