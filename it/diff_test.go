package it

import (
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The differential test runs the same seeded random command stream against
// basalt and redis-server and requires the same reply to every command.
// DIFF_SEED and DIFF_STEPS override the seeds and the stream length.

var diffKeys = []string{"k0", "k1", "k2", "k3", "k4", "k5", "{t}a", "{t}b"}

var diffValues = []string{
	"", "0", "1", "-1", "10", "42", "3.5", "-2.25", "abc", "hello world", "\x00\xff\r\n",
	"9223372036854775807", "-9223372036854775808", "1e3", "0x10", " 1", "007", "+5",
	"99999999999999999999", "nan", "inf", "-inf", "0.1", "5.0e3", "ohmytext", "mynewtext",
}

// diffGen builds commands; now is the fixed base for absolute expiry times.
// keys, when set, restricts the keys used; only, when set, replaces next.
type diffGen struct {
	r    *rand.Rand
	now  int64
	keys []string
	only func() []string
}

func (g *diffGen) key() string {
	if g.keys != nil {
		return g.keys[g.r.Intn(len(g.keys))]
	}
	return diffKeys[g.r.Intn(len(diffKeys))]
}
func (g *diffGen) value() string { return diffValues[g.r.Intn(len(diffValues))] }
func (g *diffGen) pick(s ...string) string {
	return s[g.r.Intn(len(s))]
}

// seconds and millis are relative expiries: long enough that no key
// expires during the run, or not positive, which deletes at once.
func (g *diffGen) seconds() string {
	return g.pick("100", "1000", "0", "-5", "abc", "9223372036854775807")
}
func (g *diffGen) millis() string { return g.pick("100000", "500000", "0", "-1") }
func (g *diffGen) unixSeconds() string {
	return g.pick("1", strconv.FormatInt(g.now/1000+5000, 10), strconv.FormatInt(g.now/1000+9000, 10))
}
func (g *diffGen) unixMillis() string {
	return g.pick("1", strconv.FormatInt(g.now+5000000, 10), strconv.FormatInt(g.now+7000000, 10))
}
func (g *diffGen) int() string {
	return g.pick("0", "1", "-1", "5", "-3", "100", "-100", "9223372036854775807", "-9223372036854775808", "x", "2.5")
}

// expireOpts draws EXPIRE flags. GT and LT only go with absolute times:
// with relative ones their outcome depends on the milliseconds between two
// commands, which differ between the two servers.
func (g *diffGen) expireOpts(absolute bool) []string {
	flags := []string{"NX", "XX", "nx"}
	if absolute {
		flags = append(flags, "GT", "LT")
	}
	var out []string
	for i := 0; i < g.r.Intn(3); i++ {
		out = append(out, g.pick(flags...))
	}
	return out
}

func (g *diffGen) setOpts() []string {
	var out []string
	for i := 0; i < g.r.Intn(4); i++ {
		switch g.r.Intn(8) {
		case 0:
			out = append(out, g.pick("NX", "XX"))
		case 1:
			out = append(out, "GET")
		case 2:
			out = append(out, "EX", g.seconds())
		case 3:
			out = append(out, "PX", g.millis())
		case 4:
			out = append(out, "EXAT", g.unixSeconds())
		case 5:
			out = append(out, "PXAT", g.unixMillis())
		case 6:
			out = append(out, "KEEPTTL")
		default:
			out = append(out, g.pick("EX", "bogus"))
		}
	}
	return out
}

var diffFields = []string{"f0", "f1", "f2", "f3", "", "\x00f"}

func (g *diffGen) field() string { return diffFields[g.r.Intn(len(diffFields))] }

// next draws a command: two thirds string and key commands, one third
// collection commands, all on the same keys so that type errors occur too.
func (g *diffGen) next() []string {
	if g.only != nil {
		return g.only()
	}
	switch g.r.Intn(10) {
	case 0:
		return g.nextHash()
	case 1:
		return g.nextSet()
	case 2, 3:
		return g.nextList()
	case 4, 5:
		return g.nextZSet()
	}
	return g.nextStringOrKey()
}

// score draws a ZADD score. -0 is left out: Redis orders -0 and 0 as equal
// scores, while the on-disk encoding sorts -0 first.
func (g *diffGen) score() string {
	return g.pick("0", "1", "1.5", "-2", "2", "3", "inf", "-inf", "10", "0.1", "abc")
}

func (g *diffGen) scoreBound() string {
	return g.pick("-inf", "+inf", "0", "1", "(1", "2", "(2", "1.5", "(-2", "10", "x")
}

func (g *diffGen) lexBound() string {
	return g.pick("-", "+", "[f1", "(f1", "[f2", "(f3", "[", "f1")
}

func (g *diffGen) nextZSet() []string {
	k, m := g.key(), g.field()
	switch g.r.Intn(30) {
	case 0, 1, 2, 3:
		cmd := []string{"ZADD", k}
		for i := 0; i < g.r.Intn(3); i++ {
			cmd = append(cmd, g.pick("NX", "XX", "GT", "LT", "CH", "INCR"))
		}
		return append(cmd, g.score(), m, g.score(), g.field())
	case 4:
		return []string{"ZADD", k, "INCR", g.score(), m}
	case 5:
		return []string{"ZINCRBY", k, g.score(), m}
	case 6:
		return []string{"ZREM", k, m, g.field()}
	case 7:
		return []string{g.pick("ZCARD", "ZPOPMIN", "ZPOPMAX"), k}
	case 8:
		return []string{"ZSCORE", k, m}
	case 9:
		return []string{"ZMSCORE", k, m, g.field()}
	case 10:
		return []string{g.pick("ZRANK", "ZREVRANK"), k, m}
	case 11:
		return []string{"ZCOUNT", k, g.scoreBound(), g.scoreBound()}
	case 12, 13:
		cmd := []string{"ZRANGE", k, g.index(), g.index()}
		if g.r.Intn(2) == 0 {
			cmd = append(cmd, "WITHSCORES")
		}
		if g.r.Intn(3) == 0 {
			cmd = append(cmd, "REV")
		}
		return cmd
	case 14, 15:
		cmd := []string{g.pick("ZRANGEBYSCORE", "ZREVRANGEBYSCORE"), k, g.scoreBound(), g.scoreBound()}
		if g.r.Intn(2) == 0 {
			cmd = append(cmd, "WITHSCORES")
		}
		if g.r.Intn(2) == 0 {
			cmd = append(cmd, "LIMIT", g.pick("0", "1", "-1"), g.pick("1", "2", "-1", "0"))
		}
		return cmd
	case 16:
		return []string{"ZRANGE", k, g.scoreBound(), g.scoreBound(), "BYSCORE", g.pick("REV", "WITHSCORES", "LIMIT")}
	case 17:
		return []string{g.pick("ZREVRANGE", "ZREMRANGEBYRANK"), k, g.index(), g.index()}
	case 18:
		return []string{"ZREMRANGEBYSCORE", k, g.scoreBound(), g.scoreBound()}
	case 19:
		return []string{g.pick("ZPOPMIN", "ZPOPMAX"), k, g.pick("0", "1", "2", "10", "-1")}
	case 20:
		cmd := []string{g.pick("ZUNION", "ZINTER"), "2", k, g.key()}
		if g.r.Intn(2) == 0 {
			cmd = append(cmd, "WEIGHTS", g.pick("1", "2", "-1", "x"), g.pick("0.5", "3"))
		}
		if g.r.Intn(2) == 0 {
			cmd = append(cmd, "AGGREGATE", g.pick("SUM", "MIN", "MAX", "AVG"))
		}
		return append(cmd, "WITHSCORES")
	case 21:
		return []string{g.pick("ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"), k, "2", g.key(), g.key()}
	case 22:
		return []string{"ZDIFF", g.pick("2", "1", "0", "5"), k, g.key(), "WITHSCORES"}
	case 23:
		return []string{"ZINTERCARD", g.pick("2", "1", "0"), k, g.key()}
	case 24:
		return []string{"ZRANGESTORE", g.key(), k, g.index(), g.index()}
	case 25:
		return []string{"ZMPOP", g.pick("1", "2"), k, g.key(), g.pick("MIN", "MAX"), "COUNT", g.pick("1", "3")}
	case 26:
		return []string{"ZRANDMEMBER", k, g.pick("1", "-3", "10", "0"), g.pick("WITHSCORES", "WITHSCORES", "x")}
	case 27:
		return []string{"ZSCAN", k, "0", "COUNT", "1000"}
	default:
		return g.nextLex()
	}
}

// nextLex works on one key whose members all score 0, where lex ranges are
// defined.
func (g *diffGen) nextLex() []string {
	const k = "lex"
	switch g.r.Intn(7) {
	case 0, 1:
		return []string{"ZADD", k, "0", g.field(), "0", g.field()}
	case 2:
		return []string{g.pick("ZRANGEBYLEX", "ZREVRANGEBYLEX"), k, g.lexBound(), g.lexBound()}
	case 3:
		return []string{"ZRANGEBYLEX", k, g.lexBound(), g.lexBound(), "LIMIT", g.pick("0", "1"), g.pick("1", "-1")}
	case 4:
		return []string{"ZLEXCOUNT", k, g.lexBound(), g.lexBound()}
	case 5:
		return []string{"ZREMRANGEBYLEX", k, g.lexBound(), g.lexBound()}
	default:
		return []string{"ZRANGE", k, g.lexBound(), g.lexBound(), "BYLEX", g.pick("REV", "LIMIT", "WITHSCORES")}
	}
}

func (g *diffGen) index() string {
	return g.pick("0", "1", "2", "-1", "-2", "5", "-10", "100", "x")
}

func (g *diffGen) nextList() []string {
	k, e := g.key(), g.field()
	switch g.r.Intn(22) {
	case 0, 1, 2:
		return []string{g.pick("LPUSH", "RPUSH"), k, e, g.field(), g.field()}
	case 3:
		return []string{g.pick("LPUSHX", "RPUSHX"), k, e}
	case 4, 5:
		return []string{g.pick("LPOP", "RPOP"), k}
	case 6:
		return []string{g.pick("LPOP", "RPOP"), k, g.pick("0", "1", "2", "10", "-1", "x")}
	case 7, 8:
		return []string{"LRANGE", k, g.index(), g.index()}
	case 9:
		return []string{"LLEN", k}
	case 10:
		return []string{"LINDEX", k, g.index()}
	case 11:
		return []string{"LSET", k, g.index(), e}
	case 12:
		return []string{"LINSERT", k, g.pick("BEFORE", "AFTER", "middle"), g.field(), e}
	case 13:
		return []string{"LREM", k, g.pick("0", "1", "2", "-1", "-2", "x"), e}
	case 14:
		return []string{"LTRIM", k, g.index(), g.index()}
	case 15:
		cmd := []string{"LPOS", k, e}
		for i := 0; i < g.r.Intn(3); i++ {
			cmd = append(cmd, g.pick("RANK", "COUNT", "MAXLEN", "junk"), g.pick("1", "2", "-1", "0", "3", "-2"))
		}
		return cmd
	case 16:
		return []string{"LMOVE", k, g.key(), g.pick("LEFT", "RIGHT"), g.pick("LEFT", "RIGHT", "up")}
	case 17:
		return []string{"RPOPLPUSH", k, g.key()}
	case 18:
		cmd := []string{"LMPOP", g.pick("1", "2", "0"), k, g.key(), g.pick("LEFT", "RIGHT", "up")}
		if g.r.Intn(2) == 0 {
			cmd = append(cmd, "COUNT", g.pick("1", "3", "0"))
		}
		return cmd
	default:
		return []string{"LRANGE", k, "0", "-1"}
	}
}

func (g *diffGen) nextSet() []string {
	k, m := g.key(), g.field()
	switch g.r.Intn(16) {
	case 0, 1, 2:
		return []string{"SADD", k, m, g.field(), g.field()}
	case 3:
		return []string{"SREM", k, m, g.field()}
	case 4:
		return []string{g.pick("SMEMBERS", "SCARD"), k}
	case 5:
		return []string{"SISMEMBER", k, m}
	case 6:
		return []string{"SMISMEMBER", k, m, g.field()}
	case 7:
		return []string{g.pick("SINTER", "SUNION", "SDIFF"), k, g.key(), g.key()}
	case 8:
		return []string{g.pick("SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"), k, g.key(), g.key()}
	case 9:
		return []string{"SINTERCARD", g.pick("2", "0", "3", "x"), k, g.key(), g.pick("LIMIT", "junk"), g.pick("1", "0", "-1")}
	case 10:
		return []string{"SMOVE", k, g.key(), m}
	case 11:
		// SPOP removes members at random, so only counts that leave both
		// servers with the same set are used: none, or all of them (there
		// are six possible members).
		return []string{"SPOP", k, g.pick("0", "10", "-1", "x")}
	case 12:
		return []string{"SRANDMEMBER", k, g.pick("0", "2", "-3", "100", "x")}
	case 13:
		return []string{"SSCAN", k, "0", "COUNT", "1000"}
	default:
		return []string{"SINTER", k}
	}
}

func (g *diffGen) nextHash() []string {
	k, f, v := g.key(), g.field(), g.value()
	switch g.r.Intn(18) {
	case 0, 1, 2:
		return []string{g.pick("HSET", "HMSET"), k, f, v, g.field(), g.value()}
	case 3:
		return []string{"HSETNX", k, f, v}
	case 4, 5:
		return []string{"HGET", k, f}
	case 6:
		return []string{"HMGET", k, f, g.field(), g.field()}
	case 7:
		return []string{"HDEL", k, f, g.field()}
	case 8:
		return []string{g.pick("HLEN", "HKEYS", "HVALS", "HGETALL"), k}
	case 9:
		return []string{g.pick("HSTRLEN", "HEXISTS"), k, f}
	case 10:
		return []string{"HINCRBY", k, f, g.int()}
	case 11:
		return []string{"HINCRBYFLOAT", k, f, g.pick("0.1", "1.5", "-2.25", "3e2", "abc", "10", "1e400", "inf")}
	case 12:
		return []string{"HRANDFIELD", k, g.pick("0", "1", "3", "-4", "100", "x"), g.pick("WITHVALUES", "WITHVALUES", "junk")}
	case 13:
		return []string{"HRANDFIELD", k}
	case 14:
		return []string{"HSCAN", k, "0", "COUNT", "1000"}
	case 15:
		return []string{"HSET", k, f}
	default:
		return []string{"HGETALL", k}
	}
}

func (g *diffGen) nextStringOrKey() []string {
	k, v := g.key(), g.value()
	switch g.r.Intn(40) {
	case 0, 1, 2:
		return append([]string{"SET", k, v}, g.setOpts()...)
	case 3, 4:
		return []string{"GET", k}
	case 5:
		return []string{"MGET", k, g.key(), g.key()}
	case 6:
		return []string{"MSET", k, v, g.key(), g.value()}
	case 7:
		return []string{"MSETNX", k, v, g.key(), g.value()}
	case 8:
		return []string{g.pick("SETNX", "GETSET"), k, v}
	case 9:
		return []string{"SETEX", k, g.seconds(), v}
	case 10:
		return []string{"PSETEX", k, g.millis(), v}
	case 11:
		return []string{"GETDEL", k}
	case 12:
		opts := [][]string{{}, {"PERSIST"}, {"EX", g.seconds()}, {"PX", g.millis()}, {"EXAT", g.unixSeconds()}, {"PXAT", g.unixMillis()}, {"PERSIST", "EX", "10"}, {"EX"}}
		return append([]string{"GETEX", k}, opts[g.r.Intn(len(opts))]...)
	case 13:
		return []string{"APPEND", k, v}
	case 14:
		return []string{"STRLEN", k}
	case 15, 16:
		return []string{g.pick("INCR", "DECR"), k}
	case 17:
		return []string{g.pick("INCRBY", "DECRBY"), k, g.int()}
	case 18:
		return []string{"INCRBYFLOAT", k, g.pick("0.1", "1.5", "-2.25", "3e2", "1e-5", "abc", "10", "0x10", "-0.1", "1e400")}
	case 19:
		return []string{g.pick("GETRANGE", "SUBSTR"), k, g.int(), g.int()}
	case 20:
		return []string{"SETRANGE", k, g.pick("0", "1", "5", "-1", "x", "12"), v}
	case 21:
		cmd := []string{"LCS", k, g.key()}
		switch g.r.Intn(5) {
		case 0:
			cmd = append(cmd, "LEN")
		case 1:
			cmd = append(cmd, "IDX")
		case 2:
			cmd = append(cmd, "IDX", "MINMATCHLEN", g.pick("0", "2", "-1"), "WITHMATCHLEN")
		case 3:
			cmd = append(cmd, "LEN", "IDX")
		}
		return cmd
	case 22, 23:
		return []string{g.pick("DEL", "UNLINK"), k, g.key()}
	case 24:
		return []string{g.pick("EXISTS", "TOUCH"), k, g.key(), k}
	case 25:
		return []string{"TYPE", k}
	case 26:
		return append([]string{g.pick("EXPIRE", "expire"), k, g.seconds()}, g.expireOpts(false)...)
	case 27:
		return append([]string{"PEXPIRE", k, g.millis()}, g.expireOpts(false)...)
	case 28:
		return append([]string{"EXPIREAT", k, g.unixSeconds()}, g.expireOpts(true)...)
	case 29:
		return append([]string{"PEXPIREAT", k, g.unixMillis()}, g.expireOpts(true)...)
	case 30, 31:
		return []string{g.pick("TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME"), k}
	case 32:
		return []string{"PERSIST", k}
	case 33:
		return []string{g.pick("RENAME", "RENAMENX"), k, g.key()}
	case 34:
		if g.r.Intn(2) == 0 {
			return []string{"COPY", k, g.key(), "REPLACE"}
		}
		return []string{"COPY", k, g.key()}
	case 35:
		// Not DBSIZE: redis-server counts keys whose TTL has passed until its
		// expiry cycle removes them, while basalt's count is exact.
		return []string{"KEYS", "*"}
	case 36:
		return []string{"KEYS", g.pick("*", "k*", "{t}*", "k[0-2]", "?1")}
	case 37:
		return []string{"GET"}
	case 38:
		return []string{"SET", k}
	default:
		return []string{"ECHO", v}
	}
}

// tolerance is how far two replies of a time-reading command may differ.
var tolerance = map[string]int64{"TTL": 1, "PTTL": 100, "EXPIRETIME": 1, "PEXPIRETIME": 100}

// unordered lists commands whose replies have no defined order: they are
// compared as sorted lists (a map or a flat field/value list as sorted
// "field=value" items).
var unordered = map[string]bool{
	"KEYS": true, "HKEYS": true, "HVALS": true, "HGETALL": true, "HSCAN": true,
	"SMEMBERS": true, "SINTER": true, "SUNION": true, "SDIFF": true, "SSCAN": true, "ZSCAN": true,
}

// random lists commands that pick elements at random: only the number of
// items in their reply is compared.
var random = map[string]bool{"HRANDFIELD": true, "SRANDMEMBER": true, "SPOP": true, "ZRANDMEMBER": true}

func normalize(cmd []string, v any, err error) any {
	if err == redis.Nil {
		return "(nil)"
	}
	if err != nil {
		return "ERR:" + err.Error()
	}
	name := strings.ToUpper(cmd[0])
	switch {
	case random[name] && len(cmd) == 2:
		return fmt.Sprintf("one element: %v", v != nil)
	case random[name]:
		switch list := v.(type) {
		case []any:
			return fmt.Sprintf("%d items", len(list))
		case map[any]struct{}:
			return fmt.Sprintf("%d items", len(list))
		}
	case name == "HSCAN" || name == "SSCAN" || name == "ZSCAN":
		if list, ok := v.([]any); ok && len(list) == 2 {
			return []any{list[0], sortedItems(name, list[1])}
		}
	case unordered[name]:
		return sortedItems(name, v)
	}
	return v
}

// sortedItems renders a list or map reply as sorted strings.
func sortedItems(name string, v any) []string {
	var items []string
	switch x := v.(type) {
	case map[any]any:
		for k, val := range x {
			items = append(items, fmt.Sprint(k)+"="+fmt.Sprint(val))
		}
	case map[any]struct{}:
		for k := range x {
			items = append(items, fmt.Sprint(k))
		}
	case []any:
		pairs := name == "HGETALL" || name == "HSCAN" || name == "ZSCAN"
		for i := 0; i < len(x); i++ {
			if pairs && i+1 < len(x) {
				items = append(items, fmt.Sprint(x[i])+"="+fmt.Sprint(x[i+1]))
				i++
				continue
			}
			items = append(items, fmt.Sprint(x[i]))
		}
	}
	sort.Strings(items)
	return items
}

func sameReply(cmd []string, a, b any) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	tol, timed := tolerance[strings.ToUpper(cmd[0])]
	x, okA := a.(int64)
	y, okB := b.(int64)
	if !timed || !okA || !okB || x < 0 || y < 0 {
		return false
	}
	d := x - y
	return d <= tol && d >= -tol
}

