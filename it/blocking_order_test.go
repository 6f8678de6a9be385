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
//	name<<              read the reply of a command sent with >, however
//	                    long a loaded machine takes (active expiry)
//	name~ CMD args      send CMD and read its reply, which differs by
//	                    server (HELLO): it is not compared
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

	// Redis 7.0 releases a blocked XREADGROUP whose stream goes away
	// (UNBLOCKED) or whose group does (NOGROUP), however it goes; a stream
	// recreated with its group before the waiter looks keeps it waiting.
	"XREADGROUP released when its stream is deleted": {
		groupOnS, blockOnS, "r: DEL s", "rd<",
		groupOnS, blockOnS, "r: UNLINK s", "rd<",
		groupOnS, blockOnS, "r: RENAME s t", "rd<", "r: DEL t",
		groupOnS, "r: XGROUP CREATE t g $ MKSTREAM",
		"rd> XREADGROUP GROUP g c BLOCK 0 STREAMS s t > > @1", "r: DEL t", "rd<",
		blockOnS, "r: EXPIRE s 0", "rd<",
	},
	"XREADGROUP released when its stream is overwritten": {
		"r: SET o v", "r: SADD set m",
		groupOnS, blockOnS, "r: SET s v", "rd<", "r: DEL s",
		groupOnS, blockOnS, "r: RENAME o s", "rd<", "r: SET o v", "r: DEL s",
		groupOnS, blockOnS, "r: COPY o s REPLACE", "rd<", "r: DEL s",
		groupOnS, blockOnS, "r: SUNIONSTORE s set", "rd<", "r: DEL s",
		groupOnS, blockOnS, "r: SUNIONSTORE s nothing", "rd<",
	},
	"XREADGROUP released when its stream is flushed": {
		groupOnS, blockOnS, "r: FLUSHDB", "rd<",
		groupOnS, blockOnS, "r: FLUSHALL", "rd<",
		groupOnS, blockOnS, "r: FLUSHALL ASYNC", "rd<",
		groupOnS, blockOnS, "r: MULTI", "r: FLUSHDB", "r: EXEC", "rd<",
		groupOnS, blockOnS, "r: MULTI", "r: FLUSHALL", "r: XGROUP CREATE s g $ MKSTREAM", "r: EXEC", "rd<",
		"r: XADD s 1-1 f v", "rd<",
	},
	"XREADGROUP released when its stream expires": {
		groupOnS, blockOnS, "r: PEXPIRE s 200", "rd<<",
		groupOnS, blockOnS, "r: PEXPIREAT s 1", "rd<",
		groupOnS, "r: PEXPIRE s 300", blockOnS, "rd<<",
		groupOnS, blockOnS, "r: PEXPIRE s 200", "r: PERSIST s", "rd<", "r: DEL s", "rd<",
		groupOnS, blockOnS, "r: PEXPIRE s 100", "r: PEXPIRE s 100000", "r: PEXPIRE s 200", "rd<<",
		groupOnS, blockOnS, "r: MULTI", "r: PEXPIRE s 200", "r: EXEC", "rd<<",
		groupOnS, blockOnS, "r: EVAL redis.call('pexpire',KEYS[1],200) 1 s", "rd<<",
	},
	"XREADGROUP released when its group is destroyed": {
		groupOnS, blockOnS, "r: XGROUP DESTROY s g", "rd<",
		"r: XGROUP CREATE s g $", blockOnS,
		"r: MULTI", "r: XGROUP DESTROY s g", "r: XGROUP CREATE s g $", "r: EXEC", "rd<",
		"r: XADD s 1-1 f v", "rd<",
	},
	"XREADGROUP released by a transaction": {
		groupOnS, blockOnS, "r: MULTI", "r: DEL s", "r: EXEC", "rd<",
		groupOnS, blockOnS, "r: MULTI", "r: DEL s", "r: SADD s m", "r: EXEC", "rd<", "r: DEL s",
		groupOnS, blockOnS, "r: MULTI", "r: DEL s", "r: XADD s 1-1 f v", "r: EXEC", "rd<", "r: DEL s",
		groupOnS, blockOnS, "r: MULTI", "r: DEL s", "r: XGROUP CREATE s g $ MKSTREAM", "r: EXEC", "rd<",
		"r: XADD s 1-1 f v", "rd<",
	},
	"XREADGROUP released by a script": {
		groupOnS, blockOnS, "r: EVAL redis.call('del',KEYS[1]) 1 s", "rd<",
		groupOnS, blockOnS, "r: EVAL redis.call('set',KEYS[1],'v') 1 s", "rd<", "r: DEL s",
		groupOnS, blockOnS, "r: EVAL redis.call('flushdb') 0", "rd<",
		groupOnS, blockOnS, "r: EVAL redis.call('xgroup','destroy',KEYS[1],'g') 1 s", "rd<",
	},
	"XREADGROUP released in RESP3": {
		"rd~ HELLO 3", groupOnS, blockOnS, "r: XADD s 1-1 f v", "rd<",
		blockOnS, "r: FLUSHALL", "rd<",
		groupOnS, blockOnS, "r: XGROUP DESTROY s g", "rd<",
	},
	"other waiters keep waiting when their key goes": {
		"r: XADD s 1-1 f v", "r: XGROUP CREATE s g $", "r: XGROUP CREATE s g2 $",
		"rd1> XREAD BLOCK 0 STREAMS s $ @1", "rd2> BLPOP l 0 @2", "rd3> XREADGROUP GROUP g c BLOCK 0 STREAMS s > @3",
		"rd4> BZPOPMIN z 0 @4", "rd5> XREADGROUP GROUP g2 c BLOCK 0 STREAMS s > @5",
		"r: MULTI", "r: DEL s", "r: SET l v", "r: SET z v", "r: EXEC", "rd1<", "rd2<", "rd3<", "rd4<", "rd5<",
		"r: FLUSHALL", "rd1<", "rd2<", "rd4<",
		"r: XADD s 2-1 f v", "r: RPUSH l a", "r: ZADD z 1 m", "rd1<", "rd2<", "rd4<",
	},
	"stream waiters past one that finds nothing are served": {
		"r: XADD s 1-1 f v", "r: XGROUP CREATE s g1 $", "r: XGROUP CREATE s g2 $",
		"rd1> XREAD BLOCK 0 STREAMS s 100-1 @1", "rd2> XREADGROUP GROUP g1 a BLOCK 0 STREAMS s > @2",
		"rd3> XREADGROUP GROUP g1 b BLOCK 0 STREAMS s > @3", "rd4> XREADGROUP GROUP g2 c BLOCK 0 STREAMS s > @4",
		"rd5> XREAD BLOCK 0 STREAMS s $ @5",
		"r: XADD s 2-1 f v", "rd1<", "rd2<", "rd3<", "rd4<", "rd5<",
		"r: XADD s 3-1 f v", "rd1<", "rd3<",
	},
}

