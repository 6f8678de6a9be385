package it

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestHashFieldTTLWire replays it/testdata/hfe_wire.txt, the hash field
// expiration commands' replies from REDIS-NEW.md §1 and KVROCKS-TYPES.md
// §7.5 (redis-server 7.0 has none of them), on RESP2 and on RESP3, byte
// for byte.
func TestHashFieldTTLWire(t *testing.T) {
	replayWireCorpus(t, startBasalt(t), "testdata/hfe_wire.txt")
}

// TestHashFieldTTLExpiry: an expired field is gone for every read at
// once; the sweep removes it, publishing "hexpired", and removes the hash
// with its last field, publishing "del"; the commands publish REDIS-NEW.md
// §1.10's events.
func TestHashFieldTTLExpiry(t *testing.T) {
	p := startBasalt(t, "--notify-keyspace-events", "KEA")
	c := p.client(t, 2)
	sub := c.PSubscribe(ctx, "__keyevent@0__:*")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	events := sub.Channel()
	expect := func(want ...string) {
		t.Helper()
		for _, w := range want {
			select {
			case m := <-events:
				if got := strings.TrimPrefix(m.Channel, "__keyevent@0__:") + " " + m.Payload; got != w {
					t.Fatalf("event %q, want %q", got, w)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("no event %q within 20 s", w)
			}
		}
	}
	do := func(args ...any) any {
		t.Helper()
		v, err := c.Do(ctx, args...).Result()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return v
	}
	do("HSET", "h", "a", "1", "b", "2", "c", "3")
	expect("hset h")
	do("HPEXPIRE", "h", "300", "FIELDS", "2", "a", "b")
	expect("hexpire h")
	do("HPERSIST", "h", "FIELDS", "1", "b")
	expect("hpersist h")
	do("HEXPIRE", "h", "0", "FIELDS", "1", "b")
	expect("hdel h")
	// a expires: no read sees it, the sweep reaps it.
	expect("hexpired h")
	if n := do("HLEN", "h"); n != int64(1) {
		t.Errorf("HLEN after the expiry: %v", n)
	}
	if v := do("HGETALL", "h"); fmt.Sprint(v) != "[c 3]" {
		t.Errorf("HGETALL after the expiry: %v", v)
	}
	// The last field expires: the hash goes.
	do("HPEXPIRE", "h", "200", "FIELDS", "1", "c")
	expect("hexpire h", "hexpired h", "del h")
	if n := do("EXISTS", "h"); n != int64(0) {
		t.Errorf("EXISTS after the last field expired: %v", n)
	}
	// HGETDEL of the last field: hdel, del.
	do("HSETEX", "g", "PX", "100000", "FIELDS", "1", "a", "1")
	expect("hset g", "hexpire g")
	do("HGETDEL", "g", "FIELDS", "1", "a")
	expect("hdel g", "del g")
}

// farFuture is a field TTL (Unix ms) no test outlives: 2100-01-01.
const farFuture = 4102444800000

// fieldTTLsOf returns HPEXPIRETIME of fields of key.
func fieldTTLsOf(t *testing.T, c *redis.Client, key string, fields ...string) string {
	t.Helper()
	args := []any{"HPEXPIRETIME", key, "FIELDS", len(fields)}
	for _, f := range fields {
		args = append(args, f)
	}
	v, err := c.Do(ctx, args...).Result()
	if err != nil {
		t.Fatalf("HPEXPIRETIME %s: %v", key, err)
	}
	return fmt.Sprint(v)
}

// writeTTLHash writes hash key with fields a (TTL farFuture), b (no TTL)
// and x (TTL ms from now).
func writeTTLHash(t *testing.T, c *redis.Client, key string, ms int) {
	t.Helper()
	must(t, c.HSet(ctx, key, "a", "1", "b", "2", "x", "3").Err())
	must(t, c.Do(ctx, "HPEXPIREAT", key, farFuture, "FIELDS", 1, "a").Err())
	must(t, c.Do(ctx, "HPEXPIRE", key, ms, "FIELDS", 1, "x").Err())
}

// TestHashFieldTTLCarried: DUMP (Redis 7.4's type 24 in an RDB 12
// payload) and RESTORE, COPY and RENAME keep a hash's field TTLs, and a
// replica holds them and sees the fields expire.
func TestHashFieldTTLCarried(t *testing.T) {
	master, replica := startBasalt(t), startBasalt(t)
	m, r := master.client(t, 2), replica.client(t, 2)
	writeTTLHash(t, m, "h", 600_000)
	payload, err := m.Dump(ctx, "h").Result()
	must(t, err)
	if payload[0] != 24 || payload[len(payload)-10] != 12 {
		t.Errorf("DUMP of a hash with field TTLs: type %d, version %d, want 24 and 12", payload[0], payload[len(payload)-10])
	}
	must(t, m.Restore(ctx, "restored", 0, payload).Err())
	must(t, m.Copy(ctx, "h", "copied", 0, false).Err())
	must(t, m.Copy(ctx, "h", "moved", 0, false).Err())
	must(t, m.Rename(ctx, "moved", "renamed").Err())
	want := fmt.Sprintf("[%d -1 -2]", int64(farFuture))
	for _, k := range []string{"h", "restored", "copied", "renamed"} {
		if got := fieldTTLsOf(t, m, k, "a", "b", "nope"); got != want {
			t.Errorf("%s: field TTLs %s, want %s", k, got, want)
		}
		if got := m.HGetAll(ctx, k).Val(); len(got) != 3 || got["b"] != "2" {
			t.Errorf("%s holds %v", k, got)
		}
	}

	slaveOf(t, r, master)
	waitCaughtUp(t, m, r)
	writeTTLHash(t, m, "short", 300)
	waitCaughtUp(t, m, r)
	if got := fieldTTLsOf(t, r, "h", "a", "b"); got != fmt.Sprintf("[%d -1]", int64(farFuture)) {
		t.Errorf("the replica's field TTLs of h: %s", got)
	}
	// x expires on the replica as on the master: gone for reads at once,
	// then the master's sweep deletes it and the replica applies that.
	waitFor(t, 20*time.Second, "x expiring on the replica", func() bool {
		return r.HExists(ctx, "short", "x").Val() == false
	})
	waitFor(t, 20*time.Second, "the master's sweep of x reaching the replica", func() bool {
		waitCaughtUp(t, m, r)
		return fmt.Sprint(r.Do(ctx, "HPEXPIRETIME", "short", "FIELDS", 1, "x").Val()) == "[-2]" &&
			r.HLen(ctx, "short").Val() == 2 && m.HLen(ctx, "short").Val() == 2
	})
}

// TestHashFieldTTLMigration: a slot migration, in both modes, carries a
// hash's field TTLs and leaves out its expired fields.
func TestHashFieldTTLMigration(t *testing.T) {
	for _, mode := range []string{"raw-key-value", "redis-command"} {
		t.Run(mode, func(t *testing.T) {
			nodes, ids := clusterNodes(t, 2, "--migrate-type", mode)
			pushTopology(t, nodes, mastersText(nodes, ids, []string{"0-16383", ""}), 1)
			src, dst := nodes[0].client(t, 2), nodes[1].client(t, 2)
			key := "{hfe}h"
			writeTTLHash(t, src, key, 1)
			slot := src.ClusterKeySlot(ctx, key).Val()
			waitFor(t, 20*time.Second, "x expiring", func() bool { return !src.HExists(ctx, key, "x").Val() })
			must(t, src.Do(ctx, "CLUSTERX", "MIGRATE", slot, ids[1]).Err())
			if state := waitMigration(t, src, time.Minute); state != "success" {
				t.Fatalf("migration %s", state)
			}
			if got := fieldTTLsOf(t, dst, key, "a", "b", "x"); got != fmt.Sprintf("[%d -1 -2]", int64(farFuture)) {
				t.Errorf("field TTLs on the destination: %s", got)
			}
			if got := dst.HGetAll(ctx, key).Val(); len(got) != 2 || got["a"] != "1" || got["b"] != "2" {
				t.Errorf("the destination holds %v", got)
			}
		})
	}
}

// TestHashFieldTTLReads: an expired field not yet removed (the sweep is
// off) is invisible to every hash read, SORT's too, and the writes that
// meet it take it as absent.
func TestHashFieldTTLReads(t *testing.T) {
	p := startBasalt(t)
	c := p.client(t, 2)
	must(t, c.Do(ctx, "DEBUG", "SET-ACTIVE-EXPIRE", "0").Err())
	must(t, c.HSet(ctx, "h", "a", "1", "b", "22", "c", "3", "d", "44").Err())
	must(t, c.HSet(ctx, "w_1", "f", "x").Err())
	must(t, c.HSet(ctx, "w_2", "f", "y", "g", "z").Err())
	must(t, c.RPush(ctx, "l", "1", "2").Err())
	must(t, c.Do(ctx, "HPEXPIRE", "h", 1, "FIELDS", 2, "b", "d").Err())
	must(t, c.Do(ctx, "HPEXPIRE", "w_2", 1, "FIELDS", 1, "f").Err())
	waitFor(t, 20*time.Second, "b and d expiring", func() bool {
		return fmt.Sprint(c.Do(ctx, "HPTTL", "h", "FIELDS", 2, "b", "d").Val()) == "[-2 -2]"
	})
	check := func(what string, got, want any) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: %v, want %v", what, got, want)
		}
	}
	check("HGET", c.HGet(ctx, "h", "b").Err(), redis.Nil)
	check("HMGET", c.HMGet(ctx, "h", "a", "b").Val(), []any{"1", nil})
	check("HEXISTS", c.HExists(ctx, "h", "b").Val(), false)
	check("HSTRLEN", c.Do(ctx, "HSTRLEN", "h", "b").Val(), 0)
	check("HLEN", c.HLen(ctx, "h").Val(), 2)
	check("HKEYS", c.HKeys(ctx, "h").Val(), []string{"a", "c"})
	check("HVALS", c.HVals(ctx, "h").Val(), []string{"1", "3"})
	check("HGETALL", c.HGetAll(ctx, "h").Val(), map[string]string{"a": "1", "c": "3"})
	keys, _ := c.HScan(ctx, "h", 0, "", 100).Val()
	check("HSCAN", keys, []string{"a", "1", "c", "3"})
	check("HRANGEBYLEX", c.Do(ctx, "HRANGEBYLEX", "h", "-", "+", "LIMIT", 1, 1).Val(), []any{"c", "3"})
	for range 10 {
		for _, f := range c.HRandField(ctx, "h", -20).Val() {
			if f == "b" || f == "d" {
				t.Fatalf("HRANDFIELD drew the expired field %s", f)
			}
		}
		if f := c.HRandField(ctx, "h", 1).Val(); len(f) != 1 || f[0] == "b" || f[0] == "d" {
			t.Fatalf("HRANDFIELD h 1: %v", f)
		}
	}
	check("SORT GET", c.Sort(ctx, "l", &redis.Sort{Get: []string{"w_*->f"}}).Val(), []string{"x", ""})
	check("HSETNX of an expired field", c.HSetNX(ctx, "h", "b", "new").Val(), true)
	check("HINCRBY of an expired field", c.HIncrBy(ctx, "h", "d", 5).Val(), 5)
	check("HTTL after", c.Do(ctx, "HTTL", "h", "FIELDS", 2, "b", "d").Val(), []any{-1, -1})
	check("HLEN after", c.HLen(ctx, "h").Val(), 4)
}

