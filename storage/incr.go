package storage

import (
	"math"
	"math/big"
	"strconv"

	"github.com/basaltdb/basalt/num"
)

// addInt adds delta to the integer text old (absent: 0), as INCRBY and
// HINCRBY do, and returns the sum and its text; notInt is the error for a
// value that is not an integer.
func addInt(old []byte, found bool, delta int64, notInt error) (int64, []byte, error) {
	var cur int64
	if found {
		var ok bool
		if cur, ok = num.ParseInt(old); !ok {
			return 0, nil, notInt
		}
	}
	if (delta > 0 && cur > math.MaxInt64-delta) || (delta < 0 && cur < math.MinInt64-delta) {
		return 0, nil, ErrOverflow
	}
	cur += delta
	return cur, strconv.AppendInt(nil, cur, 10), nil
}

// addLongDouble adds delta to the number text old (absent: 0) in long
// double precision, as INCRBYFLOAT and HINCRBYFLOAT do, and returns Redis's
// rendering of the sum; notFloat is the error for a value that is not a
// number.
func addLongDouble(old []byte, found bool, delta *big.Float, notFloat error) ([]byte, error) {
	cur := new(big.Float)
	if found {
		var ok bool
		if cur, ok = num.ParseLongDouble(old); !ok {
			return nil, notFloat
		}
	}
	sum, ok := num.AddLongDouble(cur, delta)
	if !ok {
		return nil, ErrNaNOrInfinity
	}
	return []byte(num.FormatLongDouble(sum)), nil
}
