package it

import (
	"strings"
	"testing"
)

// edgeCommands are replies issue 19 found to differ from Redis 7: each
// line runs on redis-server and Basalt, in order, and the replies must be
// the same bytes.
var edgeCommands = []string{
	"RPUSH l a b c",
	// Past LPOP's count, Redis 7 reports the arity; ZPOPMIN a syntax error.
	"LPOP l 1 1", "RPOP l 1 x", "LPOP l 1", "LPOP l -1", "LPOP nolist 1",
	"ZADD z 0 a 0 b 0 c", "ZPOPMIN z 1 1", "ZPOPMAX z 1 1",
	// SUBSTR of a missing key is an empty string, not nil.
	"SUBSTR nokey 0 -1", "SUBSTR nokey 5 1", "SET s hello", "SUBSTR s 1 3", "SUBSTR s 5 1",
	// ZLEXCOUNT with min above max counts nothing.
	"ZLEXCOUNT z [c [a", "ZLEXCOUNT z (c (a", "ZLEXCOUNT z + -", "ZLEXCOUNT z [c -", "ZLEXCOUNT nokey [c [a",
	"ZLEXCOUNT z x y",
	// A score bound that is no number.
	"ZRANGEBYSCORE z x 1", "ZRANGEBYSCORE z 1 x", "ZRANGEBYSCORE z (x 1", "ZRANGEBYSCORE z (1 (x",
	"ZREVRANGEBYSCORE z x 1", "ZCOUNT z x 1", "ZREMRANGEBYSCORE z 1 nan", "ZRANGE z x 1 BYSCORE",
	// -0 is stored, printed and ordered as 0.
	"ZADD zz -0 m", "ZSCORE zz m", "ZADD zz 0 n -0 a 0 b", "ZRANGE zz 0 -1 WITHSCORES",
	"ZINCRBY zz -0 m", "ZSCORE zz m", "ZADD zi INCR -0 x", "ZSCORE zi x", "ZMSCORE zz m n",
	"ZADD zo 1 q", "ZINCRBY zo -1 q", "ZRANGE zo 0 -1 WITHSCORES",
	"ZUNIONSTORE zu 1 zz WEIGHTS -1", "ZRANGE zu 0 -1 WITHSCORES", "ZRANGEBYSCORE zz -0 0 WITHSCORES",
	"ZRANGEBYSCORE zz (-0 +inf", "ZRANK zz n", "ZCOUNT zz 0 0",
	// HSETNX of one field (Kvrocks's several: TestKvrocksDiff).
	"HSET h f1 v1", "HSETNX h f2 v2", "HSETNX h f1 x", "HSETNX h f1", "HGETALL h",
	// KEYS patterns that are no glob Redis could mean take what they can
	// (Kvrocks 2.10 refuses every one that is not a prefix).
	"MSET pa 1 pab 2 pa[ 3", "KEYS [", "KEYS pa[", "KEYS pa[b-", "KEYS pa\\", "KEYS pa[\\", "KEYS pab[]",
	"KEYS p?b", "KEYS *b", "KEYS pa[[]", "KEYS p*[", "SCAN 0 MATCH pa[ COUNT 100", "SCAN 0 MATCH pa[b- COUNT 100",
	// COPY onto itself.
	"COPY s s REPLACE", "COPY s s", "COPY nokey nokey REPLACE",
	// A draw of a whole collection, in an order both agree on.
	"DEL h", "HSET h a 1 b 2 c 3", "HRANDFIELD h 3", "HRANDFIELD h 10 WITHVALUES",
	"SADD si 3 1 2", "SRANDMEMBER si 3", "SRANDMEMBER si 10", "SPOP si 10",
	"ZADD zr 1 a 2 b 3 c", "ZRANDMEMBER zr 0", "ZRANDMEMBER nokey 5",
}

// TestRedisEdgeReplies runs edgeCommands against redis-server and Basalt.
func TestRedisEdgeReplies(t *testing.T) {
	r, b := dial(t, startRedis(t)), dial(t, startBasalt(t))
	for _, cmd := range edgeCommands {
		args := strings.Fields(cmd)
		if want, got := r.do(args...), b.do(args...); got != want {
			t.Errorf("%s: Basalt %q, redis-server %q", cmd, got, want)
		}
	}
}

// TestKvrocksWholeDraw checks what Redis leaves to the implementation: a
// draw of a whole hash, set or sorted set (HRANDFIELD, SRANDMEMBER, SPOP,
// ZRANDMEMBER with a count at least the size) comes in the collection's
// order, not shuffled; Kvrocks, which keeps collections in the same order
// as Basalt, is the oracle.
func TestKvrocksWholeDraw(t *testing.T) {
	k, b := dial(t, startKvrocks(t)), dial(t, startBasalt(t))
	for _, cmd := range []string{
		"HSET h c 1 a 2 b 3 e 5 d 4", "HRANDFIELD h 5", "HRANDFIELD h 100", "HRANDFIELD h 5 WITHVALUES",
		"SADD s c a b e d", "SRANDMEMBER s 5", "SRANDMEMBER s 9", "SPOP s 10",
		"ZADD z 3 c 1 a 2 b", "ZRANDMEMBER z 3", "ZRANDMEMBER z 7",
	} {
		args := strings.Fields(cmd)
		if want, got := k.do(args...), b.do(args...); got != want {
			t.Errorf("%s: Basalt %q, Kvrocks %q", cmd, got, want)
		}
	}
}
