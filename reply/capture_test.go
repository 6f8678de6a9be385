package reply

import (
	"reflect"
	"testing"
)

// A Capture hands back what was written as a tree of values: aggregates
// hold their elements, deferred ones once finished, abandoned ones not at
// all.
func TestCaptureValues(t *testing.T) {
	c := NewCapture(3)
	c.Int(1)
	d := c.DeferMap()
	c.BulkString("k")
	c.Array(2)
	c.Double(1.5)
	c.Null()
	c.Finish(d, 1)
	gone := c.DeferArray()
	c.Bulk([]byte("partial"))
	c.Abandon(gone)
	c.Error("ERR x")
	want := []Value{
		{Kind: KindInt, Int: 1},
		{Kind: KindMap, Elems: []Value{
			{Kind: KindBulk, Str: "k"},
			{Kind: KindArray, Elems: []Value{{Kind: KindDouble, Float: 1.5}, {Kind: KindNull}}},
		}},
		{Kind: KindError, Str: "ERR x"},
	}
	if got := c.Values(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Values() = %+v, want %+v", got, want)
	}
	if c.Errors() != 1 || c.Protocol() != 3 {
		t.Fatalf("Errors() = %d, Protocol() = %d", c.Errors(), c.Protocol())
	}
	c.Reset()
	if len(c.Values()) != 0 || c.Errors() != 0 {
		t.Fatal("Reset kept replies")
	}
}

// An aggregate that announced more elements than were written holds the
// ones written: reading a capture never fails.
func TestCaptureUnfinishedAggregate(t *testing.T) {
	c := NewCapture(2)
	c.Array(3)
	c.Int(1)
	got := c.Values()
	if len(got) != 1 || len(got[0].Elems) != 1 {
		t.Fatalf("Values() = %+v", got)
	}
	c.Reset()
	c.DeferSet()
	c.Int(2)
	if got := c.Values(); len(got) != 2 || got[0].Kind != KindSet || len(got[0].Elems) != 0 {
		t.Fatalf("unfinished deferred set: Values() = %+v", got)
	}
}

func TestCaptureNullSince(t *testing.T) {
	c := NewCapture(2)
	c.OK()
	mark := c.Len()
	if c.NullSince(mark) {
		t.Fatal("NullSince with nothing written")
	}
	c.NullArray()
	if !c.NullSince(mark) {
		t.Fatal("NullSince missed a null array")
	}
	c.Int(0)
	if c.NullSince(mark) {
		t.Fatal("NullSince with more than a null")
	}
	c.Truncate(mark)
	if got := c.Values(); len(got) != 1 || got[0].Kind != KindSimple {
		t.Fatalf("after Truncate: %+v", got)
	}
}
