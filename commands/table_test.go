package commands

import (
	"slices"
	"strings"
	"testing"

	"github.com/basaltdb/basalt/executor"
)

func args(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i, a := range s {
		out[i] = []byte(a)
	}
	return out
}

func TestTableIsConsistent(t *testing.T) {
	for _, c := range executor.SortedCommands() {
		name := c.Name
		if executor.Lookup([]byte(name)) != c || name != strings.ToLower(name) {
			t.Errorf("%s: not found under its name", name)
		}
		if c.Handler == nil || c.Arity == 0 {
			t.Errorf("%s: missing handler or arity", name)
		}
		if c.Flags&executor.Write != 0 && c.Flags&executor.ReadOnly != 0 {
			t.Errorf("%s: both write and readonly", name)
		}
		// The flushes and APPLYBATCH (which only the link of a slot
		// import sends, for slots nobody else may write) write without
		// key locks; RDB LOAD locks each key it imports itself.
		if c.Flags&executor.Write != 0 && c.FirstKey == 0 && c.Keys == nil && name != "flushdb" && name != "flushall" && name != "applybatch" && c.Flags&executor.LocksItself == 0 {
			t.Errorf("%s: a write command without keys locks nothing", name)
		}
	}
}

func TestLookupIgnoresCase(t *testing.T) {
	if get := executor.Lookup([]byte("get")); get == nil || executor.Lookup([]byte("gEt")) != get {
		t.Fatal("lookup is case-sensitive")
	}
	if executor.Lookup([]byte(strings.Repeat("x", 40))) != nil || executor.Lookup([]byte("nosuch")) != nil {
		t.Fatal("lookup found a command that does not exist")
	}
}

func TestKeyPositions(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"get", "a"}, "a"},
		{[]string{"mset", "a", "1", "b", "2"}, "a,b"},
		{[]string{"del", "a", "b", "c"}, "a,b,c"},
		{[]string{"rename", "a", "b"}, "a,b"},
		{[]string{"lcs", "a", "b", "LEN"}, "a,b"},
		{[]string{"object", "encoding", "k"}, "k"},
		{[]string{"ping"}, ""},
	}
	for _, tt := range tests {
		a := args(tt.args...)
		var got []string
		for _, k := range executor.Lookup(a[0]).KeysOf(a) {
			got = append(got, string(k))
		}
		if strings.Join(got, ",") != tt.want {
			t.Errorf("keys(%v) = %v, want %s", tt.args, got, tt.want)
		}
	}
}

func TestArity(t *testing.T) {
	get, set := executor.Lookup([]byte("get")), executor.Lookup([]byte("set"))
	if !get.ArityOK(2) || get.ArityOK(1) || get.ArityOK(3) {
		t.Fatal("exact arity wrong")
	}
	if !set.ArityOK(3) || !set.ArityOK(9) || set.ArityOK(2) {
		t.Fatal("minimum arity wrong")
	}
}

// firstSorted agrees with a full sort for every k, on input with ties
// broken by place.
func TestFirstSorted(t *testing.T) {
	values := []int{5, 3, 9, 3, 1, 8, 5, 0, 7, 2, 6, 4, 9, 1}
	cmp := func(i, j int) int {
		if values[i] != values[j] {
			return values[i] - values[j]
		}
		return i - j
	}
	for k := 0; k <= len(values); k++ {
		places := make([]int, len(values))
		all := make([]int, len(values))
		for i := range places {
			places[i], all[i] = i, i
		}
		slices.SortFunc(all, cmp)
		if got := firstSorted(places, k, cmp); !slices.Equal(got, all[:k]) {
			t.Errorf("k=%d: %v, want %v", k, got, all[:k])
		}
	}
}
