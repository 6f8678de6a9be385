package it

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/basaltdb/basalt/metadata"
	"github.com/linxGnu/grocksdb"
	"github.com/redis/go-redis/v9"
)

// Bitmaps and HyperLogLogs across Basalt and the real Kvrocks. The same
// seeded workload (SETBIT on bitmaps and strings, BITOP, PFADD, PFMERGE, a
// TTL) runs on each server in a directory of its own; then
//   - both directories hold the same records byte for byte, versions set
//     aside: Basalt writes exactly what Kvrocks writes (FORMAT.md §4.6,
//     §4.9);
//   - each server opens the other's directory and answers every read
//     (GETBIT, BITCOUNT, BITPOS, GET, PFCOUNT, PEXPIRETIME) exactly as it
//     answers it in its own.

// bitsInteropWorkload returns the writes and the reads.
func bitsInteropWorkload(seed int64, expireAt int64) (writes, reads [][]any) {
	r := rand.New(rand.NewSource(seed))
	offset := func() int64 {
		switch r.Intn(6) {
		case 0:
			return int64(8192*(1+r.Intn(30)) - 1 + r.Intn(3))
		case 1:
			return int64(r.Intn(300000))
		}
		return int64(r.Intn(3000))
	}
	// No SETBIT leaves the key as it was: Kvrocks rewrites the segment
	// then, growing it, where Basalt, like Redis, writes nothing.
	var bitKeys []string
	for i := 0; i < 8; i++ {
		k := "bm:" + strconv.Itoa(i)
		bitKeys = append(bitKeys, k)
		set := map[int64]bool{}
		var size int64
		for n := 1 + r.Intn(60); n > 0; n-- {
			off := offset()
			v := 1
			if set[off] || (r.Intn(4) == 0 && off/8 >= size) {
				v = 0
			}
			if !set[off] && v == 0 && off/8 < size {
				continue
			}
			set[off] = v == 1
			size = max(size, off/8+1)
			writes = append(writes, []any{"SETBIT", k, off, v})
		}
	}
	writes = append(writes,
		[]any{"SETBIT", "bm:zero", 5000, 0},            // a key of zero bits
		[]any{"SETBIT", "bm:big", int64(1)<<32 - 1, 1}, // the last offset
		[]any{"SETBIT", "bm:big", 7, 1},
		[]any{"SETBIT", "bm:ttl", 77, 1}, []any{"PEXPIREAT", "bm:ttl", expireAt},
		[]any{"SET", "str", "foobar"}, []any{"SETBIT", "str", 3, 1}, []any{"SETBIT", "str", 100, 1},
		[]any{"BITOP", "AND", "op:and", "bm:0", "bm:1"},
		[]any{"BITOP", "OR", "op:or", "bm:0", "bm:1", "bm:2", "nokey"},
		[]any{"BITOP", "XOR", "op:xor", "bm:2", "bm:3"},
		[]any{"BITOP", "NOT", "op:not", "bm:4"},
	)
	bitKeys = append(bitKeys, "bm:zero", "bm:big", "bm:ttl", "str", "op:and", "op:or", "op:xor", "op:not")
	var hllKeys []string
	for i := 0; i < 5; i++ {
		k := "hll:" + strconv.Itoa(i)
		hllKeys = append(hllKeys, k)
		n := 1 + r.Intn(300)
		if i == 4 {
			n = 30000 // every register set
		}
		cmd := []any{"PFADD", k}
		for j := 0; j < n; j++ {
			cmd = append(cmd, "e"+strconv.Itoa(r.Intn(100000)))
			if len(cmd) == 1000 {
				writes, cmd = append(writes, cmd), []any{"PFADD", k}
			}
		}
		writes = append(writes, cmd)
	}
	writes = append(writes, []any{"PFADD", "hll:0", "more"}, []any{"PFMERGE", "hll:merged", "hll:1", "hll:2"})
	hllKeys = append(hllKeys, "hll:merged")

	for _, k := range bitKeys {
		reads = append(reads,
			[]any{"BITCOUNT", k}, []any{"BITCOUNT", k, 0, 100}, []any{"BITCOUNT", k, 5, 9000, "BIT"},
			[]any{"BITCOUNT", k, -3000, -1}, []any{"BITPOS", k, 1}, []any{"BITPOS", k, 0},
			[]any{"BITPOS", k, 1, 10, -1}, []any{"BITPOS", k, 0, 3, 20000, "BIT"}, []any{"BITPOS", k, 1, 2000, 70000, "BIT"},
			[]any{"GET", k}, []any{"PEXPIRETIME", k},
		)
		for i := 0; i < 40; i++ {
			reads = append(reads, []any{"GETBIT", k, offset()})
		}
	}
	reads = append(reads, []any{"GETBIT", "bm:big", int64(1)<<32 - 1}, []any{"BITPOS", "bm:big", 1, 8, -1})
	for _, k := range hllKeys {
		reads = append(reads, []any{"PFCOUNT", k}, []any{"PEXPIRETIME", k})
	}
	all := []any{"PFCOUNT"}
	for _, k := range hllKeys {
		all = append(all, k)
	}
	reads = append(reads, all, []any{"PFCOUNT", "hll:0", "hll:3", "nokey"})
	return writes, reads
}

