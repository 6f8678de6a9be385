package main

import (
	"math"
	"testing"
)

// A step a server refused shows "refused" and no ratio; a cut-off run
// "timeout"; the others their median and ratio.
func TestCells(t *testing.T) {
	cases := []struct {
		basalt, other []float64
		median, ratio string
	}{
		{[]float64{100}, []float64{50}, "50", "2.00"},
		{[]float64{100, 120}, []float64{50, 40}, "45", "2.50 (2.00-3.00)"},
		{[]float64{100}, []float64{math.Inf(-1)}, "refused", "-"},
		{[]float64{100}, []float64{math.NaN()}, "timeout", "-"},
	}
	for _, c := range cases {
		if got := medianCell(c.other); got != c.median {
			t.Errorf("medianCell(%v) = %q, want %q", c.other, got, c.median)
		}
		if got := ratioCell(c.basalt, c.other); got != c.ratio {
			t.Errorf("ratioCell(%v, %v) = %q, want %q", c.basalt, c.other, got, c.ratio)
		}
	}
	if msg, ok := serverError("WARNING: Could not fetch server CONFIG\nError from server: The number of elements to be sorted exceeds SORT_LENGTH_LIMIT = 512\n"); !ok || msg != "The number of elements to be sorted exceeds SORT_LENGTH_LIMIT = 512" {
		t.Errorf("serverError: %q %v", msg, ok)
	}
}
