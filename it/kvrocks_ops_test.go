package it

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestKvrocksNewCases replays it/testdata/kvrocks_new_cases.txt.
func TestKvrocksNewCases(t *testing.T) {
	replayWireCorpus(t, startBasalt(t), "testdata/kvrocks_new_cases.txt")
}

// TestKMetadataCollections: KMETADATA shows a collection's size and
// version and its absolute expiry as stored; a list's head and tail
// (KVROCKS-TYPES.md §8: Kvrocks 2.12, list fields 2.16).
func TestKMetadataCollections(t *testing.T) {
	p := startBasalt(t)
	protocols(t, p, func(t *testing.T, c *redis.Client) {
		c.HSet(ctx, "h", "a", 1, "b", 2, "c", 3)
		at := time.Now().Add(time.Hour).UnixMilli()
		c.PExpireAt(ctx, "h", time.UnixMilli(at))
		m, err := c.Do(ctx, "KMETADATA", "h").Result()
		if err != nil {
			t.Fatal(err)
		}
		fields := asMap(t, m)
		if fields["type"] != "hash" || fields["size"] != int64(3) || fields["ttl"] != at || fields["flags"] != int64(0x82) {
			t.Errorf("hash: %v", fields)
		}
		if v, _ := fields["version"].(int64); v <= 0 {
			t.Errorf("hash version %v", fields["version"])
		}
		// Two pushes to the right from the middle of the index space.
		c.RPush(ctx, "l", "x", "y")
		c.LPush(ctx, "l", "w")
		m, err = c.Do(ctx, "KMETADATA", "l").Result()
		if err != nil {
			t.Fatal(err)
		}
		fields = asMap(t, m)
		if fields["type"] != "list" || fields["size"] != int64(3) || fields["ttl"] != int64(0) ||
			numString(fields["head"]) != "9223372036854775806" || numString(fields["tail"]) != "9223372036854775809" {
			t.Errorf("list: %v", fields)
		}
	})
}

// asMap turns a map reply (RESP3) or a flat array (RESP2) into a map.
func asMap(t *testing.T, v any) map[string]any {
	t.Helper()
	out := map[string]any{}
	switch m := v.(type) {
	case map[any]any:
		for k, v := range m {
			out[k.(string)] = v
		}
	case []any:
		for i := 0; i+1 < len(m); i += 2 {
			out[m[i].(string)] = m[i+1]
		}
	default:
		t.Fatalf("not a map: %#v", v)
	}
	return out
}

// numString renders an integer reply, or a big number's digits.
func numString(v any) string {
	switch n := v.(type) {
	case int64:
		return strconv.FormatInt(n, 10)
	case string:
		return n
	case *big.Int:
		return n.String()
	}
	return fmt.Sprintf("%T %v", v, v)
}

// TestAdminOnlyOperatorCommands: as Kvrocks 2.17 (KVROCKS-TYPES.md §8,
// PR #3570), DEBUG, FLUSHMEMTABLE, FLUSHBLOCKCACHE and _db_name refuse a
// namespace's token and serve the admin; NAMESPACE CURRENT serves both,
// each its own namespace, and the rest of NAMESPACE stays the admin's.
func TestAdminOnlyOperatorCommands(t *testing.T) {
	p := startBasalt(t, "-c", writeConf(t, "requirepass admin", "namespace.ns1 token1", "db-name basalt-ops"))
	for _, c := range []struct {
		token, want string
	}{{"token1", "-ERR admin permission required to perform the command\r\n"}, {"admin", ""}} {
		r := dial(t, p)
		if got := r.do("AUTH", c.token); got != "+OK\r\n" {
			t.Fatalf("AUTH %s: %q", c.token, got)
		}
		for _, args := range [][]string{{"DEBUG", "SLEEP", "0"}, {"FLUSHMEMTABLE"}, {"FLUSHBLOCKCACHE"}, {"_db_name"}} {
			var got string
			if args[0] == "_db_name" {
				// Answered on a raw line, with no RESP type.
				r.send("*1\r\n$8\r\n_db_name\r\n")
				r.c.SetReadDeadline(time.Now().Add(longTimeout))
				got, _ = r.rd.ReadString('\n')
			} else {
				got = r.do(args...)
			}
			want := c.want
			if want == "" {
				want = "+OK\r\n"
				if args[0] == "_db_name" {
					want = "basalt-ops\r\n"
				}
			}
			if got != want {
				t.Errorf("%s: %v = %q, want %q", c.token, args, got, want)
			}
		}
		wantNS := map[string]string{"token1": "$3\r\nns1\r\n", "admin": "$11\r\n__namespace\r\n"}[c.token]
		if got := r.do("NAMESPACE", "CURRENT"); got != wantNS {
			t.Errorf("%s: NAMESPACE CURRENT = %q, want %q", c.token, got, wantNS)
		}
		wantGet := map[string]string{"token1": c.want, "admin": "$6\r\ntoken1\r\n"}[c.token]
		if got := r.do("NAMESPACE", "GET", "ns1"); got != wantGet {
			t.Errorf("%s: NAMESPACE GET = %q, want %q", c.token, got, wantGet)
		}
	}
}

// TestFlushMemtableAndBlockCache: FLUSHMEMTABLE writes what the memtables
// hold to SST files (INFO's used_db_size counts those), and
// FLUSHBLOCKCACHE empties the block cache of the blocks reads left in it.
func TestFlushMemtableAndBlockCache(t *testing.T) {
	p := startBasalt(t)
	c := p.longClient(t, 2)
	pipe := c.Pipeline()
	for i := 0; i < 2000; i++ {
		pipe.HSet(ctx, "h", fmt.Sprint("field", i), strings.Repeat("v", 100))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if n := infoInt(t, c, "keyspace", "used_db_size"); n != 0 {
		t.Fatalf("used_db_size before FLUSHMEMTABLE = %d", n)
	}
	if err := c.Do(ctx, "FLUSHMEMTABLE").Err(); err != nil {
		t.Fatal(err)
	}
	if n := infoInt(t, c, "keyspace", "used_db_size"); n == 0 {
		t.Fatal("used_db_size after FLUSHMEMTABLE is 0")
	}
	if n := len(c.HGetAll(ctx, "h").Val()); n != 2000 {
		t.Fatalf("HGETALL: %d fields", n)
	}
	before := infoInt(t, c, "rocksdb", "block_cache_usage")
	if before == 0 {
		t.Fatal("reading the SST files left nothing in the block cache")
	}
	if err := c.Do(ctx, "FLUSHBLOCKCACHE").Err(); err != nil {
		t.Fatal(err)
	}
	if after := infoInt(t, c, "rocksdb", "block_cache_usage"); after >= before {
		t.Errorf("block_cache_usage %d after FLUSHBLOCKCACHE, %d before", after, before)
	}
}
