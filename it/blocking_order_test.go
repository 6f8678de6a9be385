package it

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// blockingServers runs f against a redis-server, the oracle, and against
// Basalt.
func blockingServers(t *testing.T, f func(t *testing.T, p *proc)) {
	t.Run("redis", func(t *testing.T) { f(t, startRedis(t)) })
	t.Run("basalt", func(t *testing.T) { f(t, startBasalt(t)) })
}

// TestBlockingChain chains clients with BRPOPLPUSH l0 l1, l1 l2, ...: one
// push at the head must run down the whole chain, each client passing the
// element to the next, as in Redis.
func TestBlockingChain(t *testing.T) {
	blockingServers(t, func(t *testing.T, p *proc) {
		const n = 12
		admin := p.client(t, 2)
		replies := make(chan string, n)
		for i := 0; i < n; i++ {
			c := redis.NewClient(&redis.Options{Addr: p.Addr(), Protocol: 2, DisableIdentity: true, ReadTimeout: -1})
			t.Cleanup(func() { c.Close() })
			must(t, c.Ping(ctx).Err())
			go func() {
				v, err := c.BRPopLPush(ctx, "l"+strconv.Itoa(i), "l"+strconv.Itoa(i+1), 0).Result()
				replies <- strconv.Itoa(i) + ":" + v + errString(err)
			}()
			waitBlocked(t, admin, i+1)
		}
		must(t, admin.LPush(ctx, "l0", "x").Err())
		for i := 0; i < n; i++ {
			select {
			case r := <-replies:
				if r[len(r)-2:] != ":x" {
					t.Errorf("reply %s", r)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("the chain stopped after %d of %d clients; lists: %v", i, n, chainLists(admin, n))
			}
		}
		if got := chainLists(admin, n); got != "[] [] [] [] [] [] [] [] [] [] [] [] [x]" {
			t.Errorf("lists after the chain: %s", got)
		}
	})
}

func chainLists(c *redis.Client, n int) string {
	out := ""
	for i := 0; i <= n; i++ {
		if i > 0 {
			out += " "
		}
		out += "[" + joinStrings(c.LRange(ctx, "l"+strconv.Itoa(i), 0, -1).Val()) + "]"
	}
	return out
}

func joinStrings(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}

// blockingScripts are scenarios of Redis's own test suite (unit/type/list,
// unit/type/zset) and of issue 19, as steps:
//
//	name> CMD args @n   send CMD on connection name without reading the
//	                    reply, then wait until n clients are blocked
//	name: CMD args      send CMD and read its reply
//	name<               read the reply of a command sent with >, or
//	                    note that none comes within half a second
//
// Each runs against redis-server and Basalt; the replies must be the same.
var blockingScripts = map[string][]string{
	"circular BRPOPLPUSH": {
		"rd1> BRPOPLPUSH list1 list2 0 @1", "rd2> BRPOPLPUSH list2 list1 0 @2",
		"r: RPUSH list1 foo", "r: LRANGE list1 0 -1", "r: LRANGE list2 0 -1", "rd1<", "rd2<",
	},
	"self-referential BRPOPLPUSH": {
		"rd> BRPOPLPUSH blist blist 0 @1", "r: RPUSH blist foo", "r: LRANGE blist 0 -1", "rd<",
	},
	"linked LMOVEs": {
		"rd1> BLMOVE list1 list2 RIGHT LEFT 0 @1", "rd2> BLMOVE list2 list3 LEFT RIGHT 0 @2",
		"r: RPUSH list1 foo", "r: LRANGE list1 0 -1", "r: LRANGE list2 0 -1", "r: LRANGE list3 0 -1", "rd1<", "rd2<",
	},
	"a chain of BRPOPLPUSH": {
		"c1> BRPOPLPUSH l0 l1 0 @1", "c2> BRPOPLPUSH l1 l2 0 @2", "c3> BRPOPLPUSH l2 l3 0 @3",
		"c4> BRPOPLPUSH l3 l4 0 @4", "c5> BRPOPLPUSH l4 l0 0 @5",
		"r: RPUSH l0 a b", "r: LRANGE l0 0 -1", "r: LRANGE l1 0 -1", "r: LRANGE l4 0 -1",
		"c1<", "c2<", "c3<", "c4<", "c5<",
	},
	"BRPOPLPUSH with multiple blocked clients": {
		"r: SET target1 nolist", "rd1> BRPOPLPUSH blist target1 0 @1", "rd2> BRPOPLPUSH blist target2 0 @2",
		"r: LPUSH blist foo", "rd1<", "rd2<", "r: LRANGE target2 0 -1",
	},
	"BRPOPLPUSH maintains order of elements after failure": {
		"r: SET target nolist", "rd> BRPOPLPUSH blist target 0 @1", "r: RPUSH blist a b c", "rd<", "r: LRANGE blist 0 -1",
	},
	"BLPOP, LPUSH + DEL should not awake blocked client": {
		"rd> BLPOP list 0 @1", "r: MULTI", "r: LPUSH list a", "r: DEL list", "r: EXEC",
		"rd<", "r: DEL list", "r: LPUSH list b", "rd<",
	},
	"BLPOP, LPUSH + DEL + SET should not awake blocked client": {
		"rd> BLPOP list 0 @1", "r: MULTI", "r: LPUSH list a", "r: DEL list", "r: SET list foo", "r: EXEC",
		"rd<", "r: DEL list", "r: LPUSH list b", "rd<",
	},
	"BZPOPMIN, ZADD + DEL + SET should not awake blocked client": {
		"rd> BZPOPMIN zset 0 @1", "r: MULTI", "r: ZADD zset 0 foo", "r: DEL zset", "r: SET zset foo", "r: EXEC",
		"rd<", "r: DEL zset", "r: ZADD zset 1 bar", "rd<",
	},
	"MULTI/EXEC is isolated from the point of view of BLPOP": {
		"rd> BLPOP blist 0 @1", "r: MULTI", "r: LPUSH blist a", "r: LPUSH blist b", "r: LPUSH blist c", "r: EXEC", "rd<",
	},
	"BLPOP serves the key that became ready": {
		"rd> BLPOP a b 0 @1", "r: MULTI", "r: LPUSH b x", "r: LPUSH a y", "r: EXEC", "rd<", "r: LRANGE a 0 -1",
	},
	"BLPOP with the same key several times": {
		"rd> BLPOP list1 list2 list2 list1 0 @1", "r: LPUSH list1 a", "rd<",
		"rd> BLPOP list1 list2 list2 list1 0 @1", "r: LPUSH list2 b", "rd<",
	},
	"waiters are served in the order they blocked": {
		"c1> BLPOP q 0 @1", "c2> BRPOP q 0 @2", "c3> BLPOP q 0 @3",
		"r: RPUSH q a b c d", "c1<", "c2<", "c3<", "r: LRANGE q 0 -1",
	},
	"a blocked client is served before the next command runs": {
		"rd> BLPOP q 0 @1", "r: RPUSH q x", "r2: LPOP q", "rd<",
		"rd> BLPOP q 0 @1", "r: RPUSH q y", "r: LPOP q", "rd<",
	},
	"BLMOVE with a client BLPOPing the target list": {
		"rd1> BLMOVE blist target LEFT RIGHT 0 @1", "rd2> BLPOP target 0 @2", "r: RPUSH blist foo",
		"rd1<", "rd2<", "r: EXISTS target",
	},
	"BLMPOP and BZMPOP": {
		"rd1> BLMPOP 0 2 a b RIGHT COUNT 2 @1", "rd2> BZMPOP 0 1 z MAX @2",
		"r: RPUSH b 1 2 3", "r: ZADD z 1 m 2 n", "rd1<", "rd2<", "r: LRANGE b 0 -1",
	},
}

func TestBlockingLikeRedis(t *testing.T) {
	for name, script := range blockingScripts {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each script waits out its blocking timeouts
			var outputs [2][]string
			for i, p := range []*proc{startRedis(t), startBasalt(t)} {
				outputs[i] = runBlockingScript(t, p, script)
			}
			for i := range outputs[0] {
				if outputs[0][i] != outputs[1][i] {
					t.Errorf("step %q:\nredis:  %q\nbasalt: %q", script[i], outputs[0][i], outputs[1][i])
				}
			}
		})
	}
}