// txTracker follows MULTI in a stream, so that EXEC's array of replies is
// compared reply by reply, each normalized for its own command.
type txTracker struct {
	open   bool
	queued [][]string
	exec   [][]string // the commands of the EXEC being compared
}

// track notes the effect of cmd, given the oracle's reply; it reports
// whether cmd is an EXEC whose replies follow the queued commands.
func (tx *txTracker) track(cmd []string, v any, err error) bool {
	switch name := strings.ToUpper(cmd[0]); {
	case name == "MULTI" && err == nil:
		tx.open, tx.queued = true, nil
	case name == "DISCARD" && tx.open:
		tx.open = false
	case name == "EXEC" && tx.open:
		tx.open, tx.exec = false, tx.queued
		return true
	case tx.open && v == "QUEUED":
		tx.queued = append(tx.queued, cmd)
	}
	return false
}

// same compares EXEC's normalized replies, each as its own command's
// (PTTL's clock readings within their tolerance).
func (tx *txTracker) same(a, b any) bool {
	x, okA := a.([]any)
	y, okB := b.([]any)
	if !okA || !okB || len(x) != len(y) || len(x) != len(tx.exec) {
		return reflect.DeepEqual(a, b)
	}
	for i := range x {
		if !sameReply(tx.exec[i], x[i], y[i]) {
			return false
		}
	}
	return true
}

