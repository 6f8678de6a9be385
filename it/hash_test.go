package it

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestHash(t *testing.T) {
	p := startBasalt(t)
	protocols(t, p, func(t *testing.T, c *redis.Client) {
		t.Run("HSET HGET HMGET HLEN", func(t *testing.T) {
			if n := c.HSet(ctx, "h", "a", "1", "b", "2", "a", "3").Val(); n != 2 {
				t.Fatalf("HSET = %d", n)
			}
			if v := c.HGet(ctx, "h", "a").Val(); v != "3" {
				t.Fatalf("HGET a = %q (last value of a repeated field wins)", v)
			}
			if err := c.HGet(ctx, "h", "nope").Err(); err != redis.Nil {
				t.Fatalf("HGET missing field = %v", err)
			}
			vals := c.HMGet(ctx, "h", "a", "nope", "b").Val()
			if vals[0] != "3" || vals[1] != nil || vals[2] != "2" {
				t.Fatalf("HMGET = %v", vals)
			}
			if n := c.HLen(ctx, "h").Val(); n != 2 {
				t.Fatalf("HLEN = %d", n)
			}
			if n := c.HLen(ctx, "missing").Val(); n != 0 {
				t.Fatalf("HLEN missing = %d", n)
			}
			bin := "\x00\xff\r\n"
			must(t, c.HSet(ctx, "h", bin, bin, "", "empty").Err())
			if v := c.HGet(ctx, "h", bin).Val(); v != bin {
				t.Fatalf("binary field = %q", v)
			}
			if v := c.HGet(ctx, "h", "").Val(); v != "empty" {
				t.Fatalf("empty field = %q", v)
			}
			wantErr(t, c.Do(ctx, "HSET", "h", "a").Err(), "ERR wrong number of arguments for 'hset' command")
			big := strings.Repeat("v", 1<<20)
			must(t, c.HSet(ctx, "h", "big", big).Err())
			must(t, c.RPush(ctx, "biglist", big, "small").Err())
			must(t, c.SAdd(ctx, "bigset", big).Err())
			if c.HGet(ctx, "h", "big").Val() != big || c.LIndex(ctx, "biglist", 0).Val() != big || !c.SIsMember(ctx, "bigset", big).Val() {
				t.Fatal("1 MB values inside collections did not round trip")
			}
		})
		t.Run("HSETNX HEXISTS HSTRLEN HDEL", func(t *testing.T) {
			must(t, c.HSet(ctx, "h2", "a", "hello").Err())
			if ok := c.HSetNX(ctx, "h2", "a", "x").Val(); ok {
				t.Fatal("HSETNX overwrote")
			}
			if ok := c.HSetNX(ctx, "h2", "b", "x").Val(); !ok {
				t.Fatal("HSETNX did not add")
			}
			if ok := c.HExists(ctx, "h2", "a").Val(); !ok {
				t.Fatal("HEXISTS")
			}
			if n := c.HStrLen(ctx, "h2", "a").Val(); n != 5 {
				t.Fatalf("HSTRLEN = %d", n)
			}
			if n := c.HDel(ctx, "h2", "a", "a", "nope").Val(); n != 1 {
				t.Fatalf("HDEL = %d", n)
			}
			if n := c.HDel(ctx, "h2", "b").Val(); n != 1 || c.Exists(ctx, "h2").Val() != 0 {
				t.Fatal("a hash emptied by HDEL must not exist")
			}
		})
		t.Run("HGETALL HKEYS HVALS", func(t *testing.T) {
			want := map[string]string{}
			for i := 0; i < 300; i++ {
				want["field:"+strconv.Itoa(i)] = "value:" + strconv.Itoa(i)
			}
			must(t, c.HSet(ctx, "big", want).Err())
			got := c.HGetAll(ctx, "big").Val()
			if len(got) != 300 || got["field:299"] != "value:299" {
				t.Fatalf("HGETALL: %d fields", len(got))
			}
			if n := len(c.HKeys(ctx, "big").Val()); n != 300 {
				t.Fatalf("HKEYS = %d", n)
			}
			if n := len(c.HVals(ctx, "big").Val()); n != 300 {
				t.Fatalf("HVALS = %d", n)
			}
			if got := c.HGetAll(ctx, "missing").Val(); len(got) != 0 {
				t.Fatalf("HGETALL missing = %v", got)
			}
		})
		t.Run("HINCRBY HINCRBYFLOAT", func(t *testing.T) {
			if n := c.HIncrBy(ctx, "hi", "n", 5).Val(); n != 5 {
				t.Fatalf("HINCRBY = %d", n)
			}
			if v := c.HIncrByFloat(ctx, "hi", "f", 10.5).Val(); v != 10.5 {
				t.Fatalf("HINCRBYFLOAT = %v", v)
			}
			if v := c.Do(ctx, "HINCRBYFLOAT", "hi", "f", "0.1").Val(); v != "10.6" {
				t.Fatalf("HINCRBYFLOAT = %v", v)
			}
			must(t, c.HSet(ctx, "hi", "s", "abc").Err())
			wantErr(t, c.HIncrBy(ctx, "hi", "s", 1).Err(), "ERR hash value is not an integer")
			wantErr(t, c.HIncrByFloat(ctx, "hi", "s", 1).Err(), "ERR hash value is not a float")
			wantErr(t, c.Do(ctx, "HINCRBYFLOAT", "hi", "f", "inf").Err(), "ERR value is NaN or Infinity")
			must(t, c.HSet(ctx, "hi", "max", "9223372036854775807").Err())
			wantErr(t, c.HIncrBy(ctx, "hi", "max", 1).Err(), "ERR increment or decrement would overflow")
		})
		t.Run("HSCAN", func(t *testing.T) {
			for i := 0; i < 100; i++ {
				must(t, c.HSet(ctx, "hs", fmt.Sprintf("k%03d", i), i).Err())
			}
			seen := map[string]bool{}
			var cursor uint64
			for {
				items, next, err := c.HScan(ctx, "hs", cursor, "k0*", 7).Result()
				must(t, err)
				for i := 0; i < len(items); i += 2 {
					if seen[items[i]] {
						t.Fatalf("HSCAN returned %s twice", items[i])
					}
					seen[items[i]] = true
				}
				if next == 0 {
					break
				}
				cursor = next
			}
			if len(seen) != 100 {
				t.Fatalf("HSCAN MATCH k0* found %d fields", len(seen))
			}
			fields, _, err := c.HScanNoValues(ctx, "hs", 0, "k00*", 1000).Result()
			if err != nil || len(fields) != 10 {
				t.Fatalf("HSCAN NOVALUES = %v %v", fields, err)
			}
		})
		t.Run("HRANDFIELD", func(t *testing.T) {
			must(t, c.HSet(ctx, "hr", "a", "1", "b", "2", "c", "3").Err())
			if f := c.HRandField(ctx, "hr", 1).Val(); len(f) != 1 || (f[0] != "a" && f[0] != "b" && f[0] != "c") {
				t.Fatalf("HRANDFIELD 1 = %v", f)
			}
			if f := c.HRandField(ctx, "hr", 10).Val(); len(f) != 3 {
				t.Fatalf("HRANDFIELD 10 = %v (distinct fields, at most the hash's size)", f)
			}
			if f := c.HRandField(ctx, "hr", -10).Val(); len(f) != 10 {
				t.Fatalf("HRANDFIELD -10 = %v (repetitions allowed)", f)
			}
			pairs := c.HRandFieldWithValues(ctx, "hr", 2).Val()
			if len(pairs) != 2 || (pairs[0].Key == "a" && pairs[0].Value != "1") {
				t.Fatalf("HRANDFIELD WITHVALUES = %v", pairs)
			}
			if err := c.Do(ctx, "HRANDFIELD", "missing").Err(); err != redis.Nil {
				t.Fatalf("HRANDFIELD missing = %v", err)
			}
		})
		t.Run("versions: DEL and expiry never resurrect fields", func(t *testing.T) {
			must(t, c.HSet(ctx, "v", "old1", "x", "old2", "y").Err())
			must(t, c.Del(ctx, "v").Err())
			must(t, c.HSet(ctx, "v", "new", "z").Err())
			if got := c.HGetAll(ctx, "v").Val(); len(got) != 1 || got["new"] != "z" {
				t.Fatalf("re-created hash sees old fields: %v", got)
			}
			if n := c.HLen(ctx, "v").Val(); n != 1 {
				t.Fatalf("HLEN = %d", n)
			}
			must(t, c.PExpire(ctx, "v", 30*time.Millisecond).Err())
			time.Sleep(50 * time.Millisecond)
			must(t, c.HSet(ctx, "v", "after", "1").Err())
			if got := c.HKeys(ctx, "v").Val(); len(got) != 1 || got[0] != "after" {
				t.Fatalf("hash re-created after expiry sees old fields: %v", got)
			}
			must(t, c.Set(ctx, "v", "string now", 0).Err())
			wantErr(t, c.HSet(ctx, "v", "again", "1").Err(), "WRONGTYPE")
		})
		t.Run("types, RENAME and COPY", func(t *testing.T) {
			must(t, c.HSet(ctx, "src", "f", "v").Err())
			if typ := c.Type(ctx, "src").Val(); typ != "hash" {
				t.Fatalf("TYPE = %s", typ)
			}
			must(t, c.Rename(ctx, "src", "dst").Err())
			if v := c.HGet(ctx, "dst", "f").Val(); v != "v" {
				t.Fatalf("renamed hash field = %q", v)
			}
			must(t, c.Copy(ctx, "dst", "cp", 0, false).Err())
			must(t, c.HSet(ctx, "cp", "g", "w").Err())
			if n := c.HLen(ctx, "dst").Val(); n != 1 {
				t.Fatal("writing the copy changed the original")
			}
			if keys, _, _ := c.ScanType(ctx, 0, "*", 100, "hash").Result(); len(keys) < 2 {
				t.Fatalf("SCAN TYPE hash = %v", keys)
			}
			must(t, c.Set(ctx, "str", "x", 0).Err())
			wantErr(t, c.HGet(ctx, "str", "f").Err(), "WRONGTYPE")
			wantErr(t, c.HSet(ctx, "str", "f", "v").Err(), "WRONGTYPE")
			wantErr(t, c.Get(ctx, "dst").Err(), "WRONGTYPE")
			wantErr(t, c.Incr(ctx, "dst").Err(), "WRONGTYPE")
		})
	})
}