// TestHashFieldTTLGoRedis: go-redis's own helpers for the hash field TTL
// commands work against Basalt, in RESP2 and RESP3.
func TestHashFieldTTLGoRedis(t *testing.T) {
	p := startBasalt(t)
	protocols(t, p, func(t *testing.T, c *redis.Client) {
		check := func(what string, got, want any) {
			t.Helper()
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: %v, want %v", what, got, want)
			}
		}
		must(t, c.HSet(ctx, "h", "a", "1", "b", "2", "c", "3").Err())
		check("HExpire", c.HExpire(ctx, "h", time.Minute, "a", "zz").Val(), []int64{1, -2})
		check("HExpireWithArgs GT", c.HExpireWithArgs(ctx, "h", time.Second, redis.HExpireArgs{GT: true}, "a").Val(), []int64{0})
		check("HPExpire", c.HPExpire(ctx, "h", 90*time.Second, "b").Val(), []int64{1})
		check("HExpireAt", c.HExpireAt(ctx, "h", time.UnixMilli(farFuture), "c").Val(), []int64{1})
		check("HTTL", c.HTTL(ctx, "h", "a", "b").Val(), []int64{60, 90})
		check("HPExpireTime", c.HPExpireTime(ctx, "h", "c").Val(), []int64{farFuture})
		check("HExpireTime", c.HExpireTime(ctx, "h", "c").Val(), []int64{farFuture / 1000})
		check("HPersist", c.HPersist(ctx, "h", "c", "zz").Val(), []int64{1, -2})
		check("HPTTL", c.HPTTL(ctx, "h", "c").Val(), []int64{-1})
		check("HGetEXWithArgs", c.HGetEXWithArgs(ctx, "h", &redis.HGetEXOptions{ExpirationType: redis.HGetEXExpirationPERSIST}, "a").Val(), []string{"1"})
		check("HTTL after PERSIST", c.HTTL(ctx, "h", "a").Val(), []int64{-1})
		check("HGetEX", c.HGetEX(ctx, "h", "a", "b").Val(), []string{"1", "2"})
		check("HSetEXWithArgs FNX", c.HSetEXWithArgs(ctx, "h", &redis.HSetEXOptions{Condition: redis.HSetEXFNX,
			ExpirationType: redis.HSetEXExpirationEX, ExpirationVal: 100}, "d", "4").Val(), 1)
		check("HTTL of d", c.HTTL(ctx, "h", "d").Val(), []int64{100})
		check("HSetEX", c.HSetEX(ctx, "h", "d", "5").Val(), 1)
		check("HGetDel", c.HGetDel(ctx, "h", "d", "c").Val(), []string{"5", "3"})
		check("HGetAll", c.HGetAll(ctx, "h").Val(), map[string]string{"a": "1", "b": "2"})
	})
}

