package resp

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/basaltdb/basalt/reply"
)

func TestWriterRESP2AndRESP3(t *testing.T) {
	tests := []struct {
		name         string
		write        func(w reply.Sink)
		resp2, resp3 string
	}{
		{"ok", func(w reply.Sink) { w.OK() }, "+OK\r\n", "+OK\r\n"},
		{"error", func(w reply.Sink) { w.Error("ERR bad\r\nthing") }, "-ERR bad  thing\r\n", "-ERR bad  thing\r\n"},
		{"int", func(w reply.Sink) { w.Int(-42) }, ":-42\r\n", ":-42\r\n"},
		{"bulk", func(w reply.Sink) { w.Bulk([]byte("a\x00b")) }, "$3\r\na\x00b\r\n", "$3\r\na\x00b\r\n"},
		{"null", func(w reply.Sink) { w.Null() }, "$-1\r\n", "_\r\n"},
		{"null array", func(w reply.Sink) { w.NullArray() }, "*-1\r\n", "_\r\n"},
		{"map", func(w reply.Sink) { w.Map(1); w.BulkString("k"); w.Int(1) }, "*2\r\n$1\r\nk\r\n:1\r\n", "%1\r\n$1\r\nk\r\n:1\r\n"},
		{"set", func(w reply.Sink) { w.Set(0) }, "*0\r\n", "~0\r\n"},
		{"bool", func(w reply.Sink) { w.Bool(true) }, ":1\r\n", "#t\r\n"},
		{"double", func(w reply.Sink) { w.Double(1.1) }, "$18\r\n1.1000000000000001\r\n", ",1.1000000000000001\r\n"},
		{"double inf", func(w reply.Sink) { w.Double(math.Inf(-1)) }, "$4\r\n-inf\r\n", ",-inf\r\n"},
		{"verbatim", func(w reply.Sink) { w.Verbatim("a:b") }, "$3\r\na:b\r\n", "=7\r\ntxt:a:b\r\n"},
		{"deferred", func(w reply.Sink) {
			w.Int(7)
			d := w.DeferArray()
			w.BulkString("x")
			w.BulkString("y")
			w.Finish(d, 2)
		}, ":7\r\n*2\r\n$1\r\nx\r\n$1\r\ny\r\n", ":7\r\n*2\r\n$1\r\nx\r\n$1\r\ny\r\n"},
		{"deferred map", func(w reply.Sink) {
			d := w.DeferMap()
			w.BulkString("k")
			w.Int(1)
			w.Finish(d, 1)
		}, "*2\r\n$1\r\nk\r\n:1\r\n", "%1\r\n$1\r\nk\r\n:1\r\n"},
		{"push", func(w reply.Sink) { w.Push(1); w.BulkString("m") }, "*1\r\n$1\r\nm\r\n", ">1\r\n$1\r\nm\r\n"},
		{"bignum", func(w reply.Sink) { w.BigNum("12345678901234567890") }, "$20\r\n12345678901234567890\r\n", "(12345678901234567890\r\n"},
		{"human double", func(w reply.Sink) { w.HumanDouble(-0.0) }, "$1\r\n0\r\n", ",0\r\n"},
		{"bulk strings", func(w reply.Sink) { w.BulkStrings([]string{"a", ""}) }, "*2\r\n$1\r\na\r\n$0\r\n\r\n", "*2\r\n$1\r\na\r\n$0\r\n\r\n"},
		{"nested", func(w reply.Sink) {
			d := w.DeferSet()
			w.Array(2)
			w.Int(1)
			w.Map(1)
			w.Simple("k")
			w.Bool(false)
			w.Finish(d, 1)
			w.BulkInt(-3)
		}, "*1\r\n*2\r\n:1\r\n*2\r\n+k\r\n:0\r\n$2\r\n-3\r\n", "~1\r\n*2\r\n:1\r\n%1\r\n+k\r\n#f\r\n$2\r\n-3\r\n"},
		{"truncated", func(w reply.Sink) {
			w.Int(1)
			mark := w.Len()
			w.NullArray()
			if !w.NullSince(mark) {
				w.Error("ERR no null")
			}
			w.Truncate(mark)
			w.OK()
		}, ":1\r\n+OK\r\n", ":1\r\n+OK\r\n"},
		{"abandoned", func(w reply.Sink) {
			d := w.DeferArray()
			w.BulkString("partial")
			w.Abandon(d)
			w.Error("ERR x")
		}, "-ERR x\r\n", "-ERR x\r\n"},
	}
	for _, tt := range tests {
		for proto, want := range map[int]string{2: tt.resp2, 3: tt.resp3} {
			w := NewWriter()
			w.SetProtocol(proto)
			tt.write(w)
			if got := string(w.Bytes()); got != want {
				t.Errorf("%s RESP%d: got %q, want %q", tt.name, proto, got, want)
			}
			// The same replies kept as values, then rendered, are the
			// same bytes.
			c := reply.NewCapture(proto)
			tt.write(c)
			w = NewWriter()
			w.SetProtocol(proto)
			c.Replay(w)
			if got := string(w.Bytes()); got != want {
				t.Errorf("%s RESP%d captured then replayed: got %q, want %q", tt.name, proto, got, want)
			}
		}
	}
}

