package it

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestReplicationStreamFraming reads a master's stream as a Kvrocks
// replica does (REPLICATION.md §2.4): after PSYNC, "+OK\r\n", then each
// committed write batch as a RESP bulk string of RocksDB's WriteBatch
// bytes, beginning at the sequence asked for, without array headers; the
// bulk "ping" while the master is idle; a new write at once.
func TestReplicationStreamFraming(t *testing.T) {
	m := startBasalt(t)
	mc := m.client(t, 2)
	for i := 0; i < 5; i++ {
		must(t, mc.Set(ctx, "k"+strconv.Itoa(i), i, 0).Err())
	}
	from := sequenceOf(t, mc) - 2 // the last three writes
	nc, err := net.DialTimeout("tcp", m.Addr(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	seq := strconv.FormatUint(from, 10)
	fmt.Fprintf(nc, "*2\r\n$5\r\nPSYNC\r\n$%d\r\n%s\r\n", len(seq), seq)
	rd := bufio.NewReader(nc)
	line := func() string {
		t.Helper()
		nc.SetReadDeadline(time.Now().Add(time.Minute))
		l, err := rd.ReadString('\n')
		if err != nil || !strings.HasSuffix(l, "\r\n") {
			t.Fatalf("reading a line of the stream: %q %v", l, err)
		}
		return strings.TrimSuffix(l, "\r\n")
	}
	// bulk reads one bulk string of the stream.
	bulk := func() []byte {
		t.Helper()
		head := line()
		n, err := strconv.Atoi(strings.TrimPrefix(head, "$"))
		if !strings.HasPrefix(head, "$") || err != nil || n <= 0 {
			t.Fatalf("a bulk string header %q", head)
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(rd, b); err != nil || string(b[n:]) != "\r\n" {
			t.Fatalf("a bulk string of %d bytes: %q %v", n, b, err)
		}
		return b[:n]
	}
	// batch checks a bulk is the write batch of key beginning at want.
	batch := func(want uint64, key string) {
		t.Helper()
		b := bulk()
		if len(b) < 12 {
			t.Fatalf("a write batch of %d bytes", len(b))
		}
		if got, count := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint32(b[8:]); got != want || count != 1 {
			t.Fatalf("a batch at sequence %d of %d records, want the SET at %d", got, count, want)
		}
		if !strings.Contains(string(b), key) {
			t.Fatalf("the batch at %d does not hold %s: %q", want, key, b)
		}
	}
	if got := line(); got != "+OK" {
		t.Fatalf("PSYNC %s: %q", seq, got)
	}
	for i := uint64(0); i < 3; i++ {
		batch(from+i, "k"+strconv.Itoa(2+int(i)))
	}
	// Idle: the heartbeat, about every 2 s.
	start := time.Now()
	if b := bulk(); string(b) != "ping" {
		t.Fatalf("an idle master sent %q, want the ping", b)
	}
	if d := time.Since(start); d < time.Second {
		t.Errorf("the heartbeat came after %v, want about 2 s of silence", d)
	}
	must(t, mc.Set(ctx, "after", "ping", 0).Err())
	for {
		// A ping may have been on its way.
		if b := bulk(); string(b) != "ping" {
			if got := binary.LittleEndian.Uint64(b); got != from+3 {
				t.Fatalf("the write after the ping is at %d, want %d", got, from+3)
			}
			break
		}
	}
	if got := infoFields(t, mc, "replication")["connected_slaves"]; got != "1" {
		t.Errorf("connected_slaves:%s with a raw PSYNC connection", got)
	}
}