// readAll runs the reads and renders their replies.
func readAll(t *testing.T, p *proc, reads [][]any) []string {
	t.Helper()
	c := interopClient(t, p, "", 30*time.Second)
	pipe := c.Pipeline()
	cmds := make([]*redis.Cmd, len(reads))
	for i, r := range reads {
		cmds[i] = pipe.Do(ctx, r...)
	}
	pipe.Exec(ctx)
	out := make([]string, len(reads))
	for i, cmd := range cmds {
		v, err := cmd.Result()
		if s, ok := v.(string); ok && len(s) > 64 {
			v = fmt.Sprintf("%d bytes %x", len(s), sha(s))
		}
		out[i] = fmt.Sprintf("%v => %v %v", reads[i], v, err)
	}
	return out
}

// sha is a short fingerprint of a long value.
func sha(s string) uint64 {
	var h uint64 = 1469598103934665603
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

func TestKvrocksBitsInterop(t *testing.T) {
	kvrocksBin(t)
	expireAt := time.Now().Add(3*time.Hour).UnixMilli() / 1000 * 1000
	writes, reads := bitsInteropWorkload(22, expireAt)
	read := func(p *proc) []string { return readAll(t, p, reads) }
	dirs, own := interopOwnDirs(t, writes, read)

	// The records SETBIT, BITOP, PFADD and PFMERGE wrote.
	raw := map[server][]string{}
	for _, s := range []server{kvrocksServer, basaltServer} {
		raw[s] = rawBitRecords(t, filepath.Join(dirs[s], "db"), func(string) bool { return true })
	}
	if len(raw[basaltServer]) < 50 {
		t.Fatalf("only %d records in Basalt's directory", len(raw[basaltServer]))
	}
	if k, b := strings.Join(raw[kvrocksServer], "\n"), strings.Join(raw[basaltServer], "\n"); k != b {
		i := firstDifference(raw[kvrocksServer], raw[basaltServer])
		t.Errorf("records differ (%d in Kvrocks's directory, %d in Basalt's); first difference:\nkvrocks: %s\nbasalt:  %s",
			len(raw[kvrocksServer]), len(raw[basaltServer]), at(raw[kvrocksServer], i), at(raw[basaltServer], i))
	} else {
		t.Logf("%d records (metadata and segments of %d bitmaps, strings and HyperLogLogs) byte for byte the same", len(raw[basaltServer]), countMeta(raw[basaltServer]))
	}

	interopCrossRead(t, dirs, own, read)
}

func countMeta(records []string) int {
	n := 0
	for _, r := range records {
		if strings.HasPrefix(r, "meta ") {
			n++
		}
	}
	return n
}

// rawBitRecords opens a RocksDB directory read-only and renders the
// metadata record of every key keep accepts, and its records in the
// default and zset_score column families, with the version replaced by V (after checking
// that each record's version is its key's).
func rawBitRecords(t *testing.T, path string, keep func(key string) bool) []string {
	t.Helper()
	opts := grocksdb.NewDefaultOptions()
	defer opts.Destroy()
	names, err := grocksdb.ListColumnFamilies(opts, path)
	if err != nil {
		t.Fatalf("list column families of %s: %v", path, err)
	}
	cfOpts := make([]*grocksdb.Options, len(names))
	for i := range names {
		cfOpts[i] = grocksdb.NewDefaultOptions()
		defer cfOpts[i].Destroy()
	}
	db, handles, err := grocksdb.OpenDbForReadOnlyColumnFamilies(opts, path, names, cfOpts, false)
	if err != nil {
		t.Fatalf("open %s read-only: %v", path, err)
	}
	defer db.Close()
	cf := map[string]*grocksdb.ColumnFamilyHandle{}
	for i, name := range names {
		cf[name] = handles[i]
		defer handles[i].Destroy()
	}
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	const ns = "\x0b__namespace"
	versions := map[string][]byte{}
	var out []string
	scan := func(h *grocksdb.ColumnFamilyHandle, fn func(k, v []byte)) {
		it := db.NewIteratorCF(ro, h)
		defer it.Close()
		for it.SeekToFirst(); it.Valid(); it.Next() {
			fn(append([]byte(nil), it.Key().Data()...), append([]byte(nil), it.Value().Data()...))
		}
		if err := it.Err(); err != nil {
			t.Fatal(err)
		}
	}
	scan(cf["metadata"], func(k, v []byte) {
		if !bytes.HasPrefix(k, []byte(ns)) || !keep(string(k[len(ns):])) {
			return
		}
		key := string(k[len(ns):])
		if len(v) >= 17 && !metadata.Type(v[0]&0x0f).SingleKV() { // versioned types: flags, expire, version
			versions[key] = append([]byte(nil), v[9:17]...)
			v = append(append(append([]byte(nil), v[:9]...), "VVVVVVVV"...), v[17:]...)
		}
		out = append(out, fmt.Sprintf("meta %q %x", key, v))
	})
	for _, name := range []string{"default", "zset_score"} {
		label := map[string]string{"default": "sub", "zset_score": "score"}[name]
		scan(cf[name], func(k, v []byte) {
			if !bytes.HasPrefix(k, []byte(ns)) || len(k) < len(ns)+4 {
				return
			}
			rest := k[len(ns):]
			n := int(binary.BigEndian.Uint32(rest))
			if len(rest) < 4+n+8 {
				return
			}
			key, version, sub := string(rest[4:4+n]), rest[4+n:4+n+8], rest[4+n+8:]
			if !keep(key) {
				return
			}
			if !bytes.Equal(version, versions[key]) {
				return // a record of an older incarnation
			}
			out = append(out, fmt.Sprintf("%s %q %q %s", label, key, sub, hex.EncodeToString(v)))
		})
	}
	sort.Strings(out)
	return out
}

// TestKvrocksBitmapStringLimit: max-bitmap-to-string-mb has Kvrocks's
// default, and GET of a bitmap over it fails with Kvrocks's error, on
// both servers alike.
func TestKvrocksBitmapStringLimit(t *testing.T) {
	kvrocksBin(t)
	var replies [2][]string
	for i, s := range []server{kvrocksServer, basaltServer} {
		p := s.start(t, t.TempDir(), freePort(t))
		c := interopClient(t, p, "", 30*time.Second)
		for _, cmd := range [][]any{
			{"CONFIG", "GET", "max-bitmap-to-string-mb"},
			{"SETBIT", "fits", 8<<20 - 1, 1}, {"SETBIT", "over", 8 << 20, 1},
			{"GET", "over"},
			{"CONFIG", "SET", "max-bitmap-to-string-mb", "1"},
			{"STRLEN", "nokey"},
			{"GET", "over"},
			{"CONFIG", "SET", "max-bitmap-to-string-mb", "0"},
			{"GET", "fits"},
			{"CONFIG", "SET", "max-bitmap-to-string-mb", "-1"},
		} {
			v, err := c.Do(ctx, cmd...).Result()
			if s, ok := v.(string); ok && len(s) > 64 {
				v = fmt.Sprintf("%d bytes", len(s))
			}
			replies[i] = append(replies[i], fmt.Sprintf("%v => %v %v", cmd, v, err))
		}
	}
	for i := range replies[0] {
		if replies[0][i] != replies[1][i] {
			t.Errorf("kvrocks: %s\nbasalt:  %s", replies[0][i], replies[1][i])
		}
	}
	if !strings.Contains(strings.Join(replies[1], "\n"), "exceeds the configuration item max-bitmap-to-string-mb") {
		t.Errorf("no refusal seen:\n%s", strings.Join(replies[1], "\n"))
	}
}
