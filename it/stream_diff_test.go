package it

import (
	"fmt"
	"testing"
)

// TestStreamDiff runs testdata/stream_diff.txt on redis-server 7.0 and on
// Basalt, in RESP2 and RESP3, and requires the same bytes for every reply.
func TestStreamDiff(t *testing.T) {
	b, r := startBasalt(t), startRedis(t)
	cases := readCases(t, "testdata/stream_diff.txt")
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			p := newBitsPair(t, b, r, proto)
			kinds := map[byte]int{}
			for _, args := range cases {
				kinds[p.same(args...)[0]]++
			}
			t.Logf("%d commands, same replies: %d errors, %d integers, %d strings, %d arrays, %d maps, %d nulls",
				len(cases), kinds['-'], kinds[':'], kinds['$'], kinds['*'], kinds['%'], kinds['_'])
		})
	}
}
