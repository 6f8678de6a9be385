package it

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestList(t *testing.T) {
	p := startBasalt(t)
	protocols(t, p, func(t *testing.T, c *redis.Client) {
		t.Run("push pop range", func(t *testing.T) {
			if n := c.RPush(ctx, "l", "a", "b", "c").Val(); n != 3 {
				t.Fatalf("RPUSH = %d", n)
			}
			if n := c.LPush(ctx, "l", "x", "y").Val(); n != 5 {
				t.Fatalf("LPUSH = %d", n)
			}
			if got := strings.Join(c.LRange(ctx, "l", 0, -1).Val(), ","); got != "y,x,a,b,c" {
				t.Fatalf("LRANGE = %s", got)
			}
			if got := strings.Join(c.LRange(ctx, "l", -2, 100).Val(), ","); got != "b,c" {
				t.Fatalf("LRANGE -2 100 = %s", got)
			}
			if v := c.LPop(ctx, "l").Val(); v != "y" {
				t.Fatalf("LPOP = %s", v)
			}
			if got := c.RPopCount(ctx, "l", 2).Val(); strings.Join(got, ",") != "c,b" {
				t.Fatalf("RPOP 2 = %v", got)
			}
			if n := c.LLen(ctx, "l").Val(); n != 2 {
				t.Fatalf("LLEN = %d", n)
			}
			if n := c.LPushX(ctx, "missing", "a").Val(); n != 0 || c.Exists(ctx, "missing").Val() != 0 {
				t.Fatal("LPUSHX created a list")
			}
			must(t, c.Del(ctx, "l").Err())
			if err := c.LPop(ctx, "l").Err(); err != redis.Nil {
				t.Fatalf("LPOP missing = %v", err)
			}
		})
		t.Run("LINDEX LSET LINSERT LREM LTRIM LPOS", func(t *testing.T) {
			must(t, c.RPush(ctx, "l2", "a", "b", "a", "c", "a").Err())
			if v := c.LIndex(ctx, "l2", -2).Val(); v != "c" {
				t.Fatalf("LINDEX -2 = %s", v)
			}
			must(t, c.LSet(ctx, "l2", 1, "B").Err())
			wantErr(t, c.LSet(ctx, "l2", 10, "x").Err(), "ERR index out of range")
			wantErr(t, c.LSet(ctx, "nokey", 0, "x").Err(), "ERR no such key")
			if n := c.LInsertBefore(ctx, "l2", "c", "before-c").Val(); n != 6 {
				t.Fatalf("LINSERT = %d", n)
			}
			if pos := c.LPos(ctx, "l2", "a", redis.LPosArgs{Rank: -1}).Val(); pos != 5 {
				t.Fatalf("LPOS RANK -1 = %d", pos)
			}
			if all := c.LPosCount(ctx, "l2", "a", 0, redis.LPosArgs{}).Val(); len(all) != 3 {
				t.Fatalf("LPOS COUNT 0 = %v", all)
			}
			if n := c.LRem(ctx, "l2", -2, "a").Val(); n != 2 {
				t.Fatalf("LREM = %d", n)
			}
			if got := strings.Join(c.LRange(ctx, "l2", 0, -1).Val(), ","); got != "a,B,before-c,c" {
				t.Fatalf("after LREM: %s", got)
			}
			must(t, c.LTrim(ctx, "l2", 1, 2).Err())
			if got := strings.Join(c.LRange(ctx, "l2", 0, -1).Val(), ","); got != "B,before-c" {
				t.Fatalf("after LTRIM: %s", got)
			}
		})
		t.Run("LMOVE RPOPLPUSH LMPOP", func(t *testing.T) {
			must(t, c.RPush(ctx, "src", "1", "2", "3").Err())
			if v := c.LMove(ctx, "src", "dst", "LEFT", "RIGHT").Val(); v != "1" {
				t.Fatalf("LMOVE = %s", v)
			}
			if v := c.RPopLPush(ctx, "src", "dst").Val(); v != "3" {
				t.Fatalf("RPOPLPUSH = %s", v)
			}
			if got := strings.Join(c.LRange(ctx, "dst", 0, -1).Val(), ","); got != "3,1" {
				t.Fatalf("dst = %s", got)
			}
			must(t, c.LMove(ctx, "dst", "dst", "LEFT", "RIGHT").Err())
			if got := strings.Join(c.LRange(ctx, "dst", 0, -1).Val(), ","); got != "1,3" {
				t.Fatalf("rotated = %s", got)
			}
			key, vals, err := c.LMPop(ctx, "right", 5, "empty", "dst").Result()
			if err != nil || key != "dst" || strings.Join(vals, ",") != "3,1" {
				t.Fatalf("LMPOP = %s %v %v", key, vals, err)
			}
			if c.Exists(ctx, "dst").Val() != 0 {
				t.Fatal("LMPOP of every element must delete the list")
			}
		})
		t.Run("long list and versions", func(t *testing.T) {
			vals := make([]any, 1000)
			for i := range vals {
				vals[i] = strconv.Itoa(i)
			}
			must(t, c.RPush(ctx, "long", vals...).Err())
			if got := c.LRange(ctx, "long", 500, 599).Val(); len(got) != 100 || got[0] != "500" || got[99] != "599" {
				t.Fatalf("LRANGE 500 599 = %d items", len(got))
			}
			if v := c.LIndex(ctx, "long", 999).Val(); v != "999" {
				t.Fatalf("LINDEX 999 = %s", v)
			}
			must(t, c.PExpire(ctx, "long", 20*time.Millisecond).Err())
			time.Sleep(40 * time.Millisecond)
			must(t, c.RPush(ctx, "long", "fresh").Err())
			if got := c.LRange(ctx, "long", 0, -1).Val(); len(got) != 1 || got[0] != "fresh" {
				t.Fatalf("list re-created after expiry = %v", got)
			}
			must(t, c.Set(ctx, "str", "x", 0).Err())
			wantErr(t, c.LPush(ctx, "str", "x").Err(), "WRONGTYPE")
			wantErr(t, c.LRange(ctx, "str", 0, 1).Err(), "WRONGTYPE")
		})
	})
}
