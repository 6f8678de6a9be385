package num

import (
	"math"
	"strconv"
	"testing"
)

// TestAppendShortDouble: Redis 7.2+'s d2string (REDIS-NEW.md §0.4): nan, inf,
// signed zero, integers within ±2^62 as integers, else the shortest
// round-trip digits, plain or d.ddde±x as fpconv's emit_digits lays them.
func TestAppendShortDouble(t *testing.T) {
	cases := []struct {
		f    float64
		want string
	}{
		{math.NaN(), "nan"},
		{math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"},
		{0, "0"},
		{math.Copysign(0, -1), "-0"},
		{1, "1"},
		{-3, "-3"},
		{2.5, "2.5"},
		{-0.5, "-0.5"},
		{0.1, "0.1"},                    // %.17g: 0.10000000000000001
		{1.0 / 3, "0.3333333333333333"}, // %.17g: 0.33333333333333331
		{12.5, "12.5"},
		{123456.789, "123456.789"},
		{0.000001, "0.000001"}, // exponent -6: still plain
		{0.000123, "0.000123"},
		{1e-7, "1e-7"},
		{1.5e-7, "1.5e-7"}, // §0.4's example
		{1.23e-5, "1.23e-5"},
		{4611686018427387904, "4611686018427387904"}, // 2^62: the last integer path
		{9223372036854775808, "9223372036854776000"}, // 2^63: fpconv, plain
		{123456789012345680000, "123456789012345680000"},
		{1e21, "1e+21"}, // §0.4's example
		{1e22, "1e+22"},
		{1e100, "1e+100"},
		{1.5e300, "1.5e+300"},
		{1e105, "1e+105"},
		{-1.25e-200, "-1.25e-200"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{-math.MaxFloat64, "-1.7976931348623157e+308"},
		{5e-324, "5e-324"},
	}
	for _, c := range cases {
		got := string(AppendShortDouble([]byte("x"), c.f))
		if got != "x"+c.want {
			t.Errorf("AppendShortDouble(%v) = %q, want %q", c.f, got[1:], c.want)
		}
		if back, err := strconv.ParseFloat(got[1:], 64); !math.IsNaN(c.f) && (err != nil || back != c.f) {
			t.Errorf("%q reads back as %v, %v", got[1:], back, err)
		}
	}
}
