package it

import (
	"bufio"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"
)

// applyBatchCase is a case of storage/testdata/rawbatch.txt.
type applyBatchCase struct {
	name  string
	batch []byte
	err   string // "" for a batch that applies
}

func readApplyBatchCases(t *testing.T) []applyBatchCase {
	t.Helper()
	f, err := os.Open("../storage/testdata/rawbatch.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []applyBatchCase
	var c applyBatchCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "# "):
			c.name = line[2:]
		case strings.HasPrefix(line, "batch: "):
			if c.batch, err = hex.DecodeString(strings.ReplaceAll(line[len("batch: "):], " ", "")); err != nil {
				t.Fatal(err)
			}
		case strings.HasPrefix(line, "want: "):
			c.err, _ = strings.CutPrefix(line[len("want: "):], "error ")
			if strings.HasPrefix(c.err, "ok ") {
				c.err = ""
			}
			cases, c = append(cases, c), applyBatchCase{}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestApplyBatchPoison sends the batch of issue 18 (a range deletion that
// ends before it begins), which used to make every later write fail until
// a restart, then every case of storage/testdata/rawbatch.txt: a refused
// batch is answered with an error naming what is wrong, and writes go on
// working, before and after a restart.
func TestApplyBatchPoison(t *testing.T) {
	p := startBasalt(t)
	c := p.client(t, 2)
	must(t, c.Set(ctx, "before", "1", 0).Err())
	poison, _ := hex.DecodeString("0000000000000000010000000f01620161")
	err := c.Do(ctx, "APPLYBATCH", poison).Err()
	const want = `ERR invalid write batch: record 1 at byte 12: range deletion in column family default: end "a" is not after begin "b"`
	if err == nil || err.Error() != want {
		t.Fatalf("APPLYBATCH of the poison batch: %v, want %s", err, want)
	}
	must(t, c.Set(ctx, "after", "2", 0).Err())
	must(t, c.HSet(ctx, "h", "f", "v").Err())

	cases := readApplyBatchCases(t)
	if len(cases) < 30 {
		t.Fatalf("read only %d cases", len(cases))
	}
	for i, tc := range cases {
		n, err := c.Do(ctx, "APPLYBATCH", tc.batch).Int64()
		tooSmall := strings.Contains(tc.err, "shorter than the 12-byte header")
		switch {
		case tc.err == "" && (err != nil || n != int64(len(tc.batch))):
			t.Errorf("%s: %d %v, want %d", tc.name, n, err, len(tc.batch))
		case tooSmall && (err == nil || err.Error() != "ERR Corruption: malformed WriteBatch (too small)"):
			t.Errorf("%s: %v, want Kvrocks's (RocksDB's) reply", tc.name, err)
		case tc.err != "" && !tooSmall && (err == nil || !strings.HasPrefix(err.Error(), "ERR invalid write batch: ") || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.err)
		}
		if err := c.Set(ctx, "case", i, 0).Err(); err != nil {
			t.Fatalf("a write after %s: %v", tc.name, err)
		}
	}
	if strings.Contains(p.Output.String(), "stopped accepting writes") {
		t.Errorf("RocksDB stopped:\n%s", p.Output)
	}

	p.Stop()
	p = startBasaltIn(t, p.Dir)
	c = p.client(t, 2)
	must(t, c.Set(ctx, "restarted", "3", 0).Err())
	for k, v := range map[string]string{"before": "1", "after": "2", "case": strconv.Itoa(len(cases) - 1), "restarted": "3"} {
		if got, err := c.Get(ctx, k).Result(); err != nil || got != v {
			t.Errorf("GET %s after a restart: %q %v, want %q", k, got, err, v)
		}
	}
	if got := c.HGet(ctx, "h", "f").Val(); got != "v" {
		t.Errorf("HGET h f after a restart: %q", got)
	}
}
