package it

import (
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// must fails the test on an unexpected error.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wantErr checks that err is a Redis error starting with prefix.
func wantErr(t *testing.T, err error, prefix string) {
	t.Helper()
	if err == nil || !strings.HasPrefix(err.Error(), prefix) {
		t.Fatalf("error = %v, want %q", err, prefix)
	}
}

func TestStrings(t *testing.T) {
	p := startBasalt(t)
	protocols(t, p, func(t *testing.T, c *redis.Client) {
		t.Run("SET and GET", func(t *testing.T) {
			must(t, c.Set(ctx, "k", "v", 0).Err())
			if v := c.Get(ctx, "k").Val(); v != "v" {
				t.Fatalf("GET = %q", v)
			}
			if err := c.Get(ctx, "missing").Err(); err != redis.Nil {
				t.Fatalf("GET missing = %v", err)
			}
			bin := "a\x00b\xffc\r\n"
			must(t, c.Set(ctx, "bin", bin, 0).Err())
			if v := c.Get(ctx, "bin").Val(); v != bin {
				t.Fatalf("binary GET = %q", v)
			}
			must(t, c.Set(ctx, "empty", "", 0).Err())
			if v, err := c.Get(ctx, "empty").Result(); err != nil || v != "" {
				t.Fatalf("empty GET = %q %v", v, err)
			}
			big := strings.Repeat("x", 1<<20)
			must(t, c.Set(ctx, "big", big, 0).Err())
			if v := c.Get(ctx, "big").Val(); v != big {
				t.Fatal("1 MB value did not round trip")
			}
		})
		t.Run("SET options", func(t *testing.T) {
			if ok := c.SetNX(ctx, "nx", "1", 0).Val(); !ok {
				t.Fatal("SETNX on absent key failed")
			}
			if ok := c.SetNX(ctx, "nx", "2", 0).Val(); ok {
				t.Fatal("SETNX on present key succeeded")
			}
			if err := c.Do(ctx, "SET", "absent", "1", "XX").Err(); err != redis.Nil {
				t.Fatalf("SET XX on absent = %v", err)
			}
			if v := c.SetArgs(ctx, "nx", "3", redis.SetArgs{Get: true}).Val(); v != "1" {
				t.Fatalf("SET GET = %q", v)
			}
			must(t, c.Set(ctx, "ttl", "v", time.Hour).Err())
			must(t, c.SetArgs(ctx, "ttl", "w", redis.SetArgs{KeepTTL: true}).Err())
			if d := c.TTL(ctx, "ttl").Val(); d < 59*time.Minute {
				t.Fatalf("KEEPTTL lost TTL: %v", d)
			}
			must(t, c.Do(ctx, "SET", "px", "v", "PX", "100000").Err())
			if d := c.PTTL(ctx, "px").Val(); d <= 99*time.Second || d > 100*time.Second {
				t.Fatalf("PX TTL = %v", d)
			}
			wantErr(t, c.Do(ctx, "SET", "k", "v", "EX", "0").Err(), "ERR invalid expire time in 'set' command")
			wantErr(t, c.Do(ctx, "SET", "k", "v", "EX", "abc").Err(), "ERR value is not an integer or out of range")
			wantErr(t, c.Do(ctx, "SET", "k", "v", "NX", "XX").Err(), "ERR syntax error")
			wantErr(t, c.Do(ctx, "SET", "k", "v", "EX", "10", "PX", "10").Err(), "ERR syntax error")
			wantErr(t, c.Do(ctx, "SET", "k", "v", "EX", "9223372036854775807").Err(), "ERR invalid expire time")
		})
		t.Run("SETEX PSETEX GETSET GETDEL GETEX", func(t *testing.T) {
			must(t, c.SetEx(ctx, "se", "v", 10*time.Second).Err())
			if d := c.TTL(ctx, "se").Val(); d != 10*time.Second {
				t.Fatalf("SETEX TTL = %v", d)
			}
			wantErr(t, c.Do(ctx, "SETEX", "se", "-1", "v").Err(), "ERR invalid expire time in 'setex' command")
			must(t, c.Do(ctx, "PSETEX", "pse", "5000", "v").Err())
			if v := c.GetSet(ctx, "se", "new").Val(); v != "v" {
				t.Fatalf("GETSET = %q", v)
			}
			if d := c.TTL(ctx, "se").Val(); d != -1 {
				t.Fatalf("GETSET kept TTL: %v", d)
			}
			if v := c.GetDel(ctx, "se").Val(); v != "new" {
				t.Fatalf("GETDEL = %q", v)
			}
			if n := c.Exists(ctx, "se").Val(); n != 0 {
				t.Fatal("GETDEL did not delete")
			}
			must(t, c.Set(ctx, "gx", "v", 0).Err())
			if v := c.GetEx(ctx, "gx", time.Minute).Val(); v != "v" {
				t.Fatalf("GETEX = %q", v)
			}
			if d := c.TTL(ctx, "gx").Val(); d != time.Minute {
				t.Fatalf("GETEX EX: TTL = %v", d)
			}
			must(t, c.Do(ctx, "GETEX", "gx", "PERSIST").Err())
			if d := c.TTL(ctx, "gx").Val(); d != -1 {
				t.Fatalf("GETEX PERSIST: TTL = %v", d)
			}
			wantErr(t, c.Do(ctx, "GETEX", "gx", "PERSIST", "EX", "1").Err(), "ERR syntax error")
		})
		t.Run("MGET MSET MSETNX", func(t *testing.T) {
			must(t, c.MSet(ctx, "a", "1", "b", "2").Err())
			vals := c.MGet(ctx, "a", "missing", "b").Val()
			if len(vals) != 3 || vals[0] != "1" || vals[1] != nil || vals[2] != "2" {
				t.Fatalf("MGET = %v", vals)
			}
			if ok := c.MSetNX(ctx, "a", "x", "c", "3").Val(); ok {
				t.Fatal("MSETNX with an existing key wrote")
			}
			if n := c.Exists(ctx, "c").Val(); n != 0 {
				t.Fatal("MSETNX wrote part of its keys")
			}
			wantErr(t, c.Do(ctx, "MSET", "a", "1", "b").Err(), "ERR wrong number of arguments for 'mset' command")
		})
		t.Run("APPEND STRLEN GETRANGE SETRANGE", func(t *testing.T) {
			if n := c.Append(ctx, "s", "Hello").Val(); n != 5 {
				t.Fatalf("APPEND = %d", n)
			}
			if n := c.Append(ctx, "s", " World").Val(); n != 11 {
				t.Fatalf("APPEND = %d", n)
			}
			if n := c.StrLen(ctx, "s").Val(); n != 11 {
				t.Fatalf("STRLEN = %d", n)
			}
			for _, tc := range []struct {
				start, end int64
				want       string
			}{{0, 4, "Hello"}, {-5, -1, "World"}, {0, -1, "Hello World"}, {5, 3, ""}, {-1, -5, ""}, {100, 200, ""}, {-100, 2, "Hel"}} {
				if v := c.GetRange(ctx, "s", tc.start, tc.end).Val(); v != tc.want {
					t.Errorf("GETRANGE %d %d = %q, want %q", tc.start, tc.end, v, tc.want)
				}
			}
			if n := c.SetRange(ctx, "s", 6, "Redis").Val(); n != 11 {
				t.Fatalf("SETRANGE = %d", n)
			}
			if n := c.SetRange(ctx, "pad", 3, "x").Val(); n != 4 {
				t.Fatalf("SETRANGE padding = %d", n)
			}
			if v := c.Get(ctx, "pad").Val(); v != "\x00\x00\x00x" {
				t.Fatalf("padded = %q", v)
			}
			if n := c.SetRange(ctx, "nothing", 5, "").Val(); n != 0 || c.Exists(ctx, "nothing").Val() != 0 {
				t.Fatal("SETRANGE with empty value created a key")
			}
			wantErr(t, c.SetRange(ctx, "s", -1, "x").Err(), "ERR offset is out of range")
			wantErr(t, c.SetRange(ctx, "s", 536870912, "x").Err(), "ERR string exceeds maximum allowed size (proto-max-bulk-len)")
		})
		t.Run("INCR family", func(t *testing.T) {
			if n := c.Incr(ctx, "n").Val(); n != 1 {
				t.Fatalf("INCR = %d", n)
			}
			if n := c.IncrBy(ctx, "n", 10).Val(); n != 11 {
				t.Fatalf("INCRBY = %d", n)
			}
			if n := c.Decr(ctx, "n").Val(); n != 10 {
				t.Fatalf("DECR = %d", n)
			}
			if n := c.DecrBy(ctx, "n", 20).Val(); n != -10 {
				t.Fatalf("DECRBY = %d", n)
			}
			must(t, c.Set(ctx, "max", "9223372036854775807", 0).Err())
			wantErr(t, c.Incr(ctx, "max").Err(), "ERR increment or decrement would overflow")
			wantErr(t, c.Do(ctx, "DECRBY", "n", "-9223372036854775808").Err(), "ERR decrement would overflow")
			must(t, c.Set(ctx, "str", "abc", 0).Err())
			wantErr(t, c.Incr(ctx, "str").Err(), "ERR value is not an integer or out of range")
			must(t, c.Set(ctx, "sp", " 1", 0).Err())
			wantErr(t, c.Incr(ctx, "sp").Err(), "ERR value is not an integer or out of range")
			if v := c.Do(ctx, "INCRBYFLOAT", "f", "10.5").Val(); v != "10.5" {
				t.Fatalf("INCRBYFLOAT = %v", v)
			}
			if v := c.Do(ctx, "INCRBYFLOAT", "f", "0.1").Val(); v != "10.6" {
				t.Fatalf("INCRBYFLOAT = %v", v)
			}
			// Long double arithmetic, exactly as redis-server prints it.
			if v := c.Do(ctx, "INCRBYFLOAT", "f", "5.0e3").Val(); v != "5010.60000000000000009" {
				t.Fatalf("INCRBYFLOAT = %v", v)
			}
			wantErr(t, c.Do(ctx, "INCRBYFLOAT", "f", "inf").Err(), "ERR increment would produce NaN or Infinity")
			wantErr(t, c.Do(ctx, "INCRBYFLOAT", "str", "1").Err(), "ERR value is not a valid float")
		})
		t.Run("LCS", func(t *testing.T) {
			must(t, c.MSet(ctx, "key1", "ohmytext", "key2", "mynewtext").Err())
			if v := c.Do(ctx, "LCS", "key1", "key2").Val(); v != "mytext" {
				t.Fatalf("LCS = %v", v)
			}
			if v := c.Do(ctx, "LCS", "key1", "key2", "LEN").Val(); v != int64(6) {
				t.Fatalf("LCS LEN = %v", v)
			}
			res, err := c.LCS(ctx, &redis.LCSQuery{Key1: "key1", Key2: "key2", Idx: true, MinMatchLen: 4, WithMatchLen: true}).Result()
			if err != nil || res.Len != 6 || len(res.Matches) != 1 || res.Matches[0].Key1.Start != 4 || res.Matches[0].Key1.End != 7 || res.Matches[0].MatchLen != 4 {
				t.Fatalf("LCS IDX = %+v %v", res, err)
			}
			wantErr(t, c.Do(ctx, "LCS", "key1", "key2", "LEN", "IDX").Err(), "ERR If you want both the length and indexes, please just use IDX.")
		})
	})
}

func TestWrongArityAndUnknownCommand(t *testing.T) {
	p := startBasalt(t)
	c := p.client(t, 2)
	wantErr(t, c.Do(ctx, "GET").Err(), "ERR wrong number of arguments for 'get' command")
	wantErr(t, c.Do(ctx, "get", "a", "b").Err(), "ERR wrong number of arguments for 'get' command")
	wantErr(t, c.Do(ctx, "NOSUCH", "x", "y").Err(), "ERR unknown command 'NOSUCH', with args beginning with: 'x' 'y'")
	wantErr(t, c.Do(ctx, "CONFIG", "NOPE").Err(), "ERR unknown subcommand 'NOPE'. Try CONFIG HELP.")
	if v := c.Ping(ctx).Val(); v != "PONG" {
		t.Fatalf("server stopped serving after errors: %v", v)
	}
}
