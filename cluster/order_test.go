package cluster

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestKvrocksOrder checks kvrocksOrder against the iteration order of a
// std::unordered_map<std::string, ...> built by GCC 12's libstdc++ (the
// one Kvrocks is built with) from the same ids inserted in order: the
// vectors were printed by a C++ program doing just that. The ids are the
// hex SHA-1 of 0, 1, 2, ...; 20 ids cross the first growth of the bucket
// array (13 to 29 buckets), 300 several more.
func TestKvrocksOrder(t *testing.T) {
	for _, tc := range []struct {
		n     int
		order string // the positions, for short lists
		sum   string // SHA-1 of the positions joined by spaces
	}{
		{3, "2 1 0", "6e05071a1e834e322c07f459ad9de0c66f8ca449"},
		{20, "19 18 16 15 14 13 0 4 2 3 6 11 5 7 8 1 9 17 10 12", "d16da7c70c26e48b5dfe1ba9b67dad1932aa7898"},
		{300, "", "bbf4075f99292d0cd665aa08a1c1298007cc6abc"},
	} {
		ids := make([]string, tc.n)
		for i := range ids {
			sum := sha1.Sum([]byte(strconv.Itoa(i)))
			ids[i] = hex.EncodeToString(sum[:])
		}
		var pos []string
		for _, i := range kvrocksOrder(ids) {
			pos = append(pos, strconv.Itoa(i))
		}
		got := strings.Join(pos, " ")
		sum := sha1.Sum([]byte(got))
		if tc.order != "" && got != tc.order {
			t.Errorf("%d ids: order %s, want %s", tc.n, got, tc.order)
		}
		if hex.EncodeToString(sum[:]) != tc.sum {
			t.Errorf("%d ids: order %s, sum %x, want %s", tc.n, got, sum, tc.sum)
		}
	}
	// A repeated id is inserted once.
	if got := kvrocksOrder([]string{"a", "b", "a"}); fmt.Sprint(got) != "[1 0]" {
		t.Errorf("repeated id: %v", got)
	}
	// libstdc++'s std::hash of a std::string.
	if h := hashBytes([]byte("07c37dfeb235213a872192d90877d0cd55635b91")); h != 14801076986055975758 || hashBytes([]byte("abc")) != 3663726644998027833 {
		t.Errorf("hash = %d", h)
	}
}