// TestHashFieldTTLKill9: kill -9 while writers give fields TTLs loses no
// acknowledged field or TTL and brings back no expired field.
func TestHashFieldTTLKill9(t *testing.T) {
	p := startBasalt(t)
	const writers, before = 4, 2000
	acked := make([]atomic.Int64, writers)
	expires := make([][]int64, writers) // per writer, per field: its TTL
	var total atomic.Int64
	killed := make(chan struct{})
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			opts := longOptions(p.Addr(), 2)
			opts.PoolSize = 1
			c := redis.NewClient(opts)
			defer c.Close()
			key := "ttl:" + strconv.Itoa(w)
			for i := 0; ; i++ {
				// Even fields expire at once, odd ones in ten minutes.
				at := time.Now().UnixMilli() + 50
				if i%2 == 1 {
					at += 600_000
				}
				expires[w] = append(expires[w], at)
				f := strconv.Itoa(i)
				_, err := c.Pipelined(ctx, func(pipe redis.Pipeliner) error {
					pipe.HSet(ctx, key, f, f)
					pipe.Do(ctx, "HPEXPIREAT", key, at, "FIELDS", 1, f)
					return nil
				})
				if err != nil {
					select {
					case <-killed:
					default:
						t.Errorf("writer %d: %v", w, err)
					}
					return
				}
				acked[w].Store(int64(i + 1))
				if total.Add(1) == before {
					close(killed)
					p.Kill()
				}
			}
		}()
	}
	wg.Wait()
	var latest int64 // of the fields that expire at once
	for w := range writers {
		for i := 0; i < len(expires[w]); i += 2 {
			latest = max(latest, expires[w][i])
		}
	}
	again := startBasaltIn(t, p.Dir)
	c := again.client(t, 2)
	waitFor(t, 20*time.Second, "the short TTLs passing", func() bool { return time.Now().UnixMilli() > latest })
	for w := range writers {
		key := "ttl:" + strconv.Itoa(w)
		n := acked[w].Load()
		var odd int64
		for i := range n {
			f := strconv.FormatInt(i, 10)
			got := fmt.Sprint(c.Do(ctx, "HPEXPIRETIME", key, "FIELDS", 1, f).Val())
			if i%2 == 0 {
				if got != "[-2]" {
					t.Fatalf("%s %s expired and is back after kill -9: %s", key, f, got)
				}
				continue
			}
			odd++
			if want := fmt.Sprintf("[%d]", expires[w][i]); got != want {
				t.Fatalf("acknowledged %s %s with TTL %s after kill -9: %s", key, f, want, got)
			}
			if v := c.HGet(ctx, key, f).Val(); v != f {
				t.Fatalf("acknowledged %s %s lost after kill -9: %q", key, f, v)
			}
		}
		// A write in flight at the kill may have landed too.
		if l := c.HLen(ctx, key).Val(); l < odd || l > odd+1 {
			t.Errorf("HLEN %s = %d, want %d (or one more in flight)", key, l, odd)
		}
	}
}