// The consumer group g on the stream s, and a client rd blocked in
// XREADGROUP on it.
const (
	groupOnS = "r: XGROUP CREATE s g $ MKSTREAM"
	blockOnS = "rd> XREADGROUP GROUP g c BLOCK 0 STREAMS s > @1"
)

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
		case strings.HasSuffix(step, "<<"):
			out = append(out, conn(strings.TrimSuffix(step, "<<")).replyWithin(30*time.Second))
		case strings.HasSuffix(step, "<"):
			out = append(out, conn(strings.TrimSuffix(step, "<")).replyWithin(500*time.Millisecond))
		case strings.Contains(step, "~ "):
			name, rest, _ := strings.Cut(step, "~ ")
			conn(name).do(strings.Fields(rest)...)
			out = append(out, "")
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

// TestBlockedReleasedByReplicaOf: a master that becomes a replica answers
// its blocked clients with Redis 7.0's UNBLOCKED error and closes their
// connections; REPLICAOF of the master it already follows, and REPLICAOF
// NO ONE, leave a blocked XREAD waiting.
func TestBlockedReleasedByReplicaOf(t *testing.T) {
	for name, start := range map[string]func(testing.TB, ...string) *proc{"redis": startRedis, "basalt": startBasalt} {
		t.Run(name, func(t *testing.T) {
			m, p := start(t), start(t)
			admin := p.client(t, 2)
			must(t, admin.XGroupCreateMkStream(ctx, "s", "g", "$").Err())
			group, list := dial(t, p), dial(t, p)
			group.send(resp("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"))
			waitBlocked(t, admin, 1)
			list.send(resp("BLPOP", "l", "0"))
			waitBlocked(t, admin, 2)
			must(t, admin.Do(ctx, "REPLICAOF", "127.0.0.1", m.Port).Err())
			for _, c := range []*rawConn{group, list} {
				if got := c.reply(); got != "-UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)\r\n" {
					t.Errorf("a blocked client got %q", got)
				}
				if !c.closed() {
					t.Error("the released client's connection stays open")
				}
			}
			waitBlocked(t, admin, 0)
			waitFor(t, longTimeout, "the replica's link", func() bool {
				return strings.Contains(admin.Info(ctx, "replication").Val(), "master_link_status:up")
			})
			read := dial(t, p)
			read.send(resp("XREAD", "BLOCK", "0", "STREAMS", "x", "$"))
			waitBlocked(t, admin, 1)
			must(t, admin.Do(ctx, "REPLICAOF", "127.0.0.1", m.Port).Err())
			must(t, admin.Do(ctx, "REPLICAOF", "NO", "ONE").Err())
			if got := read.replyWithin(500 * time.Millisecond); got != "(no reply)" {
				t.Fatalf("a blocked XREAD got %q", got)
			}
			must(t, admin.XAdd(ctx, &redis.XAddArgs{Stream: "x", ID: "1-1", Values: []string{"f", "v"}}).Err())
			if got := read.reply(); !strings.Contains(got, "1-1") {
				t.Fatalf("XREAD served %q", got)
			}
		})
	}
}

// TestShutdownWithBlockedClients: SHUTDOWN ends the server while a client
// waits in BLPOP, and the client sees its connection closed.
func TestShutdownWithBlockedClients(t *testing.T) {
	blockingServers(t, func(t *testing.T, p *proc) {
		admin := p.client(t, 2)
		blocked := dial(t, p)
		blocked.send(resp("BLPOP", "l", "0"))
		waitBlocked(t, admin, 1)
		admin.Do(ctx, "SHUTDOWN", "NOSAVE") // no reply: the server closes
		p.Wait(30 * time.Second)
		if !blocked.closed() {
			t.Error("the blocked client's connection stays open")
		}
	})
}
