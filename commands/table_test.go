package commands

import (
	"slices"
	"strings"
	"testing"
)

func args(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i, a := range s {
		out[i] = []byte(a)
	}
	return out
}

func TestTableIsConsistent(t *testing.T) {
	for name, c := range table.byName {
		if c.Name != name || name != strings.ToLower(name) {
			t.Errorf("%s: registered under %q", c.Name, name)
		}
		if c.Handler == nil || c.Arity == 0 {
			t.Errorf("%s: missing handler or arity", name)
		}
		if c.Flags&Write != 0 && c.Flags&ReadOnly != 0 {
			t.Errorf("%s: both write and readonly", name)
		}
		// The flushes and APPLYBATCH (which only the link of a slot
		// import sends, for slots nobody else may write) write without
		// key locks; RDB LOAD locks each key it imports itself.
		if c.Flags&Write != 0 && c.FirstKey == 0 && c.Keys == nil && name != "flushdb" && name != "flushall" && name != "applybatch" && c.Flags&LocksItself == 0 {
			t.Errorf("%s: a write command without keys locks nothing", name)
		}
	}
}

func TestLookupIgnoresCase(t *testing.T) {
	if lookup([]byte("gEt")) != table.byName["get"] {
		t.Fatal("lookup is case-sensitive")
	}
	if lookup([]byte(strings.Repeat("x", 40))) != nil || lookup([]byte("nosuch")) != nil {
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
		for _, k := range lookup(a[0]).keys(a) {
			got = append(got, string(k))
		}
		if strings.Join(got, ",") != tt.want {
			t.Errorf("keys(%v) = %v, want %s", tt.args, got, tt.want)
		}
	}
}

func TestArity(t *testing.T) {
	get, set := table.byName["get"], table.byName["set"]
	if !get.arityOK(2) || get.arityOK(1) || get.arityOK(3) {
		t.Fatal("exact arity wrong")
	}
	if !set.arityOK(3) || !set.arityOK(9) || set.arityOK(2) {
		t.Fatal("minimum arity wrong")
	}
}

func TestUnknownCommandMessage(t *testing.T) {
	if got := unknownCommand(args("foo")); got != "ERR unknown command 'foo', with args beginning with: " {
		t.Fatalf("got %q", got)
	}
	long := strings.Repeat("a", 200)
	got := unknownCommand(args("foo", long, "b"))
	if got != "ERR unknown command 'foo', with args beginning with: '"+strings.Repeat("a", 128)+"' " {
		t.Fatalf("long argument not cut at 128 bytes: %q", got)
	}
}

func TestCursorTable(t *testing.T) {
	var c cursorTable
	id := c.save("ns", []byte("key"))
	if k, ok := c.load("ns", id); !ok || string(k) != "key" {
		t.Fatal("saved cursor not found")
	}
	if _, ok := c.load("other", id); ok {
		t.Fatal("cursor usable from another namespace")
	}
	for i := 0; i < cursorSlots; i++ {
		c.save("ns", nil)
	}
	if _, ok := c.load("ns", id); ok {
		t.Fatal("overwritten cursor still valid")
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
