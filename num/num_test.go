package num

import (
	"math"
	"strconv"
	"testing"
)

func TestParseInt(t *testing.T) {
	good := map[string]int64{"0": 0, "1": 1, "-1": -1, "9223372036854775807": math.MaxInt64, "-9223372036854775808": math.MinInt64}
	for s, want := range good {
		if got, ok := ParseInt([]byte(s)); !ok || got != want {
			t.Errorf("ParseInt(%q) = %d, %v", s, got, ok)
		}
	}
	for _, s := range []string{"", "-", "+1", "01", "-0", " 1", "1 ", "1a", "9223372036854775808", "-9223372036854775809", "99999999999999999999", "1.0"} {
		if _, ok := ParseInt([]byte(s)); ok {
			t.Errorf("ParseInt(%q) accepted", s)
		}
	}
}

func TestParseFloat(t *testing.T) {
	good := map[string]float64{"1.5": 1.5, "-2": -2, "inf": math.Inf(1), "-inf": math.Inf(-1), "+inf": math.Inf(1), "1e3": 1000, "0x10": 16, "0x1p4": 16, "0": 0, ".5": 0.5, "0e10": 0}
	for s, want := range good {
		if got, ok := ParseFloat([]byte(s)); !ok || got != want {
			t.Errorf("ParseFloat(%q) = %v, %v", s, got, ok)
		}
	}
	for _, s := range []string{"", "nan", " 1", "1 ", "abc", "1e400", "1e-400", "1_0"} {
		if _, ok := ParseFloat([]byte(s)); ok {
			t.Errorf("ParseFloat(%q) accepted", s)
		}
	}
}

// The integer fast path reads what strconv reads, -0 keeps its sign.
func TestParseFloatIntegers(t *testing.T) {
	for _, s := range []string{"7", "007", "-12", "999999999999999", "-999999999999999", "1234567890123456", "-9223372036854775808", "18446744073709551616"} {
		got, ok := ParseFloat([]byte(s))
		want, err := strconv.ParseFloat(s, 64)
		if !ok || err != nil || got != want {
			t.Errorf("ParseFloat(%q) = %v %v, strconv %v %v", s, got, ok, want, err)
		}
	}
	if f, ok := ParseFloat([]byte("-0")); !ok || f != 0 || !math.Signbit(f) {
		t.Errorf("ParseFloat(-0) = %v %v, want -0", f, ok)
	}
	for _, s := range []string{"-", "--1", "1-", "-+1"} {
		if _, ok := ParseFloat([]byte(s)); ok {
			t.Errorf("ParseFloat(%q) accepted", s)
		}
	}
}

func TestLongDouble(t *testing.T) {
	tests := []struct{ a, b, want string }{
		{"0", "0.1", "0.1"},
		{"0.1", "0.2", "0.3"},
		{"10.5", "0.1", "10.6"},
		{"5.0e3", "2.0e2", "5200"},
		{"1", "-1", "0"},
		{"-0.5", "0", "-0.5"},
		{"3", "1.5", "4.5"},
	}
	for _, tt := range tests {
		a, ok1 := ParseLongDouble([]byte(tt.a))
		b, ok2 := ParseLongDouble([]byte(tt.b))
		if !ok1 || !ok2 {
			t.Fatalf("parse %q %q", tt.a, tt.b)
		}
		sum, ok := AddLongDouble(a, b)
		if !ok || FormatLongDouble(sum) != tt.want {
			t.Errorf("%s + %s = %s, want %s", tt.a, tt.b, FormatLongDouble(sum), tt.want)
		}
	}
	if hex, ok := ParseLongDouble([]byte("0x10")); !ok || FormatLongDouble(hex) != "16" {
		t.Fatal("hex must parse as strtold does")
	}
	inf, ok := ParseLongDouble([]byte("inf"))
	if !ok {
		t.Fatal("inf must parse")
	}
	if _, ok := AddLongDouble(inf, inf); ok {
		t.Fatal("inf result must be refused")
	}
	for _, s := range []string{"nan", " 1", "0b11", "1_0", "abc", ""} {
		if _, ok := ParseLongDouble([]byte(s)); ok {
			t.Errorf("ParseLongDouble(%q) accepted", s)
		}
	}
}

func TestAppendDoubleMatchesPrintf17g(t *testing.T) {
	for f, want := range map[float64]string{
		1.5: "1.5", 0: "0", 100000: "100000", 1e16: "10000000000000000", 1e17: "1e+17",
		1.2345678901234568e17: "1.2345678901234568e+17", 0.0001: "0.0001", 0.00001: "1.0000000000000001e-05",
		-2.5: "-2.5", 3.0000000000000004: "3.0000000000000004",
	} {
		if got := string(AppendDouble(nil, f)); got != want {
			t.Errorf("AppendDouble(%v) = %q, want %q", f, got, want)
		}
	}
}
