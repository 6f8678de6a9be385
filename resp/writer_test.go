package resp

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestWriterRESP2AndRESP3(t *testing.T) {
	tests := []struct {
		name         string
		write        func(w *Writer)
		resp2, resp3 string
	}{
		{"ok", func(w *Writer) { w.OK() }, "+OK\r\n", "+OK\r\n"},
		{"error", func(w *Writer) { w.Error("ERR bad\r\nthing") }, "-ERR bad  thing\r\n", "-ERR bad  thing\r\n"},
		{"int", func(w *Writer) { w.Int(-42) }, ":-42\r\n", ":-42\r\n"},
		{"bulk", func(w *Writer) { w.Bulk([]byte("a\x00b")) }, "$3\r\na\x00b\r\n", "$3\r\na\x00b\r\n"},
		{"null", func(w *Writer) { w.Null() }, "$-1\r\n", "_\r\n"},
		{"null array", func(w *Writer) { w.NullArray() }, "*-1\r\n", "_\r\n"},
		{"map", func(w *Writer) { w.Map(1); w.BulkString("k"); w.Int(1) }, "*2\r\n$1\r\nk\r\n:1\r\n", "%1\r\n$1\r\nk\r\n:1\r\n"},
		{"set", func(w *Writer) { w.Set(0) }, "*0\r\n", "~0\r\n"},
		{"bool", func(w *Writer) { w.Bool(true) }, ":1\r\n", "#t\r\n"},
		{"double", func(w *Writer) { w.Double(1.1) }, "$18\r\n1.1000000000000001\r\n", ",1.1000000000000001\r\n"},
		{"double inf", func(w *Writer) { w.Double(math.Inf(-1)) }, "$4\r\n-inf\r\n", ",-inf\r\n"},
		{"verbatim", func(w *Writer) { w.Verbatim("a:b") }, "$3\r\na:b\r\n", "=7\r\ntxt:a:b\r\n"},
		{"deferred", func(w *Writer) {
			w.Int(7)
			d := w.DeferArray()
			w.BulkString("x")
			w.BulkString("y")
			w.Finish(d, 2)
		}, ":7\r\n*2\r\n$1\r\nx\r\n$1\r\ny\r\n", ":7\r\n*2\r\n$1\r\nx\r\n$1\r\ny\r\n"},
		{"deferred map", func(w *Writer) {
			d := w.DeferMap()
			w.BulkString("k")
			w.Int(1)
			w.Finish(d, 1)
		}, "*2\r\n$1\r\nk\r\n:1\r\n", "%1\r\n$1\r\nk\r\n:1\r\n"},
		{"abandoned", func(w *Writer) {
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
		}
	}
}

func TestAppendDoubleMatchesPrintf17g(t *testing.T) {
	for f, want := range map[float64]string{
		1.5: "1.5", 0: "0", 100000: "100000", 1e16: "10000000000000000", 1e17: "1e+17",
		1.2345678901234568e17: "1.2345678901234568e+17", 0.0001: "0.0001", 0.00001: "1.0000000000000001e-05",
		-2.5: "-2.5", 3.0000000000000004: "3.0000000000000004",
	} {
		if got := string(AppendDouble(nil, f)); got != want {
			t.Errorf("AppendDouble(%v) = %q, want %q", f, got, want)
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
