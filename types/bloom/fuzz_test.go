package bloom

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/basaltdb/basalt/reply"
)

// FuzzStored runs every operation on stored bytes as they may be on disk:
// any metadata value and up to two sub-filter values, and items. Nothing
// may panic; a chain that decodes re-encodes to its bytes; an item that
// went in is found afterwards.
func FuzzStored(f *testing.F) {
	meta, _ := hex.DecodeString("890000000000000000305120c0f20000010000000000000001" + "0001000200000064bf847ae147ae147b00000080")
	f.Add(meta, make([]byte, 128), []byte(nil), []byte("a\nb\na"))
	two, _ := hex.DecodeString("890000000000000000305120c0f20000010000000000000003" + "00020003" + "00000001" + "bf50624dd2f1a9fc" + "00000040")
	f.Add(two, make([]byte, 32), make([]byte, 32), []byte("x\ny\nz\nw"))
	nonScaling, _ := hex.DecodeString("0900000000305120c0f200000100000002" + "00010000" + "00000002" + "fff8000000000000" + "00000020")
	f.Add(nonScaling, make([]byte, 33), []byte(nil), []byte("p\nq"))
	f.Fuzz(func(t *testing.T, value, f0, f1, itemBytes []byte) {
		m, c, err := Decode(value)
		if err != nil {
			return
		}
		if ext, got := chainBytes(value), c.AppendTo(nil); !bytes.Equal(got, ext) {
			t.Fatalf("chain %x re-encodes to %x", ext, got)
		}
		if c.Filters > 2 {
			c.Filters = 2 // the fuzzer gives two sub-filters; absent ones are errors anyway
		}
		fs := &filters{f: [][]byte{f0, f1}}
		items := bytes.Split(itemBytes, []byte("\n"))
		if len(items) > 64 {
			items = items[:64]
		}
		hs := make([]uint64, len(items))
		for i, it := range items {
			hs[i] = Hash(it)
		}
		w := reply.NewCapture(2)
		WriteInfo(w, c.Info(m.Size), InfoAll)
		if _, err := Exists(c, hs, fs); err != nil {
			return
		}
		in, err := Insert(c, m.Size, hs, fs)
		if err != nil {
			return
		}
		WriteResults(w, in.Results)
		fs.apply(in)
		found, err := Exists(in.Chain, hs, fs)
		if err != nil {
			t.Fatalf("Exists after Insert: %v", err)
		}
		for i, r := range in.Results {
			if (r == Added || r == Present) && !found[i] {
				t.Fatalf("item %q went in (%v) and is not found", items[i], r)
			}
		}
	})
}

// chainBytes is the 20 bytes of the extension in a metadata value that
// Decode accepted: what follows the common header.
func chainBytes(value []byte) []byte {
	header := 1 + 8 + 8 + 8
	if value[0]&0x80 == 0 { // legacy: 32-bit expire and size
		header = 1 + 4 + 8 + 4
	}
	return value[header : header+ExtensionLen]
}

// FuzzArgs parses arguments (split at 0xff) as each BF command's; nothing
// may panic, and what parses holds only values Kvrocks would take.
func FuzzArgs(f *testing.F) {
	for _, s := range []string{
		"0.01\xff100", "0.01\xff100\xffEXPANSION\xff3", "0.01\xff100\xffNONSCALING",
		"CAPACITY\xff10\xffERROR\xff0.1\xffITEMS\xffa", "NOCREATE\xffITEMS", "ITEMS", "capacity", "nan\xff1",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		args := bytes.Split(data, []byte{0xff})
		if o, err := ParseReserve(args); err == nil {
			checkOptions(t, o)
		} else if !isError(err) {
			t.Fatalf("ParseReserve: %v", err)
		}
		if a, err := ParseInsert(args); err == nil {
			checkOptions(t, a.Options)
			if len(a.Items) == 0 {
				t.Fatal("ParseInsert: no items")
			}
		} else if !isError(err) {
			t.Fatalf("ParseInsert: %v", err)
		}
		if _, err := ParseInfo(args); err != nil && !isError(err) {
			t.Fatalf("ParseInfo: %v", err)
		}
	})
}

func checkOptions(t *testing.T, o Options) {
	if !(o.ErrorRate > 0 && o.ErrorRate < 1) || o.Capacity == 0 {
		t.Fatalf("options %+v", o)
	}
	if n := OptimalBytes(o.Capacity, o.ErrorRate); n < MinFilterLen || n > MaxFilterLen || n&(n-1) != 0 {
		t.Fatalf("options %+v: %d bytes", o, n)
	}
}

func isError(err error) bool {
	var e Error
	return errors.As(err, &e)
}
