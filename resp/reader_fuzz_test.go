package resp

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"testing"
)

// FuzzReader feeds arbitrary bytes, cut into reads of arbitrary sizes, to
// a Reader with small limits: it must never panic, never return an empty
// request, and keep its budget exact.
func FuzzReader(f *testing.F) {
	for _, seed := range []string{
		"*1\r\n$4\r\nPING\r\n",
		"*1\r\n$9223372036854775808\r\nxxxxxxxx\r\n",
		"*1\r\n$18446744073709551621\r\nxxxxx\r\n",
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$40000\r\n",
		"*0\r\n*-1\r\nPING\r\n",
		"SET \"a\\x41\" 'b\\'c'\r\n",
		"*2\r\n$4\r\nECHO\r\n$-5\r\n",
		"*99999999999\r\n",
	} {
		f.Add([]byte(seed), uint8(1), false)
		f.Add([]byte(seed), uint8(0), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint8, unauth bool) {
		var held int64
		r := NewReader(&chunked{data: data, sizes: []int{int(cut) + 1, 7, 1 << 16}})
		r.Authed = !unauth
		r.MaxBulk = 1 << 20
		r.Budget = func(delta int64) error {
			if delta > 0 && held+delta > 4<<20 {
				return errors.New("over")
			}
			held += delta
			return nil
		}
		for {
			args, err := r.ReadRequest()
			if held != r.Held() || held < 0 {
				t.Fatalf("budget %d, reader holds %d", held, r.Held())
			}
			if err != nil {
				var pe ProtocolError
				if !errors.As(err, &pe) && !errors.Is(err, io.EOF) && !errors.Is(err, ErrBudget) {
					t.Fatalf("unexpected error %v", err)
				}
				break
			}
			if len(args) == 0 {
				t.Fatal("empty request returned")
			}
		}
		r.Close()
		if held != 0 {
			t.Fatalf("%d bytes accounted after Close", held)
		}
	})
}

// FuzzReaderRoundTrip encodes arbitrary arguments as a multibulk request
// and checks the Reader returns them unchanged, however the reads are cut.
func FuzzReaderRoundTrip(f *testing.F) {
	f.Add([]byte("SET\x00key\x00value"), uint8(3))
	f.Add(bytes.Repeat([]byte{'x'}, 40000), uint8(0))
	f.Fuzz(roundTrip)
}

// roundTrip is one FuzzReaderRoundTrip case: data, split at NUL bytes,
// as the arguments of two requests read in pieces cut long.
func roundTrip(t *testing.T, data []byte, cut uint8) {
	args := bytes.Split(data, []byte{0})
	var req []byte
	for range 2 {
		req = append(req, '*')
		req = strconv.AppendInt(req, int64(len(args)), 10)
		req = append(req, "\r\n"...)
		for _, a := range args {
			req = append(req, '$')
			req = strconv.AppendInt(req, int64(len(a)), 10)
			req = append(req, "\r\n"...)
			req = append(req, a...)
			req = append(req, "\r\n"...)
		}
	}
	r := NewReader(&chunked{data: req, sizes: []int{int(cut) + 1, 1 << 15}})
	for range 2 {
		got, err := r.ReadRequest()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(args) {
			t.Fatalf("%d arguments, want %d", len(got), len(args))
		}
		for i := range args {
			if !bytes.Equal(got[i], args[i]) {
				t.Fatalf("argument %d differs", i)
			}
		}
	}
	if _, err := r.ReadRequest(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the requests: %v", err)
	}
}
