package storage

import (
	"encoding/binary"
	"io"
	"log/slog"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/basaltdb/basalt/metadata"
)

// BenchmarkLoadRDB loads a 64 MB RDB file of strings, hashes, sets,
// sorted sets and lists of elements of 8 to 200 bytes, and reports MB of
// file per second and the process CPU seconds per MB.
func BenchmarkLoadRDB(b *testing.B) {
	defer func(l *slog.Logger) { slog.SetDefault(l) }(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	file := filepath.Join(b.TempDir(), "dump.rdb")
	size := writeBenchRDB(b, file, 64<<20)
	b.SetBytes(size)
	b.ResetTimer()
	var cpu time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := openTest(b, b.TempDir(), false)
		before := processCPU()
		b.StartTimer()
		st, err := s.DB(metadata.DefaultNamespace).LoadRDB(file, 0, false)
		b.StopTimer()
		cpu += processCPU() - before
		if err != nil || st.Loaded == 0 {
			b.Fatal(st, err)
		}
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(cpu.Seconds()/float64(b.N)/(float64(size)/(1<<20)), "cpu-s/MB")
}

// processCPU is the CPU time the process used so far.
func processCPU() time.Duration {
	data, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	var fields []string
	start := 0
	for i, c := range string(data) {
		if c == ' ' {
			fields = append(fields, string(data[start:i]))
			start = i + 1
		}
	}
	utime, _ := strconv.ParseInt(fields[13], 10, 64)
	stime, _ := strconv.ParseInt(fields[14], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// writeBenchRDB writes an RDB file of about size bytes of keys in the
// plain encodings (the decoding is the same for the packed ones).
func writeBenchRDB(b *testing.B, path string, size int) int64 {
	rnd := rand.New(rand.NewSource(1))
	out := []byte("REDIS0010")
	str := func(s []byte) {
		out = binary.BigEndian.AppendUint32(append(out, 0x80), uint32(len(s)))
		out = append(out, s...)
	}
	elem := func() []byte {
		e := make([]byte, 8+rnd.Intn(192))
		for i := range e {
			e[i] = byte('a' + rnd.Intn(26))
		}
		return e
	}
	for k := 0; len(out) < size; k++ {
		key := []byte("key:" + strconv.Itoa(k))
		n := 1 + rnd.Intn(200)
		t := k % 5
		out = append(out, []byte{0, 4, 2, 5, 1}[t])
		str(key)
		if t == 0 {
			str(elem())
			continue
		}
		if t == 1 {
			n = n/2 + 1
		}
		out = binary.BigEndian.AppendUint32(append(out, 0x80), uint32(n))
		for i := 0; i < n; i++ {
			e := elem()
			e = append(e, strconv.Itoa(i)...) // distinct
			str(e)
			switch t {
			case 1:
				str(elem())
			case 3:
				out = binary.LittleEndian.AppendUint64(out, math.Float64bits(rnd.Float64()*1000))
			}
		}
	}
	out = append(out, 0xff)
	out = append(out, make([]byte, 8)...) // no checksum
	if err := os.WriteFile(path, out, 0o644); err != nil {
		b.Fatal(err)
	}
	return int64(len(out))
}
