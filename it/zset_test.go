package it

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func members(zs []redis.Z) string {
	var parts []string
	for _, z := range zs {
		parts = append(parts, z.Member.(string)+"="+strconv.FormatFloat(z.Score, 'g', -1, 64))
	}
	return strings.Join(parts, ",")
}

func TestSortedSet(t *testing.T) {
	p := startBasalt(t)
	protocols(t, p, func(t *testing.T, c *redis.Client) {
		t.Run("ZADD flags and scores", func(t *testing.T) {
			if n := c.ZAdd(ctx, "z", redis.Z{Score: 1, Member: "a"}, redis.Z{Score: 2, Member: "b"}).Val(); n != 2 {
				t.Fatalf("ZADD = %d", n)
			}
			if n := c.ZAddArgs(ctx, "z", redis.ZAddArgs{GT: true, Ch: true, Members: []redis.Z{{Score: 0, Member: "a"}, {Score: 5, Member: "b"}}}).Val(); n != 1 {
				t.Fatalf("ZADD GT CH = %d", n)
			}
			if s := c.ZScore(ctx, "z", "b").Val(); s != 5 {
				t.Fatalf("ZSCORE b = %v", s)
			}
			if s := c.ZIncrBy(ctx, "z", 0.5, "a").Val(); s != 1.5 {
				t.Fatalf("ZINCRBY = %v", s)
			}
			if err := c.ZAddArgsIncr(ctx, "z", redis.ZAddArgs{NX: true, Members: []redis.Z{{Score: 1, Member: "a"}}}).Err(); err != redis.Nil {
				t.Fatalf("ZADD NX INCR on an existing member = %v", err)
			}
			wantErr(t, c.Do(ctx, "ZADD", "z", "nan", "x").Err(), "ERR value is not a valid float")
			wantErr(t, c.Do(ctx, "ZADD", "z", "NX", "XX", "1", "x").Err(), "ERR XX and NX options at the same time are not compatible")
			must(t, c.ZAdd(ctx, "inf", redis.Z{Score: math.Inf(1), Member: "top"}).Err())
			wantErr(t, c.ZIncrBy(ctx, "inf", math.Inf(-1), "top").Err(), "ERR resulting score is not a number (NaN)")
			if got := c.ZMScore(ctx, "z", "a", "nope", "b").Val(); len(got) != 3 || got[0] != 1.5 || got[2] != 5 {
				t.Fatalf("ZMSCORE = %v", got)
			}
		})
		t.Run("ranges", func(t *testing.T) {
			for i := 0; i < 20; i++ {
				must(t, c.ZAdd(ctx, "r", redis.Z{Score: float64(i), Member: "m" + strconv.Itoa(i)}).Err())
			}
			if got := c.ZRange(ctx, "r", 0, 2).Val(); strings.Join(got, ",") != "m0,m1,m2" {
				t.Fatalf("ZRANGE = %v", got)
			}
			if got := members(c.ZRevRangeWithScores(ctx, "r", 0, 1).Val()); got != "m19=19,m18=18" {
				t.Fatalf("ZREVRANGE WITHSCORES = %s", got)
			}
			if got := c.ZRangeByScore(ctx, "r", &redis.ZRangeBy{Min: "(5", Max: "8"}).Val(); strings.Join(got, ",") != "m6,m7,m8" {
				t.Fatalf("ZRANGEBYSCORE (5 8 = %v", got)
			}
			if got := c.ZRangeByScore(ctx, "r", &redis.ZRangeBy{Min: "-inf", Max: "+inf", Offset: 10, Count: 3}).Val(); strings.Join(got, ",") != "m10,m11,m12" {
				t.Fatalf("LIMIT 10 3 = %v", got)
			}
			if got := c.ZRevRangeByScore(ctx, "r", &redis.ZRangeBy{Min: "3", Max: "5"}).Val(); strings.Join(got, ",") != "m5,m4,m3" {
				t.Fatalf("ZREVRANGEBYSCORE = %v", got)
			}
			if got := c.ZRangeArgs(ctx, redis.ZRangeArgs{Key: "r", Start: "+inf", Stop: "15", ByScore: true, Rev: true, Count: 2}).Val(); strings.Join(got, ",") != "m19,m18" {
				t.Fatalf("ZRANGE BYSCORE REV LIMIT = %v", got)
			}
			if n := c.ZCount(ctx, "r", "5", "(10").Val(); n != 5 {
				t.Fatalf("ZCOUNT = %d", n)
			}
			if r := c.ZRank(ctx, "r", "m7").Val(); r != 7 {
				t.Fatalf("ZRANK = %d", r)
			}
			if r := c.ZRevRank(ctx, "r", "m7").Val(); r != 12 {
				t.Fatalf("ZREVRANK = %d", r)
			}
			if rs := c.ZRankWithScore(ctx, "r", "m3").Val(); rs.Rank != 3 || rs.Score != 3 {
				t.Fatalf("ZRANK WITHSCORE = %+v", rs)
			}
			if n := c.ZRangeStore(ctx, "stored", redis.ZRangeArgs{Key: "r", Start: 0, Stop: 4}).Val(); n != 5 {
				t.Fatalf("ZRANGESTORE = %d", n)
			}
			if n := c.ZRemRangeByScore(ctx, "r", "-inf", "(10").Val(); n != 10 {
				t.Fatalf("ZREMRANGEBYSCORE = %d", n)
			}
			if n := c.ZRemRangeByRank(ctx, "r", 0, 1).Val(); n != 2 || c.ZCard(ctx, "r").Val() != 8 {
				t.Fatalf("ZREMRANGEBYRANK = %d", n)
			}
			wantErr(t, c.Do(ctx, "ZRANGEBYSCORE", "r", "x", "1").Err(), "ERR min or max is not a float")
			wantErr(t, c.Do(ctx, "ZRANGE", "r", "0", "1", "LIMIT", "0", "1").Err(), "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
		})
		t.Run("negative zero is inside ranges from 0", func(t *testing.T) {
			must(t, c.Do(ctx, "ZADD", "nz", "-0", "neg", "0", "pos", "1", "one").Err())
			if got := c.ZRangeByScore(ctx, "nz", &redis.ZRangeBy{Min: "0", Max: "0"}).Val(); len(got) != 2 {
				t.Fatalf("ZRANGEBYSCORE 0 0 = %v: -0 must be included", got)
			}
			if n := c.ZCount(ctx, "nz", "(0", "+inf").Val(); n != 1 {
				t.Fatalf("ZCOUNT (0 +inf = %d", n)
			}
		})
		t.Run("lex", func(t *testing.T) {
			for _, m := range []string{"a", "b", "c", "d", "e"} {
				must(t, c.ZAdd(ctx, "lex", redis.Z{Score: 0, Member: m}).Err())
			}
			if got := c.ZRangeByLex(ctx, "lex", &redis.ZRangeBy{Min: "[b", Max: "(d"}).Val(); strings.Join(got, ",") != "b,c" {
				t.Fatalf("ZRANGEBYLEX = %v", got)
			}
			if got := c.ZRevRangeByLex(ctx, "lex", &redis.ZRangeBy{Min: "-", Max: "+", Count: 2}).Val(); strings.Join(got, ",") != "e,d" {
				t.Fatalf("ZREVRANGEBYLEX LIMIT = %v", got)
			}
			if n := c.ZLexCount(ctx, "lex", "(a", "[c").Val(); n != 2 {
				t.Fatalf("ZLEXCOUNT = %d", n)
			}
			if n := c.ZRemRangeByLex(ctx, "lex", "[d", "+").Val(); n != 2 {
				t.Fatalf("ZREMRANGEBYLEX = %d", n)
			}
		})
		t.Run("pop, random and combine", func(t *testing.T) {
			must(t, c.ZAdd(ctx, "p", redis.Z{Score: 1, Member: "a"}, redis.Z{Score: 2, Member: "b"}, redis.Z{Score: 3, Member: "c"}).Err())
			if got := members(c.ZPopMin(ctx, "p").Val()); got != "a=1" {
				t.Fatalf("ZPOPMIN = %s", got)
			}
			if got := members(c.ZPopMax(ctx, "p", 5).Val()); got != "c=3,b=2" {
				t.Fatalf("ZPOPMAX 5 = %s", got)
			}
			if c.Exists(ctx, "p").Val() != 0 {
				t.Fatal("a popped-empty sorted set must not exist")
			}
			must(t, c.ZAdd(ctx, "x", redis.Z{Score: 1, Member: "a"}, redis.Z{Score: 2, Member: "b"}).Err())
			must(t, c.ZAdd(ctx, "y", redis.Z{Score: 10, Member: "b"}, redis.Z{Score: 20, Member: "c"}).Err())
			must(t, c.SAdd(ctx, "s", "c", "d").Err())
			if got := members(c.ZUnionWithScores(ctx, redis.ZStore{Keys: []string{"x", "y", "s"}, Weights: []float64{1, 2, 3}}).Val()); got != "a=1,d=3,b=22,c=43" {
				t.Fatalf("ZUNION WEIGHTS = %s", got)
			}
			if got := members(c.ZInterWithScores(ctx, &redis.ZStore{Keys: []string{"x", "y"}, Aggregate: "MAX"}).Val()); got != "b=10" {
				t.Fatalf("ZINTER MAX = %s", got)
			}
			if got := c.ZDiff(ctx, "x", "y").Val(); strings.Join(got, ",") != "a" {
				t.Fatalf("ZDIFF = %v", got)
			}
			if n := c.ZInterStore(ctx, "dst", &redis.ZStore{Keys: []string{"x", "y"}}).Val(); n != 1 {
				t.Fatalf("ZINTERSTORE = %d", n)
			}
			if n := c.ZInterCard(ctx, 0, "x", "y").Val(); n != 1 {
				t.Fatalf("ZINTERCARD = %d", n)
			}
			if got := c.ZRandMember(ctx, "x", -5).Val(); len(got) != 5 {
				t.Fatalf("ZRANDMEMBER -5 = %v", got)
			}
			key, zs, err := c.ZMPop(ctx, "max", 1, "empty", "x").Result()
			if err != nil || key != "x" || members(zs) != "b=2" {
				t.Fatalf("ZMPOP = %s %v %v", key, zs, err)
			}
			seen := 0
			var cursor uint64
			for {
				items, next, err := c.ZScan(ctx, "y", cursor, "", 1).Result()
				must(t, err)
				seen += len(items) / 2
				if next == 0 {
					break
				}
				cursor = next
			}
			if seen != 2 {
				t.Fatalf("ZSCAN found %d members", seen)
			}
		})
		t.Run("versions and types", func(t *testing.T) {
			must(t, c.ZAdd(ctx, "v", redis.Z{Score: 1, Member: "old"}).Err())
			must(t, c.PExpire(ctx, "v", 20*time.Millisecond).Err())
			time.Sleep(40 * time.Millisecond)
			must(t, c.ZAdd(ctx, "v", redis.Z{Score: 2, Member: "new"}).Err())
			if got := c.ZRange(ctx, "v", 0, -1).Val(); strings.Join(got, ",") != "new" {
				t.Fatalf("re-created zset = %v", got)
			}
			must(t, c.ZAdd(ctx, "v", redis.Z{Score: 5, Member: "five"}).Err())
			must(t, c.Rename(ctx, "v", "moved").Err())
			must(t, c.Copy(ctx, "moved", "copied", 0, false).Err())
			for _, k := range []string{"moved", "copied"} {
				if got := c.ZRangeByScore(ctx, k, &redis.ZRangeBy{Min: "3", Max: "+inf"}).Val(); strings.Join(got, ",") != "five" {
					t.Fatalf("%s: score index after RENAME/COPY = %v", k, got)
				}
			}
			must(t, c.Rename(ctx, "moved", "v").Err())
			if typ := c.Type(ctx, "v").Val(); typ != "zset" {
				t.Fatalf("TYPE = %s", typ)
			}
			must(t, c.Set(ctx, "str", "x", 0).Err())
			wantErr(t, c.ZAdd(ctx, "str", redis.Z{Score: 1, Member: "a"}).Err(), "WRONGTYPE")
			wantErr(t, c.ZUnion(ctx, redis.ZStore{Keys: []string{"v", "str"}}).Err(), "WRONGTYPE")
		})
	})
}
