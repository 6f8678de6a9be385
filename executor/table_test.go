package executor

import (
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
	id := c.Save("ns", []byte("key"))
	if k, ok := c.Load("ns", id); !ok || string(k) != "key" {
		t.Fatal("saved cursor not found")
	}
	if _, ok := c.Load("other", id); ok {
		t.Fatal("cursor usable from another namespace")
	}
	for i := 0; i < cursorSlots; i++ {
		c.Save("ns", nil)
	}
	if _, ok := c.Load("ns", id); ok {
		t.Fatal("overwritten cursor still valid")
	}
}
