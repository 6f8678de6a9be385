package it

import (
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestKvrocksWALLogData runs the commands of testdata/kvrocks_wal.txt on
// Basalt and on a real Kvrocks and compares the LogData records of the
// write batches each command left in the WAL, read with POLLUPDATES.
func TestKvrocksWALLogData(t *testing.T) {
	k := startKvrocks(t)
	b := startBasalt(t)
	data, err := os.ReadFile("testdata/kvrocks_wal.txt")
	must(t, err)
	kc, bc := p2client(t, k), p2client(t, b)
	kseq, bseq := walLatest(t, kc), walLatest(t, bc)
	compared := 0
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var logs [2]string
		for i, s := range []struct {
			c   *redis.Client
			seq *int64
		}{{kc, &kseq}, {bc, &bseq}} {
			args := []any{}
			for _, a := range strings.Fields(line) {
				args = append(args, a)
			}
			if err := s.c.Do(ctx, args...).Err(); err != nil && err != redis.Nil {
				t.Fatalf("%s on %s: %v", line, []string{"Kvrocks", "Basalt"}[i], err)
			}
			logs[i], *s.seq = walLogData(t, s.c, *s.seq)
		}
		if logs[0] != logs[1] {
			t.Errorf("%s: LogData Kvrocks %q, Basalt %q", line, logs[0], logs[1])
		}
		compared++
	}
	t.Logf("compared the LogData of %d commands", compared)
}

func p2client(t *testing.T, p *proc) *redis.Client {
	c := redis.NewClient(&redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Addr: p.Addr(), Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	return c
}

// walLatest returns the server's latest sequence number.
func walLatest(t *testing.T, c *redis.Client) int64 {
	reply, err := c.Do(ctx, "POLLUPDATES", "0", "MAX", "1").Slice()
	must(t, err)
	return reply[3].(int64)
}

// walLogData reads the batches written after seq and returns their
// LogData blobs, joined by "|", and the new last sequence number.
func walLogData(t *testing.T, c *redis.Client, seq int64) (string, int64) {
	reply, err := c.Do(ctx, "POLLUPDATES", strconv.FormatInt(seq, 10), "MAX", "1000").Slice()
	must(t, err)
	var blobs []string
	for _, h := range reply[5].([]any) {
		raw, err := hex.DecodeString(h.(string))
		must(t, err)
		blobs = append(blobs, batchLogData(t, raw)...)
	}
	return strings.Join(blobs, "|"), reply[1].(int64)
}

// batchLogData returns the LogData blobs of a raw RocksDB write batch.
func batchLogData(t *testing.T, b []byte) []string {
	var out []string
	varint := func(i int) (int, int) {
		n, shift := 0, 0
		for {
			c := b[i]
			i++
			n |= int(c&0x7f) << shift
			shift += 7
			if c < 0x80 {
				return n, i
			}
		}
	}
	for i := 12; i < len(b); {
		kind := b[i]
		i++
		if kind == 0x4 || kind == 0x5 || kind == 0x8 || kind == 0xe { // column family variants
			_, i = varint(i)
		}
		n, j := varint(i)
		field := string(b[j : j+n])
		i = j + n
		switch kind {
		case 0x3: // LogData
			out = append(out, field)
		case 0x1, 0x5, 0xe, 0xf: // a second field: value, or range end
			n, j = varint(i)
			i = j + n
		case 0x0, 0x4, 0x7, 0x8:
		default:
			t.Fatalf("unexpected record type %#x in a WAL batch", kind)
		}
	}
	return out
}

// TestPollUpdates follows the WAL with POLLUPDATES the way a CDC consumer
// does: batches in order, each call continuing at next_sequence, until the
// latest; STRICT refuses a sequence inside a batch; tenants may not read
// the WAL, which holds every namespace's writes.
func TestPollUpdates(t *testing.T) {
	p := startBasalt(t, "--requirepass", "adminpw", "--repl-namespace-enabled", "yes")
	c := redis.NewClient(&redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Addr: p.Addr(), Password: "adminpw", Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	start := walLatest(t, c)
	must(t, c.Set(ctx, "a", "1", 0).Err())
	must(t, c.MSet(ctx, "b", "2", "c", "3").Err())
	must(t, c.RPush(ctx, "l", "x").Err())
	var logs []string
	for seq := start; ; {
		reply, err := c.Do(ctx, "POLLUPDATES", seq, "MAX", 1).Slice()
		must(t, err)
		updates := reply[5].([]any)
		if len(updates) == 0 {
			if seq != reply[3].(int64) {
				t.Fatalf("no update at %d, latest %d", seq, reply[3])
			}
			break
		}
		raw, err := hex.DecodeString(updates[0].(string))
		must(t, err)
		logs = append(logs, strings.Join(batchLogData(t, raw), "|"))
		seq = reply[1].(int64)
	}
	if got := strings.Join(logs, ","); got != "1,1,3 7" {
		t.Fatalf("LogData of the batches followed: %q", got)
	}
	// The MSET batch takes two sequence numbers: its second is inside it.
	err := c.Do(ctx, "POLLUPDATES", start+2, "STRICT").Err()
	if err == nil || !strings.Contains(err.Error(), "mismatched sequence number, expected") {
		t.Fatalf("STRICT from inside a batch: %v", err)
	}
	must(t, c.Do(ctx, "NAMESPACE", "ADD", "tenant", "tenant-token").Err())
	tenant := redis.NewClient(&redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Addr: p.Addr(), Password: "tenant-token", Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	t.Cleanup(func() { tenant.Close() })
	if err := tenant.Do(ctx, "POLLUPDATES", 0).Err(); err == nil || err.Error() != "ERR admin permission required to perform the command" {
		t.Fatalf("tenant POLLUPDATES: %v", err)
	}
}