// runBlockingScript runs a script of blockingScripts and returns what
// each step read.
func runBlockingScript(t *testing.T, p *proc, script []string) []string {
	conns := map[string]*rawConn{}
	conn := func(name string) *rawConn {
		if conns[name] == nil {
			conns[name] = dial(t, p)
		}
		return conns[name]
	}
	admin := p.client(t, 2)
	var out []string
	for _, step := range script {
		switch {
		case strings.HasSuffix(step, "<"):
			out = append(out, conn(strings.TrimSuffix(step, "<")).replyWithin(500*time.Millisecond))
		case strings.Contains(step, "> "):
			name, rest, _ := strings.Cut(step, "> ")
			args := strings.Fields(rest)
			blocked, _ := strconv.Atoi(strings.TrimPrefix(args[len(args)-1], "@"))
			conn(name).send(resp(args[:len(args)-1]...))
			waitBlocked(t, admin, blocked)
			out = append(out, "")
		default:
			name, rest, _ := strings.Cut(step, ": ")
			out = append(out, conn(name).do(strings.Fields(rest)...))
		}
	}
	return out
}

// resp encodes a command.
func resp(args ...string) string {
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b.WriteString("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")
	}
	return b.String()
}

// replyWithin reads one reply, or returns "(no reply)" when none starts
// within d.
func (r *rawConn) replyWithin(d time.Duration) string {
	r.c.SetReadDeadline(time.Now().Add(d))
	if _, err := r.rd.Peek(1); err != nil {
		return "(no reply)"
	}
	return r.reply()
}
