package search

import "testing"

// TestChunkSize: the keys a filter reads next, from what its consumer
// wants and what held so far.
func TestChunkSize(t *testing.T) {
	cases := []struct {
		want, read, held uint64
		last, size       int
	}{
		{0, 0, 0, 0, 8},         // no limit: small first
		{0, 8, 3, 8, 16},        // then doubling
		{0, 600, 3, 128, 128},   // up to 128
		{10, 0, 0, 0, 10},       // a limit: what it wants first
		{1000, 0, 0, 0, 128},    // at most 128
		{10, 10, 5, 10, 12},     // half held: 5 more need 10, and a quarter
		{10, 10, 0, 10, 125},    // none held: as if one had
		{10, 12, 10, 12, 8},     // all there: the consumer stops
		{100, 100, 99, 100, 8},  // one more at that rate: the least
		{100, 128, 1, 128, 128}, // rare: the most
	}
	for _, c := range cases {
		if got := chunkSize(c.want, c.read, c.held, c.last); got != c.size {
			t.Errorf("chunkSize(want %d, read %d, held %d, last %d) = %d, want %d", c.want, c.read, c.held, c.last, got, c.size)
		}
	}
}
