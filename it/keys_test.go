package it

import (
	"fmt"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestKeys(t *testing.T) {
	p := startBasalt(t)
	protocols(t, p, func(t *testing.T, c *redis.Client) {
		t.Run("DEL EXISTS TYPE TOUCH", func(t *testing.T) {
			must(t, c.MSet(ctx, "a", "1", "b", "2").Err())
			if n := c.Exists(ctx, "a", "b", "a", "nope").Val(); n != 3 {
				t.Fatalf("EXISTS = %d", n)
			}
			if n := c.Touch(ctx, "a", "nope").Val(); n != 1 {
				t.Fatalf("TOUCH = %d", n)
			}
			if v := c.Type(ctx, "a").Val(); v != "string" {
				t.Fatalf("TYPE = %q", v)
			}
			if v := c.Type(ctx, "nope").Val(); v != "none" {
				t.Fatalf("TYPE missing = %q", v)
			}
			if n := c.Del(ctx, "a", "a", "nope").Val(); n != 1 {
				t.Fatalf("DEL = %d", n)
			}
			if n := c.Unlink(ctx, "b").Val(); n != 1 {
				t.Fatalf("UNLINK = %d", n)
			}
		})
		t.Run("EXPIRE family", func(t *testing.T) {
			must(t, c.Set(ctx, "k", "v", 0).Err())
			if d := c.TTL(ctx, "k").Val(); d != -1 {
				t.Fatalf("TTL no expiry = %v", d)
			}
			if d := c.TTL(ctx, "missing").Val(); d != -2 {
				t.Fatalf("TTL missing = %v", d)
			}
			if ok := c.ExpireXX(ctx, "k", time.Minute).Val(); ok {
				t.Fatal("EXPIRE XX on key without TTL applied")
			}
			if ok := c.ExpireNX(ctx, "k", time.Minute).Val(); !ok {
				t.Fatal("EXPIRE NX failed")
			}
			if ok := c.ExpireGT(ctx, "k", 30*time.Second).Val(); ok {
				t.Fatal("EXPIRE GT with a smaller TTL applied")
			}
			if ok := c.ExpireLT(ctx, "k", 30*time.Second).Val(); !ok {
				t.Fatal("EXPIRE LT with a smaller TTL failed")
			}
			if d := c.TTL(ctx, "k").Val(); d != 30*time.Second {
				t.Fatalf("TTL = %v", d)
			}
			at := time.Now().Add(time.Hour).Truncate(time.Second)
			must(t, c.ExpireAt(ctx, "k", at).Err())
			if v := c.ExpireTime(ctx, "k").Val(); v != time.Duration(at.Unix())*time.Second {
				t.Fatalf("EXPIRETIME = %v want %v", v, at.Unix())
			}
			if v := c.Do(ctx, "PEXPIRETIME", "k").Val(); v != at.UnixMilli() {
				t.Fatalf("PEXPIRETIME = %v", v)
			}
			if ok := c.Persist(ctx, "k").Val(); !ok {
				t.Fatal("PERSIST failed")
			}
			if ok := c.Persist(ctx, "k").Val(); ok {
				t.Fatal("second PERSIST reported a change")
			}
			wantErr(t, c.Do(ctx, "EXPIRE", "k", "10", "NX", "XX").Err(), "ERR NX and XX, GT or LT options at the same time are not compatible")
			wantErr(t, c.Do(ctx, "EXPIRE", "k", "10", "GT", "LT").Err(), "ERR GT and LT options at the same time are not compatible")
			wantErr(t, c.Do(ctx, "EXPIRE", "k", "10", "YY").Err(), "ERR Unsupported option YY")
			wantErr(t, c.Do(ctx, "EXPIRE", "k", "9223372036854775807").Err(), "ERR invalid expire time in 'expire' command")
			if ok := c.Expire(ctx, "k", -time.Second).Val(); !ok || c.Exists(ctx, "k").Val() != 0 {
				t.Fatal("EXPIRE with a negative time must delete the key")
			}
		})
		t.Run("expiry is exact to the millisecond", func(t *testing.T) {
			must(t, c.Set(ctx, "short", "v", 60*time.Millisecond).Err())
			must(t, c.Set(ctx, "long", "v", 0).Err())
			if v := c.Get(ctx, "short").Val(); v != "v" {
				t.Fatal("key expired early")
			}
			time.Sleep(80 * time.Millisecond)
			if err := c.Get(ctx, "short").Err(); err != redis.Nil {
				t.Fatalf("expired key readable: %v", err)
			}
			if n := c.DBSize(ctx).Val(); n != 1 {
				t.Fatalf("DBSIZE counts expired key: %d", n)
			}
			keys, _, _ := c.Scan(ctx, 0, "*", 100).Result()
			if len(keys) != 1 || keys[0] != "long" {
				t.Fatalf("SCAN returns expired key: %v", keys)
			}
			if v := c.Keys(ctx, "*").Val(); len(v) != 1 {
				t.Fatalf("KEYS returns expired key: %v", v)
			}
			if n := c.Exists(ctx, "short").Val(); n != 0 {
				t.Fatal("EXISTS sees expired key")
			}
		})
		t.Run("SCAN KEYS RANDOMKEY", func(t *testing.T) {
			must(t, c.FlushDB(ctx).Err())
			want := map[string]bool{}
			for i := 0; i < 120; i++ {
				k := fmt.Sprintf("user:%d", i)
				want[k] = true
				must(t, c.Set(ctx, k, i, 0).Err())
			}
			must(t, c.Set(ctx, "other", "x", 0).Err())
			got := map[string]bool{}
			var cursor uint64
			for {
				keys, next, err := c.Scan(ctx, cursor, "user:*", 17).Result()
				must(t, err)
				for _, k := range keys {
					got[k] = true
				}
				if next == 0 {
					break
				}
				cursor = next
			}
			if len(got) != len(want) {
				t.Fatalf("SCAN found %d keys, want %d", len(got), len(want))
			}
			keys := c.Keys(ctx, "user:1?").Val()
			sort.Strings(keys)
			if len(keys) != 10 || keys[0] != "user:10" {
				t.Fatalf("KEYS user:1? = %v", keys)
			}
			if typed, _, _ := c.ScanType(ctx, 0, "*", 1000, "string").Result(); len(typed) != 121 {
				t.Fatalf("SCAN TYPE string = %d keys", len(typed))
			}
			if typed, _, _ := c.ScanType(ctx, 0, "*", 1000, "hash").Result(); len(typed) != 0 {
				t.Fatalf("SCAN TYPE hash = %v", typed)
			}
			wantErr(t, c.Do(ctx, "SCAN", "abc").Err(), "ERR invalid cursor")
			wantErr(t, c.Do(ctx, "SCAN", "0", "TYPE", "nosuch").Err(), "ERR unknown type name 'nosuch'")
			seen := map[string]bool{}
			for i := 0; i < 50; i++ {
				k := c.RandomKey(ctx).Val()
				if !want[k] && k != "other" {
					t.Fatalf("RANDOMKEY = %q, not a key", k)
				}
				seen[k] = true
			}
			if len(seen) < 5 {
				t.Fatalf("RANDOMKEY returned only %d distinct keys in 50 calls", len(seen))
			}
			must(t, c.FlushDB(ctx).Err())
			if err := c.RandomKey(ctx).Err(); err != redis.Nil {
				t.Fatalf("RANDOMKEY on empty db = %v", err)
			}
		})
		t.Run("RENAME COPY", func(t *testing.T) {
			must(t, c.Set(ctx, "src", "v", time.Hour).Err())
			must(t, c.Rename(ctx, "src", "dst").Err())
			if v := c.Get(ctx, "dst").Val(); v != "v" || c.Exists(ctx, "src").Val() != 0 {
				t.Fatal("RENAME did not move the key")
			}
			if d := c.TTL(ctx, "dst").Val(); d < 59*time.Minute {
				t.Fatalf("RENAME lost the TTL: %v", d)
			}
			wantErr(t, c.Rename(ctx, "src", "x").Err(), "ERR no such key")
			must(t, c.Set(ctx, "other", "o", 0).Err())
			if ok := c.RenameNX(ctx, "dst", "other").Val(); ok {
				t.Fatal("RENAMENX over an existing key")
			}
			if ok := c.Copy(ctx, "dst", "other", 0, false).Val(); ok != 0 {
				t.Fatal("COPY over an existing key without REPLACE")
			}
			if ok := c.Copy(ctx, "dst", "other", 0, true).Val(); ok != 1 || c.Get(ctx, "other").Val() != "v" {
				t.Fatal("COPY REPLACE failed")
			}
			wantErr(t, c.Do(ctx, "COPY", "dst", "dst").Err(), "ERR source and destination objects are the same")
			wantErr(t, c.Do(ctx, "COPY", "dst", "x", "DB", "1").Err(), "ERR DB index is out of range")
		})
		t.Run("OBJECT", func(t *testing.T) {
			must(t, c.MSet(ctx, "i", "123", "e", "abc").Err())
			if v := c.ObjectEncoding(ctx, "i").Val(); v != "int" {
				t.Fatalf("OBJECT ENCODING int = %q", v)
			}
			if v := c.ObjectEncoding(ctx, "e").Val(); v != "embstr" {
				t.Fatalf("OBJECT ENCODING embstr = %q", v)
			}
			if err := c.ObjectEncoding(ctx, "missing").Err(); err != redis.Nil {
				t.Fatalf("OBJECT ENCODING missing = %v", err)
			}
			wantErr(t, c.Do(ctx, "OBJECT", "FREQ", "i").Err(), "ERR An LFU maxmemory policy is not selected")
		})
		t.Run("FLUSHALL DBSIZE", func(t *testing.T) {
			must(t, c.FlushAll(ctx).Err())
			for i := 0; i < 10; i++ {
				must(t, c.Set(ctx, "f"+strconv.Itoa(i), "v", 0).Err())
			}
			if n := c.DBSize(ctx).Val(); n != 10 {
				t.Fatalf("DBSIZE = %d", n)
			}
			must(t, c.FlushAll(ctx).Err())
			if n := c.DBSize(ctx).Val(); n != 0 {
				t.Fatalf("DBSIZE after FLUSHALL = %d", n)
			}
		})
	})
}