// A writer with a spill limit hands its bytes over as it goes, never in
// the middle of a deferred aggregate, and once a spill fails it drops
// everything until Reset.
func TestWriterSpill(t *testing.T) {
	w := NewWriter()
	var sent []byte
	fail := false
	w.SetSpill(64, func(send bool) error {
		if fail {
			return errors.New("gone")
		}
		if !send {
			return nil
		}
		sent = append(sent, w.Bytes()...)
		w.Reset()
		return nil
	})
	d := w.DeferArray()
	for i := 0; i < 100; i++ {
		w.BulkString("0123456789")
	}
	w.Finish(d, 100)
	if len(sent) != 0 {
		t.Fatalf("spilled %d bytes inside a deferred array", len(sent))
	}
	w.Array(100)
	for i := 0; i < 100; i++ {
		w.BulkString("0123456789")
		if w.Len() > 64+17 {
			t.Fatalf("holds %d bytes", w.Len())
		}
	}
	want := "*100\r\n" + strings.Repeat("$10\r\n0123456789\r\n", 100)
	if got := string(append(sent, w.Bytes()...)); !strings.HasSuffix(got, want) || len(got) != 2*len(want) {
		t.Fatalf("spilled stream is wrong: %d bytes", len(got))
	}
	fail = true
	for i := 0; i < 100; i++ {
		w.BulkString("0123456789")
	}
	if !w.Failed() || w.Len() > 64+17 {
		t.Fatalf("failed %v, holds %d", w.Failed(), w.Len())
	}
	w.Reset()
	if w.Failed() {
		t.Fatal("Reset did not clear the failure")
	}
}

// TestNullSince checks how a command tells that it replied "nothing": one
// null and nothing else since the mark, in either protocol.
func TestNullSince(t *testing.T) {
	for _, proto := range []int{2, 3} {
		w := NewWriter()
		w.SetProtocol(proto)
		w.OK()
		mark := w.Len()
		if w.NullSince(mark) {
			t.Errorf("RESP%d: nothing written counts as a null", proto)
		}
		w.Null()
		if !w.NullSince(mark) {
			t.Errorf("RESP%d: a null bulk is not seen", proto)
		}
		w.Truncate(mark)
		if w.NullSince(mark) {
			t.Errorf("RESP%d: a truncated null still counts", proto)
		}
		w.NullArray()
		if !w.NullSince(mark) {
			t.Errorf("RESP%d: a null array is not seen", proto)
		}
		w.Int(1)
		if w.NullSince(mark) {
			t.Errorf("RESP%d: a null followed by more counts as a null", proto)
		}
		w.Truncate(mark)
		w.Array(1)
		w.Null()
		if w.NullSince(mark) {
			t.Errorf("RESP%d: an array holding a null counts as a null", proto)
		}
		w.Reset()
		if w.NullSince(0) {
			t.Errorf("RESP%d: a null survives Reset", proto)
		}
	}
}
