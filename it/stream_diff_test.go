package it

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestStreamDiff runs testdata/stream_diff.txt on redis-server 7.0 and on
// Basalt, in RESP2 and RESP3, and requires the same bytes for every reply.
// A case marked "~" has clock readings in its reply (idle times, delivery
// times): there its integers may differ by up to clockSlack ms, and every
// other byte must be the same.
func TestStreamDiff(t *testing.T) {
	b, r := startBasalt(t), startRedis(t)
	cases := readCases(t, "testdata/stream_diff.txt")
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			p := newBitsPair(t, b, r, proto)
			kinds := map[byte]int{}
			clocked := 0
			for _, args := range cases {
				if args[0] != "~" {
					kinds[p.same(args...)[0]]++
					continue
				}
				clocked++
				got, want := p.basalt.do(args[1:]...), p.redis.do(args[1:]...)
				if !sameButClocks(got, want) {
					t.Fatalf("%q\nbasalt:       %q\nredis-server: %q", args[1:], abbreviated(got), abbreviated(want))
				}
				kinds[want[0]]++
			}
			t.Logf("%d commands (%d with clock readings), same replies: %d errors, %d integers, %d strings, %d arrays, %d maps, %d nulls",
				len(cases), clocked, kinds['-'], kinds[':'], kinds['$'], kinds['*'], kinds['%'], kinds['_'])
		})
	}
}

// clockSlack is how far apart two servers' clock readings in one reply
// may be: the commands reach them one after the other.
const clockSlack = 2000

// sameButClocks compares two raw replies line by line, integers within
// clockSlack of each other.
func sameButClocks(got, want string) bool {
	g, w := strings.Split(got, "\r\n"), strings.Split(want, "\r\n")
	if len(g) != len(w) {
		return false
	}
	for i := range g {
		if g[i] == w[i] {
			continue
		}
		if !strings.HasPrefix(g[i], ":") || !strings.HasPrefix(w[i], ":") {
			return false
		}
		a, err1 := strconv.ParseInt(g[i][1:], 10, 64)
		b, err2 := strconv.ParseInt(w[i][1:], 10, 64)
		if err1 != nil || err2 != nil || a-b > clockSlack || b-a > clockSlack {
			return false
		}
	}
	return true
}
