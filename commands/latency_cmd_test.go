package commands

import (
	"strings"
	"testing"
)

// The graph Redis 7.0's sparkline.c draws for three samples (worked out
// from its code: 12 steps over 4 rows, "_o#" filled with '|' below, the
// labels written downwards after a blank line).
func TestSparkline(t *testing.T) {
	s := &sparkline{}
	for i, v := range []float64{10, 20, 30} {
		s.add(v, []string{"2s", "1s", "0s"}[i])
	}
	var b strings.Builder
	s.render(&b, 80, 4)
	if want := "  #\n _|\n ||\n_||\n   \n210\nsss\n"; b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
	// More samples than columns: the graph goes on below, after a blank
	// line.
	s = &sparkline{}
	for i := 0; i < 5; i++ {
		s.add(float64(i), "")
	}
	b.Reset()
	s.render(&b, 3, 1)
	if want := "__o\n\n##\n"; b.String() != want {
		t.Fatalf("wrapped: got %q, want %q", b.String(), want)
	}
}