func (tx *txTracker) normalize(v any, err error) any {
	list, ok := v.([]any)
	if err != nil || !ok || len(list) != len(tx.exec) {
		return normalize([]string{"EXEC"}, v, err)
	}
	out := make([]any, len(list))
	for i, item := range list {
		itemErr, _ := item.(error)
		if itemErr != nil {
			item = nil
		}
		out[i] = normalize(tx.exec[i], item, itemErr)
	}
	return out
}

func TestDifferentialStringsAndKeys(t *testing.T) {
	runDifferential(t, func(g *diffGen) {})
}

// TestDifferentialLongLists keeps list commands on two keys, so that lists
// grow long enough for LINSERT and LREM to shift either side.
func TestDifferentialLongLists(t *testing.T) {
	runDifferential(t, func(g *diffGen) {
		g.keys = []string{"l1", "l2"}
		g.only = g.nextList
	})
}

// TestDifferentialSortedSets keeps sorted-set commands on two keys, so
// that ranges, limits and the combining commands see populated sets.
func TestDifferentialSortedSets(t *testing.T) {
	runDifferential(t, func(g *diffGen) {
		g.keys = []string{"z1", "z2"}
		g.only = g.nextZSet
	})
}

// runDifferential runs the seeded streams; setup adjusts each generator.
func runDifferential(t *testing.T, setup func(g *diffGen)) {
	seeds := []int64{1, 2, 3, 4}
	steps := 1500
	if s := os.Getenv("DIFF_SEED"); s != "" {
		n, _ := strconv.ParseInt(s, 10, 64)
		seeds = []int64{n}
	}
	if s := os.Getenv("DIFF_STEPS"); s != "" {
		steps, _ = strconv.Atoi(s)
	}
	basalt := startBasalt(t)
	oracle := startRedis(t)
	for _, seed := range seeds {
		proto := 2 + int(seed%2)
		t.Run(fmt.Sprintf("seed=%d/RESP%d", seed, proto), func(t *testing.T) {
			b, o := basalt.client(t, proto), oracle.client(t, proto)
			must(t, b.FlushAll(ctx).Err())
			must(t, o.FlushAll(ctx).Err())
			g := &diffGen{r: rand.New(rand.NewSource(seed)), now: time.Now().UnixMilli()}
			setup(g)
			var history []string
			tx := &txTracker{}
			for i := 0; i < steps; i++ {
				cmd := g.next()
				args := make([]any, len(cmd))
				for j, a := range cmd {
					args[j] = a
				}
				bv, berr := b.Do(ctx, args...).Result()
				ov, oerr := o.Do(ctx, args...).Result()
				history = append(history, fmt.Sprintf("%q", cmd))
				got, want := normalize(cmd, bv, berr), normalize(cmd, ov, oerr)
				same := sameReply(cmd, got, want)
				if tx.track(cmd, ov, oerr) {
					got, want = tx.normalize(bv, berr), tx.normalize(ov, oerr)
					same = tx.same(got, want)
				}
				if !same {
					from := max(0, len(history)-15)
					t.Fatalf("step %d: %q\nbasalt:       %#v\nredis-server: %#v\nlast commands:\n%s",
						i, cmd, got, want, strings.Join(history[from:], "\n"))
				}
			}
		})
	}
}
