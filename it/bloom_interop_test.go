package it

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Bloom filters across Basalt and the real Kvrocks. The same workload
// (BF.RESERVE, BF.ADD, BF.MADD and BF.INSERT with every option, chains
// scaling past their capacity with expansions 1, 2, 3 and 300, a full
// non-scaling filter, a TTL) runs on each server in a directory of its
// own; then
//   - both directories hold the same records byte for byte, versions set
//     aside: the metadata with its chain and every sub-filter's bits
//     (FORMAT.md §4.10);
//   - each server opens the other's directory and answers every read
//     (BF.EXISTS, BF.MEXISTS with false positives, BF.INFO and each of
//     its fields, BF.CARD, TYPE, PEXPIRETIME) exactly as in its own.

// bloomInteropWorkload returns the writes and the reads.
func bloomInteropWorkload(expireAt int64) (writes, reads [][]any) {
	items := func(prefix string, from, n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = prefix + strconv.Itoa(from+i)
		}
		return out
	}
	cmd := func(head []any, tail []any) []any { return append(head, tail...) }
	writes = [][]any{
		{"BF.RESERVE", "bf:e2", "0.0001", 50},
		cmd([]any{"BF.MADD", "bf:e2"}, items("k", 0, 120)),
		cmd([]any{"BF.MADD", "bf:e2"}, items("k", 100, 300)), // scales twice more
		{"BF.RESERVE", "bf:e1", "0.1", 7, "EXPANSION", 1},
		cmd([]any{"BF.MADD", "bf:e1"}, items("x", 0, 40)),
		{"BF.RESERVE", "bf:e300", "0.9", 1, "EXPANSION", 300},
		{"BF.ADD", "bf:e300", "p"}, {"BF.ADD", "bf:e300", "q"}, {"BF.ADD", "bf:e300", "r"},
		cmd([]any{"BF.INSERT", "bf:ins", "CAPACITY", 5, "ERROR", "0.01", "EXPANSION", 3, "ITEMS"}, items("i", 0, 60)),
		cmd([]any{"BF.INSERT", "bf:nf", "CAPACITY", 10, "NONSCALING", "ITEMS"}, items("n", 0, 15)),
		{"BF.INSERT", "bf:nf", "NOCREATE", "ITEMS", "n0", "zz"},
		{"BF.ADD", "bf:def", "hello"}, {"BF.ADD", "bf:def", ""}, {"BF.ADD", "bf:def", "\x00\xff"},
		cmd([]any{"BF.MADD", "bf:fp"}, items("q", 0, 150)), // a default filter overfull: false positives
		{"BF.RESERVE", "bf:empty", "0.001", 1000, "NONSCALING"},
		{"BF.ADD", "bf:ttl", "a"}, {"PEXPIREAT", "bf:ttl", expireAt},
	}
	keys := []string{"bf:e2", "bf:e1", "bf:e300", "bf:ins", "bf:nf", "bf:def", "bf:fp", "bf:empty", "bf:ttl", "bf:none"}
	probe := append(append(append(items("k", 0, 400), items("x", 0, 40)...), items("i", 0, 60)...), items("absent", 0, 300)...)
	probe = append(probe, "p", "q", "r", "s", "hello", "", "\x00\xff", "n0", "n14", "zz", "a")
	for _, k := range keys {
		reads = append(reads, cmd([]any{"BF.MEXISTS", k}, probe),
			[]any{"BF.EXISTS", k, "hello"}, []any{"BF.EXISTS", k, "k399"}, []any{"BF.CARD", k},
			[]any{"BF.INFO", k}, []any{"TYPE", k}, []any{"PEXPIRETIME", k})
		for _, f := range []string{"CAPACITY", "SIZE", "FILTERS", "ITEMS", "EXPANSION"} {
			reads = append(reads, []any{"BF.INFO", k, f})
		}
	}
	return writes, reads
}

func TestKvrocksBloomInterop(t *testing.T) {
	kvrocksBin(t)
	expireAt := time.Now().Add(3*time.Hour).UnixMilli() / 1000 * 1000
	writes, reads := bloomInteropWorkload(expireAt)
	read := func(p *proc) []string { return readAll(t, p, reads) }
	dirs, own := interopOwnDirs(t, writes, read)
	if k, b := strings.Join(own[kvrocksServer], "\n"), strings.Join(own[basaltServer], "\n"); k != b {
		i := firstDifference(own[kvrocksServer], own[basaltServer])
		t.Errorf("the servers answer otherwise on their own directories; first difference:\nkvrocks: %s\nbasalt:  %s",
			at(own[kvrocksServer], i), at(own[basaltServer], i))
	}

	raw := map[server][]string{}
	for _, s := range []server{kvrocksServer, basaltServer} {
		raw[s] = rawBitRecords(t, filepath.Join(dirs[s], "db"), func(string) bool { return true })
	}
	if len(raw[basaltServer]) < 25 {
		t.Fatalf("only %d records in Basalt's directory", len(raw[basaltServer]))
	}
	if k, b := strings.Join(raw[kvrocksServer], "\n"), strings.Join(raw[basaltServer], "\n"); k != b {
		i := firstDifference(raw[kvrocksServer], raw[basaltServer])
		t.Errorf("records differ (%d in Kvrocks's directory, %d in Basalt's); first difference:\nkvrocks: %s\nbasalt:  %s",
			len(raw[kvrocksServer]), len(raw[basaltServer]), at(raw[kvrocksServer], i), at(raw[basaltServer], i))
	} else {
		t.Logf("%d records (metadata and sub-filters of %d filters) byte for byte the same", len(raw[basaltServer]), countMeta(raw[basaltServer]))
	}

	interopCrossRead(t, dirs, own, read)
}
