package it

import (
	"fmt"
	"testing"
)

// TestSortDiff runs testdata/sort_diff.txt on redis-server 7.0 and on
// Basalt, in RESP2 and RESP3, and requires the same bytes for every reply.
func TestSortDiff(t *testing.T) {
	b, r := startBasalt(t), startRedis(t)
	cases := readCases(t, "testdata/sort_diff.txt")
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			p := newBitsPair(t, b, r, proto)
			kinds := map[byte]int{}
			for _, args := range cases {
				kinds[p.same(args...)[0]]++
			}
			if kinds['-'] == 0 || kinds['*'] == 0 {
				t.Fatalf("the cases should reach errors and arrays: %v", kinds)
			}
			t.Logf("%d commands, same replies: %d errors, %d integers, %d arrays", len(cases), kinds['-'], kinds[':'], kinds['*'])
		})
	}
}

// TestSortInCluster checks what Redis 7.0 in cluster mode answers (asked of
// a real redis-server with --cluster-enabled yes): BY with a pattern and
// GET are refused, BY a constant sorts nothing, and STORE to another
// slot is a cross-slot request (in Kvrocks's words).
func TestSortInCluster(t *testing.T) {
	nodes, ids := clusterNodes(t, 1)
	pushTopology(t, nodes, mastersText(nodes, ids, []string{"0-16383"}), 1)
	c := nodes[0].client(t, 2)
	if err := c.RPush(ctx, "{u}l", 3, 1, 2).Err(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"SORT", "{u}l", "BY", "w_*"}, "ERR BY option of SORT denied in Cluster mode."},
		{[]any{"SORT", "{u}l", "BY", "{u}w_*"}, "ERR BY option of SORT denied in Cluster mode."},
		{[]any{"SORT", "{u}l", "GET", "#"}, "ERR GET option of SORT denied in Cluster mode."},
		{[]any{"SORT_RO", "{u}l", "GET", "{u}x_*"}, "ERR GET option of SORT denied in Cluster mode."},
		{[]any{"SORT", "{u}l", "BY", "nosort"}, "[3 1 2]"},
		{[]any{"SORT", "{u}l", "DESC"}, "[3 2 1]"},
		{[]any{"SORT", "{u}l", "STORE", "{u}dst"}, "3"},
		// Cluster errors are worded as Kvrocks words them.
		{[]any{"SORT", "{u}l", "STORE", "other"}, "CROSSSLOT Attempted to access keys that don't hash to the same slot"},
		{[]any{"SORT_RO", "{u}l", "STORE", "{u}dst"}, "ERR syntax error"},
	} {
		v, err := c.Do(ctx, tc.args...).Result()
		got := fmt.Sprint(v)
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%v: %q, want %q", tc.args, got, tc.want)
		}
	}
}
