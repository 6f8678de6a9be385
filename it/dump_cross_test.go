package it

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestDumpCrossRestore builds the same values on redis-server 7.0 and on
// Basalt, restores each server's DUMP in the other (and Basalt's in
// itself), and requires every copy to hold the same data. It covers what
// TestDumpDiff cannot compare byte for byte: values whose Redis encoding
// depends on hash-table order or history, and Redis's LZF payloads
// (rdbcompression yes, the default).
func TestDumpCrossRestore(t *testing.T) {
	b, r := startBasalt(t), startRedis(t)
	bc, rc := b.client(t, 2), r.client(t, 2)
	many := func(n int, f func(i int) []any) []any {
		var out []any
		for i := range n {
			out = append(out, f(i)...)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		setup [][]any
	}{
		{"set of strings", [][]any{{"SADD", "k", "a", "b", "", "\x00\xff", "12", strings.Repeat("x", 300)}}},
		{"set past intset", [][]any{append([]any{"SADD", "k"}, many(600, func(i int) []any { return []any{i * 7} })...)}},
		{"big set of strings", [][]any{append([]any{"SADD", "k"}, many(3000, func(i int) []any { return []any{"member-" + strconv.Itoa(i)} })...)}},
		{"hash out of order", [][]any{{"HSET", "k", "z", "1", "a", "2", "m", "\x00"}}},
		{"big hash", [][]any{append([]any{"HSET", "k"}, many(1000, func(i int) []any { return []any{"f" + strconv.Itoa(i), strings.Repeat("v", i%80)} })...)}},
		{"list pushed at the head", [][]any{append([]any{"LPUSH", "k"}, many(5000, func(i int) []any { return []any{strings.Repeat("e", i%50) + strconv.Itoa(i)} })...)}},
		{"list that shrank", [][]any{
			append([]any{"RPUSH", "k"}, many(3000, func(i int) []any { return []any{i} })...),
			{"LREM", "k", 0, 17}, {"LTRIM", "k", 100, -100}, {"LINSERT", "k", "BEFORE", 500, "x"},
		}},
		{"big zset", [][]any{append([]any{"ZADD", "k"}, many(2000, func(i int) []any { return []any{float64(i%300) / 7, "m" + strconv.Itoa(i)} })...)}},
		{"zset with a long member", [][]any{{"ZADD", "k", 1, strings.Repeat("m", 100), "-inf", "a", "+inf", "b"}}},
		{"long compressible string", [][]any{{"SET", "k", strings.Repeat("abcdefgh", 5000)}}},
		{"geo", [][]any{{"GEOADD", "k", 13.361389, 38.115556, "Palermo", 15.087269, 37.502669, "Catania", -122.27652, 37.805186, "Oakland"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, c := range []*redis.Client{bc, rc} {
				must(t, c.FlushAll(ctx).Err())
				for _, cmd := range tc.setup {
					must(t, c.Do(ctx, cmd...).Err())
				}
			}
			want := contents(t, rc, "k")
			if got := contents(t, bc, "k"); got != want {
				t.Fatalf("the setup differs:\nbasalt %.300s\nredis  %.300s", got, want)
			}
			fromBasalt, fromRedis := dumpKey(t, bc, "k"), dumpKey(t, rc, "k")
			restore(t, rc, "from-basalt", fromBasalt)
			restore(t, bc, "from-redis", fromRedis)
			restore(t, bc, "self", fromBasalt)
			for _, copy := range []struct {
				c   *redis.Client
				key string
			}{{rc, "from-basalt"}, {bc, "from-redis"}, {bc, "self"}} {
				if got := contents(t, copy.c, copy.key); got != want {
					t.Errorf("%s holds\n%.300s\nwant\n%.300s", copy.key, got, want)
				}
			}
		})
	}
	t.Run("stream with groups", func(t *testing.T) {
		// Delivery and seen times differ between the servers, so each copy
		// is compared with the key it was dumped from.
		setup := [][]any{
			append([]any{"XADD", "k", "MAXLEN", "~", 1000, "1-0"}, many(3, func(i int) []any { return []any{"f" + strconv.Itoa(i), i} })...),
			{"XGROUP", "CREATE", "k", "g1", "0"},
			{"XGROUP", "CREATE", "k", "g2", "$", "ENTRIESREAD", 1},
			{"XGROUP", "CREATE", "k", "empty", "0"},
			{"XGROUP", "CREATECONSUMER", "k", "g1", "dave"},
		}
		for i := range 300 {
			fields := []any{"a", i, "b", strings.Repeat("v", i%40)}
			if i%7 == 0 {
				fields = []any{"other", i}
			}
			setup = append(setup, append([]any{"XADD", "k", fmt.Sprintf("%d-%d", 1000+i/3, i%3)}, fields...))
		}
		setup = append(setup,
			[]any{"XREADGROUP", "GROUP", "g1", "alice", "COUNT", 30, "STREAMS", "k", ">"},
			[]any{"XREADGROUP", "GROUP", "g1", "bob", "COUNT", 10, "STREAMS", "k", ">"},
			[]any{"XREADGROUP", "GROUP", "g2", "alice", "COUNT", 5, "STREAMS", "k", "0"},
			[]any{"XACK", "k", "g1", "1000-0", "1001-1", "1012-2"},
			[]any{"XCLAIM", "k", "g1", "carol", 0, "1005-0", "1036-1", "RETRYCOUNT", 9},
			[]any{"XDEL", "k", "1003-0", "1040-0", "1050-1"},
			[]any{"XTRIM", "k", "MINID", "1002-0"},
		)
		for _, c := range []*redis.Client{bc, rc} {
			must(t, c.FlushAll(ctx).Err())
			for _, cmd := range setup {
				must(t, c.Do(ctx, cmd...).Err())
			}
		}
		fromBasalt, fromRedis := dumpKey(t, bc, "k"), dumpKey(t, rc, "k")
		restore(t, rc, "from-basalt", fromBasalt)
		restore(t, bc, "from-redis", fromRedis)
		restore(t, bc, "self", fromBasalt)
		for _, copy := range []struct {
			c, origin *redis.Client
			key       string
		}{{rc, bc, "from-basalt"}, {bc, rc, "from-redis"}, {bc, bc, "self"}} {
			want := contents(t, copy.origin, "k")
			if got := contents(t, copy.c, copy.key); got != want {
				t.Errorf("%s holds\n%.2000s\nwant\n%.2000s", copy.key, got, want)
			}
		}
		// The restored groups work on: a read delivers what the group had
		// not, an ack ends a restored pending entry.
		for _, c := range []*redis.Client{bc, rc} {
			key := map[*redis.Client]string{bc: "from-redis", rc: "from-basalt"}[c]
			got, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g1", Consumer: "erin", Streams: []string{key, ">"}, Count: 1}).Result()
			must(t, err)
			if id := got[0].Messages[0].ID; id != "1013-0" {
				t.Errorf("%s: XREADGROUP delivered %s, want 1013-0", key, id)
			}
			if n := c.XAck(ctx, key, "g1", "1005-0").Val(); n != 1 {
				t.Errorf("%s: XACK of a restored pending entry: %d", key, n)
			}
		}
	})
	t.Run("HyperLogLog", func(t *testing.T) {
		elems := many(5000, func(i int) []any { return []any{"e" + strconv.Itoa(i)} })
		for _, c := range []*redis.Client{bc, rc} {
			must(t, c.FlushAll(ctx).Err())
			must(t, c.PFAdd(ctx, "small", "a", "b", "c").Err())
			must(t, c.PFAdd(ctx, "big", elems...).Err())
		}
		for _, key := range []string{"small", "big"} {
			want := rc.PFCount(ctx, key).Val()
			restore(t, rc, key+"-from-basalt", dumpKey(t, bc, key))
			restore(t, bc, key+"-from-redis", dumpKey(t, rc, key))
			restore(t, bc, key+"-self", dumpKey(t, bc, key))
			for _, got := range []int64{
				bc.PFCount(ctx, key).Val(), rc.PFCount(ctx, key+"-from-basalt").Val(),
				bc.PFCount(ctx, key+"-from-redis").Val(), bc.PFCount(ctx, key+"-self").Val(),
			} {
				if got != want {
					t.Errorf("%s: PFCOUNT %d, want %d", key, got, want)
				}
			}
			// A restored Redis HyperLogLog is Basalt's own type: PFADD and
			// PFMERGE take it.
			must(t, bc.PFAdd(ctx, key+"-from-redis", "new").Err())
			must(t, rc.PFAdd(ctx, key, "new").Err())
			if got, want := bc.PFCount(ctx, key+"-from-redis").Val(), rc.PFCount(ctx, key).Val(); got != want {
				t.Errorf("%s after PFADD: PFCOUNT %d, want %d", key, got, want)
			}
		}
	})
}

func dumpKey(t *testing.T, c *redis.Client, key string) string {
	t.Helper()
	p, err := c.Dump(ctx, key).Result()
	must(t, err)
	return p
}

func restore(t *testing.T, c *redis.Client, key, payload string) {
	t.Helper()
	if err := c.Restore(ctx, key, 0, payload).Err(); err != nil {
		t.Fatalf("RESTORE %s: %v", key, err)
	}
}

// contents renders a key's type and value, unordered collections sorted.
func contents(t *testing.T, c *redis.Client, key string) string {
	t.Helper()
	typ, err := c.Type(ctx, key).Result()
	must(t, err)
	var items []string
	switch typ {
	case "string":
		v, err := c.Get(ctx, key).Result()
		must(t, err)
		items = []string{v}
	case "list":
		v, err := c.LRange(ctx, key, 0, -1).Result()
		must(t, err)
		items = v
	case "set":
		v, err := c.SMembers(ctx, key).Result()
		must(t, err)
		items = v
		slices.Sort(items)
	case "hash":
		v, err := c.HGetAll(ctx, key).Result()
		must(t, err)
		for f, val := range v {
			items = append(items, fmt.Sprintf("%q=%q", f, val))
		}
		slices.Sort(items)
	case "zset":
		v, err := c.ZRangeWithScores(ctx, key, 0, -1).Result()
		must(t, err)
		for _, z := range v {
			items = append(items, fmt.Sprintf("%q=%v", z.Member, z.Score))
		}
	case "stream":
		// Everything but the shape of Redis's radix tree.
		v, err := c.Do(ctx, "XINFO", "STREAM", key, "FULL").Slice()
		must(t, err)
		for i := 0; i+1 < len(v); i += 2 {
			if name := fmt.Sprint(v[i]); !strings.HasPrefix(name, "radix-tree-") {
				items = append(items, fmt.Sprintf("%s=%v", name, v[i+1]))
			}
		}
	default:
		t.Fatalf("%s: type %s", key, typ)
	}
	return typ + " " + fmt.Sprintf("%q", items)
}

// TestRestoreWakes checks that RESTORE is a write like the others: it
// fails a transaction that WATCHes the key and serves a client blocked on
// it, as in Redis.
func TestRestoreWakes(t *testing.T) {
	b := startBasalt(t)
	c, other := b.client(t, 2), b.client(t, 2)
	must(t, c.RPush(ctx, "src", "a", "b").Err())
	payload := dumpKey(t, c, "src")

	err := c.Watch(ctx, func(tx *redis.Tx) error {
		restore(t, other, "w", payload)
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "x", 1, 0)
			return nil
		})
		return err
	}, "w")
	if err != redis.TxFailedErr {
		t.Fatalf("EXEC after a RESTORE of the watched key: %v, want %v", err, redis.TxFailedErr)
	}

	got := make(chan []string, 1)
	go func() {
		v, _ := other.BLPop(ctx, 10*time.Second, "blocked").Result()
		got <- v
	}()
	waitFor(t, 5*time.Second, "the client to block", func() bool {
		return strings.Contains(c.ClientList(ctx).Val(), "cmd=blpop")
	})
	restore(t, c, "blocked", payload)
	select {
	case v := <-got:
		if !slices.Equal(v, []string{"blocked", "a"}) {
			t.Fatalf("BLPOP = %q", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("BLPOP not served by RESTORE")
	}
	if v := c.LRange(ctx, "blocked", 0, -1).Val(); !slices.Equal(v, []string{"b"}) {
		t.Fatalf("left %q", v)
	}
}
